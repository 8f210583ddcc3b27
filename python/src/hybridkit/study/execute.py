"""Running a plan from the command line's target: the cluster and launcher it names
(target), the plan listing (print_plan), execution under the results lock with a progress
bar or one line per run (execute_plan), and the failure summary (report_failures).
Shared by `hybridkit sweep` and `hybridkit study`."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.appdesc import AppDesc
from hybridkit.errors import HKError, UsageError
from hybridkit.launch.cpuset import local_cores
from hybridkit.launch.launchers import (Vcluster, VclusterSrun, default_mpi, launcher_for,
                                        slurm_allocation)
from hybridkit.paths import find_binary, vcluster_nodes, vcluster_slurm, vcluster_tool
from hybridkit.study.plan import Cluster, PlannedRun
from hybridkit.study.sweep import STATUS_USAGE, Executor, Outcome, ResultsLock, plan_table


def vcluster_launcher(ns: argparse.Namespace, mpi: str):
    """The launcher across ns.vcluster emulated nodes, bringing the cluster up if needed:
    Open MPI's mpirun (`--launcher mpirun`), or the cluster's own Slurm (`--launcher srun`:
    `vcluster up N --slurm`, Open MPI or MPICH)."""
    if ns.hosts or ns.hostfile or ns.launcher not in ("mpirun", "srun"):
        raise UsageError("--vcluster chooses the hosts itself (--launcher mpirun or srun)")
    slurm = ns.launcher == "srun"
    if mpi != "openmpi" and not slurm:
        raise UsageError("--vcluster runs Open MPI's mpirun (MPICH: --launcher srun, or "
                         "tools/vcluster/vcluster mpiexec-mpich, see docs/vcluster.md)")
    tool = vcluster_tool()
    up = vcluster_nodes()
    rate = getattr(ns, "rate", None)
    if up and up != ns.vcluster:
        raise HKError(f"an emulated cluster of {up} nodes is up; use --vcluster {up} or run "
                      f"'{tool} down' first")
    # `up` reuses a healthy cluster of the same size and sets its shaping to what it is asked:
    # with --rate it always runs (the limit set, or changed); without, a cluster that is up
    # keeps whatever shaping it has (and its Slurm, unless srun needs one that is not running)
    if (rate or not up or (slurm and not vcluster_slurm())) and not ns.dry_run:
        argv = ([str(tool), "up", str(ns.vcluster)] + (["--rate", rate] if rate else [])
                + (["--slurm"] if slurm else []))
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            why = (proc.stderr or proc.stdout).strip().splitlines()
            raise HKError(f"{' '.join(argv[1:])} failed (exit {proc.returncode}): "
                          f"{why[-1] if why else 'no message'}")
    if slurm:
        return VclusterSrun(str(tool), ns.vcluster, mpi)
    return Vcluster(str(tool), ns.vcluster)


def launcher_label(ns: argparse.Namespace) -> str:
    """The launcher as run.json and the resume key name it: `vcluster` (the emulated nodes'
    mpirun), `vcluster-srun` (their Slurm), else --launcher."""
    if getattr(ns, "vcluster", None):
        return "vcluster-srun" if ns.launcher == "srun" else "vcluster"
    return ns.launcher


def _hostfile_nodes(path: str) -> int:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        raise UsageError(f"hostfile {path} does not exist") from None
    nodes = [h for h in lines if h.strip() and not h.lstrip().startswith("#")]
    if not nodes:
        raise UsageError(f"hostfile {path} names no host")
    return len(nodes)


def target(ns: argparse.Namespace, cores: Optional[int]):
    """(Cluster, launcher, mpi) of the command line; `cores` per node if given."""
    mpi = ns.mpi or default_mpi()
    here = local_cores()
    if getattr(ns, "rate", None) and not ns.vcluster:
        raise UsageError("--rate limits the links of emulated nodes: give --vcluster N too")
    if ns.vcluster:
        launcher = vcluster_launcher(ns, mpi)
        cluster = Cluster(cores or here, ns.vcluster, emulated=True,
                          link_rate=getattr(ns, "rate", None))
    else:
        launcher = launcher_for(ns.launcher, mpi)
        if ns.hosts:
            cluster = Cluster(cores or here, len(ns.hosts), tuple(ns.hosts), remote=True)
        elif ns.hostfile:
            cluster = Cluster(cores or here, _hostfile_nodes(ns.hostfile), hostfile=ns.hostfile,
                              remote=True)
        elif ns.launcher == "srun" and slurm_allocation() is not None:
            # inside an allocation: its nodes and their CPUs, not the login node's
            hosts, cpus = slurm_allocation()
            cluster = Cluster(cores or cpus, len(hosts), hosts, remote=True)
        else:
            cluster = Cluster(here)
    return cluster, launcher, mpi


def print_plan(items: Sequence[Tuple[AppDesc, PlannedRun]], out: Path,
               executor: Optional[Executor] = None) -> None:
    rows = plan_table([r for _, r in items], out, executor.key if executor else None)
    for state, label, path in rows:
        print(f"{state:5} {label:55} {path}")
    todo = sum(1 for s, _, _ in rows if s != "done")
    print(f"# {len(rows)} runs planned, {todo} to run, {len(rows) - todo} finished before")


def execute_plan(items: Sequence[Tuple[AppDesc, PlannedRun]], executor: Executor, out: Path,
                 lock: bool = True) -> List[Outcome]:
    """Run the plan, holding the lock on `out`: a rich progress bar per run on a terminal,
    else one line per run (id, status, seconds). Ctrl-C (SIGINT) stops the current run
    (marked interrupted), keeps the finished ones and exits 130. After a run whose app
    rejected its arguments (usage-error) no other run of that app is started: the others
    would fail the same way (their number is the outcome's not_started)."""
    if lock:
        with ResultsLock(out):
            return execute_plan(items, executor, out, lock=False)
    if sys.stdout.isatty():
        outcomes = _with_progress(items, executor, out)
    else:
        outcomes = _with_lines(items, executor, out)
    done = {(o.run.app, o.run.run_id, o.run.repeat) for o in outcomes}
    for o in outcomes:
        if o.status == STATUS_USAGE:
            o.not_started = sum(1 for _, r in items if r.app == o.run.app
                                and (r.app, r.run_id, r.repeat) not in done)
    return outcomes


def _stopped(run: PlannedRun, outcomes: Sequence[Outcome]) -> bool:
    """Whether an earlier run of the app rejected its arguments (usage-error)."""
    return any(o.status == STATUS_USAGE and o.run.app == run.app for o in outcomes)


def _line(outcome: Outcome) -> str:
    r = outcome.run
    if outcome.status == "skipped":
        return f"{r.app}/{r.run_id} skipped (done before)"
    msg = f" {outcome.message[:100]}" if outcome.status not in ("ok", "skipped") else ""
    if outcome.status == STATUS_USAGE:  # the app's line is said once, by report_failures
        msg = " (the app rejected its arguments)"
    busy = " (busy machine)" if outcome.busy else ""
    return f"{r.app}/{r.run_id} {outcome.status} {outcome.duration_s:.1f} s{busy}{msg}"


def _interrupted(done: int, total: int, out: Path) -> None:
    print(f"# interrupted: {done} of {total} runs finished and kept in {out}; the same "
          f"command resumes", file=sys.stderr, flush=True)


def _with_lines(items, executor: Executor, out: Path) -> List[Outcome]:
    outcomes: List[Outcome] = []
    print(f"# {len(items)} runs, results in {out}", flush=True)
    for app, run in items:
        if _stopped(run, outcomes):
            continue
        try:
            outcome = executor.execute(app, run, out)
        except KeyboardInterrupt:
            print(f"{run.app}/{run.run_id} interrupted", flush=True)
            _interrupted(len(outcomes), len(items), out)
            raise
        print(_line(outcome), flush=True)
        outcomes.append(outcome)
    return outcomes


def _with_progress(items, executor: Executor, out: Path) -> List[Outcome]:
    from rich.console import Console
    from rich.progress import (BarColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)

    console = Console(highlight=False)
    outcomes: List[Outcome] = []
    columns = (SpinnerColumn(finished_text="[green]\u2713"), TextColumn("{task.description}"),
               BarColumn(bar_width=12), TimeElapsedColumn(), TextColumn("{task.fields[note]}"))
    with Progress(*columns, console=console, transient=False) as progress:
        overall = progress.add_task(f"all ({len(items)} runs)", total=len(items), note="")
        for app, run in items:
            if _stopped(run, outcomes):
                progress.advance(overall)
                continue
            label = run.label()
            label = label if len(label) <= 44 else label[:43] + "\u2026"
            task = progress.add_task(label, total=None, note="")
            try:
                outcome = executor.execute(app, run, out)
            except KeyboardInterrupt:
                progress.update(task, total=1, completed=0, note="[red]interrupted")
                progress.stop()
                _interrupted(len(outcomes), len(items), out)
                raise
            mark = "" if outcome.status in ("ok", "skipped") else "[red]"
            note = "skipped (done before)" if outcome.status == "skipped" else \
                f"{mark}{outcome.status} {outcome.message[:60]}".rstrip()
            if outcome.status == STATUS_USAGE:
                note = f"{mark}{outcome.status} (the app rejected its arguments)"
            if outcome.busy:
                note += " [yellow](busy machine)"
            progress.update(task, total=1, completed=1, note=note)
            progress.advance(overall)
            outcomes.append(outcome)
    return outcomes


def _usage_text(o: Outcome) -> str:
    rest = (f"; the other {o.not_started} run(s) of {o.run.app} were not started"
            if o.not_started else "")
    return (f"{o.run.label()}: the app rejected its arguments ({o.message}){rest}: fix the "
            f"parameters (see {o.run_dir})")


def binaries_for(apps: Sequence[AppDesc], mpi: str) -> Dict[str, Path]:
    return {a.name: find_binary(a.binary, mpi) for a in apps}


def report_failures(failed: Sequence[Outcome]) -> None:
    """One line per failed run, then one error (exit 1) if there was any. A run whose app
    rejected its arguments is an error of the command line (exit 2): its line is the app's
    message, said once, with the runs of the app that were therefore not started."""
    usage = [o for o in failed if o.status == STATUS_USAGE]
    for o in failed:
        if o.status != STATUS_USAGE:
            print(f"# failed: {o.run.label()}: {o.status}: {o.message} (see {o.run_dir})",
                  file=sys.stderr)
    for o in usage[1:]:
        print(f"hybridkit: error: {_usage_text(o)}", file=sys.stderr)
    if usage:
        raise UsageError(_usage_text(usage[0]))
    if failed:
        raise HKError(f"{len(failed)} run(s) failed; they are kept and will be re-run by the "
                      f"same command")
