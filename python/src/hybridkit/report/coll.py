"""The report's sections of the hybrid collectives (issue 39 item 4): per collective, the
time of plain MPI against each hybrid algorithm and thread count vs message size, measured
and, when bench.collparams records are there, predicted by the cost model
(hybridkit.advice.collmodel; without it the sections show the measurements only).

    bench.coll and bench.allreduce records (hk-bench coll, hk-bench allreduce)
      --> groups: collective, element type, timing, layout (P ranks, L per node,
          C cores per rank = the OpenMP threads the run had)
      --> per group and (algorithm, threads, size): the median over the repeats of the
          slowest rank's time per call
      --> per collective one section: the answer first (one line per group), a table per
          group (fastest per size, T_hybrid/T_MPI, cores busy, the model's choice), a figure
          (a panel per group: measured solid, predicted dashed in the same colour)

A row whose hybrid algorithm fell back ("fallback" other than "none": another algorithm ran)
is marked in the table and drawn with a red cross; it is never named the fastest (what ran
is not what was asked).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hybridkit import plot
from hybridkit.errors import HKError
from hybridkit.report.parts import Figure, Section, Table
from hybridkit.study.rundata import Entry, Run, entries

try:  # the model is optional: without it the sections show the measurements only
    from hybridkit.advice import collmodel
except ImportError:  # pragma: no cover - depends on the installed package
    collmodel = None  # type: ignore[assignment]

KINDS = ("bench.coll", "bench.allreduce")
COLLECTIVES = ("allreduce", "reduce", "reduce-scatter", "bcast", "allgather", "alltoall", "scan",
               "exscan", "alltoallv")
MODEL_ERRORS = (HKError, ValueError, KeyError, TypeError, ZeroDivisionError)

Row = Tuple[str, int]  # (algorithm, threads asked); mpi: threads 1


@dataclass(frozen=True)
class Group:
    """What must be equal for two records to be compared in one table."""

    collective: str
    type: str
    timing: str
    ranks: int
    per_node: int
    cores: int  # per rank

    def title(self) -> str:
        nodes = math.ceil(self.ranks / self.per_node)
        return (f"{self.ranks} rank(s) on {nodes} node(s) x {self.cores} core(s), "
                f"{self.type}, {self.timing}")


@dataclass
class Cell:
    """The records of one (group, row, size)."""

    times: List[float]
    used: List[int]  # threads_used
    fallbacks: List[str]  # the fallback names other than none, with what ran

    @property
    def time(self) -> float:
        return statistics.median(self.times)

    @property
    def fell_back(self) -> bool:
        return bool(self.fallbacks)


def row_label(row: Row) -> str:
    return "mpi" if row[0] == "mpi" else f"{row[0]} x{row[1]}"


def size_text(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB" or n % 1024:
            return f"{n:g} {unit}"
        n //= 1024
    return f"{n} GiB"


def _ranks_per_node(rec: Dict[str, Any], ranks: int) -> int:
    """bench.coll says it; else the binding's node of each rank, else ranks / nodes."""
    p = rec["params"]
    if p.get("ranks_per_node"):
        return int(p["ranks_per_node"])
    prov = rec.get("provenance", {})
    per: Dict[Any, set] = {}
    for b in prov.get("binding") or []:
        per.setdefault(b.get("node", b.get("host")), set()).add(b.get("rank"))
    if per:
        return max(len(s) for s in per.values())
    return max(1, ranks // max(1, int(prov.get("nodes") or 1)))


def _cores(e: Entry) -> int:
    """The cores a rank has: the OpenMP threads its run had (provenance, else run.json)."""
    prov = e.record.get("provenance", {})
    return max(1, int(prov.get("threads_per_rank") or e.run.threads or 1))


def group_of(e: Entry) -> Group:
    p, prov = e.params, e.record.get("provenance", {})
    ranks = int(p.get("ranks") or prov.get("ranks") or e.run.ranks or 1)
    return Group(str(p.get("collective", "allreduce")), str(p.get("type", "double")),
                 str(p.get("timing", "back-to-back")), ranks,
                 min(ranks, _ranks_per_node(e.record, ranks)), _cores(e))


def collect(runs: Sequence[Run]) -> Dict[Group, Dict[Row, Dict[int, Cell]]]:
    """group -> row -> size -> Cell, from the records of every complete run."""
    out: Dict[Group, Dict[Row, Dict[int, Cell]]] = {}
    for kind in KINDS:
        for e in entries(runs, kind=kind):
            t = e.result("time", "max")
            if t is None or t <= 0:
                continue
            p = e.params
            alg = str(p["algorithm"])
            row = (alg, 1 if alg == "mpi" else int(p.get("threads", 1)))
            cell = out.setdefault(group_of(e), {}).setdefault(row, {}).setdefault(
                int(p["size"]), Cell([], [], []))
            cell.times.append(t)
            cell.used.append(int(p.get("threads_used", row[1])))
            fb = str(p.get("fallback", "none"))
            if fb != "none":
                cell.fallbacks.append(f"{fb}, ran {p.get('ran', '?')}")
    return out


def collect_entries(runs: Sequence[Run]) -> List[Entry]:
    """The records the sections read (for the busy/oversubscribed notes)."""
    return [e for kind in KINDS for e in entries(runs, kind=kind)]


# --- the model ----------------------------------------------------------------------------

@dataclass
class Model:
    params: Any = None  # collmodel.MachineParams, None when not fitted
    note: str = ""  # why there is no prediction

    def predict(self, g: Group, row: Row, size: int) -> Optional[float]:
        """us per call, None where the model has no answer (not fitted, collective not
        covered, the algorithm would fall back)."""
        if self.params is None:
            return None
        try:
            sec = collmodel.predict(self.params, g.collective, row[0], row[1], size, g.ranks,
                                    g.per_node)
        except MODEL_ERRORS:
            return None
        return sec * 1e6 if math.isfinite(sec) and sec > 0 else None

    def best(self, g: Group, size: int) -> Optional[Tuple[Row, float]]:
        if self.params is None:
            return None
        try:
            alg, t, sec = collmodel.best(self.params, g.collective, size, g.ranks, g.per_node,
                                         g.cores)
        except MODEL_ERRORS:
            return None
        return ((alg, 1 if alg == "mpi" else int(t)), sec * 1e6) if math.isfinite(sec) else None


def fit_model(runs: Sequence[Run]) -> Model:
    recs = [e.record for e in entries(runs, kind="bench.collparams")]
    if not recs:
        return Model(note="no bench.collparams records (hk-bench collparams): measured only")
    if collmodel is None:
        return Model(note="the cost model (hybridkit.advice.collmodel) is not installed: "
                          "measured only")
    try:
        return Model(collmodel.fit(recs))
    except MODEL_ERRORS as exc:
        return Model(note=f"the cost model could not be fitted ({exc}): measured only")


# --- per group ----------------------------------------------------------------------------

def fastest(rows: Dict[Row, Dict[int, Cell]], size: int, hybrid: bool
            ) -> Optional[Tuple[Row, Cell]]:
    """The fastest row at `size` that did not fall back (hybrid: among the hybrid rows;
    else among all, ties to mpi)."""
    cands = [(c.time, r[0] != "mpi", r[1], r, c) for r, by in rows.items()
             for s, c in by.items() if s == size and not c.fell_back
             and (not hybrid or r[0] != "mpi")]
    if not cands:
        return None
    best = min(cands, key=lambda x: x[:3])
    return best[3], best[4]


def busy_text(cell: Cell, row: Row, cores: int) -> str:
    used = 1 if row[0] == "mpi" else max(1, round(statistics.median(cell.used)))
    return f"{used} of {cores} ({used / cores:.0%})"


def ratio(x: float) -> str:
    return f"{x:.2g}x"


def answer_line(name: str, rows: Dict[Row, Dict[int, Cell]]) -> str:
    """One sentence: from which size which hybrid algorithm beats MPI, by how much."""
    sizes = sorted({s for by in rows.values() for s in by})
    mpi = rows.get(("mpi", 1), {})
    hyb = {s: fastest(rows, s, True) for s in sizes}
    if not mpi:
        top = Counter(row_label(h[0]) for h in hyb.values() if h).most_common(1)
        return f"{name}: no plain MPI measured" + (f"; fastest mostly {top[0][0]}" if top else "")
    if not any(hyb.values()):
        return f"{name}: only plain MPI measured (no hybrid row ran as asked)"
    both = [s for s in sizes if s in mpi and hyb[s]]
    if not both:
        return f"{name}: MPI and the hybrid rows were measured at different sizes: no comparison"
    wins = {s: hyb[s][0] for s in both if hyb[s][1].time < mpi[s].time}  # type: ignore[index]
    speed = {s: mpi[s].time / hyb[s][1].time for s in both}  # type: ignore[index]
    if not wins:
        s = max(both, key=lambda s: speed[s])
        return (f"{name}: MPI is the fastest at every size measured; the best hybrid "
                f"({row_label(hyb[s][0])} at {size_text(s)}) is "  # type: ignore[index]
                f"{ratio(1 / speed[s])} slower")
    start = len(both)
    while start > 0 and both[start - 1] in wins:
        start -= 1
    tail = both[start:]
    if not tail:
        where = ", ".join(size_text(s) for s in wins)
        top = Counter(row_label(r) for r in wins.values()).most_common(1)[0][0]
        return (f"{name}: MPI is the fastest at the largest sizes; hybrid ({top}) only at "
                f"{where}")
    counts = Counter(row_label(wins[s]) for s in tail).most_common()
    top = counts[0][0]
    sp = [speed[s] for s in tail]
    how = ratio(statistics.median(sp))
    notes = []
    if len(counts) > 1:
        notes.append(f"{top} the fastest at {counts[0][1]} of {len(tail)} sizes, else "
                     + ", ".join(c for c, _ in counts[1:]))
    if ratio(min(sp)) != ratio(max(sp)):
        notes.append(f"median of {len(tail)} sizes, {ratio(min(sp))} to {ratio(max(sp))}")
    if start == 0 and both[0] == sizes[0]:
        text = f"{name}: {top} is {how} faster than MPI at every size measured"
    elif start == 0:
        text = (f"{name}: {top} is {how} faster than MPI from {size_text(tail[0])}; below, "
                f"only MPI was measured")
    else:
        text = f"{name}: {top} is {how} faster than MPI from {size_text(tail[0])}; below, MPI"
        early = [s for s in both[:start] if s in wins]
        if early:
            notes.append("hybrid also at " + ", ".join(size_text(s) for s in early))
    return text + (f" ({'; '.join(notes)})" if notes else "")


def group_table(g: Group, rows: Dict[Row, Dict[int, Cell]], model: Model, named: bool = False
                ) -> Table:
    """The group's table; `named`: its layout in the first header (several in a section)."""
    mpi = rows.get(("mpi", 1), {})
    heads = [f"size ({g.title()})" if named else "size", "MPI [us]", "best hybrid", "hybrid [us]", "T_hybrid/T_MPI", "fastest",
             "cores busy (fastest)"]
    if model.params is not None:
        heads += ["model's fastest", "model [us]"]
    heads.append("fell back (what ran)")
    out = []
    for s in sorted({s for by in rows.values() for s in by}):
        h, f = fastest(rows, s, True), fastest(rows, s, False)
        m = mpi.get(s)
        line = [size_text(s), f"{m.time:.4g}" if m else "-",
                row_label(h[0]) if h else "-", f"{h[1].time:.4g}" if h else "-",
                f"{h[1].time / m.time:.3g}" if h and m else "-",
                row_label(f[0]) if f else "-", busy_text(f[1], f[0], g.cores) if f else "-"]
        if model.params is not None:
            b = model.best(g, s)
            line += [row_label(b[0]) if b else "-", f"{b[1]:.4g}" if b else "-"]
        fell = [f"{row_label(r)} ({'; '.join(sorted(set(by[s].fallbacks)))})"
                for r, by in sorted(rows.items()) if s in by and by[s].fell_back]
        out.append(line + [", ".join(fell) or "-"])
    return Table(heads, out)


def model_error(g: Group, rows: Dict[Row, Dict[int, Cell]], model: Model) -> Optional[float]:
    """The median over the measured points of max(pred/meas, meas/pred)."""
    errs = []
    for row, by in rows.items():
        for s, c in by.items():
            p = model.predict(g, row, s)
            if p and not c.fell_back:
                errs.append(max(p / c.time, c.time / p))
    return statistics.median(errs) if errs else None


# --- the figure ---------------------------------------------------------------------------

def draw(panels: Dict[str, Dict[str, List[Tuple[float, float]]]],
         predicted: Dict[str, Dict[str, List[Tuple[float, float]]]],
         fell: Dict[str, List[Tuple[float, float]]]) -> str:
    """A panel per group: measured lines solid with markers (MPI black), the model's dashed
    in the same colour, points whose row fell back as red crosses; SVG text."""
    return plot.lines(panels, "message size [B]", "time per call [us]", logx=True, logy=True,
                      twins=predicted, twin_label="model", crosses=fell,
                      crosses_label="fell back", black="mpi", width=5.0)


def bind_draw(panels, predicted, fell):
    return lambda: draw(panels, predicted, fell)


# --- the sections -------------------------------------------------------------------------

def coll_sections(runs: Sequence[Run]) -> List[Section]:
    """One section per collective measured (none without records)."""
    data = collect(runs)
    if not data:
        return []
    model = fit_model(runs)
    order = {c: i for i, c in enumerate(COLLECTIVES)}
    sections = []
    for coll in sorted({g.collective for g in data}, key=lambda c: (order.get(c, 99), c)):
        groups = sorted((g for g in data if g.collective == coll),
                        key=lambda g: (g.ranks, g.per_node, g.cores, g.type, g.timing))
        sec = Section(f"Collective {coll}: plain MPI vs hybrid", anchor=f"coll-{coll}")
        panels, predicted, fell = {}, {}, {}
        tables, errs = [], []
        for g in groups:
            rows = data[g]
            name = coll if len(groups) == 1 else f"{coll} ({g.title()})"
            sec.text.append(answer_line(name, rows))
            tables.append(group_table(g, rows, model, len(groups) > 1))
            title = g.title()
            panels[title] = {row_label(r): [(s, c.time) for s, c in by.items()]
                             for r, by in rows.items()}
            fell[title] = [(s, c.time) for by in rows.values() for s, c in by.items()
                           if c.fell_back]
            pred = {row_label(r): [(s, p) for s in by if (p := model.predict(g, r, s))]
                    for r, by in rows.items()}
            predicted[title] = {k: v for k, v in pred.items() if v}
            err = model_error(g, rows, model)
            if err is not None:
                errs.append(f"{title}: {ratio(err)}")
        sec.text.append(
            "Time per call: the slowest rank's average, median over the repeats. 'x T': T "
            "threads per rank asked of the hybrid algorithm. T_hybrid/T_MPI: the fastest "
            "hybrid row over MPI at that size (below 1: hybrid faster). Cores busy: the cores "
            "of a rank (its OpenMP threads) that work in the collective: MPI 1, a hybrid "
            "algorithm the threads it used. A row that fell back (another algorithm ran) is "
            "listed in the last column and never named the fastest.")
        if model.params is None:
            sec.text.append(f"No prediction: {model.note}.")
        elif errs:
            sec.text.append("Model (hybridkit.advice.collmodel, fitted to the bench.collparams "
                            "records; dashed lines): median factor between predicted and "
                            "measured time, " + "; ".join(errs) + ".")
        else:
            sec.text.append(f"The cost model does not cover {coll}: measured only.")
        sec.tables += tables
        has_pred = any(predicted.values())
        sec.figures.append(Figure(
            bind_draw(panels, predicted if has_pred else {}, fell),
            f"{coll}: time per call vs message size, plain MPI (black) and each hybrid "
            f"algorithm x threads, one panel per layout"
            + ("; the cost model's predictions dashed in the same colour" if has_pred else "")
            + ("; red crosses: the row fell back (another algorithm ran)"
               if any(fell.values()) else "")))
        sections.append(sec)
    return sections
