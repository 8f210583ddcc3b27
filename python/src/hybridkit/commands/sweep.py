"""`hybridkit sweep APP --cores C ...`: an app's parameter product, one directory per run.

    description (apps/APP.toml) + --cores/--modes/--sizes/--param --> plan (hybridkit.sweep)
        --dry-run: list it (todo / done / redo) and stop
    --> each run through the launcher (progress bar per run), finished runs skipped
    --> summary: ok / failed per run, exit 1 if any failed
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit import appdesc
from hybridkit.appdesc import AppDesc
from hybridkit.commands.run import add_launch_arguments, positive_int, vcluster_launcher
from hybridkit.cpuset import local_cores
from hybridkit.errors import HKError, UsageError
from hybridkit.launch import default_mpi, launcher_for
from hybridkit.paths import find_binary
from hybridkit.sweep import (Cluster, Executor, Outcome, PlannedRun, ResultsLock, check_fits,
                             expand, plan_table)

HELP = "run an app over every ranks x threads factorisation of C cores x modes x sizes"
DESCRIPTION = """\
Plan and run APP (a description in hybridkit/apps/APP.toml) for every factorisation
ranks x threads = C of --cores C (per node: with --hosts/--hostfile/--vcluster N each node
gets R ranks, so R x N ranks in all), times the parameter product of the description's
full set (--quick: its quick set), --modes and --sizes replacing its 'mode' and 'size'
values, --param NAME=V1,V2 any other. Each run gets its own directory
OUT/runs/APP/<R>x<T>-<params>[-r<k>]; a sweep run again skips the runs that finished
(status ok in run.json, made with the same nodes, launcher and binding) and re-runs the
others (the old attempt is kept beside it). A lock on OUT refuses a second sweep into it;
Ctrl-C stops the current run (marked interrupted), keeps the finished ones, exits 130; a
run longer than --timeout (default: the description's) is stopped and marked 'timeout'.
A run made while other programs used more than 10 % of the machine (from /proc/stat) is
repeated up to twice, then kept flagged busy. Without a terminal: one line per run.

examples:
  hybridkit sweep jacobi --cores 2 --modes pure,masteronly,task --sizes 64,128 --dry-run
  hybridkit sweep jacobi --cores 8 --hosts n1,n2 --launcher srun --repeat 3"""


def csv_list(text: str) -> List[str]:
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"empty item in {text!r}")
    return items


def param_override(text: str) -> Tuple[str, List[str]]:
    name, sep, values = text.partition("=")
    if not sep or not name.strip() or not values:
        raise argparse.ArgumentTypeError(f"expected NAME=V1,V2,..., got {text!r}")
    return name.strip(), csv_list(values)


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """Where and how runs are launched (shared by sweep and study)."""
    add_launch_arguments(parser)
    parser.add_argument("--timeout", type=positive_float, metavar="S",
                        help="seconds one run may take before it is stopped and marked "
                             "'timeout' (default: the app description's 'timeout')")
    parser.add_argument("--dry-run", action="store_true", help="list the plan and stop")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


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
    if ns.vcluster:
        launcher = vcluster_launcher(ns, mpi)
        cluster = Cluster(cores or here, ns.vcluster, emulated=True)
    else:
        launcher = launcher_for(ns.launcher, mpi)
        if ns.hosts:
            cluster = Cluster(cores or here, len(ns.hosts), tuple(ns.hosts), remote=True)
        elif ns.hostfile:
            cluster = Cluster(cores or here, _hostfile_nodes(ns.hostfile), hostfile=ns.hostfile,
                              remote=True)
        else:
            cluster = Cluster(here)
    return cluster, launcher, mpi


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("app", metavar="APP", help="app description name (e.g. jacobi)")
    parser.add_argument("--cores", type=positive_int, metavar="C",
                        help="cores per node to factorise (default: the description's)")
    parser.add_argument("--modes", type=csv_list, metavar="M1,M2", help="values of 'mode'")
    parser.add_argument("--sizes", type=csv_list, metavar="S1,S2", help="values of 'size'")
    parser.add_argument("--param", type=param_override, action="append", default=[],
                        metavar="NAME=V1,V2", help="values of any other parameter")
    parser.add_argument("--repeat", type=positive_int, default=1, metavar="K",
                        help="run every configuration K times (default: 1)")
    parser.add_argument("--quick", action="store_true",
                        help="start from the description's quick set instead of the full one")
    parser.add_argument("-o", "--out", type=Path, metavar="DIR",
                        help="sweep directory (default: results/sweep-APP)")
    add_target_arguments(parser)


def _typed(values: Sequence[str]) -> List[object]:
    return [int(v) if v.lstrip("-").isdigit() else v for v in values]


def overrides(ns: argparse.Namespace) -> Dict[str, List[object]]:
    out: Dict[str, List[object]] = {}
    if ns.modes:
        out["mode"] = list(ns.modes)
    if ns.sizes:
        out["size"] = _typed(ns.sizes)
    for name, values in ns.param:
        out[name] = _typed(values)
    return out


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
    (marked interrupted), keeps the finished ones and exits 130."""
    if lock:
        with ResultsLock(out):
            return execute_plan(items, executor, out, lock=False)
    if sys.stdout.isatty():
        return _with_progress(items, executor, out)
    return _with_lines(items, executor, out)


def _line(outcome: Outcome) -> str:
    r = outcome.run
    if outcome.status == "skipped":
        return f"{r.app}/{r.run_id} skipped (done before)"
    msg = f" {outcome.message[:100]}" if outcome.status not in ("ok", "skipped") else ""
    busy = " (busy machine)" if outcome.busy else ""
    return f"{r.app}/{r.run_id} {outcome.status} {outcome.duration_s:.1f} s{busy}{msg}"


def _interrupted(done: int, total: int, out: Path) -> None:
    print(f"# interrupted: {done} of {total} runs finished and kept in {out}; the same "
          f"command resumes", file=sys.stderr, flush=True)


def _with_lines(items, executor: Executor, out: Path) -> List[Outcome]:
    outcomes: List[Outcome] = []
    print(f"# {len(items)} runs, results in {out}", flush=True)
    for app, run in items:
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
            if outcome.busy:
                note += " [yellow](busy machine)"
            progress.update(task, total=1, completed=1, note=note)
            progress.advance(overall)
            outcomes.append(outcome)
    return outcomes


def binaries_for(apps: Sequence[AppDesc], mpi: str) -> Dict[str, Path]:
    return {a.name: find_binary(a.binary, mpi) for a in apps}


def run(ns: argparse.Namespace) -> int:
    app = appdesc.get(ns.app)
    cluster, launcher, mpi = target(ns, ns.cores)
    out = (ns.out or Path("results") / f"sweep-{app.name}").resolve()
    set_name = "quick" if ns.quick else "full"
    runs = expand(app, set_name, cluster, [ns.cores] if ns.cores else None, overrides(ns),
                  ns.repeat)
    if not runs:
        raise UsageError(f"the plan of {app.name} is empty (constraints exclude every "
                         f"combination of these modes and layouts)")
    for note in check_fits(runs, app, cluster):
        print(f"hybridkit: note: {note}", file=sys.stderr)
    items = [(app, r) for r in runs]
    binaries = binaries_for([app], mpi)
    executor = Executor(launcher, mpi, cluster, ns.bind,
                        "vcluster" if ns.vcluster else ns.launcher, binaries, ns.timeout)
    if ns.dry_run:
        print_plan(items, out, executor)
        return 0
    launcher.check_available()
    outcomes = execute_plan(items, executor, out)
    failed = [o for o in outcomes if o.status not in ("ok", "skipped")]
    print(f"# {len(outcomes) - len(failed)} of {len(outcomes)} runs ok; results in {out}")
    report_failures(failed)
    return 0


def report_failures(failed: Sequence[Outcome]) -> None:
    """One line per failed run, then one error (exit 1) if there was any."""
    for o in failed:
        print(f"# failed: {o.run.label()}: {o.status}: {o.message} (see {o.run_dir})",
              file=sys.stderr)
    if failed:
        raise HKError(f"{len(failed)} run(s) failed; they are kept and will be re-run by the "
                      f"same command")
