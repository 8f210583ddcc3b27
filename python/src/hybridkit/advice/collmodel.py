"""A cost model of the hybrid allreduce (issue 39, item 2): the time of each algorithm and
thread count from a few machine parameters that `hk-bench collparams` measures, so that
`hybridkit tune allreduce --predict` can write the tuning table without timing every case.

Parameters (MachineParams, fitted by fit() from bench.collparams records):
    alpha_intra, beta_intra   latency (s) and bandwidth (B/s) of a ping-pong within a node
    alpha_inter, beta_inter   the same between nodes (equal to intra when not measured)
    copy_rate[t-1]            bytes/s one process copies with t threads while every rank of
                              the node copies too (the node's memory bandwidth shared)
    reduce_rate[t-1]          bytes/s of a += b (doubles) the same way
    thread_overhead           s per extra thread and call (fork/join, the per-thread
                              communicators): not measured by collparams; default 2 us,
                              fitted from bench.allreduce records when given (fit_overhead)

Message of n bytes, P ranks, L ranks per node, N = ceil(P / L) nodes, T threads per rank.
The link is intra when N = 1, else inter (the slower path bounds a collective).
s_c(T) = copy_rate[T-1] / copy_rate[0], s_r(T) = reduce_rate[T-1] / reduce_rate[0].

    mpi (MPI_Allreduce, one core per rank; as Open MPI and MPICH choose by size):
        P = 1:          n / copy_rate[0]                      (sendbuf -> recvbuf)
        n <  8 KiB:     ceil(log2 P) (alpha + n / beta + n / reduce_rate[0])
                        (recursive doubling: log2 P steps of the whole vector)
        n >= 8 KiB:     2 ceil(log2 P) alpha + 2 (P-1)/P n / beta + (P-1)/P n / reduce_rate[0]
                        (Rabenseifner: reduce-scatter + allgather)
    chunked, T threads (T allreduces of m = n/T at once on T communicators; T = 1: mpi):
        (T-1) thread_overhead + the latency terms of mpi(m) + T x its transfer terms over
        s_c(T) within a node (shared-memory transfers are copies; between nodes 1: one link
        assumed, no gain from streams) + T x its reduction terms over s_r(T)
    chunked-shifted: as chunked (the rotation helps only with NUMA domains or several links;
        one NUMA domain is assumed); ties go to chunked
    hierarchical (L >= 2, else it falls back: inf):
        n / copy_rate[T-1]                           the operand into the node window
        + (L-1)/L n / reduce_rate[T-1]               L x T workers reduce one chunk each
        + 2 alpha_intra                              the node synchronisations
        + chunked(n, N leaders, T) when N > 1        the leaders' allreduce
        + n / copy_rate[T-1]                         the result out of the window
    P = 1: every hybrid algorithm falls back to MPI (one rank): mpi's time.
    Records of one rank have no ping-pong: fit() then sets alpha = 0 and beta = copy_rate[0]
    (only P = 1 is predictable from them, and it does not use alpha or beta).

Assumptions named: one NUMA domain; MPI's algorithm switch at 8 KiB; rates measured with
every rank of the node busy (the hybrid algorithms keep all of a node's cores busy).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from hybridkit.errors import HKError

COLLECTIVES = ("allreduce",)
ALGORITHMS = ("mpi", "chunked", "chunked-shifted", "hierarchical")
SMALL = 8192  # bytes: MPI's switch from recursive doubling to Rabenseifner (assumed)
OUT_OF_CACHE = 1 << 20  # copy/reduce rates from sizes at least this (else the largest)


@dataclass(frozen=True)
class MachineParams:
    alpha_intra: float
    beta_intra: float
    alpha_inter: float
    beta_inter: float
    copy_rate: Tuple[float, ...]
    reduce_rate: Tuple[float, ...]
    cores_per_node: int = 1
    numa_domains: int = 1
    thread_overhead: float = 2e-6

    def to_json(self) -> dict:
        d = asdict(self)
        d["copy_rate"], d["reduce_rate"] = list(self.copy_rate), list(self.reduce_rate)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "MachineParams":
        try:
            return cls(**{**d, "copy_rate": tuple(d["copy_rate"]),
                          "reduce_rate": tuple(d["reduce_rate"])})
        except (KeyError, TypeError) as exc:
            raise HKError(f"model parameters: {exc}") from None

    @property
    def max_threads(self) -> int:
        return min(len(self.copy_rate), len(self.reduce_rate))


# ---------------------------------------------------------------- fitting

def fit_line(points: Sequence[Tuple[float, float]]) -> Tuple[float, float]:
    """(alpha, beta) of t = alpha + s / beta, least squares in the relative error (every
    size counts alike, the small ones are not drowned by the large): minimise
    sum(((alpha + s x) - t) / t)^2 over alpha and x = 1 / beta."""
    rows = [(1.0 / t, s / t) for s, t in points if t > 0]
    if len(rows) < 2:
        raise HKError("a latency/bandwidth fit needs at least two sizes")
    a11 = sum(a * a for a, _ in rows)
    a12 = sum(a * b for a, b in rows)
    a22 = sum(b * b for _, b in rows)
    b1 = sum(a for a, _ in rows)  # right-hand side: t / t = 1
    b2 = sum(b for _, b in rows)
    det = a11 * a22 - a12 * a12
    if det == 0:
        raise HKError("a latency/bandwidth fit needs two different sizes")
    alpha = (b1 * a22 - b2 * a12) / det
    x = (a11 * b2 - a12 * b1) / det
    if x <= 0:
        raise HKError("the ping-pong times do not grow with the size: no bandwidth to fit")
    return max(alpha, 0.0), 1.0 / x


def _records(records: Iterable[dict], kind: str) -> List[dict]:
    return [r for r in records if r.get("kind") == kind]


def fit(records: Iterable[dict]) -> MachineParams:
    """MachineParams from bench.collparams records (several runs: the median per point)."""
    recs = _records(records, "bench.collparams")
    if not recs:
        raise HKError("no bench.collparams records to fit the model to (hk-bench collparams)")
    times: Dict[Tuple[str, str, int, int], List[float]] = {}
    cores = 1
    for r in recs:
        p = r["params"]
        key = (p["quantity"], p["link"], int(p["threads"]), int(p["size"]))
        times.setdefault(key, []).append(float(r["results"]["time"]["max"]) * 1e-6)
        prov = r.get("provenance", {})
        cores = max(cores, int(prov.get("threads_per_rank", 1)) *
                    max(1, int(prov.get("ranks", 1)) // max(1, int(prov.get("nodes", 1)))))
    med = {k: statistics.median(v) for k, v in times.items()}

    def link(name: str) -> Optional[Tuple[float, float]]:
        pts = [(s, t) for (q, l, _, s), t in med.items() if q == "p2p" and l == name]
        return fit_line(sorted(pts)) if len(pts) >= 2 else None

    intra, inter = link("intra"), link("inter")
    intra = intra or inter
    inter = inter or intra

    def rates(quantity: str) -> Tuple[float, ...]:
        by_t: Dict[int, List[Tuple[int, float]]] = {}
        for (q, _, t, s), sec in med.items():
            if q == quantity and sec > 0:
                by_t.setdefault(t, []).append((s, s / sec))
        if not by_t or 1 not in by_t:
            raise HKError(f"bench.collparams records without {quantity} points at 1 thread")
        out = []
        for t in range(1, max(by_t) + 1):
            pts = by_t.get(t)
            if not pts:
                break
            big = [rate for s, rate in pts if s >= OUT_OF_CACHE] or [max(pts)[1]]
            out.append(statistics.median(big))
        return tuple(out)

    copy, red = rates("copy"), rates("reduce")
    if intra is None:  # one rank: no ping-pong; only P = 1 can be predicted, which copies
        intra = inter = (0.0, copy[0])
    return MachineParams(alpha_intra=intra[0], beta_intra=intra[1], alpha_inter=inter[0],
                         beta_inter=inter[1], copy_rate=copy, reduce_rate=red,
                         cores_per_node=cores)


def fit_overhead(params: MachineParams, records: Iterable[dict], ranks: int,
                 ranks_per_node: int) -> MachineParams:
    """thread_overhead from bench.allreduce records: the median over the small sizes (below
    SMALL) of (measured chunked - predicted chunked without the overhead) / (T - 1)."""
    base = MachineParams(**{**params.to_json(), "copy_rate": params.copy_rate,
                            "reduce_rate": params.reduce_rate, "thread_overhead": 0.0})
    samples = []
    for r in _records(records, "bench.allreduce"):
        p = r["params"]
        t = int(p.get("threads_used", p.get("threads", 1)))
        if (p.get("algorithm") != "chunked" or p.get("ran") != "chunked" or t < 2
                or int(p["size"]) >= SMALL or p.get("type", "double") != "double"):
            continue
        measured = float(r["results"]["time"]["max"]) * 1e-6
        model = predict(base, "allreduce", "chunked", t, int(p["size"]), ranks, ranks_per_node)
        samples.append((measured - model) / (t - 1))
    if not samples:
        return params
    return MachineParams(**{**params.to_json(), "copy_rate": params.copy_rate,
                            "reduce_rate": params.reduce_rate,
                            "thread_overhead": max(0.0, statistics.median(samples))})


# ---------------------------------------------------------------- predicting

def _rate(rates: Tuple[float, ...], t: int) -> float:
    return rates[min(t, len(rates)) - 1]


def _mpi_terms(params: MachineParams, n: float, ranks: int, inter: bool
               ) -> Tuple[float, float, float]:
    """(latency, transfer, reduction) seconds of MPI_Allreduce of n bytes, one core a rank."""
    alpha = params.alpha_inter if inter else params.alpha_intra
    beta = params.beta_inter if inter else params.beta_intra
    steps = math.ceil(math.log2(ranks))
    red = params.reduce_rate[0]
    if n < SMALL:
        return steps * alpha, steps * n / beta, steps * n / red
    frac = (ranks - 1) / ranks
    return 2 * steps * alpha, 2 * frac * n / beta, frac * n / red


def _chunked(params: MachineParams, n: float, ranks: int, threads: int, inter: bool) -> float:
    """T allreduces of m = n / T bytes at once: one chunk's latency, the T chunks' transfers
    and reductions over the thread scaling of the node's copy and reduction rates."""
    lat, xfer, red = _mpi_terms(params, n / threads, ranks, inter)
    s_copy = 1.0 if inter else _rate(params.copy_rate, threads) / params.copy_rate[0]
    s_red = _rate(params.reduce_rate, threads) / params.reduce_rate[0]
    return ((threads - 1) * params.thread_overhead + lat + threads * xfer / s_copy
            + threads * red / s_red)


def predict(params: MachineParams, collective: str, algorithm: str, threads: int, size: int,
            ranks: int, ranks_per_node: int) -> float:
    """Seconds per call (the module docstring's formulas); math.inf where the algorithm
    would fall back (hierarchical with one rank per node)."""
    if collective not in COLLECTIVES:
        raise HKError(f"the model covers {', '.join(COLLECTIVES)}, not {collective!r}")
    if algorithm not in ALGORITHMS:
        raise HKError(f"unknown algorithm {algorithm!r} (choose from {', '.join(ALGORITHMS)})")
    if threads < 1 or size < 0 or ranks < 1 or ranks_per_node < 1:
        raise HKError("threads, ranks and ranks per node must be positive, the size not negative")
    n = float(size)
    if ranks == 1:  # every algorithm: MPI's copy (the hybrid ones fall back: one rank)
        return n / params.copy_rate[0]
    if algorithm in ("chunked", "chunked-shifted") and threads == 1:
        algorithm = "mpi"  # one chunk: the library falls back to MPI
    per_node = min(ranks_per_node, ranks)
    nodes = math.ceil(ranks / per_node)
    inter = nodes > 1
    if algorithm == "mpi":
        return sum(_mpi_terms(params, n, ranks, inter))
    if algorithm in ("chunked", "chunked-shifted"):
        return _chunked(params, n, ranks, threads, inter)
    # hierarchical
    if per_node < 2:
        return math.inf
    t = threads
    node = (2 * n / _rate(params.copy_rate, t)
            + (per_node - 1) / per_node * n / _rate(params.reduce_rate, t)
            + 2 * params.alpha_intra + (t - 1) * params.thread_overhead)
    if nodes > 1:
        node += _chunked(params, n, nodes, t, True)
    return node


def choices(params: MachineParams, max_threads: int) -> List[Tuple[str, int]]:
    """(algorithm, threads) pairs the table chooses among: mpi x1, each hybrid x1..T."""
    top = min(max_threads, params.max_threads)
    return [("mpi", 1)] + [(a, t) for a in ALGORITHMS[1:] for t in range(1, top + 1)]


def best(params: MachineParams, collective: str, size: int, ranks: int, ranks_per_node: int,
         max_threads: int) -> Tuple[str, int, float]:
    """(algorithm, threads, seconds) minimising predict; ties: mpi, fewer threads, then the
    order of ALGORITHMS (chunked before chunked-shifted)."""
    scored = [(predict(params, collective, a, t, size, ranks, ranks_per_node), a != "mpi", t,
               ALGORITHMS.index(a), a) for a, t in choices(params, max_threads)]
    sec, _, t, _, a = min(scored)
    return a, t, sec
