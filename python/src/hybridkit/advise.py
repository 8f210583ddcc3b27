"""The advisor: from a run set, the best configuration, the overlap model, the mismatch.

    runs of the main app (a description with a `mode` series and a compute/comm breakdown)
      -> best configuration at the largest core count and problem size:
         processes x threads, mode, binding, and one sentence why
      -> f_comm of masteronly (comm / (comm + compute)) at n threads, m = 1 reserved
         -> hybridkit.model: bounds and predicted eps of funneled & reserved (task) over
            masteronly, next to the measured T_masteronly / T_task
      -> the dominating mismatch problem (Rabenseifner's list), each scored as the
         fraction of time or CPU it costs in these runs:
           topology                  threads share cores / are not pinned (binding report)
           intra-node communication  pure MPI's f_comm x share of halo bytes inside nodes
           inter-node bandwidth      pure MPI's f_comm x share of halo bytes across nodes
           sleeping threads          masteronly's f_comm x (1 - 1/n): idle CPU while the
                                     master communicates
           OpenMP overhead           compute time of the best hybrid run / pure MPI's - 1
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.appdesc import AppDesc
from hybridkit.binding import bindings, pus_per_core, verdict
from hybridkit.errors import HKError
from hybridkit.model import Prediction, predicted_speedup
from hybridkit.rundata import Entry, Run, entries

PROBLEMS = ("topology", "intra-node communication", "inter-node bandwidth",
            "sleeping threads", "OpenMP overhead")
SINGLE_THREAD_MODES = ("pure", "pure-nb")


@dataclass
class Advice:
    app: str
    best: Entry
    metric: str
    unit: str
    cores: int
    recommendation: str
    reason: str
    prediction: Optional[Prediction] = None
    problem: str = ""
    problem_text: str = ""
    scores: Dict[str, float] = field(default_factory=dict)

    def lines(self) -> List[str]:
        out = [f"recommendation: {self.recommendation}", f"reason: {self.reason}"]
        if self.prediction:
            p = self.prediction
            out.append(f"overlap model (Rabenseifner/Wellein): {p.describe()}")
        out.append(f"dominating mismatch problem: {self.problem} ({self.problem_text})")
        return out


def main_app(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> AppDesc:
    """The app the advice is about: the first with a mode series and a comm breakdown."""
    for name in ("jacobi", *sorted(apps)):
        app = apps.get(name)
        if app and app.metric.series == "mode" and "comm" in app.metric.breakdown and \
                entries(runs, kind=app.kind, app=app.name):
            return app
    raise HKError("nothing to advise on: no complete runs of an app with hybrid modes and a "
                  "compute/comm breakdown (e.g. 'hybridkit sweep jacobi --cores N')")


def _metric(e: Entry, app: AppDesc) -> float:
    v = e.result(app.metric.value)
    return float("nan") if v is None else v


def _better(a: float, b: float, app: AppDesc) -> bool:
    return a > b if app.metric.higher_is_better else a < b


def _size_key(e: Entry, app: AppDesc) -> Tuple:
    """The problem-size parameters: every parameter except the series (mode)."""
    return tuple(sorted((k, str(v)) for k, v in e.params.items()
                        if k not in (app.metric.series, "threads", "procs", "verification")))


def _pick(es: Sequence[Entry], app: AppDesc) -> Entry:
    best = es[0]
    for e in es[1:]:
        if _better(_metric(e, app), _metric(best, app), app):
            best = e
    return best


def _fcomm(e: Entry) -> Optional[float]:
    comm, comp = e.result("comm"), e.result("compute")
    if comm is None or comp is None or comm + comp <= 0:
        return None
    return comm / (comm + comp)


def _time(e: Entry, app: AppDesc) -> Optional[float]:
    return e.result(app.metric.time, "max") if app.metric.time else None


def _mode(e: Entry) -> str:
    return str(e.params.get("mode", e.run.info.get("mode") or "?"))


def _layout(e: Entry) -> str:
    return f"{e.run.ranks} x {e.run.threads}"


def _prediction(group: Sequence[Entry], app: AppDesc) -> Optional[Prediction]:
    """Model vs measurement at the most threads per process that has a masteronly run."""
    mo = [e for e in group if _mode(e) == "masteronly" and e.run.threads >= 2]
    if not mo:
        return None
    n = max(e.run.threads for e in mo)
    mo_n = _pick([e for e in mo if e.run.threads == n], app)
    f = _fcomm(mo_n)
    if f is None:
        return None
    task = [e for e in group if _mode(e) == "task" and e.run.threads == n]
    measured = None
    if task and _time(mo_n, app) and _time(_pick(task, app), app):
        measured = _time(mo_n, app) / _time(_pick(task, app), app)
    return predicted_speedup(f, n, 1, measured)


def _bytes_share(e: Entry) -> Tuple[float, float]:
    intra, inter = e.result("bytes_intra") or 0.0, e.result("bytes_inter") or 0.0
    total = intra + inter
    return (intra / total, inter / total) if total else (0.0, 0.0)


def mismatch_scores(group: Sequence[Entry], runs: Sequence[Run], app: AppDesc
                    ) -> Dict[str, float]:
    scores = {p: 0.0 for p in PROBLEMS}
    shared = [r for r in runs if r.complete and r.app == app.name and r.bind != "none"
              and r.records and not verdict(bindings(r.records), pus_per_core(r.records)).own_cores]
    if shared:
        scores["topology"] = len(shared) / max(1, len({id(e.run) for e in group}))
    pure = [e for e in group if _mode(e) in SINGLE_THREAD_MODES]
    if pure:
        p = _pick(pure, app)
        f = _fcomm(p) or 0.0
        intra, inter = _bytes_share(p)
        scores["intra-node communication"] = f * intra
        scores["inter-node bandwidth"] = f * inter
    mo = [e for e in group if _mode(e) == "masteronly" and e.run.threads >= 2]
    if mo:
        m = _pick(mo, app)
        scores["sleeping threads"] = (_fcomm(m) or 0.0) * (1 - 1 / m.run.threads)
    hybrid = [e for e in group if _mode(e) not in SINGLE_THREAD_MODES and e.run.threads >= 2]
    if pure and hybrid:
        comp_pure = _pick(pure, app).result("compute")
        comp_hyb = _pick(hybrid, app).result("compute")
        if comp_pure and comp_hyb:
            scores["OpenMP overhead"] = max(0.0, comp_hyb / comp_pure - 1)
    return scores


PROBLEM_TEXT = {
    "topology": "threads share cores or are not pinned; fix the binding first",
    "intra-node communication": "pure MPI spends {f:.0%} of its time on halo messages that "
                                "stay inside a node; fewer, multi-threaded processes send fewer",
    "inter-node bandwidth": "{f:.0%} of pure MPI's time goes to halo messages between nodes; "
                            "one thread cannot saturate the link: use task/multiple modes",
    "sleeping threads": "in masteronly {f:.0%} of the CPU time is idle threads waiting for "
                        "the master's communication: overlap it (task, task-balanced)",
    "OpenMP overhead": "the threaded compute is {f:.0%} slower than pure MPI's (fork/join, "
                       "barriers, locality)",
}


def advise(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> Advice:
    app = main_app(runs, apps)
    es = [e for e in entries(runs, kind=app.kind, app=app.name)
          if _metric(e, app) == _metric(e, app)]
    if not es:
        raise HKError(f"no {app.name} record has the metric {app.metric.value!r}")
    cores = max(e.run.ranks * e.run.threads for e in es)
    at_cores = [e for e in es if e.run.ranks * e.run.threads == cores]
    sizes = sorted({_size_key(e, app) for e in at_cores})
    group = [e for e in at_cores if _size_key(e, app) == sizes[-1]]
    best = _pick(group, app)
    unit = app.metric.unit
    rec = (f"{_layout(best)} (processes x threads), mode {_mode(best)}, binding "
           f"{best.run.bind}")
    value = _metric(best, app)
    others = [e for e in group if (_mode(e) in SINGLE_THREAD_MODES) !=
              (_mode(best) in SINGLE_THREAD_MODES)]
    if others:
        alt = _pick(others, app)
        gain = abs(value / _metric(alt, app) - 1) if _metric(alt, app) else 0.0
        kind = "hybrid" if _mode(best) in SINGLE_THREAD_MODES else "pure MPI"
        reason = (f"on {cores} cores it reaches {value:.4g} {unit}, {gain:.0%} "
                  f"{'above' if app.metric.higher_is_better else 'below'} the best {kind} "
                  f"configuration ({_layout(alt)} {_mode(alt)}, {_metric(alt, app):.4g} {unit}).")
    else:
        reason = f"it is the best of the {len(group)} measured configurations on {cores} cores " \
                 f"({value:.4g} {unit})."
    prediction = _prediction(group, app)
    scores = mismatch_scores(group, runs, app)
    problem = max(PROBLEMS, key=lambda p: scores[p])
    text = PROBLEM_TEXT[problem].format(f=scores[problem])
    if scores[problem] == 0:
        problem, text = "none measurable", "no mismatch problem costs a measurable share here"
    return Advice(app.name, best, app.metric.value, unit, cores, rec, reason, prediction,
                  problem, text, scores)
