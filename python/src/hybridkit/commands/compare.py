"""`hybridkit compare A B [--tolerance T]`: regression check, non-zero exit on regression."""

from __future__ import annotations

import argparse
from pathlib import Path

from hybridkit.errors import HKError
from hybridkit.study.compare import compare, lacking, missing
from hybridkit.study.rundata import load_results as load

HELP = "compare two run sets metric by metric; exit 1 on a regression beyond the tolerance"
DESCRIPTION = """\
Match the configurations (app, ranks x threads, parameters) of run set A (the baseline) and
B, average repeats, and compare each app's metric (its description's value, higher or lower
is better). A change worse than --tolerance (relative, default 0.10 = 10%) is a
regression: exit 1 (CI-friendly); configurations in one set only are listed. A run that
did not complete or a metric that is null or not finite in either set is an
error too (exit 1): no measurement is no evidence of "no regression". A simulated record
(hybridkit simulate) is a configuration of its platform: never matched with a measured one."""


def fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= v < 10:
        raise argparse.ArgumentTypeError(f"must be between 0 and 10, got {v}")
    return v


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, metavar="A", help="baseline run set")
    parser.add_argument("b", type=Path, metavar="B", help="run set to check")
    parser.add_argument("--tolerance", type=fraction, default=0.10, metavar="T",
                        help="allowed relative loss (default: %(default)s)")


def run(ns: argparse.Namespace) -> int:

    runs_a, apps = load([ns.a])
    runs_b, _ = load([ns.b])
    for name, path, runs in (("A", ns.a, runs_a), ("B", ns.b, runs_b)):
        gaps = missing(runs, apps)
        if gaps:
            more = f" (and {len(gaps) - 1} more)" if len(gaps) > 1 else ""
            raise HKError(f"run set {name} ({path}) has {len(gaps)} run(s) without a "
                          f"usable metric: {gaps[0]}{more}")
    gaps = lacking(runs_a, runs_b, apps)
    if gaps:
        more = f" (and {len(gaps) - 1} more)" if len(gaps) > 1 else ""
        raise HKError(f"{gaps[0]}{more}: a missing metric is no measurement")
    changes, only = compare(runs_a, runs_b, apps, ns.tolerance)
    if not changes:
        raise HKError(f"no common configuration between {ns.a} and {ns.b}")
    for c in changes:
        print(f"{c.verdict:11} {c.label():50} {c.metric} {c.a:.4g} -> {c.b:.4g} {c.unit} "
              f"({c.change:+.1%})")
    for line in only:
        print(f"# {line}")
    bad = [c for c in changes if c.verdict == "regression"]
    if bad:
        raise HKError(f"{len(bad)} regression(s) beyond {ns.tolerance:.0%} "
                      f"(worst: {min(bad, key=lambda c: c.change).label()}, "
                      f"{min(c.change for c in bad):+.1%})")
    print(f"# no regression beyond {ns.tolerance:.0%} in {len(changes)} configurations")
    return 0
