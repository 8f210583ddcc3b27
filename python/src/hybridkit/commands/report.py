"""`hybridkit report RUNDIR... -o report.html [--format md] [--csv]`: the report of run sets.

Reads the run directories under each RUNDIR (a study, a sweep or single runs), keeps only
schema-valid records, and writes one self-contained page (hybridkit.report.document).
"""

from __future__ import annotations

import argparse
from pathlib import Path
import sys

from hybridkit.appcatalog import search_dirs
from hybridkit.errors import HKError
from hybridkit.report.document import write_report
from hybridkit.study.rundata import check_usable, known_kind, load_results as load, unknown_kinds

HELP = "write an HTML (or Markdown) report with plots and advice from run directories"
DESCRIPTION = """\
Build a report from the records under each RUNDIR (study, sweep or run directories):
machine and binding, each app's performance vs threads per process per core count, time
breakdown per mode, memory per rank and per core, ping-pong intra vs inter node, b_eff,
T_hybrid/T_pure vs message size, the hybrid collectives per collective (plain MPI vs each
hybrid algorithm x threads vs message size, measured and, with bench.collparams records,
predicted), overlap, barrier costs, halo modes, the advice, and the
runs that did not complete. HTML embeds its plots (SVG): no network needed. Records of a
kind no app description or section knows are left out with a warning naming the file; when
there is nothing else, no report is written and the exit code is 1.
Simulated records (hybridkit simulate) are never mixed with measured ones: each platform
gets its own "Simulated on PLATFORM" sections, with the seeds' values beside the simulated
ones (docs/simulate-report.md).

examples:
  hybridkit report results/2026-11-21-myhost -o report.html
  hybridkit report results/sweep-jacobi -o summary.md --format md --csv"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rundirs", nargs="+", type=Path, metavar="RUNDIR",
                        help="study, sweep or run directory")
    parser.add_argument("-o", "--output", type=Path, default=Path("report.html"), metavar="FILE",
                        help="report file (default: %(default)s)")
    parser.add_argument("--format", choices=("html", "md"), default="html",
                        help="html (plots embedded) or md (text and tables) (default: html)")
    parser.add_argument("--csv", action="store_true",
                        help="also write every result as CSV beside the report (FILE.csv)")
    parser.add_argument("--title", default="hybridkit report", help="page title")


def apps_dirs() -> str:

    return ", ".join(map(str, search_dirs()))


def run(ns: argparse.Namespace) -> int:
    runs, apps = load(ns.rundirs, require_complete=False)
    unknown = unknown_kinds(runs, apps)
    usable = any(known_kind(r["kind"], apps) for run in runs if run.complete
                 for r in run.records)
    if unknown and not usable:
        what = "; ".join(f"{path} holds {n} record(s) of kind {kind!r}"
                         for path, kind, n in unknown[:3])
        raise HKError(f"nothing could be reported: {what} (unknown kind: no app description in "
                      f"{apps_dirs()} and no report section reads it)")
    for path, kind, n in unknown:
        print(f"hybridkit: warning: {path}: {n} record(s) of unknown kind {kind!r} are left "
              f"out of the report", file=sys.stderr)
    path = write_report(runs, apps, ns.rundirs, ns.output, ns.format, ns.title, ns.csv)
    bad = sum(not r.complete for r in runs)
    note = f", {bad} incomplete (listed in the report)" if bad else ""
    print(f"{path}: {len(runs)} runs{note}")
    if ns.csv:
        print(path.with_suffix(".csv"))
    check_usable(runs, ns.rundirs)  # a report of only incomplete runs is written, and fails
    return 0
