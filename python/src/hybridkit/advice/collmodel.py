"""A cost model of the hybrid collectives (issue 39): which algorithm and thread count
is fastest for a message of n bytes on P ranks, L ranks per node (N = P / L nodes).

Machine parameters (MachineParams, fitted from `hk-bench collparams` records):
  a, b      latency (s) and bandwidth (bytes/s) of a point-to-point message; the intra-node
            pair when N == 1, the inter-node pair when N > 1 (assumption: a flat MPI
            algorithm over several nodes goes at the speed of its slowest link)
  c(T)      copy rate (bytes/s per process, every rank of the node copying at once) with T
            threads: the slope over 64 KiB .. 16 MiB, i.e. the rate of memory, not caches
  r(T)      reduction rate (a[i] += b[i] on doubles, bytes/s per process) with T threads
  c_loc(n)  the copy rate of one thread at each measured size (64 KiB .. 16 MiB, log-linear
            between them): a process copying its own buffer, hot in its caches
  o_mpi     per-call software cost of an MPI collective; o, o_t per-call overhead of a
            hybrid algorithm (decision, node syncs) and per extra thread (fork/join): the
            median residual of bench.coll records at <= 4 KiB when given, else 0, 2 us, 1 us

n is the message size as bench.coll and the tuning table count it (allreduce, reduce, bcast:
the buffer; reduce-scatter, allgather, alltoall: P x the per-rank count; alltoallv: the most
bytes a rank sends, P x the per-pair count when every pair has the same, as hk-bench coll runs it).  lg = ceil(log2 P),
f = (P - 1) / P.  Out-of-place buffers.

mpi -- what MPI itself is assumed to run (Open MPI 4.1's tuned/basic components; the switch
point SMALL = 64 KiB is not measured), + o_mpi:
  allreduce   n/c1 (send buffer copied to the receive buffer first), then
              n <= SMALL: recursive doubling  lg (a + n/b + n/r1)
              else Rabenseifner               2 lg a + 2 f n/b + f n/r1
  reduce      n <= SMALL: binomial tree       lg (a + n/b + n/r1)
              else the same tree pipelined    lg a + n/b + n/r1 (the depth costs latency)
  reduce-scatter  reduce to one rank, then scatter:  reduce(n) + lg a + f n/b
  bcast       n <= SMALL: binomial tree       lg (a + n/b)
              else scatter + allgather        (lg + P - 1) a + 2 f n/b
  allgather   own block copied + recursive doubling / ring:  n/(P c1) + lg a + f n/b
  alltoall    pairwise exchange               (P - 1)(a + n/(P b)) + n/(P c1)
  alltoallv   as alltoall with the per-pair counts n/P (Open MPI 4.1's tuned alltoallv is a
              pairwise exchange too; uneven counts are not modelled)
  scan        a chain in rank order (Open MPI 4.1's basic component; not measured): the
              send buffer copied, then each rank waits for its left neighbour's prefix,
              folds it in and passes it on:   n/c1 + (P - 1)(a + n/b + n/r1)
  exscan      the same chain without the copy and one reduction fewer:
              (P - 1)(a + n/b) + (P - 2) n/r1
  (r1 = r(1), c1 = c(1): MPI reduces and copies on one thread.)

chunked with T threads: T chunks of n/T bytes, each an MPI call of the same collective on its
own communicator, all at once.  Assumptions: the chunks' latencies and call costs overlap
(counted once), the link is shared (the bandwidth term sees all n bytes), the
reduction/copy is split over the T threads at the measured rate r(T) / c(T) (so saturation
of memory bandwidth shows), and MPI picks its algorithm by the chunk's size n/T:
  t = o + o_t (T - 1) + o_mpi + mpi(n, a, b, r(T), c(T); switch on n/T)
chunked-shifted: the same cost (assumption: starting the threads at different chunks changes
  the contention, not the volume; the model cannot tell them apart and prefers chunked).
  scan and exscan have no chunked-shifted (a rotated communicator folds the ranks in
  another order) and no hierarchical (src/coll/scan.c): inf for both; alltoallv has no
  hierarchical (src/coll/alltoallv.c): inf.

hierarchical with T threads (needs L >= 2; alltoall also N == 1): node phases through a shared
window at c(T) / r(T) (data another core wrote: the memory rates), then, with N >= 2 nodes,
the node leaders' collective among the N nodes (inter link, chunked over T: lead(coll)); on
one node there is no leaders' step (src/coll/hierarchical.c, reduce_node.c, gather_node.c):
  allreduce   o + o_t (T-1) + f_L n/c + f_L n/r + lead(allreduce) + n/c
              (copy in skips the rank's own chunks, which it reduces from its send buffer;
              each of the L T workers reduces n/(L T) over the L inputs)
  reduce      the same with lead(reduce) (the root copies out)
  reduce-scatter  o + ... + f_L n/c + f_L n/r + lead(allreduce) + n/(P c)
  bcast       o + ... + n/c (root into the window) + lead(bcast) + n/c (out of it)
  allgather   o + ... + n/(P c) + lead(allgather) + n/c
  alltoall    o + ... + n/c + n/c  (N == 1 only)
  (f_L = (L - 1)/L.)

P == 1: the library calls MPI (fallback "one rank"); MPI copies the send buffer into the
receive buffer at c_loc(n) (reduce-scatter: twice, into the reduction's buffer and out of
it; bcast and exscan: nothing), so predict() gives that for mpi and inf for the hybrid algorithms.

Every algorithm that would fall back returns math.inf.  Times are seconds.

Measured on the project's 2-core machine (python/tests/fixtures/collmodel/reference.json,
tests in test_collmodel_reference.py): every prediction of >= 0.5 us within a factor 3; the
pick = the measured best in 91 % of 90 (collective, size) cases at 2 x 1 (92 % within 5 %).
Known misses: MPI's reduce at 64 KiB .. 1 MiB runs twice as fast as n/b + n/r (receiving
and reducing overlap while the data is in cache; the model adds them); MPI's
reduce-scatter at >= 1 MiB is up to 2.7x slower than modelled (its temporary buffer is
allocated and first touched per call).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

COLLECTIVES = ("allreduce", "reduce", "reduce-scatter", "bcast", "allgather", "alltoall", "scan",
               "exscan", "alltoallv")
# what 'hk-bench coll' measures (`tune` without --predict, --check): every one
MEASURED = COLLECTIVES
# the algorithms src/coll/scan.c and alltoallv.c have not: their calls fall back
# ("unavailable")
UNAVAILABLE = {"scan": ("chunked-shifted", "hierarchical"),
               "exscan": ("chunked-shifted", "hierarchical"),
               "alltoallv": ("hierarchical",)}
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
    mpi_overhead: float = 0.0     # s per MPI collective call (its software path)
    # the copy rate of one thread copying its own buffer again (hot in its caches) at
    # local_sizes: what MPI's local copy of a process's own data runs at; empty: copy(1)
    local_sizes: Tuple[int, ...] = ()
    local_copy: Tuple[float, ...] = ()

    def to_json(self) -> dict:
        d = asdict(self)
        d["copy_rate"] = list(self.copy_rate)
        d["reduce_rate"] = list(self.reduce_rate)
        d["local_sizes"] = list(self.local_sizes)
        d["local_copy"] = list(self.local_copy)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "MachineParams":
        names = cls.__dataclass_fields__
        kw = {k: v for k, v in d.items() if k in names}
        kw["copy_rate"] = tuple(float(x) for x in d["copy_rate"])
        kw["reduce_rate"] = tuple(float(x) for x in d["reduce_rate"])
        kw["local_sizes"] = tuple(int(x) for x in d.get("local_sizes", ()))
        kw["local_copy"] = tuple(float(x) for x in d.get("local_copy", ()))
        return cls(**kw)

    def copy(self, threads: int) -> float:
        """copy rate with `threads` threads (the largest measured beyond the table)"""
        return self.copy_rate[min(max(threads, 1), len(self.copy_rate)) - 1]

    def reduce(self, threads: int) -> float:
        return self.reduce_rate[min(max(threads, 1), len(self.reduce_rate)) - 1]

    def local(self, size: float) -> float:
        """the rate of a copy of `size` bytes of a process's own (cached) data"""
        if not self.local_sizes or len(self.local_copy) != len(self.local_sizes):
            return self.copy(1)
        return _interp(self.local_sizes, self.local_copy, size)

    def link(self, nodes: int) -> Tuple[float, float]:
        """(latency, bandwidth) of the link a flat algorithm over `nodes` nodes goes at"""
        if nodes > 1:
            return self.alpha_inter, self.beta_inter
        return self.alpha_intra, self.beta_intra


def _interp(xs: Sequence[float], ys: Sequence[float], x: float) -> float:
    """ys linearly interpolated over log(xs) at x, held constant beyond the ends"""
    if x <= xs[0]:
        return ys[0]
    for i in range(1, len(xs)):
        if x <= xs[i]:
            w = math.log(x / xs[i - 1]) / math.log(xs[i] / xs[i - 1])
            return ys[i - 1] + w * (ys[i] - ys[i - 1])
    return ys[-1]


# ---------------------------------------------------------------- formulas

def _lg(p: int) -> int:
    return max(0, math.ceil(math.log2(p))) if p > 1 else 0


def mpi_time(collective: str, n: float, p: int, a: float, b: float, r: float, c: float,
             switch: Optional[float] = None) -> float:
    """MPI's own algorithm for `collective` on p ranks (see the module text); switch: the
    size MPI decides by (default n).  Out-of-place buffers."""
    if p <= 1:  # the send buffer copied to the receive buffer (reduce-scatter: twice,
        # into the reduction's buffer, then the "scatter" of the one block)
        return {"bcast": 0.0, "exscan": 0.0, "reduce-scatter": 2 * n / c}.get(collective, n / c)
    lg, f = _lg(p), (p - 1) / p
    small = (n if switch is None else switch) <= SMALL
    if collective == "allreduce":
        # both algorithms start by copying the send buffer into the receive buffer
        if small:
            return n / c + lg * (a + n / b + n / r)
        return n / c + 2 * lg * a + 2 * f * n / b + f * n / r
    if collective == "reduce":
        # binomial tree, pipelined in segments for large messages: the depth costs
        # latency only, the root receives and reduces n once per child on the path
        if small:
            return lg * (a + n / b + n / r)
        return lg * a + n / b + n / r
    if collective == "reduce-scatter":
        # reduce to one rank, then scatter the blocks
        return mpi_time("reduce", n, p, a, b, r, c, switch) + lg * a + f * n / b
    if collective == "bcast":
        if small:
            return lg * (a + n / b)
        return (lg + p - 1) * a + 2 * f * n / b
    if collective == "allgather":
        # the own block copied into place, the others received
        return n / (p * c) + lg * a + f * n / b
    if collective in ("alltoall", "alltoallv"):
        return (p - 1) * (a + n / (p * b)) + n / (p * c)
    if collective == "scan":
        return n / c + (p - 1) * (a + n / b + n / r)
    if collective == "exscan":
        return (p - 1) * (a + n / b) + max(0, p - 2) * n / r
    raise ValueError(f"unknown collective {collective!r}")


def predict(params: MachineParams, collective: str, algorithm: str, threads: int, size: int,
            ranks: int, ranks_per_node: int) -> float:
    """Predicted seconds per call (math.inf where the algorithm would fall back)."""
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective!r}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    if algorithm in UNAVAILABLE.get(collective, ()):
        return math.inf
    p, local = max(1, ranks), max(1, min(ranks_per_node, ranks))
    n, t = float(size), max(1, threads)
    nodes = max(1, math.ceil(p / local))
    c1, r1 = params.copy(1), params.reduce(1)
    om = params.mpi_overhead
    if p == 1:
        if algorithm != "mpi":
            return math.inf
        return om + mpi_time(collective, n, 1, 0, 1, r1, params.local(n))
    a, b = params.link(nodes)
    if algorithm == "mpi":
        return om + mpi_time(collective, n, p, a, b, r1, c1)
    ct, rt = params.copy(t), params.reduce(t)
    over = params.overhead + params.thread_overhead * (t - 1)
    if algorithm in ("chunked", "chunked-shifted"):
        return over + om + mpi_time(collective, n, p, a, b, rt, ct, switch=n / t)
    # hierarchical: the leaders' step only when there are several nodes
    if local < 2 or (collective == "alltoall" and nodes > 1):
        return math.inf
    ai, bi = params.link(nodes)

    def leaders(coll: str) -> float:
        if nodes < 2:
            return 0.0
        return om + mpi_time(coll, n, nodes, ai, bi, rt, ct, switch=n / t)

    fl = (local - 1) / local
    # copy in: a rank skips its own chunks (it reduces them from its send buffer)
    node_reduce = fl * n / ct + fl * n / rt
    if collective in ("allreduce", "reduce"):
        return over + node_reduce + leaders(collective) + n / ct
    if collective == "reduce-scatter":
        # several nodes: the leaders allreduce the whole vector (every node needs its blocks)
        return over + node_reduce + leaders("allreduce") + n / (p * ct)
    if collective == "bcast":
        return over + n / ct + leaders("bcast") + n / ct
    if collective == "allgather":
        return over + n / (p * ct) + leaders("allgather") + n / ct
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
    thread count the least-squares slope through 0 of time over size, the local copy curve
    size / time of one thread's copy at each size; each point the median over repeated
    records of the ranks' average time.  bench.coll records among them fit the overhead
    terms too (fit_overhead)."""
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
    local = sorted((s, s / t) for (q, _, th, s), t in points.items()
                   if q == "copy" and th == 1 and s > 0 and t > 0)
    prov = cp[0].get("provenance") or {}
    cores = int((prov.get("machine") or {}).get("cores") or len(copy))
    params = MachineParams(alpha_intra=intra[0], beta_intra=intra[1], alpha_inter=inter[0],
                           beta_inter=inter[1], copy_rate=copy, reduce_rate=red,
                           cores_per_node=cores, local_sizes=tuple(s for s, _ in local),
                           local_copy=tuple(r for _, r in local))
    coll = [r for r in recs if r.get("kind") == "bench.coll"]
    return fit_overhead(params, coll) if coll else params


def _residuals(params: MachineParams, records: Iterable[dict], mpi: bool,
               max_size: int) -> List[Tuple[int, float]]:
    """(T - 1, measured - predicted) of the bench.coll records at sizes <= max_size that
    ran as asked: the mpi rows (mpi) or the hybrid ones"""
    pts: List[Tuple[int, float]] = []
    for rec in records:
        p = rec.get("params", {})
        if rec.get("kind") != "bench.coll" or p.get("algorithm") is None:
            continue
        if (p["algorithm"] == "mpi") != mpi or int(p["size"]) > max_size:
            continue
        if not mpi and p.get("ran") != p["algorithm"]:
            continue
        t = 1 if mpi else int(p.get("threads_used", p.get("threads", 1)))
        model = predict(params, p["collective"], p["algorithm"], t, int(p["size"]),
                        int(p["ranks"]), int(p["ranks_per_node"]))
        if math.isfinite(model):
            pts.append((t - 1, _time_s(rec) - model))
    return pts


def fit_overhead(params: MachineParams, records: Iterable[dict],
                 max_size: int = 4096) -> MachineParams:
    """The per-call overheads from bench.coll records at sizes <= max_size: o_mpi the median
    residual (measured - model without it) of the mpi rows; then, with o_mpi in place, o_t
    the least-squares slope of the hybrid rows' residual over T - 1 and o the median of
    residual - o_t (T - 1); all clipped at 0 (medians: one noisy run on a shared machine
    must not set the overhead of every call)."""
    recs = list(records)
    zero = replace(params, overhead=0.0, thread_overhead=0.0, mpi_overhead=0.0)
    mres = [y for _, y in _residuals(zero, recs, True, max_size)]
    if mres:
        zero = replace(zero, mpi_overhead=max(0.0, statistics.median(mres)))
    pts = _residuals(zero, recs, False, max_size)
    if not pts:
        return replace(params, mpi_overhead=zero.mpi_overhead)
    xs = [x for x, _ in pts]
    ys = [y for _, y in pts]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx > 0 else 0.0
    slope = max(0.0, slope)
    icept = max(0.0, statistics.median(y - slope * x for x, y in pts))
    return replace(zero, overhead=icept, thread_overhead=slope)
