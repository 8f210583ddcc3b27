"""`hybridkit study [--quick]`: every described app's sweep, then the report and the advice.

    descriptions (hybridkit/apps/*.toml), binaries found? (missing: one-line note, skipped)
    --> plan: each app's quick or full set on this machine / the nodes given
    --> OUT = results/<date>-<host>/: study.json, environment.json, machine.txt,
        runs/<app>/<id>/ (command, env, stdout/stderr, records, run.json)
    --> progress bar per run --> report.html --> summary table + recommendation
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from hybridkit import __version__, appcatalog
from hybridkit.appdesc import AppDesc
from hybridkit.cliargs import MAX_REPEAT, add_target_arguments, count, csv_list
from hybridkit.errors import HKError, UsageError
from hybridkit.launch.launchers import provenance_env, singleton_env
from hybridkit.paths import find_binary
from hybridkit.report.summary import summary
from hybridkit.study.execute import (execute_plan, launcher_label, print_plan, report_failures,
                                     target)
from hybridkit.study.plan import Cluster, PlannedRun, expand
from hybridkit.study.rundir import iso, utc_now, write_json
from hybridkit.study.sweep import Executor, ResultsLock

HELP = "run the planned experiments of every app, write the HTML report and advise"
DESCRIPTION = """\
Run the study: for every app description (hybridkit/apps/*.toml) whose binary exists, its
full parameter set (--quick: the quick set, a few minutes on a laptop) on this machine or
the nodes given, then write OUT/report.html and print a summary table and the
recommendation. OUT (default results/<date>-<host>/) keeps study.json (the plan),
environment.json, machine.txt and runs/<app>/<id>/ with the command, environment,
stdout/stderr and records of every run. Running the same study again resumes it: finished
runs are skipped. An app whose binary is missing is skipped with a note.

examples:
  hybridkit study --quick
  hybridkit study --apps jacobi,pingpong --dry-run
  hybridkit study --hosts n1,n2 --launcher srun"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true",
                        help="the quick set of every app (make run: < 3 minutes on 2 cores)")
    parser.add_argument("--apps", type=csv_list, metavar="A,B",
                        help="only these apps (default: every description)")
    parser.add_argument("-o", "--out", type=Path, metavar="DIR",
                        help="study directory (default: results/<date>-<host>)")
    parser.add_argument("--repeat", type=count(MAX_REPEAT), default=3, metavar="K",
                        help=f"run every configuration K times (1 to {MAX_REPEAT}), in K "
                             "rounds (default: %(default)s; the advice needs a spread)")
    parser.add_argument("--no-report", action="store_true", help="do not write report.html")
    add_target_arguments(parser)


def default_out(ns: argparse.Namespace = None) -> Path:
    """results/<date>-<host>, with -vclusterN / -hostsN when the runs go elsewhere."""
    name = f"{utc_now().strftime('%Y-%m-%d')}-{socket.gethostname()}"
    if ns is not None and getattr(ns, "vcluster", None):
        name += f"-vcluster{ns.vcluster}"
    elif ns is not None and getattr(ns, "hosts", None):
        name += f"-hosts{len(ns.hosts)}"
    elif ns is not None and getattr(ns, "hostfile", None):
        name += f"-hostfile-{Path(ns.hostfile).stem}"
    return Path("results") / name


def select_apps(names: Sequence[str], mpi: str
                ) -> Tuple[List[AppDesc], Dict[str, Path], List[str]]:
    """(apps to run, their binaries, notes on the skipped ones)."""
    apps = appcatalog.load_all()
    wanted = names or appcatalog.order(apps)
    unknown = [n for n in wanted if n not in apps]
    if unknown:
        raise UsageError(f"unknown app(s) {', '.join(unknown)} (known: {', '.join(sorted(apps))})")
    chosen, binaries, notes = [], {}, []
    for name in wanted:
        try:
            binaries[name] = find_binary(apps[name].binary, mpi)
            chosen.append(apps[name])
        except HKError:
            notes.append(f"skipping {name}: binary {apps[name].binary} not found "
                         f"(not built; HK_BIN_DIR={os.environ.get('HK_BIN_DIR', '')})")
    return chosen, binaries, notes


def plan(apps: Sequence[AppDesc], set_name: str, cluster: Cluster, repeats: int = 1,
         mpi_yields: bool = True) -> Tuple[List[Tuple[AppDesc, PlannedRun]], List[str]]:
    """Every app's runs, in `repeats` rounds (round k: the k-th repeat of everything, so
    a slow drift of the machine spreads over all configurations alike). `mpi_yields`: the
    launcher's MPI lets waiting ranks give up their cores when oversubscribed (else the
    oversubscribed runs of apps that need it are left out)."""
    items, notes = [], []
    for app in apps:
        runs = expand(app, set_name, cluster, repeats=repeats)
        over = [r for r in runs if r.oversubscribe]
        if over and not app.oversubscribe and not cluster.emulated:
            runs = [r for r in runs if not r.oversubscribe]
            notes.append(f"{app.name}: {len(over)} run(s) need more than {cluster.cores} "
                         f"cores per node, left out")
        elif over and app.oversubscribe_needs_yield and not mpi_yields:
            runs = [r for r in runs if not r.oversubscribe]
            notes.append(f"{app.name}: {len(over)} run(s) need more than {cluster.cores} "
                         f"cores per node and this MPI's waiting ranks poll their cores "
                         f"busily (no yield when oversubscribed, as Open MPI's): left out, "
                         f"they would take minutes and measure the scheduler; run them on "
                         f"enough cores or with --mpi openmpi")
        elif over:
            where = (f"the {cluster.cores} cores the {cluster.nodes} emulated nodes share"
                     if cluster.emulated else f"{cluster.cores} cores")
            notes.append(f"{app.name}: {len(over)} run(s) oversubscribe {where} (binding "
                         f"off): functional runs, not performance results")
        items += [(app, r) for r in runs]
    items.sort(key=lambda item: item[1].repeat)  # stable: rounds, the plan's order inside
    return items, notes


def write_provenance(out: Path, ns: argparse.Namespace, items, mpi: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "study.json", {
        "hybridkit_version": __version__, "start": iso(utc_now()),
        "host": socket.gethostname(), "quick": ns.quick, "mpi": mpi,
        "launcher": ns.launcher, "hosts": ns.hosts, "hostfile": ns.hostfile,
        "vcluster": ns.vcluster, "argv": sys.argv,
        "repeat": ns.repeat,
        "plan": [{"app": r.app, "id": r.run_id, "ranks": r.ranks, "threads": r.threads,
                  "params": r.param_dict, "repeat": r.repeat} for _, r in items]})
    write_json(out / "environment.json", {
        "python": sys.version, "platform": platform.platform(), "machine": platform.machine(),
        "env": provenance_env()})
    try:
        topo = find_binary("hk-topology", mpi)
        proc = subprocess.run([str(topo)], capture_output=True, text=True, timeout=60,
                              env={**os.environ, **singleton_env(mpi)})
        if proc.returncode == 0:
            (out / "machine.txt").write_text(proc.stdout)
    except (HKError, OSError, subprocess.SubprocessError):
        pass






def run(ns: argparse.Namespace) -> int:
    cluster, launcher, mpi = target(ns, None)
    set_name = "quick" if ns.quick else "full"
    apps, binaries, notes = select_apps(ns.apps or [], mpi)
    items, plan_notes = plan(apps, set_name, cluster, ns.repeat,
                             mpi_yields=launcher.yields_oversubscribed)
    for note in notes + plan_notes:
        print(f"hybridkit: note: {note}", file=sys.stderr)
    if not items:
        raise HKError("nothing to run: no app has a binary (build the C side, set HK_BIN_DIR)")
    out = (ns.out or default_out(ns)).resolve()
    executor = Executor(launcher, mpi, cluster, ns.bind,
                        launcher_label(ns), binaries, ns.timeout)
    if ns.dry_run:
        print_plan(items, out, executor)
        return 0
    launcher.check_available()
    with ResultsLock(out):  # a second study into OUT is refused before it writes anything
        write_provenance(out, ns, items, mpi)
        outcomes = execute_plan(items, executor, out, lock=False)
        if not ns.no_report:
            summary(out)
    report_failures([o for o in outcomes if o.status not in ("ok", "skipped")])
    return 0
