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
from hybridkit.sweep import (Cluster, Executor, Outcome, PlannedRun, check_fits, expand,
                             plan_table)

HELP = "run an app over every ranks x threads factorisation of C cores x modes x sizes"
DESCRIPTION = """\
Plan and run APP (a description in hybridkit/apps/APP.toml) for every factorisation
ranks x threads = C of --cores C (per node: with --hosts/--hostfile/--vcluster N each node
gets R ranks, so R x N ranks in all), times the parameter product of the description's
full set (--quick: its quick set), --modes and --sizes replacing its 'mode' and 'size'
values, --param NAME=V1,V2 any other. Each run gets its own directory
OUT/runs/APP/<R>x<T>-<params>[-r<k>]; a sweep run again skips the runs that finished
(status ok in run.json) and re-runs the others (the old attempt is kept beside it).

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
    parser.add_argument("--dry-run", action="store_true", help="list the plan and stop")


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
        cluster = Cluster(cores or here, ns.vcluster)
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


def print_plan(items: Sequence[Tuple[AppDesc, PlannedRun]], out: Path) -> None:
    rows = plan_table([r for _, r in items], out)
    for state, label, path in rows:
        print(f"{state:5} {label:55} {path}")
    todo = sum(1 for s, _, _ in rows if s != "done")
    print(f"# {len(rows)} runs planned, {todo} to run, {len(rows) - todo} finished before")


def execute_plan(items: Sequence[Tuple[AppDesc, PlannedRun]], executor: Executor, out: Path
                 ) -> List[Outcome]:
    """Run the plan with a rich progress bar per run; return the outcomes."""
    from rich.console import Console
    from rich.progress import (BarColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 110)
    outcomes: List[Outcome] = []
    columns = (SpinnerColumn(finished_text="[green]\u2713"), TextColumn("{task.description}"),
               BarColumn(bar_width=12), TimeElapsedColumn(), TextColumn("{task.fields[note]}"))
    with Progress(*columns, console=console, transient=False) as progress:
        overall = progress.add_task(f"all ({len(items)} runs)", total=len(items), note="")
        for app, run in items:
            label = run.label()
            label = label if len(label) <= 44 else label[:43] + "\u2026"
            task = progress.add_task(label, total=None, note="")
            outcome = executor.execute(app, run, out)
            mark = "" if outcome.status in ("ok", "skipped") else "[red]"
            note = "skipped (done before)" if outcome.status == "skipped" else \
                f"{mark}{outcome.status} {outcome.message[:60]}".rstrip()
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
    if ns.dry_run:
        print_plan(items, out)
        return 0
    executor = Executor(launcher, mpi, cluster, ns.bind,
                        "vcluster" if ns.vcluster else ns.launcher, binaries)
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
