"""The report's two-level section (hk-mz --second-level, Jin et al.'s AKIE study, Fig. 8):
first level zones over N1 process groups, second level inside a zone either N2 OpenMP threads
(hybrid, `second_level` omp) or N2 MPI sub-ranks (`second_level` mpi), same numerics.  For
every problem and N1 x N2 it plots time(MPI) / time(hybrid): above 1 the hybrid run is faster.

The records are those of kind mz that carry `groups`, `n2` and `second_level`, from every app
of that kind (the omp ones usually come from the `mz` app's ranks x threads layouts, the mpi
ones from `mz-twolevel`); the section is built for the apps whose description lists
"twolevel" in report.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.appdesc import AppDesc
from hybridkit.report.parts import Figure, Section, Table, entry_flag, lines, median_of
from hybridkit.study.rundata import Entry, Run, entries

Key = Tuple[str, int, int]  # problem, N1, N2


def _problem(e: Entry) -> str:
    p = e.params
    return f"bench={p.get('bench')} class={p.get('class')} steps={p.get('steps')}"


def twolevel_times(es: Sequence[Entry], time: str = "time"
                   ) -> Dict[str, Dict[Key, float]]:
    """{'omp'|'mpi': {(problem, N1, N2): median time}} of the verified records (repeats
    measured on a busy machine are left out when others are not)."""
    groups: Dict[Tuple[str, Key], List[Entry]] = {}
    for e in es:
        p = e.params
        level, n1, n2 = p.get("second_level"), p.get("groups"), p.get("n2")
        if level not in ("omp", "mpi") or n1 is None or n2 is None:
            continue
        if e.result(time) is None or e.result("verified") == 0:
            continue
        groups.setdefault((level, (_problem(e), int(n1), int(n2))), []).append(e)
    out: Dict[str, Dict[Key, float]] = {"omp": {}, "mpi": {}}
    for (level, key), members in groups.items():
        good = [m for m in members if not entry_flag(m)] or members
        t = median_of([m.result(time) for m in good])
        if t is not None:
            out[level][key] = t
    return out


def twolevel_ratios(times: Dict[str, Dict[Key, float]]) -> Dict[Key, Tuple[float, float, float]]:
    """{(problem, N1, N2): (time mpi, time omp, time mpi / time omp)} where both exist."""
    return {k: (tm, times["omp"][k], tm / times["omp"][k])
            for k, tm in times["mpi"].items() if times["omp"].get(k)}


def twolevel_section(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> Optional[Section]:
    kinds = sorted({a.kind for a in apps.values() if "twolevel" in a.report})
    es = [e for k in kinds for e in entries(runs, kind=k)]
    ratios = twolevel_ratios(twolevel_times(es))
    if not ratios:
        return None
    sec = Section("Two-level parallelism: MPI or OpenMP inside a zone (AKIE analogue)")
    sec.text.append(
        "First level: zones over N1 process groups; second level inside every zone: N2 OpenMP "
        "threads (hybrid) or N2 MPI sub-ranks splitting the zone in j (hk-mz --second-level "
        "mpi --sub-ranks N2), the same numerics (bit-identical norms, tested).  Ratio above 1: "
        "the hybrid run is faster (Jin et al., Fig. 8).  The MPI second level here moves the "
        "zone's right-hand side twice and its solution once per step within the group.")
    panels: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    rows = []
    for (problem, n1, n2), (tm, to, r) in sorted(ratios.items()):
        panels.setdefault(problem, {}).setdefault(f"N1={n1}", []).append((n2, r))
        rows.append([problem, n1, n2, to, tm, r])
    sec.figures.append(Figure(
        lines(panels, "N2 (threads or sub-ranks per group)", "time(MPI) / time(hybrid)",
              logx=True, xticks_int=True, hline=1.0),
        "time of the MPI second level over that of the OpenMP one, per N1 x N2 (median of the "
        "verified repeats; runs on a busy machine only when no other)."))
    sec.tables.append(Table(["problem", "N1 (groups)", "N2", "time hybrid [s]",
                             "time MPI [s]", "MPI / hybrid"], rows))
    return sec
