"""Mesh-splitting calculator (Jin et al., Table 3): points and ghost overhead when zones are
split to feed more MPI processes, pure MPI against hybrid MPI+OpenMP at one core count.

The splitting is hk-mz's ``--split K`` (apps/mz/mz_split.h), so the numbers here are the
ones hk-mz reports: every zone (nx x ny x nz points including its one-point boundary layer)
is cut into K sub-zones along the larger of the average zone dimensions (x on ties); each
cut adds two ghost planes, so a zone gains 2 (K-1) x cross-section x nz points.  K is the
least split that gives every process a zone: K = ceil(processes / zones).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from hybridkit import plot

Zone = Tuple[int, int, int]

# NPB-MZ classes (NPB3.3-MZ sys/setparams.c; LU-MZ: NPB3.4-MZ): gx, gy, gz, x_zones, y_zones;
# BT-MZ stretches the zone widths by the ratio 3 (class S) or 4.5, SP-MZ and LU-MZ do not.
_CLASSES = {"S": (24, 24, 6, 2, 2), "W": (64, 64, 8, 4, 4), "A": (128, 128, 16, 4, 4),
            "B": (304, 208, 17, 8, 8), "C": (480, 320, 28, 16, 16),
            "D": (1632, 1216, 34, 32, 32)}


def _widths(g: int, n: int, ratio: float) -> List[int]:
    """Widths of n intervals covering g points, as mz_problem.c (BT-MZ zone_setup)."""
    out, prev = [], 0
    if abs(ratio - 1.0) > 1e-10:
        r = math.exp(math.log(ratio) / (n - 1))
        smallest = g * (r - 1.0) / (r ** n - 1.0)
        rp = r
        for _ in range(n):
            end = int(smallest * (rp - 1.0) / (r - 1.0) + 0.45)
            out.append(end - prev)
            prev = end
            rp *= r
    else:
        for i in range(n):
            end = (i + 1) * g // n
            out.append(end - prev)
            prev = end
    return out


def npb_zones(bench: str, cls: str) -> List[Zone]:
    """The zones of an NPB-MZ class ("bt"/"sp"/"lu", "S".."D"), zone = i + j * x_zones."""
    bench, cls = bench.lower(), cls.upper()
    if bench not in ("bt", "sp", "lu") or cls not in _CLASSES:
        raise ValueError(f"unknown NPB-MZ problem '{bench}:{cls}' (bt|sp|lu : S|W|A|B|C|D)")
    gx, gy, gz, xz, yz = _CLASSES[cls]
    if bench == "lu":
        xz = yz = 4
    ratio = (3.0 if cls == "S" else 4.5) if bench == "bt" else 1.0
    wx, wy = _widths(gx, xz, ratio), _widths(gy, yz, ratio)
    return [(wx[i], wy[j], gz) for j in range(yz) for i in range(xz)]


def parse_zones(text: str) -> List[Zone]:
    """"NXxNYxNZ[*COUNT],..." (points incl. the boundary layer) -> zones."""
    zones: List[Zone] = []
    for item in text.split(","):
        size, _, count = item.strip().partition("*")
        try:
            dims = tuple(int(v) for v in size.lower().split("x"))
            n = int(count) if count else 1
        except ValueError:
            dims, n = (), 0
        if len(dims) != 3 or min(dims) < 3 or n < 1:
            raise ValueError(f"bad zone '{item}': want NXxNYxNZ[*COUNT], each >= 3")
        zones += [dims] * n  # type: ignore[list-item]
    return zones


def split_axis(zones: Sequence[Zone]) -> int:
    """0: cut along x, 1: along y (the larger average dimension; x on ties)."""
    return int(sum(z[1] for z in zones) > sum(z[0] for z in zones))


def ghosts(zones: Sequence[Zone], k: int) -> int:
    axis = split_axis(zones)
    return sum(2 * (k - 1) * (z[0] if axis else z[1]) * z[2] for z in zones)


def check_split(zones: Sequence[Zone], k: int) -> Optional[str]:
    """None when every zone can be cut k ways, else the reason (hk-mz's rule)."""
    axis = split_axis(zones)
    for i, z in enumerate(zones):
        interior = z[axis] - 2
        if k > interior:
            return f"split {k}: more splits than points (zone {i} has {interior} interior points)"
        if k > 1 and interior // k < 3:
            return (f"split {k}: zone {i} ({interior} interior points) is too small to split "
                    f"{k} ways (sub-zones need >= 3 interior points)")
    return None


@dataclass
class SplitRow:
    threads: int
    procs: int
    split: int
    zones: int
    points: int
    ghost_points: int
    problem: Optional[str]

    @property
    def overhead(self) -> float:
        return self.ghost_points / (self.points - self.ghost_points)


def calculate(zones: Sequence[Zone], cores: int,
              threads: Sequence[int] = (1, 2, 4, 8)) -> List[SplitRow]:
    """One row per threads-per-process that divides `cores` (1 = pure MPI)."""
    if cores < 1 or not zones:
        raise ValueError("need at least one core and one zone")
    base = sum(a * b * c for a, b, c in zones)
    rows = []
    for t in sorted(set(threads)):
        if t < 1 or cores % t:
            continue
        procs = cores // t
        k = -(-procs // len(zones))
        g = ghosts(zones, k)
        rows.append(SplitRow(t, procs, k, k * len(zones), base + g, g, check_split(zones, k)))
    return rows


def lines(rows: Sequence[SplitRow], what: str, cores: int) -> List[str]:
    out = [f"Mesh splitting for {what} on {cores} cores (hk-mz --split; one zone or more "
           "per process):",
           f"{'threads':>8} {'procs':>6} {'split':>6} {'zones':>6} {'points':>12} "
           f"{'ghosts':>10} {'overhead':>9}"]
    for r in rows:
        out.append(f"{r.threads:>8} {r.procs:>6} {r.split:>6} {r.zones:>6} {r.points:>12} "
                   f"{r.ghost_points:>10} {100 * r.overhead:>8.1f}%"
                   + (f"  impossible: {r.problem}" if r.problem else ""))
    pure = next((r for r in rows if r.threads == 1), None)
    best = min((r for r in rows if not r.problem), key=lambda r: r.ghost_points, default=None)
    if pure and best and best.threads > 1 and pure.split > 1:
        out.append(f"Hybrid with {best.threads} threads needs split {best.split} instead of "
                   f"{pure.split}" + (" (impossible for pure MPI)" if pure.problem else "")
                   + f": {pure.ghost_points - best.ghost_points} fewer ghost points "
                   "and fewer cuts coupled only explicitly.")
    return out


def read_history(path: str) -> List[Tuple[float, float]]:
    """hk-mz --history's CSV -> [(step, residual)]."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            step, _, value = line.strip().partition(",")
            if step.isdigit():
                rows.append((float(step), float(value)))
    return rows


def figure(zones: Sequence[Zone], cores: int, threads: Sequence[int],
           histories: Sequence[str] = ()) -> List[str]:
    """SVGs: points incl. ghosts vs processes (groups) per threads per process, for core
    counts doubling up to `cores` (Table 3 as a plot); with hk-mz --history CSVs, also a
    figure of their residual histories (Fig. 1), one line per file."""
    series: dict = {}
    c = 1
    while c <= cores:
        for r in calculate(zones, c, threads):
            if not r.problem:
                series.setdefault(f"{r.threads} thread(s)", []).append((r.procs, r.points))
        c *= 2
    svgs = [plot.lines({"points vs processes": series}, "processes (groups)",
                       "points incl. ghosts", logx=True)]
    if histories:
        runs = {p.rsplit("/", 1)[-1]: read_history(p) for p in histories}
        svgs.append(plot.lines({"residual history": runs}, "step", "RMS residual", logy=True))
    return svgs
