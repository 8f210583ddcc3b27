"""How far a run's numbers can be trusted: a busy machine, oversubscription, the spread of
repeats.

    run.json (written by hybridkit.study.sweep)
        load: {"others_cpu_s", "share", "busy", "cpus", "own_cpu_s", "busy_cpu_s", "steal_cpu_s"}
              CPU time the rest of the machine used during the run: busy time of every CPU
              from /proc/stat minus the run's own CPU time (rusage of its children and of
              the front end itself)
        busy: true when others used more than BUSY_SHARE of the machine during the run (and
              more than BUSY_FLOOR_S CPU seconds: below that it is measurement noise)
        oversubscribe: more ranks x threads than cores -> a functional run, never a
              performance result

    values of one configuration (repeats) --> Spread(median, lo, hi, n)
"""

from __future__ import annotations

import os
import resource
import statistics
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence

from hybridkit.errors import warn_once

# others used more than this share of all CPUs during a run: the run is "busy"
# ($HK_BUSY_SHARE overrides it; tests of fake apps set it above 1: never busy)
BUSY_SHARE = 0.10


def _env_float(name: str, default: float) -> float:
    """$name as a number, or `default` when unset or empty; not a number: `default` with one
    warning naming the variable."""
    value = os.environ.get(name)
    if not value:
        return default
    try:
        v = float(value)
        if v == v:
            return v
    except ValueError:
        pass

    warn_once(f"{name}={value} is not a number: using {default:g}")
    return default


def busy_share() -> float:
    return _env_float("HK_BUSY_SHARE", BUSY_SHARE)


# ... and more than this many CPU seconds in all: below it, what /proc/stat shows beside our
# own rusage is its 10 ms ticks and the kernel's work starting and ending our processes
# (measured on an idle 2-core machine: 0.02-0.14 CPU-s around 0.4 s hk-mz runs, which the
# share alone called busy)
BUSY_FLOOR_S = 0.15


def busy_floor() -> float:
    """BUSY_FLOOR_S, or $HK_BUSY_FLOOR_S (tests that make every run busy set it below 0)."""
    return _env_float("HK_BUSY_FLOOR_S", BUSY_FLOOR_S)


def others_busy(others_cpu_s: float, wall_s: float, cpus: int) -> bool:
    """Others used more than busy_share() of the machine, and more than the floor."""
    if wall_s <= 0 or cpus <= 0:
        return False
    return others_cpu_s / (wall_s * cpus) > busy_share() and others_cpu_s > busy_floor()


FUNCTIONAL = "functional run, not a performance result"


def _proc_stat() -> Optional[Dict[str, float]]:
    """(busy, total, steal) CPU seconds of all CPUs since boot, from /proc/stat's first line
    (steal: time the hypervisor gave to other guests, a part of busy)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:]]
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    # user nice system idle iowait irq softirq steal (guest is inside user already)
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    total = sum(ticks[:8])
    steal = ticks[7] if len(ticks) > 7 else 0
    return {"busy": (total - idle) / hz, "total": total / hz, "steal": steal / hz}


def _children_cpu() -> float:
    """CPU time of our finished children and of this process itself (the front end pumps the
    run's output while it runs: that time is ours, not the machine's other users')."""
    own = 0.0
    for who in (resource.RUSAGE_CHILDREN, resource.RUSAGE_SELF):
        ru = resource.getrusage(who)
        own += ru.ru_utime + ru.ru_stime
    return own


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass
class LoadProbe:
    """Busy CPU time of the machine and CPU time of our children, before and after a run."""

    stat0: Optional[Dict[str, float]] = None
    own0: float = 0.0

    @classmethod
    def start(cls) -> "LoadProbe":
        return cls(_proc_stat(), _children_cpu())

    def finish(self, wall_s: float) -> Dict[str, Any]:
        stat1, own1 = _proc_stat(), _children_cpu()
        own = max(0.0, own1 - self.own0)
        cpus = os.cpu_count() or 1
        if not self.stat0 or not stat1 or wall_s <= 0:
            return {"own_cpu_s": round(own, 3), "others_cpu_s": None, "share": None,
                    "busy": None, "cpus": cpus}
        busy = stat1["busy"] - self.stat0["busy"]
        others = max(0.0, busy - own)
        share = others / (wall_s * cpus)
        return {"own_cpu_s": round(own, 3), "busy_cpu_s": round(busy, 3),
                "others_cpu_s": round(others, 3), "share": round(share, 4),
                "steal_cpu_s": round(stat1["steal"] - self.stat0["steal"], 3),
                "busy": others_busy(others, wall_s, cpus), "cpus": cpus}


def is_busy(info: Dict[str, Any]) -> bool:
    """run.json says others used the machine during the run."""
    load = info.get("load") or {}
    return bool(load.get("busy"))


def is_functional(info: Dict[str, Any]) -> bool:
    """run.json says the run was oversubscribed: it shows that things work, not how fast."""
    return bool(info.get("oversubscribe"))


def load_text(info: Dict[str, Any]) -> str:
    load = info.get("load") or {}
    if load.get("share") is None:
        return ""
    return f"others used {load['share']:.0%} of the machine ({load['others_cpu_s']:.2f} CPU s)"


def num(v: float) -> str:
    """4 significant digits, without an exponent from 1e4 to 1e12 ('15800', not
    '1.58e+04': Mop/s and bytes read better so)."""
    a = abs(v)
    if a != a or a == 0 or a < 1e4 or a >= 1e12:
        return f"{v:.4g}"
    return f"{round(v, 4 - len(str(int(a)))):.0f}"


@dataclass(frozen=True)
class Spread:
    median: float
    lo: float
    hi: float
    n: int

    def text(self, unit: str = "") -> str:
        """'88.3 MLUP/s [80.1-90.2, 3 runs]': median, then min-max of the repeats."""
        u = f" {unit}" if unit else ""
        if self.n < 2:
            return f"{num(self.median)}{u} (1 run)"
        return f"{num(self.median)}{u} [{num(self.lo)}-{num(self.hi)}, {self.n} runs]"

    def overlaps(self, other: "Spread") -> bool:
        """Indistinguishable: each median lies inside the other's min-max (with single runs,
        only equal values are)."""
        return self.lo <= other.median <= self.hi and other.lo <= self.median <= other.hi


def spread(values: Sequence[float]) -> Spread:
    vals = sorted(v for v in values if v == v)
    if not vals:
        nan = float("nan")
        return Spread(nan, nan, nan, 0)
    return Spread(statistics.median(vals), vals[0], vals[-1], len(vals))
