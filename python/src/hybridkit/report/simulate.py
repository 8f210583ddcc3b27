"""The report's sections of simulated runs (`hybridkit simulate`, SimGrid SMPI; issue 26).

Records made on a simulated platform carry "simulated": true and "platform": {"name", ...}.
hybridkit.report.document never shows them with measured records: it gives them to this module one
platform at a time (hybridkit.study.rundata.split_simulated), and every section here is titled
"Simulated on NAME: ...". For each platform:

    the platform (nodes, cores per node, link bandwidth and latency, NICs, injection limit)
    T_hybrid/T_pure vs message size (hk-bench orthogonal)   vs seed 000/003: 11.6 / 19.2 ms,
                                                              > 1.6 for long messages, 32 kB
    the b_eff table MPP vs hybrid (hk-bench beff --compare-hybrid)  vs Table 1 of seed 003
    bandwidth per node vs communicating CPUs and stride (hk-bench multipath)  vs the IBM SP
                                                              slides of seed 000
    inter-node bytes and links per rank mapping (hk-jacobi --map)  vs the topology slide of
                                                              seed 000 and Sect. 4 of seed 003
    the benchmarks' usual sections (ping-pong, b_eff, ratio, ...) on this platform's records

Each comparison is a table "quantity | seed value | simulated | simulated / seed | the seed's
statement holds | source" (hybridkit.simulate.seedvalues names paper, table or slide, and line).
"""

from __future__ import annotations

import statistics
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hybridkit.report.bench import (barrier_section, beff_section, halo_section, overlap_section,
                                    pingpong_section, ratio_section)
from hybridkit.report.parts import Figure, Section, Table, bar_panels, lines
from hybridkit.simulate import seedvalues as sv
from hybridkit.study.rundata import Entry, Run, entries

# the comparison sections' titles (after "Simulated on PLATFORM: "); studies/seeds-simulated.toml
# names them in its runs' `report`
TITLES = {
    "orthogonal": "T_hybrid / T_pure vs message size (orthogonal communication)",
    "beff": "b_eff, MPP vs hybrid (Table 1 of the 2002 paper)",
    "multipath": "bandwidth per node vs communicating CPUs and stride (multiple inter-node "
                 "paths)",
    "mapping": "inter-node bytes per rank mapping",
}
COMPARE_HEADERS = ["quantity", "seed value", "simulated", "simulated / seed",
                   "seed's statement holds", "source"]

MODELLED = (
    "What SimGrid SMPI models: every MPI process runs the real hk-bench code, its messages "
    "cross the platform's links (bandwidth, latency, contention on shared links, a per-CPU "
    "injection limit where the platform has one) in simulated time; times in these sections "
    "are simulated seconds, independent of the load of the machine that ran the simulation. "
    "What it does not model here: OpenMP threads (a hybrid process is one process; masteronly "
    "is modelled by one leader per node sending the node's aggregated message while the other "
    "processes wait; hk-jacobi's threads can be modelled by a node compute rate, "
    "docs/simulate.md), memory bandwidth and caches, MPI library internals of the seeds' "
    "machines. These values are never mixed with measured ones.")


def _ratio(sim: Optional[float], seed: Optional[sv.Seed]) -> Optional[float]:
    if sim is None or seed is None or not seed.value:
        return None
    return sim / seed.value


def compare_row(quantity: str, seed: Optional[sv.Seed], sim: Optional[float],
                sim_text: Optional[str] = None) -> List[Any]:
    """One row of a comparison table: the seed's value, the simulated one, their ratio."""
    ratio = _ratio(sim, seed)
    shown = sim_text if sim_text is not None else ("not simulated" if sim is None
                                                   else sv.number(sim))
    return [quantity, seed.text() if seed else "(not given)", shown,
            "" if ratio is None else f"{ratio:.3g}", seed.holds(sim) if seed else "",
            seed.source if seed else ""]


def _title(platform: str, what: str) -> str:
    return f"Simulated on {platform}: {what}"


def _platform_info(views: Sequence[Run]) -> Dict[str, Any]:
    for run in views:
        for r in run.records:
            if isinstance(r.get("platform"), dict):
                return r["platform"]
        plat = run.info.get("platform")
        if isinstance(plat, dict):
            return plat
    return {}


def used_shape(run: Run) -> Tuple[Optional[int], Optional[int]]:
    """(nodes, ranks per node) a simulated run used: run.json's use_nodes and ranks_per_node
    (hybridkit simulate), else the ranks over the platform's CPUs per node."""
    plat = _platform_info([run])
    per = run.info.get("ranks_per_node") or plat.get("cores_per_node")
    nodes = run.info.get("use_nodes")
    if not nodes and per and run.ranks:
        nodes = -(-run.ranks // int(per))
    return (int(nodes) if nodes else None, int(per) if per else None)


def _shape_note(es: Sequence[Entry], seed_machine: str, shape: Tuple[int, int]) -> str:
    shapes = sorted({used_shape(e.run) for e in es}, key=str)
    mine = ", ".join(f"{n} x {c}" if n and c else "of unknown size" for n, c in shapes)
    same = shapes == [shape]
    return (f"Seed machine: {seed_machine}, {shape[0]} nodes x {shape[1]} CPUs; simulated: "
            f"{mine} (nodes x ranks per node)" +
            ("." if same else ": not the seed's shape, compare the trends, not the numbers."))


def platform_section(platform: str, views: Sequence[Run]) -> Section:
    info = _platform_info(views)
    sec = Section(_title(platform, "the platform"))
    sec.text.append(MODELLED)
    sec.tables.append(Table(["item", "value"], [
        [k, info.get(k)] for k in ("name", "file", "nodes", "cores_per_node", "link_bw",
                                    "link_lat", "nic_per_node", "cpu_injection")]))
    kinds: Dict[str, int] = {}
    for e in entries(views):
        kinds[e.record["kind"]] = kinds.get(e.record["kind"], 0) + 1
    sec.tables.append(Table(["record kind", "records"], sorted(kinds.items())))
    rate = info.get("node_rate")
    if isinstance(rate, dict):  # hybridkit simulate --node-rate / --node-bw (noderate.py)
        sec.text.append(
            f"Compute: node rate from {rate.get('source')}, R(n) for n busy cores of a node "
            f"({rate.get('unit')}): " + ", ".join(f"R({n}) = {v:.4g}" for n, v in
                                                  rate.get("rates", {}).items()) +
            ". OpenMP threads are modelled, not run: a rank of P ranks x T threads per node "
            "computes at R(P T) / (P R(1)) times the one-core rate measured on the machine that "
            "ran the simulation (the speed factor per layout below); the node's memory "
            "bandwidth is in R, not in a per-node resource.")
        layouts = {}
        for run in views:
            for r in run.records:
                nr = (r.get("platform") or {}).get("node_rate")
                if isinstance(nr, dict):
                    layouts[(nr["ranks_per_node"], nr["threads_per_rank"])] = nr["speed_factor"]
        sec.tables.append(Table(["ranks per node", "threads per rank", "speed factor"],
                                [[p, t, round(f, 4)] for (p, t), f in sorted(layouts.items())]))
    return sec


# --- T_hybrid / T_pure (hk-bench orthogonal) ---------------------------------------------------

def orthogonal_data(views: Sequence[Run]) -> Dict[int, Dict[int, Tuple[float, float, float]]]:
    """{ranks: {L: (T_pure, T_hybrid in us, T_hybrid/T_pure)}}: medians over the repeats of
    the slowest rank's times (the records' max) and of the ratio."""
    got: Dict[int, Dict[int, List[Tuple[float, float, float]]]] = {}
    for e in entries(views, kind="bench.orthogonal"):
        tp, th = e.result("t_pure", "max"), e.result("t_hybrid", "max")
        ratio = e.result("t_hybrid_over_t_pure")
        if tp is None or th is None or ratio is None:
            continue
        got.setdefault(e.run.ranks, {}).setdefault(int(e.params["size"]), []).append(
            (tp, th, ratio))
    return {n: {L: tuple(statistics.median(v[i] for v in vals) for i in range(3))
                for L, vals in sorted(by.items())} for n, by in sorted(got.items())}


def crossover(by_size: Dict[int, Tuple[float, float, float]]) -> Optional[int]:
    """The largest message size at which masteronly is not slower (ratio <= 1), None when
    it is slower at every size."""
    fast = [L for L, v in by_size.items() if v[2] <= 1.0]
    return max(fast) if fast else None


def orthogonal_section(platform: str, views: Sequence[Run]) -> Optional[Section]:
    data = orthogonal_data(views)
    if not data:
        return None
    seeds = sv.ORTHOGONAL
    sec = Section(_title(platform, TITLES["orthogonal"]))
    sec.text.append(_shape_note(entries(views, kind="bench.orthogonal"), "Hitachi SR8000",
                                sv.ORTHOGONAL_SHAPE))
    patterns = sorted({str(e.params.get("pattern", "concurrent"))
                       for e in entries(views, kind="bench.orthogonal")})
    sec.text.append("hk-bench orthogonal --pattern sendrecv (the seed's experiment): pure MPI "
                    "MPI_Sendrecv's L to the same CPU of the next node, then L to the next CPU "
                    "of its node, T_pure = the two phases' sum; masteronly: one leader per node "
                    "MPI_Sendrecv's L x CPUs-per-node to the next node's leader. --pattern "
                    "concurrent (records without a pattern, before session 20): pure MPI "
                    "exchanges L with all four neighbours at once, the leaders with both "
                    "neighbouring leaders. T = the slowest rank's time per exchange (median of "
                    f"the repeats). Pattern of these records: {', '.join(patterns)}.")
    rows = []
    series: Dict[str, List[Tuple[float, float]]] = {}
    for ranks, by_size in data.items():
        series[f"simulated, {ranks} ranks"] = [(L, v[2]) for L, v in by_size.items()]
        at = by_size.get(sv.ORTHOGONAL_L)
        tag = f" ({ranks} ranks)" if len(data) > 1 else ""
        rows.append(compare_row(f"T_pure at L = 1 MiB per CPU [ms]{tag}", seeds["t_pure_ms"],
                                at[0] / 1e3 if at else None))
        rows.append(compare_row(f"T_hybrid at 1 MiB x CPUs per node per leader [ms]{tag}",
                                seeds["t_hybrid_ms"], at[1] / 1e3 if at else None))
        rows.append(compare_row(f"T_hybrid / T_pure at L = 1 MiB{tag}", seeds["ratio_at_L"],
                                at[2] if at else None))
        long = [v[2] for L, v in by_size.items() if L >= sv.ORTHOGONAL_L]
        rows.append(compare_row(f"smallest T_hybrid / T_pure at L >= 1 MiB{tag}",
                                seeds["ratio_long"], min(long) if long else None))
        cross = crossover(by_size)
        rows.append(compare_row(
            f"largest L per CPU with masteronly not slower (ratio <= 1) [B]{tag}",
            seeds["crossover_bytes"], cross,
            None if cross is not None else f"none: slower at every L >= {min(by_size)}"))
    sec.tables.append(Table(COMPARE_HEADERS, rows))
    top = max(L for by in data.values() for L in by)
    if top > sv.ORTHOGONAL_L:
        series["seed: > 1.6 for long messages"] = [(L, seeds["ratio_long"].value)
                                                   for L in (sv.ORTHOGONAL_L, top)]
    series["seed: 1.66 at 1 MiB"] = [(sv.ORTHOGONAL_L, seeds["ratio_at_L"].value)]
    sec.figures.append(Figure(
        lines({"masteronly vs pure MPI": series}, "message size L per CPU [B]",
              "T_hybrid / T_pure", logx=True, hline=1.0),
        f"Simulated on {platform}: T_hybrid/T_pure vs L (seed: above 1 for L > 32 kB, above "
        f"1.6 for long messages, 19.2/11.6 ms at 1 MB on the SR8000); above 1 masteronly "
        f"communicates slower."))
    return sec


# --- the b_eff table (hk-bench beff --compare-hybrid) -------------------------------------------

def beff_values(views: Sequence[Run]) -> Dict[str, Dict[str, float]]:
    """{"mpp"/"hybrid": {column and column_per_node/_per_proc: median}} of the summaries."""
    got: Dict[str, Dict[str, List[float]]] = {}
    for e in entries(views, kind="bench.beff.summary"):
        run = str(e.params.get("run"))
        for col in sv.BEFF_COLUMNS:
            for suffix in ("", "_per_node", "_per_proc"):
                v = e.result(col + suffix)
                if v is not None:
                    got.setdefault(run, {}).setdefault(col + suffix, []).append(v)
        for p in ("procs", "nodes", "lmax"):
            if isinstance(e.params.get(p), (int, float)):
                got.setdefault(run, {}).setdefault(p, []).append(e.params[p])
    return {run: {k: statistics.median(v) for k, v in cols.items()} for run, cols in got.items()}


def beff_table_section(platform: str, views: Sequence[Run]) -> Optional[Section]:
    vals = beff_values(views)
    mpp, hyb = vals.get("mpp"), vals.get("hybrid")
    if not mpp or not hyb:
        return None
    sec = Section(_title(platform, TITLES["beff"]))
    sec.text.append(_shape_note(entries(views, kind="bench.beff.summary"), "Hitachi SR8000",
                                sv.BEFF_SHAPE))
    sec.text.append(
        f"Simulated: MPP {mpp.get('procs', '?'):g} processes, hybrid {hyb.get('procs', '?'):g} "
        f"node leaders, Lmax {mpp.get('lmax', 0):g} B (the seed: 96 and 12 processes, Lmax 8 MB). "
        f"hk-bench's hybrid leaders send L x ranks-per-node (the node's data); the seed's "
        f"b_hybrid used the same sizes as MPP. 'Concluding' divides the measured ratio by "
        f"s_MPP/s_hybrid = {sv.BEFF_S_RATIO:g}, the seed's assumption, for both.")
    rows = []
    for col in sv.BEFF_COLUMNS:
        name = sv.BEFF_COLUMN_TITLES[col]
        seeds = {row: sv.BEFF[row][col] for row in sv.BEFF}
        b_h, b_m = hyb.get(col), mpp.get(col)
        ratio = b_m / b_h if b_m is not None and b_h else None
        rows += [
            compare_row(f"{name}: b_hybrid [MB/s]", seeds["b_hybrid"], b_h),
            compare_row(f"{name}: b_hybrid per node [MB/s]", seeds["b_hybrid_per_node"],
                        hyb.get(col + "_per_node")),
            compare_row(f"{name}: b_MPP [MB/s]", seeds["b_mpp"], b_m),
            compare_row(f"{name}: b_MPP per process [MB/s]", seeds["b_mpp_per_proc"],
                        mpp.get(col + "_per_proc")),
            compare_row(f"{name}: b_MPP / b_hybrid (measured)", seeds["ratio_measured"], ratio),
            compare_row(f"{name}: T_hybrid / T_MPP (concluding)", seeds["ratio_concluding"],
                        ratio / sv.BEFF_S_RATIO if ratio is not None else None),
        ]
    sec.tables.append(Table(COMPARE_HEADERS, rows))
    labels = [sv.BEFF_COLUMN_TITLES[c] for c in sv.BEFF_COLUMNS]
    sim_ratio = [mpp[c] / hyb[c] if mpp.get(c) is not None and hyb.get(c) else 0.0
                 for c in sv.BEFF_COLUMNS]
    sec.figures.append(Figure(
        bar_panels(labels, {"seed (SR8000, 12 x 8)": [sv.BEFF["ratio_measured"][c].value
                                                     for c in sv.BEFF_COLUMNS],
                            f"simulated on {platform}": sim_ratio},
                   ["b_MPP / b_hybrid", "b_MPP / b_hybrid"]),
        f"b_MPP / b_hybrid (measured) per metric: Table 1 of the 2002 paper (left) and "
        f"simulated on {platform} (right); above 1 pure MPI communicates faster."))
    return sec


# --- multiple inter-node paths (hk-bench multipath) ---------------------------------------------

def multipath_data(views: Sequence[Run]) -> Tuple[Optional[int], Dict[Tuple[int, int], float],
                                                  Dict[Tuple[int, int], List[Tuple[float, float]]]]:
    """(largest size, {(k, stride): node bandwidth at it}, {(k, stride): [(k x size, bw)]}) of
    the processes-mode records; medians over repeats of the average over the paired nodes."""
    got: Dict[Tuple[int, int, int], List[float]] = {}
    for e in entries(views, kind="bench.multipath"):
        bw = e.result("node_bandwidth")
        if bw is None or e.params.get("mode", "processes") != "processes":
            continue
        key = (int(e.params["paths"]), int(e.params["stride"]), int(e.params["size"]))
        got.setdefault(key, []).append(bw)
    if not got:
        return None, {}, {}
    med = {k: statistics.median(v) for k, v in got.items()}
    lmax = max(k[2] for k in med)
    at = {(k, s): v for (k, s, L), v in med.items() if L == lmax}
    curves: Dict[Tuple[int, int], List[Tuple[float, float]]] = {}
    for (k, s, L), v in sorted(med.items()):
        curves.setdefault((k, s), []).append((k * L, v))
    return lmax, at, curves


def multipath_numbers(at: Dict[Tuple[int, int], float]) -> Dict[str, Optional[float]]:
    """The seed's quantities from the bandwidths at the largest size."""
    best = max(at.values())
    per_k: Dict[int, float] = {}
    for (k, s), v in at.items():
        per_k[k] = max(per_k.get(k, 0.0), v)
    n = max(per_k)
    one = at.get((1, 1), per_k.get(1))
    full = [k for k in sorted(per_k) if per_k[k] >= sv.MULTIPATH_FULL * best]
    quarter = per_k.get(max(1, n // 4))
    return {"best": best, "n": float(n),
            "one_cpu_share": one / best if one is not None and best else None,
            "second_cpu": per_k[2] / one if 2 in per_k and one else None,
            "quarter_share": quarter / best if quarter is not None and best else None,
            "k_full": float(full[0]) if full else None}


def multipath_section(platform: str, views: Sequence[Run]) -> Optional[Section]:
    lmax, at, curves = multipath_data(views)
    if not at:
        return None
    num = multipath_numbers(at)
    seeds = sv.MULTIPATH
    n = int(num["n"] or 0)
    sec = Section(_title(platform, TITLES["multipath"]))
    sec.text.append(_shape_note(entries(views, kind="bench.multipath"),
                                "IBM SP (Power4+, 4 adapters per node)", sv.MULTIPATH_SHAPE))
    sec.text.append(f"hk-bench multipath: k of the {n} processes of a node (stride s) exchange "
                    f"{lmax} B with the partner node; bandwidth per node = bytes a node sends "
                    f"/ time of its slowest path (median of the repeats), at the largest size. "
                    f"'Full' bandwidth: {sv.MULTIPATH_FULL:.0%} of the best measured. The NEC "
                    f"SX-6's inverse behaviour (more CPUs, less bandwidth; seed 000 line 924) "
                    f"comes from its global memory, which no platform models.")
    sec.tables.append(Table(COMPARE_HEADERS, [
        compare_row("CPUs per node needed for full bandwidth", seeds["k_full"], num["k_full"]),
        compare_row("bandwidth with 2 CPUs (best stride) / with 1 CPU", seeds["second_cpu"],
                    num["second_cpu"]),
        compare_row("bandwidth with 1 CPU (masteronly) / best", seeds["one_cpu_share"],
                    num["one_cpu_share"]),
        compare_row(f"bandwidth with {max(1, n // 4)} of {n} CPUs (25 %) / best",
                    seeds["quarter_share"], num["quarter_share"]),
    ]))
    # stride 1, the best stride per k, and strides 2, 4, 8 (more lines would hide the others)
    by_stride: Dict[str, List[Tuple[float, float]]] = {}
    best: Dict[int, float] = {}
    for (k, s), v in sorted(at.items()):
        best[k] = max(best.get(k, 0.0), v)
        if s in (1, 2, 4, 8):
            by_stride.setdefault(f"stride {s}", []).append((k, v))
    by_stride["best stride"] = sorted(best.items())
    sec.figures.append(Figure(
        lines({f"{lmax} B per path": by_stride}, "communicating CPUs per node k",
              "bandwidth per node [MB/s]", xticks_int=True),
        f"Simulated on {platform}: inter-node bandwidth per node vs the number of "
        f"communicating CPUs per node, strides 1, 2, 4, 8 and the best one per k (seed: "
        f"more than 4 CPUs needed for "
        f"full bandwidth on the IBM SP; the second CPU doubles it when it uses another "
        f"adapter)."))
    shown = {f"{k}/{n} CPUs stride {s}": pts for (k, s), pts in curves.items()
             if s == 1 or k == 2}
    sec.figures.append(Figure(
        lines({"per node": shown}, "accumulated message size node to node [B]",
              "bandwidth per node [MB/s]", logx=True),
        f"Simulated on {platform}: bandwidth per node vs the accumulated message size, as the "
        f"seed's IBM SP figure draws it (k of {n} CPUs, stride 1; k = 2 with every stride)."))
    return sec


# --- inter-node bytes per mapping (hk-jacobi --map) ---------------------------------------------

def _procs(text: Any) -> Tuple[int, ...]:
    try:
        dims = tuple(int(x) for x in str(text).lower().split("x"))
    except ValueError:
        return ()
    while len(dims) > 1 and dims[-1] == 1:
        dims = dims[:-1]
    return dims


def mapping_data(views: Sequence[Run]) -> Dict[Tuple[Any, ...], Dict[str, Tuple[float, ...]]]:
    """{(ranks, ranks per node, procs, boundary, grid): {map: (bytes_inter, inter links,
    bytes_intra)}}; links = messages to other nodes per exchange / 2 (one each way)."""
    out: Dict[Tuple[Any, ...], Dict[str, Tuple[float, ...]]] = {}
    for e in entries(views, kind="jacobi"):
        m, bi, mi = e.params.get("map"), e.result("bytes_inter"), e.result("msgs_inter")
        if m is None or bi is None or mi is None:
            continue
        key = (e.run.ranks, used_shape(e.run)[1], str(e.params.get("procs")),
               str(e.params.get("boundary")), str(e.params.get("grid")))
        out.setdefault(key, {})[str(m)] = (bi, mi / 2, e.result("bytes_intra") or 0.0)
    return out


def _slide_case(key: Tuple[Any, ...]) -> bool:
    """The topology slide's case: 16 ranks on nodes of 8 in an 8 x 2 grid, not periodic."""
    ranks, per_node, procs, boundary, _ = key
    return ((ranks // per_node if per_node else None, per_node) == sv.MAPPING_SHAPE
            and sorted(_procs(procs)) == sorted(sv.MAPPING_PROCS) and boundary != "periodic")


def _cube_case(key: Tuple[Any, ...]) -> bool:
    """Seed 003's case: 3D, periodic, 8 ranks per node (a 2x2x2 cube each, node-aware)."""
    _, per_node, procs, boundary, _ = key
    return len(_procs(procs)) == 3 and boundary == "periodic" and per_node == 8


def mapping_section(platform: str, views: Sequence[Run]) -> Optional[Section]:
    data = mapping_data(views)
    if not data:
        return None
    sec = Section(_title(platform, TITLES["mapping"]))
    sec.text.append("hk-jacobi --map sequential | round-robin | node-aware on this platform: "
                    "bytes and messages one halo exchange sends to other nodes (all ranks); "
                    "a link is a pair of neighbours on different nodes. The seed's cases: 16 "
                    "ranks on 2 nodes of 8, 8 x 2 grid, not periodic (seed 000, topology "
                    "slide); 3D periodic, 8 ranks per node, node-aware (seed 003, Sect. 4).")
    table, rows = [], []
    for key, by_map in sorted(data.items(), key=str):
        ranks, per_node, procs, boundary, grid = key
        for m, (bi, links, bintra) in sorted(by_map.items()):
            table.append([ranks, per_node, procs, boundary, grid, m, int(bi), links, int(bintra)])
        if _slide_case(key):
            for m, seed in sv.MAPPING_LINKS.items():
                got = by_map.get(m)
                rows.append(compare_row(f"inter-node links, {m}, {procs} {boundary}", seed,
                                        got[1] if got else None))
        if _cube_case(key) and "node-aware" in by_map:
            bi, _, bintra = by_map["node-aware"]
            rows.append(compare_row(f"inter-node / intra-node bytes, node-aware, {procs}",
                                    sv.CUBE_INTER_OVER_INTRA, bi / bintra if bintra else None))
    sec.tables.append(Table(["ranks", "ranks per node", "procs", "boundary", "grid", "map",
                             "bytes inter-node", "inter-node links", "bytes intra-node"], table))
    if rows:
        sec.tables.append(Table(COMPARE_HEADERS, rows))
    for key, by_map in sorted(data.items(), key=str):
        maps = sorted(by_map)
        panels = {"bytes to other nodes per exchange": [by_map[m][0] for m in maps],
                  "inter-node links": [by_map[m][1] for m in maps]}
        ylabels = ["bytes", "links"]
        if _slide_case(key):
            panels["inter-node links, seed"] = [sv.MAPPING_LINKS[m].value
                                                if m in sv.MAPPING_LINKS else 0.0 for m in maps]
            ylabels.append("links")
        sec.figures.append(Figure(
            bar_panels(maps, panels, ylabels),
            f"Simulated on {platform}: inter-node bytes and links per mapping, {key[0]} ranks "
            f"({key[1]} per node), procs {key[2]}, {key[3]} (seed: 14 / 8 / 2 links "
            f"round-robin / sequential / optimal for 16 ranks on 2 nodes of 8)."))
    return sec


# --- all sections of one platform ---------------------------------------------------------------

def simulated_sections(platform: str, views: Sequence[Run]) -> List[Section]:
    """The platform, the seed comparisons, then the benchmarks' usual sections, each titled
    with the platform's name; built from this platform's records only."""

    out = [platform_section(platform, views)]
    for fn in (orthogonal_section, beff_table_section, multipath_section, mapping_section):
        sec = fn(platform, views)
        if sec:
            out.append(sec)
    for fn in (pingpong_section, beff_section, ratio_section, overlap_section,
               barrier_section, halo_section):
        sec = fn(views)
        if sec:
            sec.title = _title(platform, sec.title)
            sec.text.insert(0, f"Records simulated on {platform} (SimGrid SMPI): simulated "
                               f"time on the platform's links; what the captions say about "
                               f"virtual nodes or this machine applies to measured runs only.")
            out.append(sec)
    return out
