"""The report's DSM section: the tutorial's heat figures (issue 21).

hk-dsm-heat (record kind ``dsm.heat``, apps/dsm/dsm_kinds.c) runs the 2D heat example in
shared-memory style on the page-based DSM; hk-jacobi --dims 2 (kind ``jacobi``, params
dims 2; the ``dsm-mpi`` study entry) runs the same problem on the MPI halo engine. The
section shows, per rank count, the time per step against the grid size (one line per
schedule, and the MPI reference when present) and the bytes moved per step (DSM: fetched
pages, diffs and write notices summed over the ranks; MPI: the halo bytes sent to other
ranks per sweep, summed over the ranks), and a table with the speedup over the fewest ranks
measured (1, or one per node on an emulated cluster) and,
where the MPI reference ran at the same grid, boundary, ranks and threads, the ratios

    time ratio = DSM time per step / MPI time per sweep   (slowest rank, medians)
    comm ratio = DSM protocol time per step / MPI communication time per sweep

(DSM protocol: time in hk_dsm_barrier plus time in the fault handler, rank averages; MPI:
the halo engine's communicating span ``comm``, rank average; the best mode's run; none at one
rank, where neither communicates). The
tutorial's rule of thumb is that DSM communication "may be 10 times slower than with MPI".
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hybridkit.report.parts import Figure, Section, Table, entries_flag, lines, median_of
from hybridkit.study.rundata import Entry, Run, entries

KIND = "dsm.heat"

Key = Tuple[int, int, str]                # grid NX, NY and boundary: the problem


def _grid(e: Entry) -> Optional[Tuple[int, int]]:
    """NX, NY of a 2D grid ('250x250', or hk-jacobi's '250x250x1')."""
    nums = [int(n) for n in re.findall(r"\d+", str(e.params.get("grid", "")))]
    if len(nums) < 2 or any(n != 1 for n in nums[2:]):
        return None
    return nums[0], nums[1]


def _dsm_runs(runs: Sequence[Run]) -> Dict[Tuple[Key, int, int, str], List[Entry]]:
    """DSM records by (problem, ranks, threads, schedule)."""
    out: Dict[Tuple[Key, int, int, str], List[Entry]] = {}
    for e in entries(runs, kind=KIND):
        g = _grid(e)
        if g is None or e.result("time_per_step", "max") is None:
            continue
        key = ((g[0], g[1], str(e.params.get("boundary"))), int(e.params.get("ranks", 0)),
               int(e.params.get("threads", 0)), str(e.params.get("schedule")))
        out.setdefault(key, []).append(e)
    return out


def _mpi_runs(runs: Sequence[Run]) -> Dict[Tuple[Key, int, int], Dict[str, Any]]:
    """The MPI reference by (problem, ranks, threads): the mode with the smallest median time
    per sweep, its median halo bytes per sweep (to other ranks) and communication time."""
    by: Dict[Tuple[Key, int, int], Dict[str, List[Entry]]] = {}
    for e in entries(runs, kind="jacobi"):
        g = _grid(e)
        if g is None or e.params.get("dims") != 2 or e.result("time_per_iter", "max") is None:
            continue
        key = ((g[0], g[1], str(e.params.get("boundary"))), e.run.ranks, e.run.threads)
        by.setdefault(key, {}).setdefault(str(e.params.get("mode")), []).append(e)
    out: Dict[Tuple[Key, int, int], Dict[str, Any]] = {}
    for key, modes in by.items():
        best = min(modes.items(), key=lambda kv: (median_of(
            [x.result("time_per_iter", "max") for x in kv[1]]), kv[0]))
        es = best[1]
        width = [max(1, int(x.params.get("halo_width") or 1)) for x in es]
        out[key] = {
            "mode": best[0], "entries": es,
            "time": median_of([x.result("time_per_iter", "max") for x in es]),
            "bytes": median_of([((x.result("bytes_intra") or 0)
                                 + (x.result("bytes_inter") or 0)) / w
                                for x, w in zip(es, width)]),
            "comm": median_of([x.result("comm", "avg") or 0.0 for x in es]),
        }
    return out


def dsm_rows(runs: Sequence[Run]) -> List[Dict[str, Any]]:
    """One row per DSM configuration (problem, ranks, threads, schedule): medians over the
    repeats, the speedup over the fewest ranks measured, and the ratios to the MPI reference
    (None without)."""
    dsm, mpi = _dsm_runs(runs), _mpi_runs(runs)
    t: Dict[Tuple[Key, int, int, str], float] = {
        k: median_of([e.result("time_per_step", "max") for e in es]) for k, es in dsm.items()}
    rows = []
    for key in sorted(dsm, key=lambda k: (k[0][2], k[3], k[0][0] * k[0][1], k[0], k[1], k[2])):
        problem, ranks, threads, schedule = key
        es = dsm[key]
        proto = median_of([(e.result("barrier", "avg") or 0.0) + (e.result("fault", "avg") or 0.0)
                         for e in es])
        fewest = min(k[1] for k in t if (k[0], k[2], k[3]) == (problem, threads, schedule))
        one = t.get((problem, fewest, threads, schedule))
        ref = mpi.get((problem, ranks, threads))
        rows.append({
            "grid": f"{problem[0]}x{problem[1]}", "nx": problem[0], "boundary": problem[2],
            "ranks": ranks, "threads": threads, "schedule": schedule, "time": t[key],
            "bytes": median_of([e.result("bytes_per_step") or 0.0 for e in es]),
            "faults": median_of([e.result("faults") or 0.0 for e in es]),
            "protocol": proto, "fewest": fewest,
            "speedup": one / t[key] if one and t[key] > 0 else None,
            "mpi": ref,
            "time_ratio": t[key] / ref["time"] if ref and ref["time"] > 0 else None,
            # one rank communicates with nobody (the halo engine only copies its periodic
            # frame; the DSM only pays for detecting writes): no communication ratio
            "comm_ratio": proto / ref["comm"] if ref and ref["comm"] > 0 and ranks > 1 else None,
            "flag": entries_flag(list(es) + (ref["entries"] if ref else [])), "repeats": len(es),
        })
    return rows


def _num(v: Optional[float], fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def dsm_section(runs: Sequence[Run]) -> Optional[Any]:
    """The section (None without dsm.heat records)."""

    rows = dsm_rows(runs)
    if not rows:
        return None
    times: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    moved: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    for r in rows:
        panel = f"{r['ranks']} rank(s) x {r['threads']}"
        if r["boundary"] != "periodic":
            panel += f" {r['boundary']}"
        times.setdefault(panel, {}).setdefault(f"DSM {r['schedule']}", []).append(
            (r["nx"], r["time"]))
        moved.setdefault(panel, {}).setdefault(f"DSM {r['schedule']}", []).append(
            (r["nx"], max(r["bytes"], 1.0)))
        ref = r["mpi"]
        if ref:
            mt = times[panel].setdefault("MPI halos", [])
            if (r["nx"], ref["time"]) not in mt:
                mt.append((r["nx"], ref["time"]))
            mb = moved[panel].setdefault("MPI halos", [])
            if (r["nx"], max(ref["bytes"], 1.0)) not in mb:
                mb.append((r["nx"], max(ref["bytes"], 1.0)))
    sec = Section("DSM: the heat example in shared-memory style vs MPI halos")
    sec.text.append(
        "hk-dsm-heat runs the tutorial's heat example on hybridkit's page-based DSM (the "
        "'OpenMP only' model of Intel Cluster OpenMP); hk-jacobi --dims 2 is the same problem "
        "on the MPI halo engine. The tutorial found that the heat example scales only with a "
        "small communication footprint (6000x6000 better than 1000x1000, 250x250 not at all), "
        "that non-default schedules (static,1) are terrible, and that DSM communication 'may be "
        "10 times slower than with MPI'. Time: slowest rank, median of the repeats; bytes: "
        "summed over the ranks per step (DSM: fetched pages, diffs, write notices; MPI: halo "
        "bytes sent to other ranks). time ratio = DSM / MPI time per step; comm ratio = DSM "
        "protocol time (barrier + fault handler, rank average; the fault time is summed over a "
        "rank's threads) / MPI communication time (the engine's span, rank average).")
    if not any(r["mpi"] for r in rows):
        sec.text.append("No MPI reference in these results (hk-jacobi --dims 2 on the same grid, "
                        "ranks and threads: `hybridkit sweep dsm-mpi`): no ratios.")
    sec.tables.append(Table(
        ["grid", "boundary", "ranks x threads", "schedule", "time/step [ms]",
         "speedup vs fewest ranks",
         "DSM bytes/step", "faults/step", "protocol/step [ms]", "MPI mode", "MPI time/step [ms]",
         "MPI halo bytes/step", "time ratio DSM/MPI", "comm ratio DSM/MPI", "runs", "flags"],
        [[r["grid"], r["boundary"], f"{r['ranks']}x{r['threads']}", r["schedule"],
          f"{1e3 * r['time']:.4g}", f"{_num(r['speedup'], '.3g')} (vs {r['fewest']})",
          f"{r['bytes']:.0f}",
          f"{r['faults']:.0f}", f"{1e3 * r['protocol']:.4g}",
          r["mpi"]["mode"] if r["mpi"] else "-",
          f"{1e3 * r['mpi']['time']:.4g}" if r["mpi"] else "-",
          f"{r['mpi']['bytes']:.0f}" if r["mpi"] else "-",
          _num(r["time_ratio"], ".3g"), _num(r["comm_ratio"], ".3g"), r["repeats"], r["flag"]]
         for r in rows]))
    sec.figures.append(Figure(
        lines(times, "grid edge N (N x N cells)", "time per step [s]", logx=True, logy=True),
        "DSM heat: time per step vs grid size, one panel per layout, one line per schedule "
        "(and the MPI reference, hk-jacobi --dims 2, when present); medians of the repeats."))
    sec.figures.append(Figure(
        lines(moved, "grid edge N (N x N cells)", "bytes moved per step", logx=True, logy=True),
        "DSM heat: bytes moved per step summed over the ranks (DSM: pages, diffs, notices; "
        "MPI: halo bytes to other ranks), vs grid size; 0 is drawn as 1 on the log scale."))
    if any(r["flag"] for r in rows):
        sec.text.insert(0, "Some runs were oversubscribed or made on a busy machine (flags "
                           "column): their times are not performance results; bytes and "
                           "faults are exact.")
        sec.banner = True
    return sec
