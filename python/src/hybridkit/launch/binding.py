"""Where the threads of a run ran: the binding table and the verdict on core sharing.

Input is the `provenance.binding` list of the records (rank, thread, host, node, cpuset,
cpu). A thread "has its own core" when its cpuset is non-empty, fits in one core, and no
other thread on the same host may run on any of its PUs:

    rank/thread  cpuset          rank/thread  cpuset
    r0/t0        0      own      r0/t0        0-1    \\ share PUs 0-1
    r1/t0        1      own      r1/t0        0-1    /

Core boundaries are known only as PUs per core (provenance.machine, for "this machine");
otherwise the check is done at PU level.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, TextIO, Tuple

from hybridkit.launch.cpuset import format_cpuset, parse_cpuset

MAX_GROUPS_SHOWN = 4


@dataclass(frozen=True)
class ThreadBinding:
    rank: int
    thread: int
    host: str
    node: int
    cpuset: str
    cpu: int

    @property
    def label(self) -> str:
        return f"r{self.rank}/t{self.thread}"

    @property
    def pus(self) -> FrozenSet[int]:
        try:
            return parse_cpuset(self.cpuset)
        except ValueError:
            return frozenset()


@dataclass(frozen=True)
class Verdict:
    own_cores: bool
    text: str


def bindings(records: Iterable[dict]) -> List[ThreadBinding]:
    """The binding entries of all records, one per (host, rank, thread), sorted."""
    seen: Dict[Tuple[str, int, int], ThreadBinding] = {}
    for record in records:
        for entry in record.get("provenance", {}).get("binding", []):
            b = ThreadBinding(entry["rank"], entry["thread"], entry["host"], entry["node"],
                              entry["cpuset"], entry["cpu"])
            seen.setdefault((b.host, b.rank, b.thread), b)
    return sorted(seen.values(), key=lambda b: (b.rank, b.thread, b.host))


def record_warnings(records: Iterable[dict]) -> List[str]:
    """The `warnings` of all records, each once, in order."""
    out: List[str] = []
    for record in records:
        for warning in record.get("warnings", []):
            if warning not in out:
                out.append(warning)
    return out


def pus_per_core(records: Iterable[dict]) -> int:
    """PUs per core of the machine the records ran on; 1 when unknown."""
    for record in records:
        machine = record.get("provenance", {}).get("machine", {})
        cores, pus = machine.get("cores", 0), machine.get("pus", 0)
        if machine.get("source") == "this machine" and cores and pus % cores == 0:
            return pus // cores
    return 1


def _sharing_groups(threads: List[ThreadBinding]) -> List[List[ThreadBinding]]:
    """Threads on the same host whose cpusets overlap, grouped (connected components)."""
    parent = list(range(len(threads)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(threads):
        for j in range(i + 1, len(threads)):
            b = threads[j]
            if a.host == b.host and a.pus & b.pus:
                parent[root(j)] = root(i)
    groups: Dict[int, List[ThreadBinding]] = {}
    for i, t in enumerate(threads):
        groups.setdefault(root(i), []).append(t)
    return [g for g in groups.values() if len(g) > 1]


def _describe(groups: List[List[ThreadBinding]], multihost: bool) -> str:
    parts = []
    for group in groups[:MAX_GROUPS_SHOWN]:
        pus = format_cpuset(set().union(*(t.pus for t in group)))
        host = f"{group[0].host}: " if multihost else ""
        parts.append(f"{host}{', '.join(t.label for t in group)} on PU {pus}")
    if len(groups) > MAX_GROUPS_SHOWN:
        parts.append(f"and {len(groups) - MAX_GROUPS_SHOWN} more groups")
    return "; ".join(parts)


def _threads(n: int) -> str:
    return "1 thread" if n == 1 else f"{n} threads"


def verdict(threads: List[ThreadBinding], per_core: int = 1, expected: int = 0) -> Verdict:
    """Does each thread have a core of its own?  expected: ranks x threads of the run (0:
    unknown); when fewer bindings were recorded, the verdict covers only those and says so."""
    if not threads:
        return Verdict(False, "no binding information in the records")
    multihost = len({t.host for t in threads}) > 1
    groups = _sharing_groups(threads)
    if groups:
        n = sum(len(g) for g in groups)
        return Verdict(False, f"{n} threads share cores: {_describe(groups, multihost)}")
    loose = [t for t in threads if not t.pus or len(t.pus) > per_core]
    if loose:
        shown = ", ".join(f"{t.label} on PU {t.cpuset or '?'}" for t in loose[:8])
        more = f" and {len(loose) - 8} more" if len(loose) > 8 else ""
        count = "1 thread is" if len(loose) == 1 else f"{len(loose)} threads are"
        return Verdict(False, f"{count} not pinned to one core: {shown}{more}")
    if expected > len(threads):
        return Verdict(True, f"each of the {_threads(len(threads))} recorded has its own core "
                             f"(the binding of {expected - len(threads)} of the run's {expected} "
                             "threads is not recorded)")
    return Verdict(True, f"each thread has its own core ({_threads(len(threads))})")


def expected_threads(records: Iterable[dict]) -> int:
    """ranks x threads per rank of the run, from the first record's provenance (0: unknown)"""
    for record in records:
        p = record.get("provenance", {})
        try:
            return int(p.get("ranks") or 0) * int(p.get("threads_per_rank") or 0)
        except (TypeError, ValueError):
            return 0
    return 0


def render(records: List[dict], out: Optional[TextIO] = None) -> Verdict:
    """Print the binding table, the records' warnings and the verdict; return the verdict."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    out = out or sys.stdout
    threads = bindings(records)
    console = Console(file=out, highlight=False, soft_wrap=True,
                      width=None if out.isatty() else 120)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name in ("rank", "thread", "host", "node", "cpuset", "cpu"):
        table.add_column(name, justify="right" if name in ("rank", "thread", "node", "cpu")
                         else "left", no_wrap=True)
    for t in threads:
        table.add_row(str(t.rank), str(t.thread), t.host, str(t.node), t.cpuset,
                      str(t.cpu) if t.cpu >= 0 else "?")
    if threads:
        console.print(table)
    for warning in record_warnings(records):
        console.print(f"warning: {warning}", markup=False)
    result = verdict(threads, pus_per_core(records), expected_threads(records))
    console.print(f"verdict: {result.text}", markup=False,
                  style=None if result.own_cores else "bold yellow")
    return result
