"""The report's data-layout section (hk-mz --layout, Jin et al.'s BT experiment, Fig. 9):
Mop/s of the same problem with the zone data placed by each policy of hybridkit/mem.h
(first-touch, one-location, block, interleave, random, access), per threads per process.

Every record carries `pages_max_node`, the measured share of the zone data's pages on the
NUMA node that holds most of them (per rank; min, avg and max over the ranks).  The table
shows it per run, next to its Mop/s, so a reader sees whether the layouts really placed the
data differently: when every run has 1 (one NUMA node, or every page on one node), the
layouts cannot differ and the section says so.

The records are those of kind mz that carry `layout` (hk-mz always does) from the apps whose
description lists "layout" in report.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.appdesc import AppDesc
from hybridkit.report.parts import Figure, Section, Table, entry_flag, lines, median_of
from hybridkit.study.rundata import Entry, Run, entries

Key = Tuple[str, int, str, int]  # problem, ranks, layout, threads per rank


def _problem(e: Entry) -> str:
    p = e.params
    return f"bench={p.get('bench')} class={p.get('class')}"


def _int(value: object) -> Optional[int]:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def pages_max_node(e: Entry) -> Optional[Tuple[float, float]]:
    """(min, max) over the ranks of the run's pages_max_node, None when not measured."""
    res = e.record["results"].get("pages_max_node")
    if not isinstance(res, dict):
        return None
    lo = res.get("min", res.get("value", res.get("avg")))
    hi = res.get("max", res.get("value", res.get("avg")))
    if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
        return None
    return float(lo), float(hi)


def _fmt_pages(p: Optional[Tuple[float, float]]) -> str:
    if p is None:
        return "-"
    lo, hi = p
    return f"{lo:.2f}" if lo == hi else f"{lo:.2f}-{hi:.2f}"


def layout_groups(es: Sequence[Entry], metric: str = "mops") -> Dict[Key, List[Entry]]:
    """{(problem, ranks, layout, threads): the verified records with the metric} (repeats
    on a busy machine are left out when others are not)."""
    groups: Dict[Key, List[Entry]] = {}
    for e in es:
        p = e.params
        layout = p.get("layout")
        if not layout or e.result(metric) is None or e.result("verified") == 0:
            continue
        ranks, threads = _int(p.get("procs")), _int(p.get("threads"))
        ranks = e.run.ranks if ranks is None else ranks
        threads = e.run.threads if threads is None else threads
        groups.setdefault((_problem(e), ranks, str(layout), threads), []).append(e)
    return {k: ([m for m in v if not entry_flag(m)] or v) for k, v in groups.items()}


def single_node_sentence(runs: Sequence[Entry]) -> str:
    """What pages_max_node says about the runs, in one sentence."""
    pages = [pages_max_node(e) for e in runs]
    measured = [p for p in pages if p is not None]
    missing = len(pages) - len(measured)
    miss = (f" ({missing} run(s) did not measure it)" if missing else "")
    if not measured:
        return "No run measured pages_max_node: where the pages went is not known."
    if all(lo == 1.0 and hi == 1.0 for lo, hi in measured):
        return ("Every run had pages_max_node = 1: all the zone data of every rank sat on a "
                "single NUMA node (a one-node machine, or every page forced there), so the "
                "layouts cannot differ there: differences between the lines are noise" + miss + ".")
    below = sum(1 for lo, _ in measured if lo < 1.0)
    return (f"pages_max_node below 1 in {below} of {len(measured)} run(s): those layouts "
            "spread the zone data over several NUMA nodes" + miss + ".")


def layout_section(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> Optional[Section]:
    kinds = sorted({a.kind for a in apps.values() if "layout" in a.report})
    es = [e for k in kinds for e in entries(runs, kind=k)]
    groups = layout_groups(es)
    if not groups:
        return None
    sec = Section("Data layout: Mop/s per page placement policy (Jin et al. Fig. 9 analogue)")
    sec.text.append(
        "hk-mz --layout places the zone data's pages by a policy of hybridkit/mem.h (first "
        "touch, all on one location, block, interleave, random, by access pattern; "
        "docs/mem.md), the numerics unchanged (bit-identical norms, tested).  On a ccNUMA "
        "node with threads on several sockets, one-location and random lose against first "
        "touch and access (Jin et al., Fig. 9); pages_max_node (the share of a rank's pages "
        "on its fullest NUMA node) says whether the data really were spread.")
    used = [m for members in groups.values() for m in members]
    sec.text.append(single_node_sentence(used))
    panels: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    rows = []
    for (problem, ranks, layout, threads), members in sorted(groups.items()):
        mops = median_of([m.result("mops") for m in members])
        if mops is None:
            continue
        panels.setdefault(f"{problem} ranks={ranks}", {}).setdefault(layout, []).append(
            (threads, mops))
        per_run = ", ".join(f"{m.result('mops'):.1f} ({_fmt_pages(pages_max_node(m))})"
                            for m in members)
        rows.append([problem, ranks, threads, layout, mops, len(members), per_run])
    sec.figures.append(Figure(
        lines(panels, "threads per process", "Mop/s", logx=True, xticks_int=True),
        "Mop/s per layout and threads per process (median of the verified repeats; runs on "
        "a busy machine only when no other)."))
    sec.tables.append(Table(["problem", "ranks", "threads", "layout", "Mop/s (median)", "runs",
                             "Mop/s (pages_max_node) per run"], rows))
    return sec
