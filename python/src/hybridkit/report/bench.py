"""The report's sections of the benchmarks: ping-pong intra vs inter node, the b_eff table,
T_hybrid/T_pure vs message size (Rabenseifner), the overlap test, barrier costs, the halo
modes (faces vs full stencil) and the SpMV epsilon experiment.
"""

from __future__ import annotations

import statistics
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hybridkit.advice import model
from hybridkit.report.parts import Figure, Section, Table, lines, median_lines, natural_key
from hybridkit.study.rundata import Entry, Run, entries


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

    lat, bw = median_lines(lat), median_lines(bw)
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

    series = median_lines(series)
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

    series = median_lines(series)
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
    panels = {title: median_lines(series) for title, series in panels.items()}

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


EPSILON_LIMITS = (
    "What a 2-core machine can and cannot show: with --vcluster N the halo really crosses "
    "TCP between emulated nodes (--rate R slows the link, so f_comm can be raised without "
    "shrinking the matrix), and the exchange's bytes and messages are those of a cluster; "
    "but every node's threads share the same 2 cores, so the reserved communicating thread "
    "takes a core's share from the computing ones, TCP's protocol work competes with them, "
    "and the memory bus is shared by all nodes: the tutorial's result (task faster because "
    "the computing threads already saturate the node's memory bus) needs nodes with several "
    "free cores each. Points below 1 - m/n point to this oversubscription, not to the model.")


def _spmv_where(info: Dict[str, Any]) -> str:
    nodes = int(info.get("nodes") or 1)
    if info.get("launcher") in ("vcluster", "vcluster-srun"):
        rate = info.get("link_rate")
        via = ", launched by their Slurm" if info["launcher"] == "vcluster-srun" else ""
        return (f"{nodes} emulated nodes (tools/vcluster{via}, TCP between them, "
                f"{'links limited to ' + rate if rate else 'links not limited'})")
    if nodes > 1 or info.get("hosts") or info.get("hostfile"):
        return f"{nodes} hosts"
    return "one machine (shared memory between the ranks, no network)"


def epsilon_section(runs: Sequence[Run]) -> Optional[Section]:
    """Rabenseifner's epsilon experiment (hk-spmv): eps = T_masteronly / T_task for the same
    matrix, format and layout, against f_comm of the masteronly run, with the model's bounds
    (hybridkit.advice.model; n threads per process, m = 1 communicating thread)."""
    times: Dict[Tuple[Any, ...], Dict[str, List[float]]] = {}
    fcomm: Dict[Tuple[Any, ...], List[float]] = {}
    where = set()
    for e in entries(runs, kind="spmv"):
        mode, t = e.params.get("mode"), e.result("time_per_mult", "max")
        if mode not in ("masteronly", "task") or t is None:
            continue
        key = (e.params.get("matrix"), e.params.get("format"), e.run.ranks, e.run.threads)
        where.add(_spmv_where(e.run.info))
        times.setdefault(key, {}).setdefault(mode, []).append(t)
        f = e.result("f_comm")
        if mode == "masteronly" and f is not None:
            fcomm.setdefault(key, []).append(f)
    panels: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    rows = []
    for key, by_mode in sorted(times.items(), key=lambda kv: natural_key(str(kv[0]))):
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
    sec.text.append("Where the runs ran: " + "; ".join(sorted(where)) + ". " + EPSILON_LIMITS)
    sec.tables.append(Table(["matrix", "format", "layout", "f_comm", "eps", "bounds", "inside"],
                            rows))
    sec.figures.append(Figure(
        lines(panels, "f_comm of masteronly [%]", "eps = T_masteronly / T_task"),
        "Measured eps (median of the repeats) against f_comm, one panel per layout, with the "
        "model's bounds and its prediction; on an oversubscribed or busy machine the measured "
        "points mean little (see the conditions section)."))
    return sec
