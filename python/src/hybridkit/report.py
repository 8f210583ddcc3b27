"""The report: sections built from validated records, rendered as HTML, Markdown or CSV.

    runs --> sections (title, text, tables, figures with one-line captions)
         --> html(): one self-contained page, figures as SVG images (data: URIs), no network
             markdown(): the text and tables (figures named by their captions)
             csv_rows(): one row per result of every record (long format)

Sections: machine and binding; per app (descriptions with report = [...]): performance vs
threads per process for each core count (Jin et al.'s layout), compute/comm/wait per mode,
memory per rank and per core; ping-pong intra vs inter node; the b_eff table; T_hybrid/T_pure
vs message size (Rabenseifner); overlap test; barrier costs; halo modes; the advice; runs
that are incomplete.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from hybridkit import __version__
from hybridkit.appdesc import AppDesc
from hybridkit.binding import bindings, pus_per_core, verdict
from hybridkit.errors import HKError
from hybridkit.quality import (FUNCTIONAL, busy_share, is_busy, is_functional, load_text,
                               spread)
from hybridkit.rundata import Entry, Run, entries

MIB = 1024.0


@dataclass
class Figure:
    """A plot drawn when its SVG is first needed (Markdown and CSV never draw)."""

    draw: Callable[[], str]
    caption: str
    _svg: Optional[str] = None

    @property
    def svg(self) -> str:
        if self._svg is None:
            self._svg = self.draw()
        return self._svg


def _deferred(name: str) -> Callable[..., Callable[[], str]]:
    """hybridkit.plot.NAME with these arguments, called (and matplotlib imported) later."""
    def bind(*args: Any, **kwargs: Any) -> Callable[[], str]:
        def draw() -> str:
            from hybridkit import plot

            return getattr(plot, name)(*args, **kwargs)
        return draw
    return bind


lines, stacked_bars, bar_panels = (_deferred(n) for n in ("lines", "stacked_bars", "bar_panels"))


@dataclass
class Table:
    headers: List[str]
    rows: List[List[Any]]


@dataclass
class Section:
    title: str
    text: List[str] = field(default_factory=list)
    tables: List[Table] = field(default_factory=list)
    figures: List[Figure] = field(default_factory=list)
    pre: str = ""
    banner: bool = False  # shown as a warning box


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def _cores(e: Entry) -> int:
    return e.run.ranks * e.run.threads


# --- sections ---------------------------------------------------------------------------

def machine_section(runs: Sequence[Run], meta: Dict[str, Any]) -> Section:
    sec = Section("Machine and binding")
    recs = [r for run in runs for r in run.records]
    if recs:
        p = recs[0]["provenance"]
        m = p["machine"]
        sec.tables.append(Table(["item", "value"], [
            ["hosts", ", ".join(sorted({h for r in recs for h in r["provenance"]["hosts"]}))],
            ["machine", f"{m['packages']} package(s), {m['numa_nodes']} NUMA node(s), "
                        f"{m['cores']} cores, {m['pus']} PUs ({m['source']})"],
            ["MPI", p["mpi_library"]], ["compiler", f"{p['compiler']} {p['cflags']}"],
            ["hybridkit", f"{p['hybridkit_version']} ({p['git_sha'][:12]})"],
        ]))
    rows = []
    for run in runs:
        if not run.records:
            continue
        v = verdict(bindings(run.records), pus_per_core(run.records))
        p = run.records[0]["provenance"]
        rows.append([run.app or "?", run.label, run.bind, p["omp_places"] or "",
                     p["omp_proc_bind"] or "", v.text])
    if rows:
        sec.tables.append(Table(["app", "run", "bind", "OMP_PLACES", "OMP_PROC_BIND",
                                 "binding verdict"], rows))
    sec.pre = meta.get("machine_text", "")
    return sec


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


def _natural(text: str) -> List[Any]:
    """Sort key: 'size=64' before 'size=160'."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _series_name(e: Entry, app: AppDesc) -> str:
    key = app.metric.series
    if key and key in e.params:
        return str(e.params[key])
    if key and key in e.run.info.get("params", {}):
        return str(e.run.info["params"][key])
    return app.name


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _flag(e: Entry) -> str:
    if is_functional(e.run.info):
        return "functional"
    return "busy" if is_busy(e.run.info) else ""


def scaling_figure(app: AppDesc, es: Sequence[Entry]) -> Optional[Figure]:
    panels: Dict[str, Dict[str, List[Tuple[float, ...]]]] = {}
    groups: Dict[Tuple[int, str, int], List[Entry]] = {}
    for e in es:
        if e.result(app.metric.value) is not None:
            groups.setdefault((_cores(e), _series_name(e, app), e.run.threads), []).append(e)
    best: Dict[Tuple[int, int], float] = {}
    pick = max if app.metric.higher_is_better else min
    flagged = 0
    for (cores, series, threads), members in sorted(groups.items()):
        good = [m for m in members if not _flag(m)]
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
    labels = sorted(per, key=_natural)
    names = app.metric.breakdown
    parts = {n: [_median([_phases(e, app)[n] for e in per[k]]) for k in labels] for n in names}
    measured = [_median([v for v in (e.result(app.metric.time) for e in per[k])
                         if v is not None]) if app.metric.time else None for k in labels]
    hidden = [_median([e.result("hidden_comm") or 0.0 for e in per[k]]) for k in labels]
    return Breakdown(labels, parts, measured, hidden)


def _median(values: Sequence[float]) -> Optional[float]:
    vals = sorted(values)
    if not vals:
        return None
    n = len(vals)
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


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
               if _flag(e)}
    clean = {f"{e.run.ranks}x{e.run.threads} {_series_name(e, app)}" for e in es
             if not _flag(e)}
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
            per.setdefault(label, []).append((rss / MIB, rss * e.run.ranks / _cores(e) / MIB))
    if not per:
        return None
    labels = sorted(per, key=lambda k: (int(k.split("x")[1].split()[0]), k))

    svg = bar_panels(labels, {"per rank": [_mean([v[0] for v in per[k]]) for k in labels],
                              "per core": [_mean([v[1] for v in per[k]]) for k in labels]},
                     ["max RSS per rank [MiB]", "RSS per core [MiB]"])
    return Figure(svg, f"{app.name}: memory (max resident set) per rank and per core vs "
                       f"configuration (Jin et al.'s memory figure): fewer, bigger processes "
                       f"save the per-process MPI and halo memory.")


def config_table(app: AppDesc, es: Sequence[Entry]) -> Table:
    """One row per configuration (problem, layout, series value, binding): the median and
    min-max of its repeats, how many, and the runs flagged (busy machine, oversubscribed)."""
    from hybridkit.advise import configurations

    rows = []
    for c in sorted(configurations(es, app), key=lambda c: (
            app.problem_size(c.rep.params), c.problem, c.threads, c.mode)):
        good = [e for e in c.entries if not _flag(e)]
        sp = spread([e.result(app.metric.value) for e in (good or c.entries)])
        times = [e.result(app.metric.time, "max") for e in (good or c.entries)
                 if app.metric.time and e.result(app.metric.time, "max") is not None]
        flags = []
        busy = sum(_flag(e) == "busy" for e in c.entries)
        func = sum(_flag(e) == "functional" for e in c.entries)
        if busy:
            flags.append(f"{busy} busy" + ("" if good else ": UNRELIABLE"))
        if func:
            flags.append(f"{FUNCTIONAL}")
        row = [" ".join(f"{k}={v}" for k, v in c.problem) or "-", c.ranks, c.threads, c.mode,
               sp.median, f"{_fmt(sp.lo)}-{_fmt(sp.hi)}", f"{len(good)}/{len(c.entries)}",
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
                "memory": memory_figure}
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
        for problem, group in sorted(groups.items(), key=lambda kv: _natural(kv[0])):
            for s in wanted:
                fig = builders[s](app, group)
                if fig and len(groups) > 1:
                    fig.caption = f"[{problem}] {fig.caption}"
                if fig:
                    sec.figures.append(fig)
        sec.tables.append(config_table(app, es))
        out.append(sec)
    return out


def _medians(series: Dict[str, List[Tuple[float, float]]]) -> Dict[str, List[Tuple[float, float]]]:
    """Repeats of a benchmark give several y at one x: their median, so lines do not zigzag."""
    out = {}
    for name, pts in series.items():
        by: Dict[float, List[float]] = {}
        for x, y in pts:
            by.setdefault(x, []).append(y)
        out[name] = [(x, statistics.median(ys)) for x, ys in sorted(by.items())]
    return out


def pingpong_section(runs: Sequence[Run]) -> Optional[Section]:
    es = entries(runs, kind="bench.pingpong")
    lat: Dict[str, List[Tuple[float, float]]] = {}
    bw: Dict[str, List[Tuple[float, float]]] = {}
    for e in es:
        for where in ("intra", "inter"):
            l, b = e.result(f"{where}_latency"), e.result(f"{where}_pingpong_bandwidth")
            if l is not None:
                lat.setdefault(f"{where}-node", []).append((e.params["size"], l))
            if b is not None:
                bw.setdefault(f"{where}-node", []).append((e.params["size"], b))
    if not lat:
        return None

    lat, bw = _medians(lat), _medians(bw)
    sec = Section("Ping-pong: intra-node vs inter-node")
    sec.figures.append(Figure(lines({"latency": lat}, "message size [B]", "latency [us]",
                                    logx=True, logy=True),
                              "Half round-trip latency vs message size: the gap between the "
                              "lines is what a message across nodes costs more."))
    sec.figures.append(Figure(lines({"bandwidth": bw}, "message size [B]", "bandwidth [MB/s]",
                                    logx=True, logy=True),
                              "Ping-pong bandwidth vs message size, intra- vs inter-node "
                              "(virtual nodes share memory: use --vcluster or a cluster for a "
                              "real link)."))
    return sec


def beff_section(runs: Sequence[Run]) -> Optional[Section]:
    summ = entries(runs, kind="bench.beff.summary")
    if not summ:
        return None
    sec = Section("Effective bandwidth b_eff")
    cols = ["b_eff", "b_eff_per_proc", "b_eff_per_node", "b_eff_lmax_per_proc",
            "cyclic3d_per_proc", "cyclic3d_lmax_per_proc"]
    sec.tables.append(Table(["run", "procs", "nodes"] + [f"{c} [MB/s]" for c in cols],
                            [[e.params.get("run"), e.params.get("procs"), e.params.get("nodes")]
                             + [e.result(c) for c in cols] for e in summ]))
    hyb = entries(runs, kind="bench.beff.hybrid")
    if hyb:
        sec.tables.append(Table(["pattern", "b_MPP per node [MB/s]", "b_hybrid per node [MB/s]",
                                 "T_hybrid/T_MPP", "T_hybrid/T_MPP at Lmax"],
                                [[e.params.get("pattern"), e.result("b_mpp_per_node"),
                                  e.result("b_hybrid_per_node"), e.result("t_hybrid_over_t_mpp"),
                                  e.result("t_hybrid_over_t_mpp_lmax")] for e in hyb]))
    sec.text.append("b_eff = arithmetic mean over message sizes, logarithmic mean over the "
                    "ring and the random patterns and of the two (Rabenseifner & Koniges, as "
                    "b_eff 3.6 computes it); the second table compares pure MPI (MPP) with "
                    "masteronly node leaders sending the node's data.")
    return sec


def ratio_section(runs: Sequence[Run]) -> Optional[Section]:
    reps: Dict[Tuple[str, str, int], List[float]] = {}
    for e in entries(runs, kind="bench.beff"):
        v = e.result("bandwidth")
        if v:
            reps.setdefault((e.params["run"], e.params["pattern"], e.params["size"]), []).append(v)
    bw = {k: statistics.median(v) for k, v in reps.items()}
    series: Dict[str, List[Tuple[float, float]]] = {}
    for (run, pattern, size), b_mpp in bw.items():
        b_hyb = bw.get(("hybrid", pattern, size))
        if run == "mpp" and b_hyb:
            series.setdefault(pattern, []).append((size, b_mpp / b_hyb))
    if not series:
        return None

    sec = Section("T_hybrid / T_pure vs message size")
    sec.figures.append(Figure(
        lines({"masteronly leaders vs pure MPI": series}, "message size L per process [B]",
              "T_hybrid / T_pure", logx=True, hline=1.0),
        "Rabenseifner's ratio of communication times, masteronly (one leader per node sends "
        "L x ranks-per-node) over pure MPI: above 1 the hybrid code communicates slower."))
    return sec


def overlap_section(runs: Sequence[Run]) -> Optional[Section]:
    series: Dict[str, List[Tuple[float, float]]] = {}
    for e in entries(runs, kind="bench.overlap"):
        v = e.result("overlap")
        if v is not None:
            name = f"{e.params['variant']} {e.params['size'] // 1024} KiB"
            series.setdefault(name, []).append((e.params["delay_factor"], v))
    if not series:
        return None

    series = _medians(series)
    sec = Section("Overlap of communication and computation")
    sec.figures.append(Figure(
        lines({"overlap": series}, "compute time / communication time", "overlap (1 = hidden)"),
        "Hager/Wellein's overlap test: near 0 the MPI library does not progress a message "
        "while the rank computes; a communication thread (task) hides it."))
    return sec


def barrier_section(runs: Sequence[Run]) -> Optional[Section]:
    series: Dict[str, List[Tuple[float, float]]] = {}
    for e in entries(runs, kind="bench.barrier"):
        v = e.result("time")
        if v is not None:
            series.setdefault(f"{e.params['barrier']} ({e.params['placement']})", []).append(
                (e.params["threads"], v))
    if not series:
        return None

    series = _medians(series)
    sec = Section("Barrier costs")
    sec.figures.append(Figure(
        lines({"barrier": series}, "threads", "time per barrier [ns]", logy=True,
              xticks_int=True),
        "Cost of one thread barrier (OpenMP, pthread, spin) vs threads: the price of every "
        "fork/join and synchronisation behind the 'OpenMP overhead' problem."))
    return sec


def _sent(e: Entry, what: str) -> float:
    """Messages or bytes (what: "msgs" or "bytes") one exchange sends to other ranks, all ranks."""
    return (e.result(f"{what}_intra") or 0) + (e.result(f"{what}_inter") or 0)


def halo_section(runs: Sequence[Run]) -> Optional[Section]:
    panels: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    # (panel, mode, face bytes) -> stencil -> (messages, bytes, times)
    pairs: Dict[Tuple[str, str, int], Dict[str, Tuple[float, float, List[float]]]] = {}
    for e in entries(runs, kind="bench.halo"):
        v = e.result("time", "max")
        if v is not None:
            sent = _sent(e, "bytes")
            title = f"{e.run.ranks}x{e.run.threads}" + ("" if sent else " (no messages)")
            stencil = str(e.params.get("stencil", "faces"))
            name = str(e.params["mode"]) + (" (full)" if stencil == "full" else "")
            panels.setdefault(title, {}).setdefault(name, []).append((e.params["face_bytes"], v))
            key = (title, str(e.params["mode"]), int(e.params["face_bytes"]))
            got = pairs.setdefault(key, {}).setdefault(stencil, (_sent(e, "msgs"), sent, []))
            got[2].append(v)
    if not panels:
        return None
    panels = {title: _medians(series) for title, series in panels.items()}

    sec = Section("Halo exchange per mode")
    sec.figures.append(Figure(
        lines(panels, "face message size [B]", "time per exchange [us]", logx=True, logy=True),
        "Time of one halo exchange in each hybrid mode vs face size (median of the repeats), "
        "one panel per ranks x threads: the communication cost each mode adds to a step. A "
        "panel marked 'no messages' has one rank exchanging with itself (copies only): not "
        "comparable with the others. '(full)': faces, edges and corners (27-point stencil)."))
    table = stencil_table(pairs)
    if table:
        sec.text.append("What a face-only halo (7-point stencil: 6 neighbours) saves against "
                        "faces, edges and corners (27-point: 26 neighbours), per exchange and all "
                        "ranks, at the largest face size measured with both (median time over "
                        "the repeats; messages to the rank itself are copies, not counted).")
        sec.tables.append(table)
    return sec


def stencil_table(pairs: Dict[Tuple[str, str, int],
                              Dict[str, Tuple[float, float, List[float]]]]) -> Optional[Table]:
    """Faces vs full per panel and mode, at the largest face size that has both."""
    best: Dict[Tuple[str, str], int] = {}
    for (title, mode, size), by in pairs.items():
        if "faces" in by and "full" in by and size > best.get((title, mode), -1):
            best[(title, mode)] = size
    rows = []
    for (title, mode), size in sorted(best.items()):
        fa, fu = pairs[(title, mode, size)]["faces"], pairs[(title, mode, size)]["full"]
        tf, tu = statistics.median(fa[2]), statistics.median(fu[2])
        rows.append([title, mode, size, int(fa[0]), int(fu[0]), int(fu[0] - fa[0]), int(fa[1]),
                     int(fu[1]), int(fu[1] - fa[1]), f"{tf:.3g}", f"{tu:.3g}",
                     f"{tu - tf:.3g} ({(tu - tf) / tu:.0%})" if tu > 0 else "-"])
    if not rows:
        return None
    return Table(["ranks x threads", "mode", "face [B]", "msgs faces", "msgs full", "msgs saved",
                  "bytes faces", "bytes full", "bytes saved", "time faces [us]",
                  "time full [us]", "time saved [us]"], rows)


def epsilon_section(runs: Sequence[Run]) -> Optional[Section]:
    """Rabenseifner's epsilon experiment (hk-spmv): eps = T_masteronly / T_task for the same
    matrix, format and layout, against f_comm of the masteronly run, with the model's bounds
    (hybridkit.model; n threads per process, m = 1 communicating thread)."""
    from hybridkit import model

    times: Dict[Tuple[Any, ...], Dict[str, List[float]]] = {}
    fcomm: Dict[Tuple[Any, ...], List[float]] = {}
    for e in entries(runs, kind="spmv"):
        mode, t = e.params.get("mode"), e.result("time_per_mult", "max")
        if mode not in ("masteronly", "task") or t is None:
            continue
        key = (e.params.get("matrix"), e.params.get("format"), e.run.ranks, e.run.threads)
        times.setdefault(key, {}).setdefault(mode, []).append(t)
        f = e.result("f_comm")
        if mode == "masteronly" and f is not None:
            fcomm.setdefault(key, []).append(f)
    panels: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    rows = []
    for key, by_mode in sorted(times.items(), key=lambda kv: _natural(str(kv[0]))):
        n = key[3]
        if "masteronly" not in by_mode or "task" not in by_mode or key not in fcomm or n < 2:
            continue
        f = min(max(statistics.median(fcomm[key]), 0.0), 1.0)
        eps = statistics.median(by_mode["masteronly"]) / statistics.median(by_mode["task"])
        lo, hi, hi_f = model.eps_min(n, 1), model.eps_max(n, 1), model.eps_max_f(f, n)
        title = f"{key[2]}x{n} ({key[1]})"
        series = panels.setdefault(title, {})
        series.setdefault("measured eps", []).append((100 * f, eps))
        series.setdefault("1 - m/n", []).append((100 * f, lo))
        series.setdefault("1 + m(1 - 1/n)", []).append((100 * f, hi))
        series.setdefault("1 + f n (1 - 1/n)", []).append((100 * f, hi_f))
        series.setdefault("model", []).append((100 * f, model.predicted_speedup(f, n).predicted))
        inside = lo <= eps <= min(hi, hi_f)
        rows.append([key[0], key[1], f"{key[2]}x{n}", f"{f:.3f}", f"{eps:.3f}",
                     f"{lo:.3f} .. {min(hi, hi_f):.3f}", "yes" if inside else "NO"])
    if not rows:
        return None
    sec = Section("SpMV: epsilon = T_masteronly / T_task vs f_comm")
    sec.text.append("Rabenseifner's experiment (EWOMP 2002): the local size of the SpMV varies, "
                    "so does the communication fraction f_comm of the masteronly run; eps > 1: "
                    "task (funneled & reserved, 1 communicating thread) is faster. The bounds "
                    "1 - m/n <= eps <= 1 + m(1 - 1/n) and eps <= 1 + f n (1 - 1/n) are the "
                    "tutorial's, m = 1.")
    sec.tables.append(Table(["matrix", "format", "layout", "f_comm", "eps", "bounds", "inside"],
                            rows))
    sec.figures.append(Figure(
        lines(panels, "f_comm of masteronly [%]", "eps = T_masteronly / T_task"),
        "Measured eps (median of the repeats) against f_comm, one panel per layout, with the "
        "model's bounds and its prediction; on an oversubscribed or busy machine the measured "
        "points mean little (see the conditions section)."))
    return sec


def conditions_section(runs: Sequence[Run]) -> Optional[Section]:
    """The banner: runs made while others used the machine, oversubscribed runs."""
    done = [r for r in runs if r.complete]
    busy = [r for r in done if is_busy(r.info) and not is_functional(r.info)]
    func = [r for r in done if is_functional(r.info)]
    if not busy and not func:
        return None
    sec = Section("Measurement conditions", banner=True)
    if busy:
        sec.text.append(f"BUSY MACHINE: {len(busy)} of {len(done)} run(s) were made while other "
                        f"programs used more than {busy_share():.0%} of the machine, even after "
                        f"repeating them. They are flagged in the tables, drawn as red crosses "
                        f"in the figures and left out of the advice; repeat the study on a "
                        f"quiet machine.")
    if func:
        apps = ", ".join(sorted({r.app or "?" for r in func}))
        sec.text.append(f"{len(func)} run(s) ({apps}) had more ranks x threads than cores "
                        f"(oversubscribed, unbound): {FUNCTIONAL}; never used for advice.")
    sec.tables.append(Table(["run", "app", "flag", "load of others during the run"],
                            [[r.label, r.app or "?", "oversubscribed" if is_functional(r.info)
                              else "busy", load_text(r.info)] for r in busy + func]))
    return sec


def _section_flags(sec: Section, es: Sequence[Entry]) -> Section:
    """A note on a benchmark section whose runs are not performance results."""
    runs = {id(e.run): e.run for e in es}.values()
    if any(is_functional(r.info) for r in runs):
        sec.text.insert(0, f"Oversubscribed: {FUNCTIONAL}.")
        sec.banner = True
    elif any(is_busy(r.info) for r in runs):
        sec.text.insert(0, "Measured while the machine was busy (others used it): not a "
                           "reliable performance result.")
        sec.banner = True
    return sec


def advice_section(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> Section:
    from hybridkit.advise import advise

    sec = Section("Advice")
    try:
        sec.text += advise(runs, apps).lines()
    except HKError as exc:
        sec.text.append(str(exc))
    return sec


def incomplete_section(runs: Sequence[Run]) -> Optional[Section]:
    bad = [r for r in runs if not r.complete]
    if not bad:
        return None
    return Section("Incomplete runs", text=[f"{len(bad)} run(s) did not complete; their valid "
                                            f"records are not used in the figures."],
                   tables=[Table(["run", "app", "status", "problem", "directory"],
                                 [[r.label, r.app or "?", r.status, r.problem, str(r.path)]
                                  for r in bad])])


BENCH_KINDS = {"pingpong_section": "bench.pingpong", "beff_section": "bench.beff",
               "ratio_section": "bench.beff", "overlap_section": "bench.overlap",
               "barrier_section": "bench.barrier", "halo_section": "bench.halo",
               "epsilon_section": "spmv"}


def build(runs: Sequence[Run], apps: Dict[str, AppDesc], meta: Dict[str, Any]) -> List[Section]:
    sections = [machine_section(runs, meta), advice_section(runs, apps)]
    banner = conditions_section(runs)
    if banner:
        sections.insert(0, banner)
    sections += app_sections(runs, apps)
    from hybridkit.report_dsm import dsm_section as _dsm  # issue 21: the DSM heat figures
    for fn in (pingpong_section, beff_section, ratio_section, overlap_section,
               barrier_section, halo_section, epsilon_section, _dsm, incomplete_section):
        sec = fn(runs)
        if sec:
            kind = BENCH_KINDS.get(fn.__name__)
            es = [e for e in entries(runs) if kind and e.record["kind"].startswith(kind)]
            sections.append(_section_flags(sec, es))
    return sections


# --- renderers --------------------------------------------------------------------------

CSS = """body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
figure{margin:1em 0}figure img{max-width:100%;height:auto}
figcaption{font-size:.85em;color:#444}pre{background:#f6f6f6;padding:.5em;font-size:.8em;
overflow:auto}
.banner{border:2px solid #c00;background:#fff0f0;padding:.2em 1em;margin:1em 0}
.banner h2{color:#c00;border:none}"""


def html_page(sections: Sequence[Section], title: str) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(title)}</title>", f"<style>{CSS}</style></head><body>",
           f"<h1>{e(title)}</h1>", f"<p>hybridkit {e(__version__)} report</p>"]
    for sec in sections:
        cls = ' class="banner"' if sec.banner else ""
        out.append(f"<section{cls}><h2>{e(sec.title)}</h2>")
        out += [f"<p>{e(t)}</p>" for t in sec.text]
        if sec.pre:
            out.append(f"<pre>{e(sec.pre)}</pre>")
        for t in sec.tables:
            out.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in t.headers) + "</tr>")
            out += ["<tr>" + "".join(f"<td>{e(_fmt(c))}</td>" for c in row) + "</tr>"
                    for row in t.rows]
            out.append("</table>")
        for f in sec.figures:
            data = base64.b64encode(f.svg.encode()).decode()
            out.append(f'<figure class="plot"><img alt="{e(f.caption)}" '
                       f'src="data:image/svg+xml;base64,{data}">'
                       f"<figcaption>{e(f.caption)}</figcaption></figure>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def markdown(sections: Sequence[Section], title: str) -> str:
    out = [f"# {title}", ""]
    for sec in sections:
        out += [f"## {sec.title}", ""]
        out += [t + "\n" for t in sec.text]
        if sec.pre:
            out += ["```", sec.pre.rstrip(), "```", ""]
        for t in sec.tables:
            out.append("| " + " | ".join(t.headers) + " |")
            out.append("|" + "---|" * len(t.headers))
            out += ["| " + " | ".join(_fmt(c).replace("|", "/") for c in row) + " |"
                    for row in t.rows]
            out.append("")
        out += [f"*Figure: {f.caption}*\n" for f in sec.figures]
    return "\n".join(out)


CSV_HEADERS = ["app", "run", "status", "kind", "ranks", "threads", "params", "result", "min",
               "avg", "max", "value", "unit"]


def csv_text(runs: Sequence[Run]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_HEADERS)
    for run in runs:
        for r in run.records:
            params = ";".join(f"{k}={v}" for k, v in r["params"].items())
            for name, res in r["results"].items():
                w.writerow([run.app or "", run.label, run.status, r["kind"], run.ranks,
                            run.threads, params, name, res.get("min"), res.get("avg"),
                            res.get("max"), res.get("value"), res.get("unit", "")])
    return buf.getvalue()


RENDERERS: Dict[str, Callable[[Sequence[Section], str], str]] = {
    "html": html_page, "md": markdown,
}


def write_report(runs: Sequence[Run], apps: Dict[str, AppDesc], paths: Sequence[Path],
                 output: Path, fmt: str, title: str, with_csv: bool = False) -> Path:
    """The report of `runs` (found under `paths`) as `fmt` (html, md) in `output`, and
    its results as CSV beside it when `with_csv`."""
    from hybridkit.rundata import study_meta

    sections = build(runs, apps, study_meta(paths))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(RENDERERS[fmt](sections, title))
    if with_csv:
        output.with_suffix(".csv").write_text(csv_text(runs))
    return output
