"""Running a sweep plan (hybridkit.study.plan) resumably.

Each planned run has its own directory <out>/runs/<app>/<id>/ (the files of
hybridkit.study.rundir plus `run.json` fields app, id, params, status, load). A run whose
run.json says status "ok" and that was made with the same launch (nodes, hosts or emulated
nodes, launcher, binding, MPI: launch_key) is finished and skipped when the sweep is run
again; an unfinished, failed, interrupted, timed-out one, or one of another launch, is moved
aside to <id>.attempt-N (kept, and reported as incomplete) and run anew. A run made while
other programs used more than 10 % of the machine is repeated up to twice (the busy attempts
kept as <id>.busy-N) and then kept with load.busy = true.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from hybridkit import __version__
from hybridkit.appdesc import AppDesc
from hybridkit.errors import HKError
from hybridkit.launch.launchers import Launcher, LaunchSpec
from hybridkit.records import load_records
from hybridkit.study.plan import Cluster, PlannedRun, run_dir_of
from hybridkit.study.program import append_record, metric_value, program_record
from hybridkit.study.quality import FUNCTIONAL, LoadProbe, load_text
from hybridkit.study.rundir import (RESERVE, Interrupted, iso, run_supervised, utc_now, write_json,
                                    write_launch)

STATUS_OK = "ok"
STATUS_USAGE = "usage-error"  # the app rejected its arguments: the sweep of the app stops
SIGINT_STATUS = 130  # exit status of a run stopped with Ctrl-C (128 + SIGINT)






























# --- running ----------------------------------------------------------------------------



def read_run_json(run_dir: Path) -> Optional[Dict[str, Any]]:
    try:
        return json.loads((run_dir / "run.json").read_text())
    except (OSError, ValueError):
        return None


def launch_key(info: Mapping[str, Any]) -> Dict[str, Any]:
    """What a run's numbers depend on besides its app, layout and parameters: where it ran
    (nodes, hosts, emulated nodes), how it was launched and bound. Resume reuses a finished
    run only when this is the same."""
    return {"nodes": int(info.get("nodes") or 1), "hosts": list(info.get("hosts") or []),
            "hostfile": info.get("hostfile") or None, "launcher": info.get("launcher"),
            "bind": info.get("bind"), "mpi": info.get("mpi"),
            "link_rate": info.get("link_rate") or None}


def is_finished(run_dir: Path, key: Optional[Mapping[str, Any]] = None) -> bool:
    """The run finished with status ok (and, with `key`, under the same launch)."""
    info = read_run_json(run_dir)
    if not info or info.get("status") != STATUS_OK:
        return False
    return key is None or launch_key(info) == dict(key)


def _move_aside(run_dir: Path, tag: str = "attempt") -> Path:
    for n in range(1, 1000):
        target = run_dir.with_name(f"{run_dir.name}.{tag}-{n}")
        if not target.exists():
            run_dir.rename(target)
            return target
    raise HKError(f"too many attempts of {run_dir}")


# lines of launchers and MPI libraries, never the app's own reason
_LAUNCHER_LINE = re.compile(r"^(mpirun|mpiexec|prterun|prte|orterun|srun|\[|-{5,}|\*{3,}|"
                            r"Primary job|Child job|ERROR: The process|HYDRA|===)", re.I)
_APP_ERROR = re.compile(r"UNSUCCESSFUL|\berror\b|\bfailed\b|\bFAIL|\bwrong\b|"
                        r"\binvalid\b|not verified|mismatch", re.I)


def app_error_line(run_dir: Path, binary: str) -> str:
    """The app's own reason for failing: a line of its output naming the binary
    ('hk-jacobi: ...') or saying what went wrong ('Verification = UNSUCCESSFUL'), not the
    launcher's closing words; '' when there is none."""
    lines: List[str] = []
    for name in ("stdout.txt", "stderr.txt"):
        try:
            lines += (run_dir / name).read_text(errors="replace").splitlines()
        except OSError:
            pass
    lines = [l.strip() for l in lines if l.strip() and not _LAUNCHER_LINE.match(l.strip())]
    own = [l for l in lines if l.startswith(f"{binary}:") or l.startswith(f"{binary} ")]
    for group in ([l for l in own if _APP_ERROR.search(l)], own,
                  [l for l in lines if _APP_ERROR.search(l)]):
        if group:
            return group[0][:200]
    return ""


@dataclass
class Outcome:
    run: PlannedRun
    run_dir: Path
    status: str  # ok, skipped (finished before), failed, usage-error, invalid-records,
    # timeout, interrupted, no-metric (a user program whose metric was not found)
    message: str = ""
    duration_s: float = 0.0
    busy: bool = False  # an ok run made on a busy machine (never said of a failed one)
    not_started: int = 0  # usage-error: the app's runs left out after it


@dataclass
class Executor:
    """Runs planned runs of apps through one launcher, each in its own directory.

    `timeout` (seconds) overrides every description's; a run made while others used the
    machine is repeated up to `busy_retries` times (the busy attempts are kept beside it as
    <id>.busy-N), then kept and flagged; after two runs in a row stayed busy the machine is
    taken to be busy for good and runs are no longer repeated until one is quiet again."""

    launcher: Launcher
    mpi: str
    cluster: Cluster
    bind: str = "compact"
    launcher_name: str = "mpirun"
    binaries: Dict[str, Path] = field(default_factory=dict)  # app name -> binary
    timeout: Optional[float] = None
    busy_retries: int = 2
    busy_streak: int = 0  # runs in a row that stayed busy after their repeats

    def bind_used(self, run: PlannedRun) -> str:
        """The binding a run really gets: none when oversubscribed or on emulated nodes
        launched by mpirun (their Slurm binds: vcluster-srun)."""
        if run.oversubscribe or self.launcher_name == "vcluster":
            return "none"
        return self.bind

    def key(self, run: PlannedRun) -> Dict[str, Any]:
        return launch_key({"nodes": self.cluster.nodes, "hosts": list(self.cluster.hosts),
                           "hostfile": self.cluster.hostfile, "launcher": self.launcher_name,
                           "bind": self.bind_used(run), "mpi": self.mpi,
                           "link_rate": self.cluster.link_rate})

    def spec(self, app: AppDesc, run: PlannedRun, records: Path) -> LaunchSpec:
        args = app.argv(run.param_dict, run.ranks, run.threads, str(records.parent))
        if app.output == "argument":  # the hk-* binaries; a user's program gets nothing extra
            args += ["--output", str(records)]
        return LaunchSpec(binary=str(self.binaries[app.name]), args=args, np=run.ranks,
                          threads=run.threads, bind=self.bind, mpi=self.mpi,
                          hosts=self.cluster.hosts, hostfile=self.cluster.hostfile,
                          oversubscribe=run.oversubscribe,
                          cores_per_host=None if self.cluster.remote else self.cluster.cores,
                          env=app.rank_env(run.param_dict, run.ranks, run.threads,
                                           self.cluster.nodes, str(records)))

    def execute(self, app: AppDesc, run: PlannedRun, out: Path) -> Outcome:
        run_dir = run_dir_of(out, run)
        key = self.key(run)
        if is_finished(run_dir, key):
            return Outcome(run, run_dir, "skipped", "finished before")
        note = ""
        if is_finished(run_dir):
            old = launch_key(read_run_json(run_dir) or {})
            diff = ", ".join(f"{k} {old[k]} -> {key[k]}" for k in key if old[k] != key[k])
            note = f"not reused: made with another launch ({diff})"
        busy_attempts = 0
        retries = self.busy_retries if self.busy_streak < 2 else 0
        while True:
            if run_dir.exists():
                _move_aside(run_dir)
            outcome, info = self._attempt(app, run, run_dir, key)
            load = info.get("load") or {}
            if outcome.status == STATUS_OK and load.get("busy") and not run.oversubscribe \
                    and busy_attempts < retries:
                busy_attempts += 1
                aside = _move_aside(run_dir, "busy")
                info.update(status="busy-repeated", message=f"made on a busy machine "
                            f"({load_text(info)}); repeated")
                write_json(aside / "run.json", info)
                continue
            break
        if outcome.status == STATUS_OK and not run.oversubscribe:
            self.busy_streak = self.busy_streak + 1 if load.get("busy") else 0
        if load.get("busy") and retries == 0 and self.busy_retries:
            note = (note + "; " if note else "") + "not repeated: the machine stayed busy"
        if busy_attempts or note:
            info["busy_retries"] = busy_attempts
            if note:
                info["resume_note"] = note
            write_json(run_dir / "run.json", info)
        # a failed run is never "busy": its failure, not the load, is what to look at
        outcome.busy = bool(load.get("busy")) and outcome.status == STATUS_OK
        return outcome

    @staticmethod
    def _measure(app: AppDesc, run_dir: Path, records_path: Path, info: Dict[str, Any],
                 duration: float) -> str:
        """A user's program: append the runner's record of its metric (hybridkit.study.program);
        '' when done, else why the metric could not be had."""

        value, why = metric_value(app, run_dir, duration)
        if value is None:
            return why
        try:
            earlier = load_records(records_path) if records_path.is_file() else []
        except HKError:
            earlier = []
        append_record(records_path, program_record(app, info, value, duration, earlier))
        return ""

    def _attempt(self, app: AppDesc, run: PlannedRun, run_dir: Path, key: Dict[str, Any]):

        run_dir.mkdir(parents=True)
        records_path = run_dir / "records.jsonl"
        spec = self.spec(app, run, records_path)
        launch = self.launcher.build(spec)
        write_launch(run_dir, launch)
        timeout = self.timeout or app.timeout
        info: Dict[str, Any] = {
            "hybridkit_version": __version__, "app": app.name, "id": run.run_id,
            "binary": app.binary, "argv": launch.argv, "np": run.ranks,
            "program_argv": [app.binary, *spec.args],
            "threads": run.threads, "params": run.param_dict, "repeat": run.repeat,
            "mode": run.param_dict.get("mode"),
            "bind": key["bind"], "mpi": self.mpi,
            "launcher": self.launcher_name, "nodes": self.cluster.nodes,
            "hosts": list(self.cluster.hosts) or None, "hostfile": self.cluster.hostfile,
            "link_rate": self.cluster.link_rate, "oversubscribe": run.oversubscribe,
            "note": FUNCTIONAL if run.oversubscribe else None,
            "timeout_s": timeout, "status": "running", "exit_code": None,
            "start": iso(utc_now()), "end": None, "duration_s": None, "records": None,
            "records_valid": None, "message": None, "load": None,
        }
        write_json(run_dir / "run.json", info, reserve=RESERVE)
        probe = LoadProbe.start()
        t0 = time.monotonic()
        stopped: Optional[str] = None
        try:
            code, stopped = run_supervised(launch.argv, launch.env, run_dir / "stdout.txt",
                                           run_dir / "stderr.txt", timeout=timeout)
        except KeyboardInterrupt as exc:  # Interrupted, or SIGINT before the child started
            duration = round(time.monotonic() - t0, 3)
            code = exc.code if isinstance(exc, Interrupted) else None
            info.update(status="interrupted", exit_code=code, end=iso(utc_now()),
                        duration_s=duration, message="interrupted (SIGINT); redone next time")
            write_json(run_dir / "run.json", info)
            raise Interrupted(code if code is not None else SIGINT_STATUS) from None
        duration = round(time.monotonic() - t0, 3)
        if code == SIGINT_STATUS and stopped is None:  # someone sent the job SIGINT: stop too
            info.update(status="interrupted", exit_code=code, end=iso(utc_now()),
                        duration_s=duration, message="interrupted (SIGINT); redone next time")
            write_json(run_dir / "run.json", info)
            raise Interrupted(code)
        load = probe.finish(duration)
        if self.cluster.remote:  # /proc/stat is this host's, the ranks ran elsewhere
            load.update(busy=None, note="launching host only: not the nodes the ranks ran on")
        status, message, count, valid = STATUS_OK, "", 0, True
        measured = ""
        if app.program and code == 0 and stopped is None:
            measured = self._measure(app, run_dir, records_path, info, duration)
        try:
            count = len(load_records(records_path))
        except HKError as exc:
            status, message, valid = "invalid-records", str(exc), False
        if stopped == "timeout":
            status = "timeout"
            message = f"no end after {timeout:g} s (timeout), stopped"
        elif code != 0:
            status = STATUS_USAGE if app.usage_exit and code == app.usage_exit else "failed"
            why = app_error_line(run_dir, Path(app.binary).name)
            message = f"exit code {code}" + (f": {why}" if why else "")
        elif measured:
            status, message = "no-metric", measured
        info.update(status=status, exit_code=code, end=iso(utc_now()), duration_s=duration,
                    records=count, records_valid=valid, message=message or None, load=load)
        write_json(run_dir / "run.json", info)
        return Outcome(run, run_dir, status, message, duration), info


def plan_table(runs: Sequence[PlannedRun], out: Path,
               key: Optional[Callable[[PlannedRun], Dict[str, Any]]] = None
               ) -> List[Tuple[str, str, str]]:
    """(state, label, directory) of every planned run, for --dry-run."""
    rows = []
    for r in runs:
        d = run_dir_of(out, r)
        state = "done" if is_finished(d) else ("redo" if d.exists() else "todo")
        if state == "done" and key is not None and not is_finished(d, key(r)):
            state = "redo"
        rows.append((state, r.label(), str(d)))
    return rows


LOCK_NAME = ".hybridkit.lock"


class ResultsLock:
    """An exclusive lock on a results directory (flock on OUT/.hybridkit.lock, released when
    the process ends, however it ends); a second sweep or study into it is refused."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.fd: Optional[int] = None

    def __enter__(self) -> "ResultsLock":
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 400, 0).decode(errors="replace").strip()
            os.close(fd)
            raise HKError(f"another sweep or study is writing to {self.out} ({holder or 'pid ?'}); "
                          f"wait for it to end, or give another directory with -o") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {iso(utc_now())}\n".encode(), 0)
        self.fd = fd
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = None
