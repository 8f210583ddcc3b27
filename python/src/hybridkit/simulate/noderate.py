"""The compute rate of a simulated node: how fast a rank of a PxT layout computes (issue 43).

SMPI runs every rank as one thread and replays each compute burst for the time it took on
one core of this machine (`--compute measured`).  A node's throughput does not grow as its
busy cores: they share its memory bandwidth.  The model is the node's throughput curve

    R(n) = throughput of one node with n busy cores (n = 1 .. cores per node)

from one of three sources:

  * a table FILE ("n rate" per line, '#' comments; rates in any unit: only ratios count),
  * a user's records (a records.jsonl or a directory of runs: `hybridkit run` of the same
    app on one node of the target machine, e.g. hk-jacobi at 1, 2, 4, 8 threads, or on this
    machine): R(n) = the best MLUP/s over the layouts with n = ranks x threads on one node,
    each layout's repeats by their median, of the largest problem,
  * the platform's description, the roofline: R(n) = min(n, node_bw / core_bw) x R(1)
    (node_bw: the node's memory bandwidth, core_bw: what one core draws from it).

A layout of P ranks x T threads per node keeps P x T cores busy; each rank computes at
R(P T) / P, i.e. its simulated CPU runs at

    speed factor = R(P T) / (P R(1))

unless the source measured that very layout on one node (a table line "PxT rate", or records
of P ranks x T threads): then R_PxT / (P R(1)), the rate measured for T threads (or P ranks)
rather than the curve's, which cannot tell OpenMP's overhead from ranks sharing the node.

times the measured one-core rate (hybridkit simulate sets the hosts' speed to factor x the
platform's speed, smpi/host-speed staying the platform's: every burst scales).  Pure MPI
(T = 1) on a full node gets R(C) / C per rank, not R(1): the node's memory bandwidth shared
by its ranks falls out of R.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hybridkit.cliargs import MAX_CORES, count
from hybridkit.errors import UsageError
from hybridkit.simulate.platform import parse_bw
from hybridkit.study.rundata import read_records  # the run loader's validation

# per record kind (source (b)): the field a rate is read from, the unit, the problem a record
# solves and its size (the largest problem's rates are used)
RATE_FIELD = {"jacobi": ("mlups", "MLUP/s"), "mz": ("mops", "Mop/s")}
MZ_CLASSES = "SWABCDEF"


def _problem(kind: str, params: Dict) -> Tuple[str, float]:
    if kind == "mz":
        cls = str(params.get("class"))
        return (f"{params.get('bench')} class {cls}",
                MZ_CLASSES.index(cls) if cls in MZ_CLASSES else -1)
    grid = str(params.get("grid"))
    try:
        return f"grid {grid}", math.prod(int(x) for x in grid.split("x"))
    except ValueError:
        return f"grid {grid}", 0


@dataclass(frozen=True)
class NodeRate:
    """R(n) for the n in `rates` (R(1) always there); `source` says where it comes from."""
    source: str
    rates: Tuple[Tuple[int, float], ...]
    unit: str = "relative"
    layouts: Tuple[Tuple[Tuple[int, int], float], ...] = ()  # ((P, T), the node's rate)

    def __post_init__(self) -> None:
        if not self.rates:
            raise UsageError(f"node rate ({self.source}): no entries")
        for n, r in self.rates:
            if not isinstance(n, int) or n < 1:
                raise UsageError(f"node rate ({self.source}): core count {n!r} is not a "
                                 f"positive integer")
            if not isinstance(r, (int, float)) or not math.isfinite(r) or r <= 0:
                raise UsageError(f"node rate ({self.source}): R({n}) = {r!r}: rates must be "
                                 f"positive numbers")
        ns = [n for n, _ in self.rates]
        if len(set(ns)) != len(ns):
            raise UsageError(f"node rate ({self.source}): a core count appears twice")
        if 1 not in ns:
            raise UsageError(f"node rate ({self.source}): R(1), the rate of one core, is "
                             f"missing (entries for {', '.join(map(str, sorted(ns)))} cores)")

    def rate(self, n: int) -> float:
        table = dict(self.rates)
        if n not in table:
            raise UsageError(f"node rate ({self.source}): no entry for {n} busy cores per "
                             f"node (entries for {', '.join(map(str, sorted(table)))}); give "
                             f"R({n}) or choose a layout with ranks x threads per node in "
                             f"the table")
        return table[n]

    def factor(self, ranks_per_node: int, threads: int, cores: int) -> float:
        """R(P T) / (P R(1)): a rank's speed relative to one core computing alone."""
        busy = ranks_per_node * threads
        if ranks_per_node < 1 or threads < 1:
            raise UsageError("ranks per node and threads per rank must be at least 1")
        if busy > cores:
            raise UsageError(f"{ranks_per_node} ranks x {threads} threads per node = {busy} "
                             f"cores: more than the {cores} cores of a node of the platform")
        exact = dict(self.layouts).get((ranks_per_node, threads))
        return (exact if exact is not None else self.rate(busy)) / (ranks_per_node * self.rate(1))

    def field(self, ranks_per_node: int, threads: int, cores: int) -> Dict:
        """The record's platform.node_rate (record.schema.json): the model and this run's
        layout and factor."""
        exact = (ranks_per_node, threads) in dict(self.layouts)
        return {"source": self.source, "unit": self.unit,
                "rates": {str(n): r for n, r in sorted(self.rates)},
                **({"layout_rate": dict(self.layouts)[(ranks_per_node, threads)]} if exact else {}),
                "ranks_per_node": ranks_per_node, "threads_per_rank": threads,
                "busy_cores": ranks_per_node * threads,
                "speed_factor": self.factor(ranks_per_node, threads, cores)}


def roofline(node_bw: str, core_bw: str, cores: int) -> NodeRate:
    """R(n) = min(n, node_bw / core_bw) for n = 1 .. cores (relative to R(1))."""
    node, core = parse_bw(node_bw), parse_bw(core_bw)
    if node <= 0 or core <= 0:
        raise UsageError(f"--node-bw {node_bw} and --core-bw {core_bw} must be positive")
    cap = node / core
    return NodeRate(source=f"roofline: node memory bandwidth {node_bw}, one core {core_bw}",
                    rates=tuple((n, min(float(n), cap)) for n in range(1, cores + 1)))


def read_table(path: Path) -> NodeRate:
    """A table file: one "n rate" or "PxT rate" (that layout's node rate) per line (blank,
    comma or tab separated), '#' comments."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise UsageError(f"--node-rate {path}: cannot read: {exc.strerror}") from None
    rates: List[Tuple[int, float]] = []
    layouts: Dict[Tuple[int, int], float] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].replace(",", " ").split()
        if not words:
            continue
        try:
            if len(words) != 2:
                raise ValueError
            lay = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", words[0])
            if lay:
                layouts[(int(lay.group(1)), int(lay.group(2)))] = _positive(float(words[1]))
            else:
                rates.append((int(words[0]), float(words[1])))
        except ValueError:
            raise UsageError(f"--node-rate {path}: line {number}: expected 'cores rate' or "
                             f"'PxT rate' (e.g. '4 2.6', '2x2 2.4' with rate > 0), not "
                             f"{line.strip()!r}") from None
    return NodeRate(source=f"table {path}", rates=tuple(rates),
                    layouts=tuple(sorted(layouts.items())))


def _positive(x: float) -> float:
    if not math.isfinite(x) or x <= 0:
        raise ValueError
    return x


def _record_files(path: Path) -> List[Path]:
    if path.is_dir():
        return sorted(path.rglob("records.jsonl"))
    return [path]


def from_records(path: Path, kind: str = "jacobi") -> NodeRate:
    """R(n) from real records of `kind` made on one node: see the module's docstring."""
    field, unit = RATE_FIELD[kind]
    by_problem: Dict[Tuple[str, float], Dict[Tuple[int, int, str], List[float]]] = {}
    for f in _record_files(path):
        records, _ = read_records(f)
        for r in records:
            prov = r["provenance"]
            value = r["results"].get(field, {}).get("value")
            if r["kind"] != kind or r.get("simulated") or prov.get("nodes") != 1 or \
                    not isinstance(value, (int, float)) or value <= 0:
                continue
            layout = (int(prov["ranks"]), int(prov["threads_per_rank"]),
                      str(r["params"].get("mode")))
            by_problem.setdefault(_problem(kind, r["params"]), {}) \
                .setdefault(layout, []).append(float(value))
    if not by_problem:
        raise UsageError(f"--node-rate {path}: no valid records of kind '{kind}' from a run "
                         f"on one node (real runs, not simulated; e.g. hybridkit run of "
                         f"the app at 1, 2, 4 threads)")
    problem = max(by_problem, key=lambda p: p[1])
    best: Dict[int, float] = {}
    layouts: Dict[Tuple[int, int], float] = {}
    for (ranks, threads, _), values in by_problem[problem].items():
        n, m = ranks * threads, statistics.median(values)
        best[n] = max(best.get(n, 0.0), m)
        layouts[(ranks, threads)] = max(layouts.get((ranks, threads), 0.0), m)
    return NodeRate(source=f"records {path} ({kind}, {problem[0]}, one node)",
                    rates=tuple(sorted(best.items())), unit=unit,
                    layouts=tuple(sorted(layouts.items())))


def node_rate(spec: Optional[str], node_bw: Optional[str], core_bw: Optional[str],
              cores: int, kind: str = "jacobi") -> Optional[NodeRate]:
    """The model the options give (--node-rate FILE, or --node-bw with --core-bw), None
    for none."""
    if spec and (node_bw or core_bw):
        raise UsageError("give either --node-rate FILE or --node-bw/--core-bw, not both")
    if bool(node_bw) != bool(core_bw):
        raise UsageError("the roofline node rate needs both --node-bw and --core-bw")
    if node_bw and core_bw:
        return roofline(node_bw, core_bw, cores)
    if not spec:
        return None
    path = Path(spec)
    if not path.exists():
        raise UsageError(f"--node-rate {spec} does not exist")
    if path.is_dir() or path.suffix == ".jsonl":
        return from_records(path, kind)
    return read_table(path)


# --- hybridkit simulate's options and checks ---

def add_node_rate_arguments(parser: argparse.ArgumentParser) -> None:
    r = parser.add_argument_group(
        "threads and the node's compute rate (docs/simulate.md): a rank of P ranks x T "
        "threads per node computes at R(P*T) / P, R(n) the node's rate with n busy cores")
    r.add_argument("--threads", type=count(MAX_CORES), default=1, metavar="T",
                   help="OpenMP threads per rank, modelled (hk-jacobi --mode masteronly): "
                        "the rank runs one thread whose compute is scaled by the node rate; "
                        "ranks are placed at stride T (default: 1)")
    r.add_argument("--node-rate", metavar="FILE",
                   help="R(n) from a table ('cores rate' per line) or from real records "
                        "(a records.jsonl or a directory of runs of hk-jacobi on one node)")
    r.add_argument("--node-bw", metavar="BW",
                   help="the roofline R(n) = min(n, node-bw / core-bw) R(1): a node's "
                        "memory bandwidth, e.g. 40GBps (with --core-bw)")
    r.add_argument("--core-bw", metavar="BW",
                   help="the memory bandwidth one core draws alone, e.g. 12GBps")


# SMPI 3.32's MPI_Init_thread provides MPI_THREAD_SINGLE whatever is asked (tested: MULTIPLE
# requested, SINGLE provided and queried): hk-jacobi's modes whose threads call MPI cannot run
NEEDS_THREADS = ("funneled", "task", "multiple")
# ... but two are modelled by a single-threaded mode of the same structure (docs/modes.md,
# docs/simulate.md): mode -> (the mode the rank runs, threads reserved for communication).
# funneled: the master communicates inside the region while the others wait = masteronly;
# task: thread 0 posts and waits while T - 1 threads compute the interior, then the boundary
# = pure-nb (SMPI's messages progress during the interior's burst) at T - 1 threads' rate.
MODELLED = {"funneled": ("masteronly", 0), "task": ("pure-nb", 1)}


def modelled_mode(record: Dict, node_rate: Optional[Dict]) -> None:
    """A record of a modelled mode says the mode asked for and its thread level (FUNNELED)."""
    m = (node_rate or {}).get("mode_model")
    if m and isinstance(record.get("params"), dict):
        record["params"]["mode"] = m["mode"]
        record.get("provenance", {}).setdefault("thread_level", {})["requested"] = "funneled"
# hk-mz's options that give processes or zones their own thread counts
MZ_UNEVEN = ("--zone-threads", "--rebalance-threads", "--load-file", "--sub-ranks")


def option_value(args: List[str], name: str, default: str) -> str:
    """The value of option NAME among ARGS ('NAME V' or 'NAME=V'; the last one)."""
    value = default
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            value = args[i + 1]
        elif a.startswith(name + "="):
            value = a.split("=", 1)[1]
    return value


def layout_model(ns: argparse.Namespace, binary: str, args: List[str], compute: str,
                 per_node: int, cores: int) -> Tuple[Optional[NodeRate], float, List[str],
                                                     Optional[Dict]]:
    """The node rate model of the options, this layout's speed factor (1 without one), the
    binary's arguments (a modelled mode's stand-in: MODELLED) and the mode model or None;
    UsageError for what is not simulated."""
    model = node_rate(ns.node_rate, ns.node_bw, ns.core_bw, cores,
                      "mz" if binary == "hk-mz" else "jacobi")
    threads = ns.threads
    mode = option_value(args, "--mode", "pure") if binary == "hk-jacobi" else None
    modelled, computing = None, threads
    if mode in MODELLED and threads > MODELLED[mode][1] and model is not None:
        run_as, reserved = MODELLED[mode]
        at = [i for i, a in enumerate(args) if a == "--mode" or a.startswith("--mode=")][-1]
        args = args[:at] + [f"--mode={run_as}"] + args[at + 1 + (args[at] == "--mode"):]
        computing = threads - reserved
        modelled = {"mode": mode, "run_as": run_as, "computing_threads": computing}
        mode = "masteronly"  # checked below as the threads-modelled mode it stands for
    check_layout(ns, binary, args, compute, per_node, cores, model, mode)
    return model, (model.factor(per_node, computing, cores) if model else 1.0), args, modelled


def check_layout(ns: argparse.Namespace, binary: str, args: List[str], compute: str,
                 per_node: int, cores: int, model: Optional[NodeRate], mode: Optional[str]
                 ) -> None:
    """UsageError for a layout or mode that is not simulated."""
    threads = ns.threads
    uneven = [a.split("=")[0] for a in args if a.split("=")[0] in MZ_UNEVEN]
    if option_value(args, "--second-level", "omp") == "mpi":
        uneven.append("--second-level mpi")
    if mode and mode.startswith(NEEDS_THREADS):
        raise UsageError(f"hk-jacobi --mode {mode} is not simulated: its threads call MPI "
                         f"(MPI_THREAD_FUNNELED or more) and SimGrid 3.32's SMPI provides "
                         f"MPI_THREAD_SINGLE only; funneled (--threads T >= 1) and task "
                         f"(T >= 2) are modelled with a node rate; else simulate masteronly, "
                         f"pure or pure-nb")
    if threads > 1:
        if binary == "hk-mz" and uneven:
            raise UsageError(f"--threads {threads}: hk-mz {uneven[0]} sets threads per zone "
                             f"or process: not modelled (one thread runs per rank)")
        if binary not in ("hk-jacobi", "hk-mz") or (binary == "hk-jacobi" and
                                                     mode != "masteronly"):
            raise UsageError(f"--threads {threads}: threads are modelled for hk-jacobi "
                             f"--mode masteronly, funneled, task and hk-mz only, not for "
                             f"{binary}" + (f" --mode {mode}" if mode else ""))
        if model is None:
            raise UsageError(f"--threads {threads} needs a node rate model: --node-rate FILE "
                             f"or --node-bw BW --core-bw BW (docs/simulate.md)")
    if model is not None and compute == "off":
        raise UsageError("a node rate scales the compute phases: not with --compute off "
                         "(compute free)")
    if per_node * threads > cores:
        raise UsageError(f"{per_node} ranks x {threads} threads per node = "
                         f"{per_node * threads} cores: more than the {cores} cores of a node")


# rates per thread in records (a rate divided by the ranks x threads that ran): with threads
# modelled (--threads T) the record's rank ran one; the rate is divided by T more
PER_THREAD = {"mops_per_thread": "mops"}


def per_thread(results: object, threads: int) -> None:
    if not isinstance(results, dict):
        return
    for name in PER_THREAD:
        res = results.get(name)
        if isinstance(res, dict) and isinstance(res.get("value"), (int, float)):
            res["value"] = res["value"] / threads


_SPEED = re.compile(r"^([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kMGT]?)f$")


def scaled_speed(speed: str, factor: float) -> str:
    """The platform's CPU speed (SimGrid text, e.g. '1Gf') times factor, in flop/s."""
    m = _SPEED.match(speed.strip())
    if not m:
        raise UsageError(f"platform speed {speed!r}: expected a number and f, kf, Mf, Gf "
                         f"or Tf")
    flops = float(m.group(1)) * {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]
    return f"{flops * factor:.6e}f"
