"""`hybridkit advise RUNDIR...`: the recommendation and the overlap model for a run set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hybridkit.advice import meshsplit
from hybridkit.advice.advise import advise
from hybridkit.cliargs import MAX_CORES, MAX_THREADS, count, count_list
from hybridkit.errors import UsageError
from hybridkit.study.rundata import load_results as load

HELP = "recommend processes x threads, mode and binding from measured runs (overlap model)"
DESCRIPTION = """\
From the runs under RUNDIR: the best configuration (processes x threads, hybrid mode,
binding) with the reason, Rabenseifner and Wellein's model for overlapping modes (the
measured communication fraction f_comm of masteronly, n threads, m = 1 reserved: bounds
1-m/n <= eps <= 1+m(1-1/n), eps <= 1+f n(1-1/n), predicted vs measured speedup of
funneled & reserved (task) over masteronly) and the dominating mismatch problem.
Simulated records (hybridkit simulate) are left out with a note; when there is nothing
else, the advice is about one simulated platform and its first line says so.
Records whose time, rate or time phase is impossible (<= 0) make their run invalid: it is
named (file, record, field) and left out of the advice.
--mesh-split: the mesh-splitting calculator instead (no RUNDIR; --cores, --threads, --svg
and --history belong to it): points and ghost overhead of hk-mz's --split for pure MPI vs
hybrid at --cores (Jin et al., Table 3)."""


DEFAULT_THREADS = "1,2,4,8"
# the options of the calculator: meaningless without --mesh-split
MESH_SPLIT_ONLY = (("cores", "--cores"), ("threads", "--threads"), ("svg", "--svg"),
                   ("history", "--history"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rundirs", nargs="*", type=Path, metavar="RUNDIR",
                        help="study, sweep or run directory")
    parser.add_argument("--mesh-split", metavar="PROBLEM",
                        help="calculator: an NPB-MZ class (bt:C, sp:B, lu:A) or zone sizes "
                             "NXxNYxNZ[*COUNT],... (points incl. the boundary layer)")
    parser.add_argument("--cores", type=count(MAX_CORES), metavar="N",
                        help=f"cores for --mesh-split (1 to {MAX_CORES})")
    parser.add_argument("--threads", type=count_list(MAX_THREADS), metavar="T,T,...",
                        help="threads per process to compare with --mesh-split, each 1 to "
                             f"{MAX_THREADS} (1: pure MPI; default: {DEFAULT_THREADS})")
    parser.add_argument("--svg", metavar="FILE",
                        help="--mesh-split: also write points vs processes as SVG (with --history "
                             "the residual histories into FILE-history.svg)")
    parser.add_argument("--history", nargs="*", default=[], metavar="CSV",
                        help="--mesh-split --svg: hk-mz --history files to plot (split vs unsplit)")


def run(ns: argparse.Namespace) -> int:

    if ns.mesh_split:
        if ns.rundirs:
            raise UsageError(f"--mesh-split is a calculator and reads no run directory: give "
                             f"--mesh-split PROBLEM or RUNDIR ({ns.rundirs[0]}), not both")
        return _mesh_split(ns)
    given = [opt for attr, opt in MESH_SPLIT_ONLY if getattr(ns, attr)]
    if given:
        raise UsageError(f"{', '.join(given)}: only with --mesh-split PROBLEM (the calculator)")
    if not ns.rundirs:
        raise UsageError("give RUNDIR... or --mesh-split PROBLEM")
    runs, apps = load(ns.rundirs)
    for r in runs:
        if r.status == "invalid-values":  # impossible values: left out of the advice
            print(f"hybridkit: warning: left out: {r.problem}", file=sys.stderr)
    for line in advise(runs, apps).lines():
        print(line)
    return 0


def _mesh_split(ns: argparse.Namespace) -> int:
    try:
        if ":" in ns.mesh_split:
            zones = meshsplit.npb_zones(*ns.mesh_split.split(":", 1))
        else:
            zones = meshsplit.parse_zones(ns.mesh_split)
        threads = ns.threads or [int(t) for t in DEFAULT_THREADS.split(",")]
        if ns.cores is None:
            raise ValueError(f"--mesh-split needs --cores N (1 to {MAX_CORES})")
        rows = meshsplit.calculate(zones, ns.cores, threads)
        if not rows:
            raise ValueError(f"--threads {','.join(map(str, threads))}: none divides --cores "
                             f"{ns.cores}, so there is nothing to compare")
    except ValueError as e:
        raise UsageError(str(e)) from None
    for line in meshsplit.lines(rows, ns.mesh_split, ns.cores):
        print(line)
    if ns.svg:
        svgs = meshsplit.figure(zones, ns.cores, threads, ns.history)
        out = Path(ns.svg)
        names = [out, out.with_name(out.stem + "-history" + out.suffix)]
        for name, svg in zip(names, svgs):
            name.write_text(svg, encoding="utf-8")
            print(f"wrote {name}")
    return 0
