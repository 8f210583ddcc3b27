"""Run directories: one per launch, enough to rebuild any report without re-running.

    <results>/runs/20261121-060000-hk-topology-2x1[-mode][-2]/
        command.txt    the launch line, shell-quoted (env assignments first)
        env.json       {"launcher": variables set for the launcher, "ranks": OMP_* of every rank}
        stdout.txt     written as it arrives (and echoed to the terminal)
        stderr.txt     likewise
        records.jsonl  written by the binary (--output)
        run.json       argv, np, threads, mode, bind, mpi, launcher, exit code, times
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import signal
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional, TextIO

from hybridkit.errors import HKError

STAMP_FORMAT = "%Y%m%d-%H%M%S"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def run_dir_name(binary: str, np: int, threads: int, mode: Optional[str],
                 when: Optional[datetime] = None) -> str:
    """`<UTC stamp>-<binary>-<R>x<T>[-<mode>]`."""
    stamp = (when or utc_now()).strftime(STAMP_FORMAT)
    name = f"{stamp}-{Path(binary).name}-{np}x{threads}"
    return f"{name}-{mode}" if mode else name


def create_run_dir(results: Path, name: str) -> Path:
    """Make results/runs/NAME, or NAME-2, NAME-3, ... if it exists already."""
    runs = results / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10000):
        path = runs / (name if n == 1 else f"{name}-{n}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"too many run directories named {runs / name}*")


# bytes the first write of a run.json keeps (trailing blanks, still valid JSON) so that its
# final status can be written in place when the disk has filled up meanwhile
RESERVE = 8192
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def write_json(path: Path, data: Dict[str, Any], reserve: int = 0) -> None:
    """Write JSON atomically (a temporary file renamed over the old one), padded with blanks
    to `reserve` bytes. On a full disk the temporary file cannot be written: the old file is
    then overwritten in place, within the blocks it already holds, if the new text fits."""
    text = (json.dumps(data, indent=2, sort_keys=False) + "\n").encode()
    text += b" " * (reserve - len(text)) if reserve > len(text) else b""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(text)
        os.replace(tmp, path)
        return
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.errno not in FULL:
            raise
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        body = text.rstrip() + b"\n"
        if len(body) > size:
            raise HKError(f"{path}: {os.strerror(exc.errno)}: cannot record "
                          f"{len(body)} bytes") from None
        with open(path, "r+b") as f:
            f.write(body + b" " * (size - len(body)))


def write_launch(run_dir: Path, launch: Any) -> None:
    """command.txt (the shell line) and env.json of a hybridkit.launch.launchers.Launch."""
    (run_dir / "command.txt").write_text(launch.shell_line() + "\n")
    write_json(run_dir / "env.json", {"launcher": launch.env, "ranks": launch.rank_env})


def _pump(fd: int, log_path: Path, echo: TextIO, lost: List[str]) -> None:
    """Copy a pipe to a file and to the terminal, chunk by chunk, as it arrives. The pipe is
    drained to its end whatever happens to the file or the terminal (a full disk, a closed
    terminal), so the program is never blocked on it; what could not be kept is said in
    `lost`."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    kept = 0
    log: Optional[Any] = None
    try:
        log = open(log_path, "wb", buffering=0)
    except OSError as exc:
        lost.append(f"{log_path.name}: {exc.strerror}: output not kept")
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        if log is not None:
            try:
                rest = chunk
                while rest:
                    n = log.write(rest)
                    kept += n
                    rest = rest[n:]
            except OSError as exc:
                lost.append(f"{log_path.name}: {exc.strerror}: output after {kept} bytes "
                            f"not kept")
                log.close()
                log = None
        try:
            echo.write(decoder.decode(chunk))
            echo.flush()
        except (OSError, ValueError):
            pass
    try:
        tail = decoder.decode(b"", final=True)
        if tail:
            echo.write(tail)
            echo.flush()
    except (OSError, ValueError):
        pass
    if log is not None:
        log.close()
    os.close(fd)


def exit_status(returncode: int) -> int:
    """A shell-style exit status: 128+N for a child killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode


class TimedOut(Exception):
    """run_streaming stopped the program after its timeout; carries its exit status."""

    def __init__(self, code: int, timeout: float) -> None:
        super().__init__(f"no end after {timeout:g} s")
        self.code, self.timeout = code, timeout


def run_streaming(argv: List[str], env: Dict[str, str], stdout_path: Path, stderr_path: Path,
                  out: Optional[TextIO] = None, err: Optional[TextIO] = None,
                  lost: Optional[List[str]] = None, timeout: Optional[float] = None,
                  grace: float = 1.5) -> int:
    """Run argv with env added to ours; tee stdout/stderr to files and the terminal. Output
    the files could not keep (full disk) is said in `lost`; the program is never blocked.
    With `timeout` the program runs in its own process group (a launcher and its ranks),
    which gets SIGTERM (then SIGKILL, `grace` seconds apart) after `timeout` seconds, and
    TimedOut is raised once its output is saved."""
    out = out or sys.stdout
    err = err or sys.stderr
    lost = [] if lost is None else lost
    group = timeout is not None
    proc = subprocess.Popen(argv, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=group)
    pumps = [threading.Thread(target=_pump, args=(os.dup(stream.fileno()), path, echo, lost),
                              daemon=True)
             for stream, path, echo in ((proc.stdout, stdout_path, out),
                                        (proc.stderr, stderr_path, err))]
    proc.stdout.close()
    proc.stderr.close()
    for pump in pumps:
        pump.start()
    timed_out = False
    try:
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            returncode = _stop_group(proc, signal.SIGTERM, grace)
    except KeyboardInterrupt:
        if group:
            _signal_group(proc, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        try:
            returncode = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            if group:
                _signal_group(proc, signal.SIGKILL)
            proc.kill()
            returncode = proc.wait()
    for pump in pumps:
        pump.join()
    if timed_out:
        raise TimedOut(exit_status(returncode), timeout)
    return exit_status(returncode)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stop_group(proc: subprocess.Popen, first: int, grace: float) -> int:
    """Send `first` to the child's process group, then SIGTERM and SIGKILL, each after
    `grace` seconds; return its return code."""
    for sig in (first, signal.SIGTERM, signal.SIGKILL):
        _signal_group(proc, sig)
        try:
            return proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
    return proc.wait()


class Interrupted(KeyboardInterrupt):
    """The run was stopped by SIGINT; carries its exit status and the stop time."""

    def __init__(self, code: int) -> None:
        super().__init__()
        self.code = code


def run_supervised(argv: List[str], env: Dict[str, str], stdout_path: Path, stderr_path: Path,
                   timeout: Optional[float] = None, grace: float = 1.5) -> tuple:
    """Run argv in its own process group (a launcher and everything it starts), output to
    the files; return (exit status, None | "timeout").

    The child does not see a Ctrl-C of the terminal (its own session): on KeyboardInterrupt
    (SIGINT to us or to our process group) the child's group gets SIGINT, then SIGTERM and
    SIGKILL `grace` seconds apart, and Interrupted is raised. After `timeout` seconds the
    group is stopped the same way (SIGTERM first) and "timeout" returned."""
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(argv, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        try:
            try:
                return exit_status(proc.wait(timeout=timeout)), None
            except subprocess.TimeoutExpired:
                return exit_status(_stop_group(proc, signal.SIGTERM, grace)), "timeout"
        except KeyboardInterrupt:
            raise Interrupted(exit_status(_stop_group(proc, signal.SIGINT, grace))) from None
        finally:
            if proc.poll() is None:  # any other exception: leave nothing behind
                _stop_group(proc, signal.SIGTERM, grace)
