"""The report's sections of the apps (descriptions with report = [...]): performance vs
threads per process for each core count (Jin et al.'s layout), the phases of the time per
iteration per configuration, memory per rank and per core, and the table of configurations.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.advice.advise import configurations
from hybridkit.appdesc import AppDesc
from hybridkit.report.layout import layout_section
from hybridkit.report.parts import (MIB, Figure, Section, Table, bar_panels, entry_cores,
                                    entry_flag, fmt_cell, lines, mean_of, median_of, natural_key,
                                    stacked_bars)
from hybridkit.report.split import split_section
from hybridkit.report.temporal import ceiling_table, looseness_figure
from hybridkit.report.twolevel import twolevel_section
from hybridkit.study.quality import FUNCTIONAL, spread
from hybridkit.study.rundata import Entry, Run, entries


LAYOUT_PARAMS = ("threads", "procs", "ranks", "verification")


def problem_label(e: Entry, app: AppDesc) -> str:
    """The parameters that define the run's problem (the description's [problem], else every
    parameter but the series and the layout), e.g. 'grid=64x64x64 dims=3 boundary=periodic':
    runs with the same label solve the same problem and share a figure."""
    if app.problem.params:
        return " ".join(f"{k}={v}" for k, v in app.problem_key(e.params)) or "all runs"
    params = e.run.info.get("params") or e.params
    return " ".join(f"{k}={v}" for k, v in params.items()
                    if k != app.metric.series and k not in LAYOUT_PARAMS) or "all runs"


def _series_name(e: Entry, app: AppDesc) -> str:
    key = app.metric.series
    if key and key in e.params:
        return str(e.params[key])
    if key and key in e.run.info.get("params", {}):
        return str(e.run.info["params"][key])
    return app.name


def scaling_figure(app: AppDesc, es: Sequence[Entry]) -> Optional[Figure]:
    panels: Dict[str, Dict[str, List[Tuple[float, ...]]]] = {}
    groups: Dict[Tuple[int, str, int], List[Entry]] = {}
    for e in es:
        if e.result(app.metric.value) is not None:
            groups.setdefault((entry_cores(e), _series_name(e, app), e.run.threads), []).append(e)
    best: Dict[Tuple[int, int], float] = {}
    pick = max if app.metric.higher_is_better else min
    flagged = 0
    for (cores, series, threads), members in sorted(groups.items()):
        good = [m for m in members if not entry_flag(m)]
        use = good or members
        sp = spread([m.result(app.metric.value) for m in use])
        mark = 0.0 if good else 1.0  # every repeat flagged: drawn as a red cross
        flagged += not good
        panels.setdefault(f"{cores} cores", {}).setdefault(series, []).append(
            (threads, sp.median, sp.lo, sp.hi, mark))
        if good:
            best[(cores, threads)] = pick(best.get((cores, threads), sp.median), sp.median)
    if app.metric.series:
        for (cores, threads), v in best.items():
            panels[f"{cores} cores"].setdefault("best", []).append((threads, v))
    if not panels:
        return None

    svg = lines(panels, "threads per process", f"{app.metric.value} [{app.metric.unit}]",
                logx=True, xticks_int=True)
    better = "higher" if app.metric.higher_is_better else "lower"
    note = (f" Red crosses: {flagged} point(s) measured only on a busy machine or "
            f"oversubscribed, not results.") if flagged else ""
    return Figure(svg, f"{app.name}: {app.metric.value} vs threads per process, one panel per "
                       f"core count (Jin et al.'s layout): median of the repeats, error bars "
                       f"min-max; 'best' joins the best mode at each point; {better} is "
                       f"better, the leftmost point is pure MPI.{note}")


PHASES = ("pack", "post", "wait", "unpack", "compute")


def _phases(e: Entry, app: AppDesc) -> Optional[Dict[str, float]]:
    """The disjoint phases of one iteration (the description's breakdown, e.g. phase_pack ...
    phase_compute): they add up to the measured time. None when the record lacks them."""
    names = app.metric.breakdown
    if not names:
        return None
    values = {n: e.result(n) for n in names}
    if all(v is None for v in values.values()):
        return _legacy_phases(e, names)
    return {n: v or 0.0 for n, v in values.items()}


def _legacy_phases(e: Entry, names: Sequence[str]) -> Optional[Dict[str, float]]:
    """Records written before hk-jacobi split its time (only the engine's counters): the
    same split made from them, the exposed part of comm the tail beyond the hidden share."""
    raw = {k: e.result(k) for k in ("pack", "post", "wait", "unpack", "comm", "compute")}
    if any(v is None for v in raw.values()) or \
            [n.replace("phase_", "") for n in names] != list(PHASES):
        return None
    post, wait, unpack = raw["post"], raw["wait"], raw["unpack"]
    total = post + wait + unpack
    scale = raw["comm"] / total if total > 0 else 0.0
    post, wait, unpack = post * scale, wait * scale, unpack * scale
    overlap = e.result("overlap")
    if overlap is not None and e.run.threads > 1:
        exposed = raw["comm"] * (1 - overlap)
        unpack = min(unpack, exposed)
        wait = min(wait, exposed - unpack)
        post = max(0.0, exposed - unpack - wait)
    vals = (raw["pack"], post, wait, unpack, raw["compute"])
    return dict(zip(names, vals))


@dataclass
class Breakdown:
    labels: List[str]
    parts: Dict[str, List[float]]      # stacked, in seconds
    measured: List[Optional[float]]    # the measured time of each bar, seconds
    hidden: List[float]                # communication hidden behind compute (not stacked)


def breakdown_data(app: AppDesc, es: Sequence[Entry]) -> Optional[Breakdown]:
    """Per configuration (median over its repeats): the phases to stack, the measured time
    and the hidden communication."""
    per: Dict[str, List[Entry]] = {}
    for e in es:
        if _phases(e, app) is not None:
            per.setdefault(f"{e.run.ranks}x{e.run.threads} {_series_name(e, app)}", []).append(e)
    if not per:
        return None
    labels = sorted(per, key=natural_key)
    names = app.metric.breakdown
    parts = {n: [median_of([_phases(e, app)[n] for e in per[k]]) for k in labels] for n in names}
    measured = [median_of([v for v in (e.result(app.metric.time) for e in per[k])
                         if v is not None]) if app.metric.time else None for k in labels]
    hidden = [median_of([e.result("hidden_comm") or 0.0 for e in per[k]]) for k in labels]
    return Breakdown(labels, parts, measured, hidden)


def breakdown_figure(app: AppDesc, es: Sequence[Entry]) -> Optional[Figure]:
    data = breakdown_data(app, es)
    if data is None:
        return None
    names = [n.replace("phase_", "") for n in data.parts]
    top = max([m or 0.0 for m in data.measured] +
              [sum(v[i] for v in data.parts.values()) for i in range(len(data.labels))])
    scale, prefix = (1e3, "ms") if top >= 0.01 else (1e6, "us")
    parts = {n.replace("phase_", "").replace("wait", "wait (exposed)"):
             [v * scale for v in vals] for n, vals in data.parts.items()}
    measured = [m * scale if m is not None else None for m in data.measured]
    hidden = [h * scale for h in data.hidden] if any(data.hidden) else None
    unit = f"{prefix} per " + ("iteration" if "iter" in (app.metric.time or "") else "step")
    flagged = {f"{e.run.ranks}x{e.run.threads} {_series_name(e, app)}" for e in es
               if entry_flag(e)}
    clean = {f"{e.run.ranks}x{e.run.threads} {_series_name(e, app)}" for e in es
             if not entry_flag(e)}
    labels = [f"{l} (busy)" if l in flagged and l not in clean else l for l in data.labels]
    svg = stacked_bars(labels, parts, f"time [{unit}], average rank", measured=measured,
                       aside=hidden, aside_label="communication hidden behind compute")
    declared = [f"{n.replace('phase_', '')} ({app.metric.meaning(n)})" for n in data.parts
                if app.metric.meaning(n)]
    phases = "; ".join(declared) if len(declared) == len(names) else " / ".join(names)
    return Figure(svg, f"{app.name}: where the time goes, per configuration (median of its "
                       f"repeats): disjoint phases {phases} that add up to the "
                       f"measured time per iteration (black tick; a gap below it is time no phase "
                       f"accounts for: fork/join, imbalance, preemption on a busy machine); "
                       f"the hatched bar beside is "
                       f"communication hidden behind the interior update (overlap modes), not "
                       f"part of the wall time.")


def memory_figure(app: AppDesc, es: Sequence[Entry]) -> Optional[Figure]:
    key = app.metric.memory
    per: Dict[str, List[Tuple[float, float]]] = {}
    for e in es:
        rss = e.result(key, "max") if key else None
        if rss is not None:
            label = f"{e.run.ranks}x{e.run.threads} {_series_name(e, app)}"
            per.setdefault(label, []).append((rss / MIB, rss * e.run.ranks / entry_cores(e) / MIB))
    if not per:
        return None
    labels = sorted(per, key=lambda k: (int(k.split("x")[1].split()[0]), k))

    svg = bar_panels(labels, {"per rank": [mean_of([v[0] for v in per[k]]) for k in labels],
                              "per core": [mean_of([v[1] for v in per[k]]) for k in labels]},
                     ["max RSS per rank [MiB]", "RSS per core [MiB]"])
    return Figure(svg, f"{app.name}: memory (max resident set) per rank and per core vs "
                       f"configuration (Jin et al.'s memory figure): fewer, bigger processes "
                       f"save the per-process MPI and halo memory.")


def config_table(app: AppDesc, es: Sequence[Entry]) -> Table:
    """One row per configuration (problem, layout, series value, binding): the median and
    min-max of its repeats, how many, and the runs flagged (busy machine, oversubscribed)."""

    rows = []
    for c in sorted(configurations(es, app), key=lambda c: (
            app.problem_size(c.rep.params), c.problem, c.threads, c.mode)):
        good = [e for e in c.entries if not entry_flag(e)]
        sp = spread([e.result(app.metric.value) for e in (good or c.entries)])
        times = [e.result(app.metric.time, "max") for e in (good or c.entries)
                 if app.metric.time and e.result(app.metric.time, "max") is not None]
        flags = []
        busy = sum(entry_flag(e) == "busy" for e in c.entries)
        func = sum(entry_flag(e) == "functional" for e in c.entries)
        if busy:
            flags.append(f"{busy} busy" + ("" if good else ": UNRELIABLE"))
        if func:
            flags.append(f"{FUNCTIONAL}")
        row = [" ".join(f"{k}={v}" for k, v in c.problem) or "-", c.ranks, c.threads, c.mode,
               sp.median, f"{fmt_cell(sp.lo)}-{fmt_cell(sp.hi)}", f"{len(good)}/{len(c.entries)}",
               statistics.median(times) if times else None, "; ".join(flags)]
        if app.metric.verified:
            row.append(", ".join(sorted({str(e.result(app.metric.verified)) for e in c.entries})))
        rows.append(row)
    headers = ["problem", "ranks", "threads", app.metric.series or "series",
               f"{app.metric.value} median [{app.metric.unit}]", "min-max", "runs used",
               f"{app.metric.time or 'time'} max, median [s]", "flags"]
    return Table(headers + ([app.metric.verified] if app.metric.verified else []), rows)


def app_sections(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> List[Section]:
    builders = {"scaling": scaling_figure, "breakdown": breakdown_figure,
                "memory": memory_figure, "looseness": looseness_figure}
    out = []
    for app in apps.values():
        es = entries(runs, kind=app.kind, app=app.name)
        wanted = [s for s in app.report if s in builders]
        if not es or not wanted:
            continue
        sec = Section(f"{app.name}: {app.description}")
        groups: Dict[str, List[Entry]] = {}
        for e in es:
            groups.setdefault(problem_label(e, app), []).append(e)
        for problem, group in sorted(groups.items(), key=lambda kv: natural_key(kv[0])):
            for s in wanted:
                fig = builders[s](app, group)
                if fig and len(groups) > 1:
                    fig.caption = f"[{problem}] {fig.caption}"
                if fig:
                    sec.figures.append(fig)
        sec.tables.append(config_table(app, es))
        ceil = ceiling_table(app, es)  # records with --roofline (hk-jacobi): the ceilings
        if ceil:
            sec.text.append("Ceilings (--roofline): the memory roofline counts one sweep per pass "
                            "through memory, so a temporally blocked run can exceed it; the "
                            "limit is the lower of roofline x sweeps per pass and the in-core "
                            "rate (the kernel with its block in L2), and 'bound' says which.")
            sec.tables.append(ceil)
        out.append(sec)
    two = twolevel_section(runs, apps)  # records of several apps: one section of its own
    lay = layout_section(runs, apps)
    split = split_section(runs, apps)  # likewise (issue 24, mesh splitting)
    return out + [s for s in (two, lay, split) if s]
