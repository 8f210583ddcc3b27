"""`hybridkit sweep APP --cores C ...`: an app's parameter product, one directory per run.

    description (apps/APP.toml) + --cores/--modes/--sizes/--param --> plan (hybridkit.study.sweep)
        --dry-run: list it (todo / done / redo) and stop
    --> each run through the launcher (progress bar per run), finished runs skipped
    --> summary: ok / failed per run, exit 1 if any failed
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit import appcatalog, appdesc
from hybridkit.cliargs import (MAX_CORES, MAX_REPEAT, add_target_arguments, count, csv_list,
                               param_override)
from hybridkit.errors import UsageError
from hybridkit.launch.launchers import SbatchWrap
from hybridkit.report.summary import summary
from hybridkit.study.execute import (binaries_for, execute_plan, launcher_label, print_plan,
                                     report_failures, target)
from hybridkit.study.plan import check_fits, expand, run_dir_of
from hybridkit.study.sweep import Executor

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
A run whose app rejects its arguments (its exit code is the description's usage_exit, 2 for
the hk-* binaries) is marked 'usage-error' and ends the sweep (exit 2) with the app's line;
--sizes and --param values are checked against the description's [types] first, and a plan
of more than 10000 runs is refused before it is built.
A run made while other programs used more than 10 % of the machine (from /proc/stat) is
repeated up to twice, then kept flagged busy. Without a terminal: one line per run.
At the end (unless --no-summary): the answer (recommendation, winner vs runner-up with
margin and significance, best pure MPI vs best hybrid, the configurations' medians), the
measurement conditions in one line, the summary table, and OUT/report.html.

A user's program is an app too: `hybridkit profile --np R --threads T -- PROGRAM ARGS`
writes results/apps/NAME.toml (its metric: the wall time, or --metric REGEX over its
output), found by `hybridkit sweep NAME` from the same directory; nothing is appended to
its command line. The description is kept in OUT/apps/.

examples:
  hybridkit sweep jacobi --cores 2 --modes pure,masteronly,task --sizes 64,128 --dry-run
  hybridkit sweep jacobi --cores 8 --hosts n1,n2 --launcher srun --repeat 3
  hybridkit profile --np 2 --metric 'Mop/s total *= *([0-9.]+)' --unit Mop/s \\
      --higher-is-better -- ./bt-mz.W.x && hybridkit sweep bt-mz-w-x --quick --repeat 3"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("app", metavar="APP", help="app description name (e.g. jacobi)")
    parser.add_argument("--cores", type=count(MAX_CORES), metavar="C",
                        help=f"cores per node to factorise, 1 to {MAX_CORES} (default: the "
                             "description's)")
    parser.add_argument("--modes", type=csv_list, metavar="M1,M2", help="values of 'mode'")
    parser.add_argument("--sizes", type=csv_list, metavar="S1,S2", help="values of 'size'")
    parser.add_argument("--param", type=param_override, action="append", default=[],
                        metavar="NAME=V1,V2", help="values of any other parameter")
    parser.add_argument("--repeat", type=count(MAX_REPEAT), default=1, metavar="K",
                        help=f"run every configuration K times, 1 to {MAX_REPEAT} (default: 1)")
    parser.add_argument("--quick", action="store_true",
                        help="start from the description's quick set instead of the full one")
    parser.add_argument("-o", "--out", type=Path, metavar="DIR",
                        help="sweep directory (default: results/sweep-APP)")
    parser.add_argument("--no-summary", action="store_true",
                        help="end without the answer, the summary table and OUT/report.html")
    parser.add_argument("--submit", action="store_true",
                        help="with --launcher srun: every run a batch job (sbatch --wait, its "
                             "srun line wrapped; --vcluster N: the emulated nodes' Slurm), "
                             "collected and resumed like local runs; --dry-run prints the jobs")
    add_target_arguments(parser)


def _typed(values: Sequence[str]) -> List[object]:
    return [int(v) if v.lstrip("-").isdigit() else v for v in values]


def overrides(ns: argparse.Namespace, app: Optional[appdesc.AppDesc] = None
              ) -> Dict[str, List[object]]:
    """The parameter values of the command line; with `app`, each checked against the
    description's [types] (UsageError naming the option and what is allowed)."""
    out: Dict[str, List[object]] = {}
    given: List[Tuple[str, str, Sequence[str]]] = []
    if ns.modes:
        given.append(("--modes", "mode", ns.modes))
    if ns.sizes:
        given.append(("--sizes", "size", ns.sizes))
    given += [(f"--param {name}=", name, values) for name, values in ns.param]
    for option, name, values in given:
        typed = list(values) if name == "mode" else _typed(values)
        for value in typed if app else ():
            problem = app.type_problem(name, value)
            if problem:
                raise UsageError(f"{option}{'' if option.endswith('=') else ' '}"
                                 f"{','.join(values)}: {problem}")
        out[name] = typed
    return out


def run(ns: argparse.Namespace) -> int:
    app = appcatalog.get(ns.app)
    values = overrides(ns, app)  # checked before anything is planned
    cluster, launcher, mpi = target(ns, ns.cores)
    if ns.submit:
        if ns.launcher != "srun":
            raise UsageError("--submit submits batch jobs to Slurm: give --launcher srun")
        launcher = SbatchWrap(launcher, ns.vcluster or cluster.nodes)
    out = (ns.out or Path("results") / f"sweep-{app.name}").resolve()
    set_name = "quick" if ns.quick else "full"
    runs = expand(app, set_name, cluster, [ns.cores] if ns.cores else None, values, ns.repeat)
    if not runs:
        raise UsageError(f"the plan of {app.name} is empty (constraints exclude every "
                         f"combination of these modes and layouts)")
    for note in check_fits(runs, app, cluster):
        print(f"hybridkit: note: {note}", file=sys.stderr)
    items = [(app, r) for r in runs]
    binaries = binaries_for([app], mpi)
    executor = Executor(launcher, mpi, cluster, ns.bind,
                        launcher_label(ns) + ("-sbatch" if ns.submit else ""), binaries,
                        ns.timeout)
    if ns.dry_run:
        print_plan(items, out, executor)
        if ns.submit:  # the batch job of every run
            for a, r in items:
                records = run_dir_of(out, r) / "records.jsonl"
                print(executor.launcher.build(executor.spec(a, r, records)).shell_line())
        return 0
    launcher.check_available()
    keep_description(app, out)
    outcomes = execute_plan(items, executor, out)
    failed = [o for o in outcomes if o.status not in ("ok", "skipped")]
    print(f"# {len(outcomes) - len(failed)} of {len(outcomes)} runs ok; results in {out}")
    if not ns.no_summary and len(failed) < len(outcomes):
        summary(out, "sweep")
    report_failures(failed)
    return 0


def keep_description(app: appdesc.AppDesc, out: Path) -> None:
    """A description from outside the package (a user's program, HK_APPS_PATH) is kept in
    OUT/apps/, so `hybridkit report|advise|compare OUT` read the sweep without it."""
    src = Path(app.source)
    if not src.is_file() or src.parent.resolve() == appcatalog.APPS_DIR.resolve():
        return
    (out / "apps").mkdir(parents=True, exist_ok=True)
    (out / "apps" / src.name).write_text(src.read_text())
