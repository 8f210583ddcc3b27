"""Sweep plans: an app description's parameter product, and running it resumably.

    layouts (ranks x threads)  x  param values (declared order)  x  repeats
        layouts: every factorisation R x T = c of each core count c per node, R per node,
                 so R x nodes ranks in all; or the description's fixed ranks (per node)
                 and threads
        filtered by the description's constraints (pure: 1 thread, task: >= 2, ...)

Each planned run has a stable id, `<R>x<T>-<param>_<value>-...[-r<k>]`, and its own
directory <out>/runs/<app>/<id>/ (the files of hybridkit.rundir plus `run.json` fields
app, id, params, status). A run whose run.json says status "ok" is finished and skipped
when the sweep is run again; an unfinished or failed one is moved aside to
<id>.attempt-N (kept, and reported as incomplete) and run anew.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from hybridkit import __version__
from hybridkit.appdesc import AppDesc, ParamSet
from hybridkit.errors import HKError, UsageError
from hybridkit.launch import Launcher, LaunchSpec
from hybridkit.rundir import iso, run_streaming, utc_now, write_json, write_launch

STATUS_OK = "ok"
SIGINT_STATUS = 130  # exit status of a run stopped with Ctrl-C (128 + SIGINT)


@dataclass(frozen=True)
class Cluster:
    """Where runs go: `nodes` nodes of `cores` cores each (1 node: this machine)."""

    cores: int
    nodes: int = 1
    hosts: Tuple[str, ...] = ()
    hostfile: Optional[str] = None
    remote: bool = False  # cores were not checked against this machine


@dataclass(frozen=True)
class PlannedRun:
    app: str
    ranks: int  # in all (over the nodes)
    threads: int
    params: Tuple[Tuple[str, Any], ...]
    repeat: int = 1
    repeats: int = 1
    oversubscribe: bool = False

    @property
    def run_id(self) -> str:
        parts = [f"{self.ranks}x{self.threads}"]
        parts += [f"{k}_{_slug(v)}" for k, v in self.params]
        if self.repeats > 1:
            parts.append(f"r{self.repeat}")
        return "-".join(parts)

    @property
    def param_dict(self) -> Dict[str, Any]:
        return dict(self.params)

    def label(self) -> str:
        values = " ".join(f"{k}={v}" for k, v in self.params)
        rep = f" #{self.repeat}" if self.repeats > 1 else ""
        return f"{self.app} {self.ranks}x{self.threads} {values}{rep}".rstrip()


def _slug(value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "", str(value).replace(",", "+").replace(":", "-")) or "x"


def divisors(n: int) -> List[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def factorisations(cores: int) -> List[Tuple[int, int]]:
    """Every (ranks, threads) with ranks x threads == cores, most ranks first."""
    if cores < 1:
        raise UsageError(f"core count must be >= 1, got {cores}")
    return [(cores // t, t) for t in divisors(cores)]


def core_counts(tokens: Iterable[Any], max_cores: int) -> List[int]:
    """Resolve 'max', 'powers' (1, 2, 4, ... and max) and integers to core counts."""
    out: List[int] = []
    for tok in tokens:
        if tok == "max":
            counts = [max_cores]
        elif tok == "powers":
            counts = [2 ** k for k in range(int(math.log2(max_cores)) + 1)] + [max_cores]
        elif isinstance(tok, int) and tok >= 1:
            counts = [tok]
        else:
            raise HKError(f"bad core count {tok!r} (use 'max', 'powers' or a positive integer)")
        out += [c for c in counts if c not in out]
    return sorted(set(out))


def _layouts(pset: ParamSet, cluster: Cluster, cores: Optional[Sequence[int]]
             ) -> List[Tuple[int, int]]:
    """(ranks in all, threads) of one parameter set."""
    if pset.fixed_layout and not cores:
        threads = [cluster.cores if t == "max" else int(t) for t in pset.threads]
        return [(int(r) * cluster.nodes, t) for r in pset.ranks for t in threads]
    counts = list(cores) if cores else core_counts(pset.cores or ("max",), cluster.cores)
    out: List[Tuple[int, int]] = []
    for c in counts:
        out += [(r * cluster.nodes, t) for r, t in factorisations(c)]
    return out


def expand(app: AppDesc, set_name: str, cluster: Cluster,
           cores: Optional[Sequence[int]] = None,
           overrides: Optional[Mapping[str, Sequence[Any]]] = None,
           repeats: int = 1) -> List[PlannedRun]:
    """The runs of one app: layouts x parameter product x repeats, constraints applied.

    `cores` (per node) replaces the set's layout rule with factorisations; `overrides`
    replaces the values of named parameters (UsageError for a parameter the app lacks)."""
    pset = app.sets[set_name]
    params = dict(pset.params)
    for name, values in (overrides or {}).items():
        if name not in params:
            known = ", ".join(params) or "none"
            raise UsageError(f"app {app.name!r} has no parameter {name!r} (its parameters: "
                             f"{known})")
        allowed = app.choices.get(name)
        bad = [v for v in values if allowed and v not in allowed]
        if bad:
            raise UsageError(f"unknown {name} {bad[0]!r} for {app.name} (choose from "
                             f"{', '.join(map(str, allowed))})")
        params[name] = tuple(values)
    if cluster.nodes > 1:  # real nodes: no virtual-node parameters
        for name in app.single_node_params():
            params.pop(name, None)
    for c in cores or ():
        if c > cluster.cores and not cluster.remote:
            raise UsageError(f"--cores {c}: this machine has {cluster.cores} cores "
                             f"(use --hosts, --hostfile or --vcluster for more nodes)")
    names = list(params)
    runs: List[PlannedRun] = []
    seen = set()
    for ranks, threads in _layouts(pset, cluster, cores):
        per_node = math.ceil(ranks / cluster.nodes) * threads
        over = per_node > cluster.cores and not cluster.remote
        for values in itertools.product(*(params[n] for n in names)):
            combo = dict(zip(names, values))
            if not app.allows(combo, ranks, threads):
                continue
            for k in range(1, repeats + 1):
                run = PlannedRun(app.name, ranks, threads, tuple(combo.items()), k, repeats,
                                 over)
                if run.run_id not in seen:  # the same layout from two core counts
                    seen.add(run.run_id)
                    runs.append(run)
    return runs


def check_fits(runs: Sequence[PlannedRun], app: AppDesc, cluster: Cluster) -> List[str]:
    """Notes for runs that need more cores than there are; UsageError if not allowed."""
    over = [r for r in runs if r.oversubscribe]
    if over and not app.oversubscribe:
        r = over[0]
        raise UsageError(f"{app.name}: {r.ranks} ranks x {r.threads} threads need "
                         f"{r.ranks * r.threads} cores, this machine has {cluster.cores}")
    return [f"{app.name}: {len(over)} run(s) oversubscribed ({cluster.cores} cores): "
            f"binding off, timings not representative"] if over else []


# --- running ----------------------------------------------------------------------------

def run_dir_of(out: Path, run: PlannedRun) -> Path:
    return out / "runs" / run.app / run.run_id


def read_run_json(run_dir: Path) -> Optional[Dict[str, Any]]:
    try:
        return json.loads((run_dir / "run.json").read_text())
    except (OSError, ValueError):
        return None


def is_finished(run_dir: Path) -> bool:
    info = read_run_json(run_dir)
    return bool(info) and info.get("status") == STATUS_OK


def _move_aside(run_dir: Path) -> None:
    for n in range(1, 1000):
        target = run_dir.with_name(f"{run_dir.name}.attempt-{n}")
        if not target.exists():
            run_dir.rename(target)
            return
    raise HKError(f"too many attempts of {run_dir}")


@dataclass
class Outcome:
    run: PlannedRun
    run_dir: Path
    status: str  # ok, skipped (finished before), failed, invalid-records
    message: str = ""
    duration_s: float = 0.0


@dataclass
class Executor:
    """Runs planned runs of apps through one launcher, each in its own directory."""

    launcher: Launcher
    mpi: str
    cluster: Cluster
    bind: str = "compact"
    launcher_name: str = "mpirun"
    binaries: Dict[str, Path] = field(default_factory=dict)  # app name -> binary

    def spec(self, app: AppDesc, run: PlannedRun, records: Path) -> LaunchSpec:
        args = app.argv(run.param_dict, run.ranks, run.threads) + ["--output", str(records)]
        return LaunchSpec(binary=str(self.binaries[app.name]), args=args, np=run.ranks,
                          threads=run.threads, bind=self.bind, mpi=self.mpi,
                          hosts=self.cluster.hosts, hostfile=self.cluster.hostfile,
                          oversubscribe=run.oversubscribe,
                          cores_per_host=None if self.cluster.remote else self.cluster.cores,
                          env=app.rank_env(run.param_dict, run.ranks, run.threads,
                                           self.cluster.nodes))

    def execute(self, app: AppDesc, run: PlannedRun, out: Path) -> Outcome:
        from hybridkit.records import load_records

        run_dir = run_dir_of(out, run)
        if is_finished(run_dir):
            return Outcome(run, run_dir, "skipped", "finished before")
        if run_dir.exists():
            _move_aside(run_dir)
        run_dir.mkdir(parents=True)
        records_path = run_dir / "records.jsonl"
        launch = self.launcher.build(self.spec(app, run, records_path))
        write_launch(run_dir, launch)
        info: Dict[str, Any] = {
            "hybridkit_version": __version__, "app": app.name, "id": run.run_id,
            "binary": app.binary, "argv": launch.argv, "np": run.ranks,
            "threads": run.threads, "params": run.param_dict, "repeat": run.repeat,
            "mode": run.param_dict.get("mode"),
            "bind": "none" if run.oversubscribe else self.bind, "mpi": self.mpi,
            "launcher": self.launcher_name, "nodes": self.cluster.nodes,
            "hosts": list(self.cluster.hosts) or None, "hostfile": self.cluster.hostfile,
            "oversubscribe": run.oversubscribe, "status": "running", "exit_code": None,
            "start": iso(utc_now()), "end": None, "duration_s": None, "records": None,
            "records_valid": None, "message": None,
        }
        write_json(run_dir / "run.json", info)
        t0 = time.monotonic()
        with open(os.devnull, "w") as sink:  # the files keep the output, not the terminal
            code = run_streaming(launch.argv, launch.env, run_dir / "stdout.txt",
                                 run_dir / "stderr.txt", out=sink, err=sink)
        duration = round(time.monotonic() - t0, 3)
        status, message, count, valid = STATUS_OK, "", 0, True
        try:
            count = len(load_records(records_path))
        except HKError as exc:
            status, message, valid = "invalid-records", str(exc), False
        if code != 0:
            status = "failed"
            tail = (run_dir / "stderr.txt").read_text(errors="replace").strip().splitlines()
            message = f"exit code {code}" + (f": {tail[-1][:200]}" if tail else "")
        if code == SIGINT_STATUS:
            status, message = "interrupted", "interrupted (Ctrl-C)"
        info.update(status=status, exit_code=code, end=iso(utc_now()), duration_s=duration,
                    records=count, records_valid=valid, message=message or None)
        write_json(run_dir / "run.json", info)
        if status == "interrupted":  # stop the sweep; this run is redone next time
            raise KeyboardInterrupt
        return Outcome(run, run_dir, status, message, duration)


def plan_table(runs: Sequence[PlannedRun], out: Path) -> List[Tuple[str, str, str]]:
    """(state, label, directory) of every planned run, for --dry-run."""
    rows = []
    for r in runs:
        d = run_dir_of(out, r)
        state = "done" if is_finished(d) else ("redo" if d.exists() else "todo")
        rows.append((state, r.label(), str(d)))
    return rows


def run_all(items: Sequence[Tuple[AppDesc, PlannedRun]], executor: Executor, out: Path,
            progress: Optional[Callable[[str, Any], None]] = None) -> List[Outcome]:
    """Execute every (app, run); `progress(event, payload)` gets 'start'/'done' events."""
    outcomes = []
    for app, run in items:
        if progress:
            progress("start", run)
        outcome = executor.execute(app, run, out)
        if progress:
            progress("done", outcome)
        outcomes.append(outcome)
    return outcomes
