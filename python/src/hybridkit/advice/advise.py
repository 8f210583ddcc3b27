"""The advisor: from a run set, the best configuration, the overlap model, the mismatch.

    runs of the main app (a description with a `mode` series and a compute/comm breakdown)
      -> best configuration at the largest core count and problem size:
         processes x threads, mode, binding, and one sentence why
      -> f_comm of masteronly (comm / (comm + compute)) at n threads, m = 1 reserved
         -> hybridkit.advice.model: bounds and predicted eps of funneled & reserved (task) over
            masteronly, next to the measured T_masteronly / T_task
      -> the dominating mismatch problem (Rabenseifner's list), each scored as the
         fraction of time or CPU it costs in these runs:
           topology                  threads share cores / are not pinned (binding report)
           intra-node communication  pure MPI's f_comm x share of halo bytes inside nodes
           inter-node bandwidth      pure MPI's f_comm x share of halo bytes across nodes
           sleeping threads          masteronly's f_comm x (1 - 1/n): idle CPU while the
                                     master communicates
           OpenMP overhead           compute time of the best hybrid run / pure MPI's - 1

Simulated records (hybridkit simulate) are advised on apart from real ones, one platform at a
time, in words that say "simulated"; runs simulated with --compute off (compute phases free:
their times are communication alone) never stand beside, or as repeats of, runs whose compute
was measured, and no binding problem is read from them (their bindings are the host's).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple

from hybridkit.advice.model import Prediction, predicted_speedup
from hybridkit.advice.profile import problems, split, violations
from hybridkit.appdesc import AppDesc
from hybridkit.errors import HKError
from hybridkit.launch.binding import bindings, pus_per_core, verdict
from hybridkit.modes import level_order
from hybridkit.study.quality import (BUSY_SHARE, FUNCTIONAL, Spread, is_busy, is_functional, num,
                                     spread)
from hybridkit.study.rundata import Entry, Run, entries, split_simulated

PROBLEMS = ("topology", "intra-node communication", "inter-node bandwidth",
            "sleeping threads", "OpenMP overhead")


def thread_level(e: Entry) -> str:
    """The MPI thread level the run asked for: its mode's, from the library's mode table
    (hk-jacobi requests hk_mode_thread_level(mode)); '' when the record does not say."""
    return str(((e.record.get("provenance") or {}).get("thread_level") or {})
               .get("requested", ""))


def single_threaded(e: Entry) -> bool:
    """A mode of one thread per rank (thread level single: pure MPI)."""
    return thread_level(e) == "single"


def layout_only(app: AppDesc) -> bool:
    """An app whose only choice is the layout (hk-mz: its series is part of the problem), with
    a compute/comm breakdown; its master thread exchanges between compute phases: masteronly"""
    return not app.program and bool(app.metric.breakdown) and \
        app.metric.series in app.problem.params


def _pure(e: Entry, app: AppDesc) -> bool:  # one thread per rank
    return single_threaded(e) or (layout_only(app) and e.run.threads == 1)


def _masteronly(e: Entry, app: AppDesc) -> bool:
    return e.run.threads >= 2 and (_mode(e) == "masteronly" or layout_only(app))


@dataclass
class Config:
    """One measured configuration of one problem: its repeats and their spread."""

    problem: Tuple
    ranks: int
    threads: int
    mode: str
    bind: str
    entries: List[Entry]
    spread: Spread
    rep: Entry  # the repeat whose metric is the median (its breakdown stands for the others)

    @property
    def layout(self) -> str:
        return f"{self.ranks} x {self.threads}"

    def label(self) -> str:
        return f"{self.layout} {self.mode}" if self.mode else self.layout

    def simplicity(self) -> Tuple:
        """Smaller is simpler: fewer threads first, then the plainer mode (the weaker MPI
        thread level it needs, then its name: pure < pure-nb, funneled < task), then
        fewer ranks."""
        return (self.threads, level_order(thread_level(self.rep)), self.mode, self.ranks)

    @property
    def single_threaded(self) -> bool:
        """Pure MPI: a mode of thread level single, or (a user's program, no modes) one
        thread per rank."""
        return single_threaded(self.rep) if self.mode else self.threads == 1


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
    winner: Optional[Config] = None
    runner_up: Optional[Config] = None
    margin: float = 0.0
    significant: bool = True
    chosen: Optional[Config] = None
    configs: List[Config] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    simulated: Optional[str] = None  # the platform's name when the input is simulated
    errors: List[str] = field(default_factory=list)  # correctness: said before anything else

    def lines(self) -> List[str]:
        out = [f"CORRECTNESS: {e}" for e in self.errors]
        out += [f"input: SIMULATED on platform {self.simulated} (SimGrid SMPI), not measured"] \
            if self.simulated else []
        out += [f"recommendation: {self.recommendation}", f"reason: {self.reason}"]
        out += [f"note: {n}" for n in self.notes]
        if self.prediction:
            p = self.prediction
            out.append(f"overlap model (Rabenseifner/Wellein): {p.describe()}")
        out.append(f"dominating mismatch problem: {self.problem} ({self.problem_text})")
        return out


def main_app(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> AppDesc:
    """The app the advice is about: the first with a mode series and a comm breakdown,
    else a user's program (a description with metric.source wall or output, as `hybridkit
    profile` writes them) that has complete runs, else an app whose only choice is the
    layout (hk-mz)."""
    for name in ("jacobi", *sorted(apps)):
        app = apps.get(name)
        if app and app.metric.series == "mode" and app.metric.breakdown and \
                entries(runs, kind=app.kind, app=app.name):
            return app
    for name in sorted(apps):
        app = apps[name]
        if app.program and entries(runs, kind=app.kind, app=app.name):
            return app
    for name in sorted(apps):
        app = apps[name]
        if layout_only(app) and entries(runs, kind=app.kind, app=app.name):
            return app
    raise HKError("nothing to advise on: no complete runs of an app with hybrid modes and a "
                  "compute/comm breakdown (e.g. 'hybridkit sweep jacobi --cores N') or of a "
                  "user's program (hybridkit profile, then hybridkit sweep PROGRAM)")


def _metric(e: Entry, app: AppDesc) -> float:
    v = e.result(app.metric.value)
    return float("nan") if v is None else v


def _better(a: float, b: float, app: AppDesc) -> bool:
    return a > b if app.metric.higher_is_better else a < b


def _pick(es: Sequence[Entry], app: AppDesc) -> Entry:
    best = es[0]
    for e in es[1:]:
        if _better(_metric(e, app), _metric(best, app), app):
            best = e
    return best


def compute_off(e: Entry) -> bool:
    """A run simulated with --compute off: its compute phases cost nothing (run.json)."""
    return e.run.info.get("compute") == "off"


def usable(e: Entry) -> bool:
    """A performance result: not oversubscribed, not made on a busy machine."""
    return not is_functional(e.run.info) and not is_busy(e.run.info)


def configurations(es: Sequence[Entry], app: AppDesc) -> List[Config]:
    """The entries grouped by problem, layout, mode and binding, repeats together; ranked
    best first by their median (then by the simpler layout)."""
    groups: Dict[Tuple, List[Entry]] = {}
    for e in es:
        key = (app.problem_key(e.params), e.run.ranks, e.run.threads, series_value(e, app),
               e.run.bind)
        groups.setdefault(key, []).append(e)
    out = []
    for (problem, ranks, threads, mode, bind), members in groups.items():
        members = sorted(members, key=lambda e: _metric(e, app))
        sp = spread([_metric(e, app) for e in members])
        rep = members[(len(members) - 1) // 2] if members else members[0]
        out.append(Config(problem, ranks, threads, mode, bind, members, sp, rep))
    sign = -1.0 if app.metric.higher_is_better else 1.0
    out.sort(key=lambda c: (sign * c.spread.median, c.simplicity()))
    return out


def _fcomm(e: Entry) -> Optional[float]:
    comm, comp = e.result("comm"), e.result("compute")
    if comm is None or comp is None or comm + comp <= 0:
        return None
    return comm / (comm + comp)


def _time(e: Entry, app: AppDesc) -> Optional[float]:
    return e.result(app.metric.time, "max") if app.metric.time else None


def series_value(e: Entry, app: AppDesc) -> str:
    """The run's value of the description's series (jacobi: its mode)."""
    key = app.metric.series
    if (app.program and not key) or layout_only(app):  # the layouts are the only choice
        return ""
    if key and key in e.params:
        return str(e.params[key])
    if key and key in (e.run.info.get("params") or {}):
        return str(e.run.info["params"][key])
    return _mode(e) if key == "mode" else (app.name if not key else "?")


def _mode(e: Entry) -> str:
    return str(e.params.get("mode", e.run.info.get("mode") or "?"))


def _layout(e: Entry) -> str:
    return f"{e.run.ranks} x {e.run.threads}"


def _prediction(group: Sequence[Entry], app: AppDesc) -> Optional[Prediction]:
    """Model vs measurement at the most threads per process that has a masteronly run."""
    mo = [e for e in group if _masteronly(e, app)]
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


def mismatch_scores(group: Sequence[Entry], runs: Sequence[Run], app: AppDesc,
                    simulated: bool = False) -> Dict[str, float]:
    """The share of time or CPU each of PROBLEMS costs; in simulated runs the recorded
    bindings are those of the host that ran the simulation: no topology problem then."""
    scores = {p: 0.0 for p in PROBLEMS}
    shared = [r for r in runs if r.complete and r.app == app.name and r.bind != "none"
              and r.records and not verdict(bindings(r.records), pus_per_core(r.records)).own_cores
              ] if not simulated else []
    if shared:
        scores["topology"] = len(shared) / max(1, len({id(e.run) for e in group}))
    pure = [e for e in group if _pure(e, app)]
    if pure:
        p = _pick(pure, app)
        f = _fcomm(p) or 0.0
        intra, inter = _bytes_share(p)
        scores["intra-node communication"] = f * intra
        scores["inter-node bandwidth"] = f * inter
    mo = [e for e in group if _masteronly(e, app)]
    if mo:
        m = _pick(mo, app)
        scores["sleeping threads"] = (_fcomm(m) or 0.0) * (1 - 1 / m.run.threads)
    hybrid = [e for e in group if not _pure(e, app) and e.run.threads >= 2]
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


def _problem_text(problem: Tuple) -> str:
    return " ".join(f"{k}={v}" for k, v in problem) or "one problem"


def advise(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> Advice:
    """The advice on the real runs; simulated records (hybridkit simulate) are never mixed
    in: they are left out with a note, and only when no real run can be advised on is the
    advice about one simulated platform (the first by name), saying so."""

    real, sims = split_simulated(runs)
    n_sim = {p: len(entries(v)) for p, v in sims.items()}
    try:
        app = main_app(real, apps)
    except HKError as exc:
        for platform, views in sims.items():
            try:
                app = main_app(views, apps)
            except HKError:
                continue
            out = _advise(views, apps, app, simulated=platform)
            others = [p for p in sims if p != platform]
            if others:
                out.notes.append(f"simulated records of other platforms left out: "
                                 f"{', '.join(others)} (advise each platform alone)")
            return out
        if sims:
            raise HKError(f"{exc}; the input holds simulated records only (platform(s) "
                          f"{', '.join(sims)}: {sum(n_sim.values())} record(s)), none of "
                          f"such an app either") from None
        raise
    out = _advise(real, apps, app)
    if sims:
        out.notes.append(f"{sum(n_sim.values())} simulated record(s) (platform(s) "
                         f"{', '.join(sims)}) left out: the advice is about the measured runs")
    return out


def _compute_apart(every: List[Entry], notes: List[str]) -> List[Entry]:
    """Simulated entries: those whose compute was measured, the --compute off ones left out
    (noted); only when there are no others, the --compute off ones, said so."""
    off = [e for e in every if compute_off(e)]
    if not off:
        return every
    measured = [e for e in every if not compute_off(e)]
    if measured:
        notes.append(f"{len(off)} run(s) simulated with --compute off left out: their compute "
                     f"phases cost nothing (communication alone), they are no repeats of "
                     f"the runs with measured compute")
        return measured
    notes.append("every run was simulated with --compute off: compute phases cost nothing, "
                 "the configurations are compared on their communication alone")
    return every


def _advise(runs: Sequence[Run], apps: Dict[str, AppDesc], app: AppDesc,
            simulated: Optional[str] = None) -> Advice:
    """Compare every configuration of the same problem (the largest measured, or simulated,
    on the most cores): pure MPI, every ranks x threads, every mode; repeats by their median
    and range.  simulated: the platform's name when `runs` are simulated views of it."""
    every = [e for e in entries(runs, kind=app.kind, app=app.name)
             if _metric(e, app) == _metric(e, app)]
    if not every:
        raise HKError(f"no {app.name} record has the metric {app.metric.value!r}")
    notes: List[str] = []
    how = "simulated" if simulated else "measured"
    if simulated:
        every = _compute_apart(every, notes)
    functional = [e for e in every if is_functional(e.run.info)]
    busy = [e for e in every if is_busy(e.run.info) and not is_functional(e.run.info)]
    es = [e for e in every if usable(e)]
    if functional:
        notes.append(f"{len(functional)} oversubscribed run(s) left out ({FUNCTIONAL})")
    if busy:
        notes.append(f"{len(busy)} run(s) made while the machine was busy (others used more "
                     f"than {BUSY_SHARE:.0%} of it) left out")
    unreliable = False
    if not es:
        es = [e for e in every if not is_functional(e.run.info)]
        unreliable = True
        if not es:
            raise HKError(f"nothing to advise on: every {app.name} run was oversubscribed "
                          f"({FUNCTIONAL})")
        notes = [n for n in notes if "busy" not in n]
        notes.append(f"UNRELIABLE: all {len(busy)} run(s) were made on a busy machine; the "
                     f"answer below is what they show, repeat the study on a quiet machine")
    cores = max(e.run.ranks * e.run.threads for e in es)
    at_cores = [e for e in es if e.run.ranks * e.run.threads == cores]
    problems = sorted({app.problem_key(e.params): app.problem_size(e.params)
                       for e in at_cores}.items(), key=lambda kv: (kv[1], kv[0]))
    problem = problems[-1][0]
    group = [e for e in at_cores if app.problem_key(e.params) == problem]
    if len(problems) > 1:
        notes.append(f"{len(problems)} problems {how} on {cores} cores; advice for the "
                     f"largest, {_problem_text(problem)}")
    configs = configurations(group, app)
    winner = configs[0]
    runner = configs[1] if len(configs) > 1 else None
    unit = app.metric.unit
    margin, significant, chosen = 0.0, True, winner
    where = f"on {cores} cores, {_problem_text(problem)}"
    if runner is None:
        reason = (f"{where}: the only {how} configuration, {winner.label()} at "
                  f"{winner.spread.text(unit)} (median [min-max])")
    else:
        w, r = winner.spread.median, runner.spread.median
        margin = abs(w / r - 1) if r else 0.0
        single = winner.spread.n < 2 or runner.spread.n < 2
        significant = not winner.spread.overlaps(runner.spread)
        close = [c for c in configs if c.spread.overlaps(winner.spread)]
        reason = (f"{where} ({len(configs)} configurations): best {winner.label()} at "
                  f"{winner.spread.text(unit)}, runner-up {runner.label()} at "
                  f"{runner.spread.text(unit)}, margin {margin:.1%}")
        if single:
            reason += "; single runs, the spread is unknown (repeat with --repeat 3)"
        elif significant:
            ws, rs = winner.spread, runner.spread
            if not (ws.lo <= rs.median <= ws.hi or rs.lo <= ws.median <= rs.hi):
                reason += ", each median outside the other's min-max"
            elif ws.lo <= rs.median <= ws.hi:
                reason += ", the winner's median outside the runner-up's min-max"
            else:
                reason += ", the runner-up's median outside the winner's min-max"
        else:
            chosen = min(close, key=lambda c: c.simplicity())
            reason += (": no significant difference (each median lies inside the other's "
                       "min-max)")
            if chosen is not winner:
                reason += f"; the simpler layout {chosen.label()} is recommended"
        pure = [c for c in configs if c.single_threaded]
        hyb = [c for c in configs if not c.single_threaded]
        if pure and hyb:
            other = hyb[0] if chosen.single_threaded else pure[0]
            kind = "hybrid" if chosen.single_threaded else "pure MPI"
            if other is not chosen:
                gain = chosen.spread.median / other.spread.median - 1 \
                    if other.spread.median else 0.0
                reason += (f". Best {kind}: {other.label()} at {num(other.spread.median)} "
                           f"{unit} (the recommended one {gain:+.0%} against it)")
        reason += "."
    if unreliable:
        reason += f" Unreliable: {how} on a busy machine."
    mode = f", mode {chosen.mode}" if chosen.mode else ""
    rec = f"{chosen.layout} (processes x threads){mode}, binding {chosen.bind}"
    reps = [c.rep for c in configs]
    errors: List[str] = []
    if app.program:  # a user's program: the profiler's view of the recommended layout
        prediction = None
        scores, problem_name, text, errors = program_facts(chosen, every)
    elif all(compute_off(e) for e in es):  # f_comm would be 1: no compute was timed
        prediction, scores = None, {}
        problem_name, text = "not simulated", ("compute phases cost nothing (--compute off): "
                                               "the share of time communication takes is "
                                               "unknown; simulate with --compute measured")
    else:
        prediction = _prediction(reps, app)
        if prediction is not None:
            prediction = replace(prediction, observed=how)
        scores = mismatch_scores(reps, runs, app, simulated=simulated is not None)
        problem_name = max(PROBLEMS, key=lambda p: scores[p])
        text = PROBLEM_TEXT[problem_name].format(f=scores[problem_name])
    if problem_name in scores and scores[problem_name] < 0.005:
        problem_name, text = "none measurable", "no mismatch problem costs a measurable share here"
    return Advice(app.name, chosen.rep, app.metric.value, unit, cores, rec, reason, prediction,
                  problem_name, text, scores, winner, runner, margin, significant, chosen,
                  configs, notes, simulated=simulated, errors=errors)


def program_facts(chosen: Config, every: Sequence[Entry]
                  ) -> Tuple[Dict[str, float], str, str, List[str]]:
    """A user's program run under the profiler: the mismatch problems of the recommended
    layout's representative run (hybridkit.advice.profile), and the thread-level
    violations of any run (correctness first). Without profiles: nothing measurable."""

    errors: List[str] = []
    seen: set = set()  # each violation once, with the first run that shows it
    for run in {id(e.run): e.run for e in every}.values():
        try:
            wrong = violations(split(run.records))
        except (HKError, KeyError, TypeError, ValueError):
            continue
        errors += [f"{w} (run {run.label})" for w in wrong if w not in seen]
        seen.update(wrong)
    try:
        probs = problems(split(chosen.rep.run.records))
    except (HKError, KeyError, TypeError, ValueError):
        return {}, "not measured", "the runs were not profiled (no profile records)", errors
    scores = {q.name: q.score for q in probs}
    top = probs[0]
    if top.score < SMALL_PROBLEM:  # the measured layouts say more than a remedy for it
        return scores, top.name, (f"{top.score:.1%} of the run, too small to act on: the "
                                  f"measured layouts decide ({top.evidence})"), errors
    return scores, top.name, f"{top.score:.1%} of the run: {top.evidence}; do: {top.advice}", \
        errors


SMALL_PROBLEM = 0.05  # a user's program: below this share a mismatch problem gets no remedy
