"""A cost model of the hybrid collectives (issue 39): which algorithm and thread count
is fastest for a message of n bytes on P ranks, L ranks per node (N = P / L nodes).

Machine parameters (MachineParams, fitted from `hk-bench collparams` records):
  a, b      latency (s) and bandwidth (bytes/s) of a point-to-point message; the intra-node
            pair when N == 1, the inter-node pair when N > 1 (assumption: a flat MPI
            algorithm over several nodes goes at the speed of its slowest link)
  c(T)      copy rate (bytes/s per process, every rank of the node copying at once) with T threads
  r(T)      reduction rate (a[i] += b[i] on doubles, bytes/s per process) with T threads
  o, o_t    per-call overhead of a hybrid algorithm (decision, barrier) and per extra thread
            (fork/join, barrier); fitted from bench.coll records when given, else defaults

n is the message size as bench.coll and the tuning table count it (allreduce, reduce, bcast:
the buffer; reduce-scatter, allgather, alltoall: P x the per-rank count).  lg = ceil(log2 P),
f = (P - 1) / P.

mpi -- what MPI itself is assumed to run (assumption: the usual algorithms of Open MPI's
tuned and MPICH's selection; the switch point SMALL = 64 KiB is not measured):
  allreduce   n <= SMALL: recursive doubling  lg (a + n/b + n/r1)
              else Rabenseifner               2 lg a + 2 f n/b + f n/r1
  reduce      n <= SMALL: binomial tree       lg (a + n/b + n/r1)
              else reduce-scatter + gather    2 lg a + 2 f n/b + f n/r1
  reduce-scatter  recursive halving           lg a + f n (1/b + 1/r1)
  bcast       n <= SMALL: binomial tree       lg (a + n/b)
              else scatter + allgather        (lg + P - 1) a + 2 f n/b
  allgather   recursive doubling / ring       lg a + f n/b
  alltoall    pairwise exchange               (P - 1)(a + n/(P b)) + n/(P c1)
  (r1 = r(1), c1 = c(1): MPI reduces and copies on one thread.)

chunked with T threads: T chunks of n/T bytes, each an MPI call of the same collective on its
own communicator, all at once.  Assumptions: the chunks' latencies overlap (a counted once),
the link is shared (the bandwidth term sees all n bytes), the reduction/copy is split over the
T threads at the measured rate r(T) / c(T) (so saturation of memory bandwidth shows), and MPI
picks its algorithm by the chunk's size n/T:
  t = o + o_t (T - 1) + mpi(n, a, b, r(T), c(T); switch on n/T)
chunked-shifted: the same cost (assumption: starting the threads at different chunks changes
  the contention, not the volume; the model cannot tell them apart and prefers chunked).

hierarchical with T threads (needs L >= 2; alltoall also N == 1): node phases through a shared
window at c(T) / r(T), the node leaders run the collective among the N nodes (inter link):
  allreduce   o + o_t (T-1) + n/c + f_L n/r + mpi_allreduce(N, n) + n/c
  reduce      the same with mpi_reduce(N, n)
  reduce-scatter  o + ... + n/c + f_L n/r + mpi_reduce_scatter(N, n) + n/(P c)
  bcast       o + ... + mpi_bcast(N, n) + n/c (into the window) + n/c (out of it)
  allgather   o + ... + n/(P c) + mpi_allgather(N, n) + n/c
  alltoall    o + ... + n/c + n/c  (N == 1 only)
  (f_L = (L - 1)/L: each rank reduces its 1/L of the buffer over the L inputs.)

P == 1: the library calls MPI (fallback "one rank"); MPI copies the send buffer into the
receive buffer (n/c1; bcast: nothing), so predict() gives that for mpi and inf for the
hybrid algorithms (they fall back).  Assumption: out-of-place buffers.

Every algorithm that would fall back returns math.inf.  Times are seconds.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

COLLECTIVES = ("allreduce", "reduce", "reduce-scatter", "bcast", "allgather", "alltoall")
ALGORITHMS = ("mpi", "chunked", "chunked-shifted", "hierarchical")
SMALL = 64 * 1024          # bytes: MPI's assumed switch from latency- to bandwidth-optimal
DEFAULT_OVERHEAD = 2e-6    # s per hybrid call (used when no bench.coll records were fitted)
DEFAULT_THREAD_OVERHEAD = 1e-6  # s per extra thread


@dataclass(frozen=True)
class MachineParams:
    alpha_intra: float   # s, per message latency within a node
    beta_intra: float    # bytes/s, point-to-point bandwidth within a node
    alpha_inter: float   # s (equal to intra when no inter data)
    beta_inter: float    # bytes/s
    copy_rate: Tuple[float, ...]    # bytes/s per process with 1..T threads (index t-1)
    reduce_rate: Tuple[float, ...]  # bytes/s per process with 1..T threads
    cores_per_node: int
    numa_domains: int = 1
    overhead: float = DEFAULT_OVERHEAD            # s per hybrid call
    thread_overhead: float = DEFAULT_THREAD_OVERHEAD  # s per thread beyond the first

    def to_json(self) -> dict:
        d = asdict(self)
        d["copy_rate"] = list(self.copy_rate)
        d["reduce_rate"] = list(self.reduce_rate)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "MachineParams":
        names = cls.__dataclass_fields__
        kw = {k: v for k, v in d.items() if k in names}
        kw["copy_rate"] = tuple(float(x) for x in d["copy_rate"])
        kw["reduce_rate"] = tuple(float(x) for x in d["reduce_rate"])
        return cls(**kw)

    def copy(self, threads: int) -> float:
        """copy rate with `threads` threads (the largest measured beyond the table)"""
        return self.copy_rate[min(max(threads, 1), len(self.copy_rate)) - 1]

    def reduce(self, threads: int) -> float:
        return self.reduce_rate[min(max(threads, 1), len(self.reduce_rate)) - 1]


# ---------------------------------------------------------------- formulas

def _lg(p: int) -> int:
    return max(0, math.ceil(math.log2(p))) if p > 1 else 0


def mpi_time(collective: str, n: float, p: int, a: float, b: float, r: float, c: float,
             switch: Optional[float] = None) -> float:
    """MPI's own algorithm for `collective` on p ranks (see the module text); switch: the
    size MPI decides by (default n)."""
    if p <= 1:
        return 0.0 if collective == "bcast" else n / c
    lg, f = _lg(p), (p - 1) / p
    small = (n if switch is None else switch) <= SMALL
    if collective in ("allreduce", "reduce"):
        if small:
            return lg * (a + n / b + n / r)
        return 2 * lg * a + 2 * f * n / b + f * n / r
    if collective == "reduce-scatter":
        return lg * a + f * n * (1 / b + 1 / r)
    if collective == "bcast":
        if small:
            return lg * (a + n / b)
        return (lg + p - 1) * a + 2 * f * n / b
    if collective == "allgather":
        return lg * a + f * n / b
    if collective == "alltoall":
        return (p - 1) * (a + n / (p * b)) + n / (p * c)
    raise ValueError(f"unknown collective {collective!r}")


def _link(params: MachineParams, nodes: int) -> Tuple[float, float]:
    if nodes > 1:
        return params.alpha_inter, params.beta_inter
    return params.alpha_intra, params.beta_intra


def predict(params: MachineParams, collective: str, algorithm: str, threads: int, size: int,
            ranks: int, ranks_per_node: int) -> float:
    """Predicted seconds per call (math.inf where the algorithm would fall back)."""
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective!r}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    p, local = max(1, ranks), max(1, min(ranks_per_node, ranks))
    n, t = float(size), max(1, threads)
    nodes = max(1, math.ceil(p / local))
    c1, r1 = params.copy(1), params.reduce(1)
    if p == 1:
        return mpi_time(collective, n, 1, 0, 1, r1, c1) if algorithm == "mpi" else math.inf
    a, b = _link(params, nodes)
    if algorithm == "mpi":
        return mpi_time(collective, n, p, a, b, r1, c1)
    ct, rt = params.copy(t), params.reduce(t)
    over = params.overhead + params.thread_overhead * (t - 1)
    if algorithm in ("chunked", "chunked-shifted"):
        return over + mpi_time(collective, n, p, a, b, rt, ct, switch=n / t)
    # hierarchical
    if local < 2 or (collective == "alltoall" and nodes > 1):
        return math.inf
    ai, bi = params.alpha_inter, params.beta_inter
    fl = (local - 1) / local
    if collective in ("allreduce", "reduce"):
        return over + n / ct + fl * n / rt + mpi_time(collective, n, nodes, ai, bi, r1, c1) \
            + n / ct
    if collective == "reduce-scatter":
        return over + n / ct + fl * n / rt + mpi_time(collective, n, nodes, ai, bi, r1, c1) \
            + n / (p * ct)
    if collective == "bcast":
        return over + mpi_time("bcast", n, nodes, ai, bi, r1, c1) + 2 * n / ct
    if collective == "allgather":
        return over + n / (p * ct) + mpi_time("allgather", n, nodes, ai, bi, r1, c1) + n / ct
    return over + 2 * n / ct  # alltoall, one node


def best(params: MachineParams, collective: str, size: int, ranks: int, ranks_per_node: int,
         max_threads: int) -> Tuple[str, int, float]:
    """(algorithm, threads, predicted seconds) minimising predict(); ties go to mpi, then
    fewer threads, then the order of ALGORITHMS."""
    cands = [("mpi", 1)] + [(alg, t) for alg in ALGORITHMS[1:]
                            for t in range(1, max(1, max_threads) + 1)]
    scored = [(predict(params, collective, alg, t, size, ranks, ranks_per_node),
               alg != "mpi", t, ALGORITHMS.index(alg), alg) for alg, t in cands]
    sec, _, t, _, alg = min(scored)
    return alg, t, sec


# ---------------------------------------------------------------- fitting

def _time_s(rec: dict) -> float:
    """the record's time in seconds: the average over the ranks that measured"""
    st = (rec.get("results") or rec.get("stats") or {})["time"]
    return float(st["avg"] if isinstance(st, dict) else st) * 1e-6


def _slope_through(points: Sequence[Tuple[float, float]], intercept: float) -> float:
    """least squares slope k of t = intercept + k s"""
    num = sum(s * (t - intercept) for s, t in points)
    den = sum(s * s for s, _ in points)
    return num / den if den > 0 else 0.0


def _median_points(recs: List[dict]) -> Dict[Tuple[str, str, int, int], float]:
    """(quantity, link, threads, size) -> median time (s) over repeated records"""
    groups: Dict[Tuple[str, str, int, int], List[float]] = {}
    for rec in recs:
        p = rec["params"]
        key = (p["quantity"], p.get("link", "none"), int(p.get("threads", 1)), int(p["size"]))
        groups.setdefault(key, []).append(_time_s(rec))
    return {k: statistics.median(v) for k, v in groups.items()}


def _link_fit(points: Dict[Tuple[str, str, int, int], float], link: str
              ) -> Optional[Tuple[float, float]]:
    pts = sorted((s, t) for (q, l, _, s), t in points.items() if q == "p2p" and l == link)
    if not pts:
        return None
    zero = [t for s, t in pts if s == 0]
    alpha = zero[0] if zero else pts[0][1]
    k = _slope_through([(s, t) for s, t in pts if s > 0], alpha)
    return alpha, (1 / k if k > 0 else math.inf)


def _rates(points: Dict[Tuple[str, str, int, int], float], quantity: str) -> Tuple[float, ...]:
    by_t: Dict[int, List[Tuple[float, float]]] = {}
    for (q, _, t, s), sec in points.items():
        if q == quantity and s > 0:
            by_t.setdefault(t, []).append((s, sec))
    rates: List[float] = []
    for t in range(1, max(by_t, default=0) + 1):
        pts = by_t.get(t)
        k = _slope_through(pts, 0.0) if pts else 0.0
        rates.append(1 / k if k > 0 else (rates[-1] if rates else math.inf))
    return tuple(rates)


def fit(records: Iterable[dict]) -> MachineParams:
    """MachineParams from bench.collparams records: alpha = the 0-byte p2p time, 1/beta the
    least-squares slope of the p2p time over size (intercept alpha), copy/reduce rate per
    thread count the least-squares slope through 0 of time over size; each point the median
    over repeated records of the ranks' average time.  bench.coll records among them fit the
    overhead terms too (fit_overhead)."""
    recs = list(records)
    cp = [r for r in recs if r.get("kind") == "bench.collparams"]
    if not cp:
        raise ValueError("no bench.collparams records to fit the machine parameters from")
    points = _median_points(cp)
    intra = _link_fit(points, "intra")
    inter = _link_fit(points, "inter")
    if intra is None:
        intra = inter if inter is not None else (1e-6, 1e10)
    inter = inter or intra
    copy, red = _rates(points, "copy"), _rates(points, "reduce")
    if not copy or not red:
        raise ValueError("bench.collparams records need copy and reduce points")
    prov = cp[0].get("provenance") or {}
    cores = int((prov.get("machine") or {}).get("cores") or len(copy))
    params = MachineParams(alpha_intra=intra[0], beta_intra=intra[1], alpha_inter=inter[0],
                           beta_inter=inter[1], copy_rate=copy, reduce_rate=red,
                           cores_per_node=cores)
    coll = [r for r in recs if r.get("kind") == "bench.coll"]
    return fit_overhead(params, coll) if coll else params


def fit_overhead(params: MachineParams, records: Iterable[dict],
                 max_size: int = 4096) -> MachineParams:
    """The per-call overhead o and per-thread o_t from bench.coll records of the hybrid
    algorithms that ran as asked at sizes <= max_size: o_t the least-squares slope of the
    residual (measured - model without overhead) over T - 1, o the median of residual -
    o_t (T - 1); both clipped at 0."""
    zero = replace(params, overhead=0.0, thread_overhead=0.0)
    pts: List[Tuple[int, float]] = []
    for rec in records:
        p = rec.get("params", {})
        if rec.get("kind") != "bench.coll" or p.get("algorithm") in (None, "mpi"):
            continue
        if p.get("ran") != p["algorithm"] or int(p["size"]) > max_size:
            continue
        t = int(p.get("threads_used", p.get("threads", 1)))
        model = predict(zero, p["collective"], p["algorithm"], t, int(p["size"]),
                        int(p["ranks"]), int(p["ranks_per_node"]))
        if math.isfinite(model):
            pts.append((t - 1, _time_s(rec) - model))
    if not pts:
        return params
    xs = [x for x, _ in pts]
    ys = [y for _, y in pts]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx > 0 else 0.0
    slope = max(0.0, slope)
    # the intercept as the median residual: one noisy run (the machine is shared) must not
    # set the overhead of every call
    icept = max(0.0, statistics.median(y - slope * x for x, y in pts))
    return replace(params, overhead=icept, thread_overhead=slope)
