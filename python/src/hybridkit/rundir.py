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
import json
import os
import signal
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional, TextIO

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


def write_json(path: Path, data: Dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def write_launch(run_dir: Path, launch: Any) -> None:
    """command.txt (the shell line) and env.json of a hybridkit.launch.Launch."""
    (run_dir / "command.txt").write_text(launch.shell_line() + "\n")
    write_json(run_dir / "env.json", {"launcher": launch.env, "ranks": launch.rank_env})


def _pump(fd: int, log_path: Path, echo: TextIO) -> None:
    """Copy a pipe to a file and to the terminal, chunk by chunk, as it arrives."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    with open(log_path, "wb") as log:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            log.write(chunk)
            log.flush()
            echo.write(decoder.decode(chunk))
            echo.flush()
        tail = decoder.decode(b"", final=True)
        if tail:
            echo.write(tail)
            echo.flush()
    os.close(fd)


def exit_status(returncode: int) -> int:
    """A shell-style exit status: 128+N for a child killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def run_streaming(argv: List[str], env: Dict[str, str], stdout_path: Path, stderr_path: Path,
                  out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    """Run argv with env added to ours; tee stdout/stderr to files and the terminal."""
    out = out or sys.stdout
    err = err or sys.stderr
    proc = subprocess.Popen(argv, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pumps = [threading.Thread(target=_pump, args=(os.dup(stream.fileno()), path, echo),
                              daemon=True)
             for stream, path, echo in ((proc.stdout, stdout_path, out),
                                        (proc.stderr, stderr_path, err))]
    proc.stdout.close()
    proc.stderr.close()
    for pump in pumps:
        pump.start()
    try:
        returncode = proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        try:
            returncode = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            returncode = proc.wait()
    for pump in pumps:
        pump.join()
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
