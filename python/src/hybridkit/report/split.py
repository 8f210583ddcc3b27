"""The report's mesh-splitting section (issue 24, Jin et al.'s OVERFLOW argument): pure MPI
with every zone split K ways (hk-mz --split K, threads 1) vs hybrid without splitting
(--split 1, fewer processes x threads) at equal cores.

(a) points incl. ghosts vs number of processes (the Table 3 analogue, from the records'
`points`), (b) time per step and residual after the run's steps (`residual_final`), split pure
MPI vs unsplit hybrid at equal cores, (c) the residual histories (Fig. 1 analogue) when the run
directories hold hk-mz --history's history.csv (the mz-split app writes it there).

The records are those of kind mz carrying `split`, from the apps whose description lists
"split" in report (plus every app of that kind: the unsplit hybrid ones may come from `mz`).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.advice.meshsplit import read_history
from hybridkit.appdesc import AppDesc
from hybridkit.report.parts import Figure, Section, Table, entry_flag, lines, median_of
from hybridkit.study.rundata import Entry, Run, entries

HISTORY = "history.csv"
Key = Tuple[str, int]  # problem, cores


def _problem(e: Entry) -> str:
    p = e.params
    return f"bench={p.get('bench')} class={p.get('class')} steps={p.get('steps')}"


def _layout(e: Entry) -> Tuple[int, int]:
    p = e.params
    return int(p.get("procs", e.run.info.get("np", 1))), int(p.get("threads", 1))


def _kind(e: Entry) -> Optional[str]:
    """'split' (pure MPI, split > 1), 'hybrid' (split 1, threads > 1), 'mpi' (unsplit pure
    MPI) or None (no split parameter)."""
    split = e.params.get("split")
    if split is None:
        return None
    procs, threads = _layout(e)
    if int(split) > 1:
        return "split" if threads == 1 else None
    return "hybrid" if threads > 1 else "mpi"


def split_entries(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> List[Entry]:
    kinds = sorted({a.kind for a in apps.values() if "split" in a.report})
    return [e for k in kinds for e in entries(runs, kind=k) if _kind(e) is not None]


def points_table(es: Sequence[Entry]) -> Dict[str, Dict[Tuple[int, int], Tuple[int, int]]]:
    """{problem: {(procs, split): (points, ghost_points)}}: the Table 3 analogue.  The counts
    do not depend on timing, so the first record of each pair is taken (repeats agree)."""
    out: Dict[str, Dict[Tuple[int, int], Tuple[int, int]]] = {}
    for e in es:
        pts, ghosts = e.result("points"), e.result("ghost_points")
        if pts is None:
            continue
        key = (_layout(e)[0], int(e.params["split"]))
        out.setdefault(_problem(e), {}).setdefault(key, (int(pts), int(ghosts or 0)))
    return out


def _median_of(members: Sequence[Entry], name: str) -> Optional[float]:
    good = [m for m in members if not entry_flag(m)] or list(members)
    return median_of([m.result(name) for m in good if m.result(name) is not None])


def compare(es: Sequence[Entry]) -> Dict[Key, Dict[str, Tuple[int, int, int, float, Optional[float]]]]:
    """{(problem, cores): {'split'|'hybrid': (procs, threads, split, median time per step,
    median residual_final)}}, for cores where both a split pure MPI run and an unsplit hybrid
    run exist.  Of several layouts of one side, the fastest is kept (the best each can do)."""
    groups: Dict[Tuple[Key, str, Tuple[int, int, int]], List[Entry]] = {}
    for e in es:
        side = _kind(e)
        if side not in ("split", "hybrid") or e.result("time_per_step") is None:
            continue
        procs, threads = _layout(e)
        key = (_problem(e), procs * threads)
        groups.setdefault((key, side, (procs, threads, int(e.params["split"]))), []).append(e)
    sides: Dict[Key, Dict[str, Tuple[int, int, int, float, Optional[float]]]] = {}
    for (key, side, lay), members in groups.items():
        t = _median_of(members, "time_per_step")
        if t is None:
            continue
        cand = (*lay, t, _median_of(members, "residual_final"))
        old = sides.setdefault(key, {}).get(side)
        if old is None or t < old[3]:
            sides[key][side] = cand
    return {k: v for k, v in sides.items() if "split" in v and "hybrid" in v}


def histories(es: Sequence[Entry]) -> Dict[str, Dict[str, List[Tuple[float, float]]]]:
    """{problem: {label: [(step, residual)]}} from history.csv in the run directories."""
    out: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    for e in es:
        path = e.run.path / HISTORY
        if not path.is_file():
            continue
        try:
            rows = read_history(str(path))
        except (OSError, ValueError):
            continue
        rows = [(s, r) for s, r in rows if r > 0]
        if not rows:
            continue
        procs, threads = _layout(e)
        label = f"{procs}x{threads} split {e.params['split']}"
        out.setdefault(_problem(e), {}).setdefault(label, rows)
    return out


def split_section(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> Optional[Section]:
    es = split_entries(runs, apps)
    pts = points_table(es)
    if not pts:
        return None
    sec = Section("Mesh splitting: pure MPI with splitting vs hybrid without (OVERFLOW analogue)")
    sec.text.append(
        "Pure MPI beyond the number of zones needs zones split into sub-zones (hk-mz --split "
        "K): the cuts add ghost points (Jin et al., Table 3) and end the implicit line solves, "
        "a different numerical method whose residual falls differently (Fig. 1).  Hybrid runs "
        "at the same cores use fewer processes and keep the zones whole.")
    panels: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    rows = []
    for problem, by in sorted(pts.items()):
        for (procs, split), (p, g) in sorted(by.items()):
            panels.setdefault(problem, {}).setdefault(f"split {split}", []).append((procs, p))
            rows.append([problem, procs, split, p, g, g / max(p - g, 1)])
    sec.figures.append(Figure(
        lines(panels, "processes", "points incl. ghosts", logx=True, xticks_int=True),
        "total points including the ghost points of the cuts, per number of processes and "
        "split (Table 3 analogue)."))
    sec.tables.append(Table(["problem", "processes", "split", "points", "ghost points",
                             "ghosts / unsplit points"], rows))
    cmp = compare(es)
    if cmp:
        tp: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
        crow = []
        for (problem, cores), sides in sorted(cmp.items()):
            s, h = sides["split"], sides["hybrid"]
            tp.setdefault(problem, {}).setdefault("pure MPI, split", []).append((cores, s[3]))
            tp[problem].setdefault("hybrid, unsplit", []).append((cores, h[3]))
            crow.append([problem, cores, f"{s[0]}x1 split {s[2]}", s[3], s[4],
                         f"{h[0]}x{h[1]} split 1", h[3], h[4], s[3] / h[3]])
        sec.figures.append(Figure(
            lines(tp, "cores", "time per step [s]", logx=True, xticks_int=True),
            "time per step at equal cores: pure MPI with the zones split vs hybrid without "
            "(median of the repeats, runs on a busy machine only when no other; of several "
            "hybrid layouts the fastest)."))
        sec.tables.append(Table(["problem", "cores", "pure MPI", "time/step [s]",
                                 "residual after N", "hybrid", "time/step [s]",
                                 "residual after N", "time split / hybrid"], crow))
    hist = histories(es)
    if hist:
        sec.figures.append(Figure(
            lines(hist, "step", "RMS residual", logy=True),
            "residual after every step (hk-mz --history), split vs unsplit (Fig. 1 analogue)."))
    else:
        sec.text.append("No residual histories in the run directories: the comparison uses "
                        "the residual after the last step only.")
    return sec
