"""The report's profile section (issue 25): what `hybridkit profile` measured of a program.

Per profiled run (records of kind `profile`, `profile.site`, `profile.size` that
libhybridkit-profile.so wrote): MPI time per function (the average rank), where MPI time
was spent inside vs outside OpenMP parallel regions and the sleeping thread-seconds of
masteronly-style code, point-to-point bytes to ranks on the same node vs other nodes, the
message-size histograms (point-to-point, collectives, allreduce) with the hybrid allreduce's
threshold marked, and the top call sites.  The advice itself is `hybridkit profile`'s
(commands/profile.py); the section shows its evidence.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from hybridkit.advice.profile import allreduce_threshold
from hybridkit.report.parts import Figure, Section, Table, bar_panels
from hybridkit.study.rundata import Entry, Run, entries

TOP_SITES = 10


def _num(res: Dict[str, object], key: str, stat: str = "avg") -> float:
    v = res.get(key)
    if isinstance(v, dict):
        v = v.get(stat, v.get("value"))
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def _size_label(lo: int) -> str:
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if lo >= div:
            return f">= {lo // div} {unit}"
    return f">= {lo} B"


def time_per_function(sites: Sequence[Entry]) -> Dict[str, float]:
    """{function: MPI seconds of the average rank, summed over its call sites}, largest first."""
    out: Dict[str, float] = {}
    for e in sites:
        fn = str(e.params.get("function", "?"))
        out[fn] = out.get(fn, 0.0) + _num(e.record["results"], "time")
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def size_histograms(sizes: Sequence[Entry]) -> Dict[str, Dict[int, int]]:
    """{class: {lower bound of the log2 bin: calls}} for p2p, collective and allreduce."""
    out: Dict[str, Dict[int, int]] = {"p2p": {}, "collective": {}, "allreduce": {}}
    for e in sizes:
        cls, lo = str(e.params.get("class")), e.params.get("bytes_min")
        if cls in out and isinstance(lo, int):
            out[cls][lo] = out[cls].get(lo, 0) + int(_num(e.record["results"], "calls"))
    return out


def _run_entries(run: Run, kind: str) -> List[Entry]:
    return [Entry(run, r) for r in run.records if r["kind"] == kind]


def profile_section(runs: Sequence[Run]) -> Optional[Section]:
    profiled = [e for e in entries(runs, kind="profile")]
    if not profiled:
        return None
    threshold = allreduce_threshold()
    sec = Section("Profile of a program (hybridkit profile)")
    sec.text.append(
        "What libhybridkit-profile.so measured in the program's own MPI calls (docs/profile.md): "
        "MPI time per function, MPI time inside and outside OpenMP parallel regions with the "
        "threads that sleep meanwhile, bytes to ranks on the same node (a hybrid layout would "
        "turn them into shared memory) and to other nodes, and the message sizes; allreduces "
        f"of {threshold} B or more are those the hybrid allreduce preload would take.")
    summary = []
    for e in profiled:
        run, p, res = e.run, e.params, e.record["results"]
        label = f"{run.path.name} ({p.get('procs')} x {p.get('threads')})"
        summary.append([label, str(p.get("command", ""))[:60], _num(res, "wall_time", "max"),
                        _num(res, "mpi_time_outside"), _num(res, "mpi_time_parallel"),
                        _num(res, "f_comm"), _num(res, "sleeping_threads"),
                        _num(res, "p2p_bytes_intra", "value"),
                        _num(res, "p2p_bytes_inter", "value")])
        fns = time_per_function(_run_entries(run, "profile.site"))
        top = dict(list(fns.items())[:8])
        hist = size_histograms(_run_entries(run, "profile.size"))
        bins = sorted({lo for h in hist.values() for lo in h})
        if top:
            sec.figures.append(Figure(
                bar_panels(list(top), {"MPI time per function": list(top.values())},
                           ["s (average rank)"]),
                f"[{label}] MPI time per function, summed over its call sites, of the "
                "average rank."))
        if bins:
            sec.figures.append(Figure(
                bar_panels([_size_label(b) for b in bins],
                           {c: [hist[c].get(b, 0) for b in bins] for c in hist},
                           ["calls"] * len(hist)),
                f"[{label}] message sizes (log2 bins: point-to-point sends, collective "
                f"contributions, allreduces); allreduces in bins >= {_size_label(threshold)[3:]} "
                f"would go to the hybrid allreduce: "
                f"{sum(n for lo, n in hist['allreduce'].items() if lo >= threshold)} of "
                f"{sum(hist['allreduce'].values())}."))
        sites = sorted(_run_entries(run, "profile.site"),
                       key=lambda s: -_num(s.record["results"], "time"))[:TOP_SITES]
        if sites:
            sec.tables.append(Table(
                ["run", "function", "call site", "calls", "time (s, avg rank)", "bytes",
                 "p2p calls same node", "other nodes"],
                [[label, s.params.get("function"), s.params.get("site"),
                  int(_num(s.record["results"], "calls")), _num(s.record["results"], "time"),
                  int(_num(s.record["results"], "bytes")),
                  int(_num(s.record["results"], "calls_intra")),
                  int(_num(s.record["results"], "calls_inter"))] for s in sites]))
    sec.tables.insert(0, Table(
        ["run", "command", "wall (s)", "MPI outside parallel (s, avg)",
         "MPI inside parallel (s, avg)", "f_comm (avg)", "sleeping thread-s (avg)",
         "p2p bytes same node", "p2p bytes other nodes"], summary))
    return sec
