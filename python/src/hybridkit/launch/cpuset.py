"""CPU sets in hwloc list syntax ("0-1,4") and the cores of this machine.

Records name the PUs a thread may run on by OS index in hwloc's list syntax; the
binding verdict compares those sets. The local core count is what `hybridkit run`
checks R x T against before launching anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import FrozenSet, Iterable

SYS_CPU = Path("/sys/devices/system/cpu")


def parse_cpuset(text: str) -> FrozenSet[int]:
    """Parse "0-3,8,10-11" into {0,1,2,3,8,10,11}; raise ValueError on bad syntax."""
    text = text.strip()
    if not text:
        return frozenset()
    pus = set()
    for part in text.split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f"bad cpuset {text!r}: {part!r} is not N or N-M")
        first, last = int(lo), int(hi) if sep else int(lo)
        if last < first:
            raise ValueError(f"bad cpuset {text!r}: range {part!r} runs backwards")
        pus.update(range(first, last + 1))
    return frozenset(pus)


def format_cpuset(pus: Iterable[int]) -> str:
    """The inverse of parse_cpuset: {0,1,2,4} -> "0-2,4"."""
    ordered = sorted(set(pus))
    runs = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        runs.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(runs)


def local_cores(sys_cpu: Path = SYS_CPU) -> int:
    """Physical cores this process may run on.

    Distinct (physical_package_id, core_id) pairs of the PUs in sched_getaffinity; if
    sysfs has no topology, every allowed PU counts as a core.
    """
    allowed = sorted(os.sched_getaffinity(0))
    cores = set()
    for pu in allowed:
        topo = sys_cpu / f"cpu{pu}" / "topology"
        try:
            package = (topo / "physical_package_id").read_text().strip()
            core = (topo / "core_id").read_text().strip()
        except OSError:
            cores.add(("pu", pu))
            continue
        cores.add((package, core))
    return max(1, len(cores))
