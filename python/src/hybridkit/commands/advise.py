"""`hybridkit advise RUNDIR...`: the recommendation and the overlap model for a run set."""

from __future__ import annotations

import argparse
from pathlib import Path

from hybridkit.rundata import load_results as load

HELP = "recommend processes x threads, mode and binding from measured runs (overlap model)"
DESCRIPTION = """\
From the runs under RUNDIR: the best configuration (processes x threads, hybrid mode,
binding) with the reason, Rabenseifner and Wellein's model for overlapping modes (the
measured communication fraction f_comm of masteronly, n threads, m = 1 reserved: bounds
1-m/n <= eps <= 1+m(1-1/n), eps <= 1+f n(1-1/n), predicted vs measured speedup of
funneled & reserved (task) over masteronly) and the dominating mismatch problem."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rundirs", nargs="+", type=Path, metavar="RUNDIR",
                        help="study, sweep or run directory")


def run(ns: argparse.Namespace) -> int:
    from hybridkit.advise import advise

    runs, apps = load(ns.rundirs)
    for line in advise(runs, apps).lines():
        print(line)
    return 0
