"""The report's figure of hk-jacobi's temporal blocking (app jacobi-temporal, report =
["looseness"]): performance vs looseness like Wellein et al. (COMPSAC 2009) and Wittmann et
al. (Parallel Processing Letters 2010). One panel per layout (ranks x threads) and halo width w;
the pipeline's metric over du (the most tiles between neighbouring stages) with
one line per dl (the fewest); the wavefront and the sweeps one
after the other (off), which have no looseness, as flat lines over the same range. Also
the table of hk-jacobi's ceilings (ceiling_table: any jacobi app's --roofline records).
"""

from __future__ import annotations

import statistics
from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.appdesc import AppDesc
from hybridkit.report.parts import Figure, Table, entry_flag, lines
from hybridkit.study.quality import spread
from hybridkit.study.rundata import Entry


def _looseness(text: object) -> Optional[Tuple[int, int]]:
    """'dl:du' -> (dl, du); None when absent or malformed."""
    try:
        dl, du = str(text).split(":")
        return int(dl), int(du)
    except (ValueError, AttributeError):
        return None


def _param(e: Entry, name: str) -> object:
    if name in e.params:
        return e.params[name]
    return e.run.info.get("params", {}).get(name)


Panels = Dict[str, Dict[str, List[Tuple[float, ...]]]]


def looseness_data(app: AppDesc, es: Sequence[Entry]) -> Tuple[Panels, int]:
    """(panel -> series -> points (du, median, min, max, flagged), the number of flagged
    points): the pipeline's per dl over du, the other schemes flat over the panel's du range
    (a panel without pipeline runs is left out)."""
    groups: Dict[Tuple[str, str, Optional[Tuple[int, int]]], List[Entry]] = {}
    for e in es:
        if e.result(app.metric.value) is None:
            continue
        scheme = str(_param(e, "temporal") or "off")
        panel = f"{e.run.ranks}x{e.run.threads}, w={_param(e, 'halo_width')}"
        loose = _looseness(_param(e, "looseness")) if scheme == "pipeline" else None
        groups.setdefault((panel, scheme, loose), []).append(e)
    panels: Panels = {}
    flat: Dict[Tuple[str, str], Tuple[float, float, float, float]] = {}
    flagged = 0
    for (panel, scheme, loose), members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        good = [m for m in members if not entry_flag(m)]
        sp = spread([m.result(app.metric.value) for m in (good or members)])
        flagged += not good
        mark = 0.0 if good else 1.0
        if scheme == "pipeline" and loose:
            panels.setdefault(panel, {}).setdefault(f"pipeline dl={loose[0]}", []).append(
                (loose[1], sp.median, sp.lo, sp.hi, mark))
        elif scheme != "pipeline":
            flat[(panel, scheme)] = (sp.median, sp.lo, sp.hi, mark)
    for (panel, scheme), (med, lo, hi, mark) in flat.items():
        if panel not in panels:
            continue
        xs = sorted({p[0] for s in panels[panel].values() for p in s})
        panels[panel][scheme] = [(x, med, lo, hi, mark) for x in (xs[0], xs[-1])]
    return panels, flagged


def looseness_figure(app: AppDesc, es: Sequence[Entry]) -> Optional[Figure]:
    panels, flagged = looseness_data(app, es)
    if not panels:
        return None
    better = "higher" if app.metric.higher_is_better else "lower"
    note = (f" Red crosses: {flagged} point(s) measured only on a busy machine or "
            f"oversubscribed, not results.") if flagged else ""
    return Figure(lines(panels, "du: most tiles between neighbouring stages",
                        f"{app.metric.value} [{app.metric.unit}]", logx=True, xticks_int=True),
                  f"{app.name}: {app.metric.value} vs looseness of the pipeline (--looseness "
                  f"dl:du), one panel per layout and halo width w: median of the repeats, "
                  f"error bars min-max, one line per dl; the wavefront and off (no looseness) "
                  f"flat; {better} is better.{note}")


CEILING_HEADERS = ["layout", "scheme", "w", "MLUP/s median", "memory roofline [MLUP/s]",
                   "in-core [MLUP/s]", "limit [MLUP/s]", "share of roofline",
                   "share of limit", "bound"]


def _bound(e: Entry) -> str:
    return str(e.record.get("params", {}).get("bound") or _param(e, "bound") or "-")


def ceiling_table(app: AppDesc, es: Sequence[Entry]) -> Optional[Table]:
    """hk-jacobi's ceilings (--roofline records): per layout, temporal scheme and halo width w
    the median MLUP/s next to the memory roofline (one sweep per pass through memory), the
    in-core limit (the kernel with its block in L2) and the limit (the lower of roofline x
    sweeps per pass and in-core), the run's share of each, and what bounds it. A temporally
    blocked run can exceed 100 % of the roofline but reads below 100 % of the limit.
    None when no record has limit_mlups."""
    groups: Dict[Tuple[str, str, str], List[Entry]] = {}
    for e in es:
        if e.result(app.metric.value) is None or e.result("limit_mlups") is None:
            continue
        key = (f"{e.run.ranks}x{e.run.threads}", str(_param(e, "temporal") or "off"),
               str(_param(e, "halo_width") or 1))
        groups.setdefault(key, []).append(e)
    if not groups:
        return None
    rows = []
    for (layout, scheme, w), members in sorted(groups.items()):
        use = [m for m in members if not entry_flag(m)] or members
        med = statistics.median(m.result(app.metric.value) for m in use)

        def ceil(name: str) -> Optional[float]:
            vals = [m.result(name) for m in use if m.result(name) is not None]
            return statistics.median(vals) if vals else None

        roof, incore, limit = ceil("roofline_mlups"), ceil("incore_mlups"), ceil("limit_mlups")
        share = (lambda c: f"{100.0 * med / c:.0f} %" if c else "-")
        bounds = sorted({_bound(m) for m in use})
        rows.append([layout, scheme, w, med, roof, incore, limit, share(roof), share(limit),
                     ", ".join(bounds)])
    return Table(list(CEILING_HEADERS), rows)
