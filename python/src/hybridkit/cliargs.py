"""Argument types and the argument groups several commands share (run, sweep, study,
tune): parsing only, no behaviour; the commands in hybridkit.commands stay thin."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import List, Tuple

from hybridkit.launch.launchers import BINDS, LAUNCHER_HELP, MPIS, launcher_names, resolve_launcher

MODE_PATTERN = re.compile(r"^[a-z][a-z0-9_-]*$")


# upper bounds of the counts given on the command line: checked when the line is parsed,
# before anything is planned or launched (a count of 10^9 used to plan for minutes)
MAX_RANKS = 65536      # --np, MPI ranks of one job
MAX_THREADS = 8192     # --threads, OpenMP threads per rank (hk builds up to 8192 PUs a node)
MAX_CORES = 8192       # --cores, cores per node
MAX_NODES = 4096       # node counts (--nodes, --use-nodes); tools/vcluster has its own
MAX_VCLUSTER = 200     # --vcluster: tools/vcluster's MAXNODES
MAX_REPEAT = 1000      # --repeat
MAX_ITERS = 10 ** 9    # iteration counts passed on to a binary
MAX_LIST = 64          # items of a comma-separated list of counts


def _int_in(text: str, low: int, high: int) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer (allowed: {low} to "
                                         f"{high})") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{value} is out of range (allowed: {low} to {high})")
    return value


def count(high: int, low: int = 1):
    """An argparse type: an integer from `low` to `high`; argparse names the option in
    the message ('argument --repeat: 1000000000 is out of range (allowed: 1 to 1000)')."""
    def parse(text: str) -> int:
        return _int_in(text, low, high)

    parse.__name__ = f"count_{low}_{high}"
    return parse


def count_list(high: int, low: int = 1):
    """An argparse type: comma-separated integers from `low` to `high` (at most MAX_LIST)."""
    def parse(text: str) -> List[int]:
        items = [t.strip() for t in text.split(",")]
        if not all(items):
            raise argparse.ArgumentTypeError(f"empty item in {text!r} (expected integers "
                                             f"from {low} to {high}, comma-separated)")
        if len(items) > MAX_LIST:
            raise argparse.ArgumentTypeError(f"{len(items)} items, at most {MAX_LIST}")
        try:
            return [_int_in(t, low, high) for t in items]
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentTypeError(f"{text}: {exc}") from None

    parse.__name__ = f"count_list_{low}_{high}"
    return parse


def positive_int(text: str) -> int:
    """A count with no tighter bound than MAX_ITERS."""
    return _int_in(text, 1, MAX_ITERS)


def host_list(text: str) -> List[str]:
    hosts = [h.strip() for h in text.split(",")]
    if not all(hosts):
        raise argparse.ArgumentTypeError(f"empty host name in {text!r}")
    return hosts


def mode_name(text: str) -> str:
    if not MODE_PATTERN.match(text):
        raise argparse.ArgumentTypeError(f"bad mode name {text!r}")
    return text


def add_launch_arguments(parser: argparse.ArgumentParser) -> None:
    """Binding, launcher, MPI and where to run (shared by run, sweep and study)."""
    parser.add_argument("--bind", choices=BINDS, default="compact",
                        help="compact: threads close on the rank's cores; scatter: spread; "
                             "none: no binding (default: %(default)s)")
    # auto is resolved while parsing (type), so every command sees the launcher it runs
    parser.add_argument("--launcher", choices=launcher_names(), default="auto",
                        type=resolve_launcher, metavar="{%s}" % ",".join(["auto"] + launcher_names()),
                        help="; ".join(f"{k}: {v}" for k, v in LAUNCHER_HELP.items())
                             + " (default: %(default)s)")
    parser.add_argument("--mpi", choices=MPIS, default=None,
                        help="MPI library of --launcher mpirun (default: $HK_MPI; auto or unset: "
                             "the MPI of the mpicc on PATH)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--hosts", type=host_list, metavar="H1,H2,...",
                       help="run on these hosts, ranks spread evenly (no local core check)")
    where.add_argument("--hostfile", metavar="F", help="launcher host file (no local core check)")
    parser.add_argument("--vcluster", type=count(MAX_VCLUSTER), metavar="N",
                        help="run across N emulated nodes of tools/vcluster (root; brought up "
                             "when needed; nodes share this machine's cores): Open MPI's mpirun, "
                             "binding off, or with --launcher srun their own Slurm (Open MPI or "
                             "MPICH, bound with --cpu-bind=cores; N <= %d)" % MAX_VCLUSTER)
    parser.add_argument("--rate", type=link_rate, metavar="R",
                        help="with --vcluster: limit every emulated node's link to R (tc tbf, "
                             "e.g. 1gbit, 100mbit) so the inter-node communication is slower")


def link_rate(text: str) -> str:
    """A tc rate as tools/vcluster takes it: 1gbit, 100mbit, 500kbit, 12.5mbps."""
    if not re.match(r"^[0-9]+(\.[0-9]+)?[kmg]?(bit|bps)$", text):
        raise argparse.ArgumentTypeError(f"expected a rate like 1gbit, 100mbit, 500kbit, got {text!r}")
    return text


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
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


DEFAULT_RUN_TIMEOUT = 3600.0  # seconds one `run` or `profile` may take (--timeout)


def add_one_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The launch options of one run (run, profile): --oversubscribe, --dry-run, --results,
    --timeout."""
    parser.add_argument("--timeout", type=positive_float, default=DEFAULT_RUN_TIMEOUT,
                        metavar="S",
                        help="seconds the program may take before it is stopped (its ranks "
                             "too) and the run marked 'timeout' in run.json (default: "
                             "%(default)g)")
    parser.add_argument("--oversubscribe", action="store_true",
                        help="allow more ranks x threads than cores (binding is then off)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the launch line (with its env assignments) and exit")
    parser.add_argument("--results", type=Path, default=Path("results"), metavar="DIR",
                        help="results directory (default: %(default)s)")
