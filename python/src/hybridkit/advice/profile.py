"""Advice on one program from its profile (libhybridkit-profile.so records).

    records of kinds profile (one), profile.site, profile.size
      -> f_comm (MPI time outside parallel regions / wall) and the overlap model's
         predicted eps of task mode (funneled & reserved, m = 1 of n threads), n = the
         threads per rank (one thread per rank: n = the ranks per node a hybrid layout
         would turn into threads)
      -> the mismatch problems of Rabenseifner's list this profile can see, each scored
         as a fraction of the run (docs/profile.md):
           sleeping threads          sleeping_share: idle thread-seconds during MPI
                                     outside parallel regions / (wall x threads)
           intra-node communication  MPI time / wall x the share of point-to-point bytes
                                     to ranks of the same node (several ranks per node)
           inter-node bandwidth      MPI time / wall x the share of bytes across nodes
           imbalance                 (max - min MPI time over ranks) / wall
         the largest is the dominating problem, with its evidence and what to do
      -> the hybrid allreduce preload: the allreduce calls at or above its threshold
         (HK_ALLREDUCE_MIN_BYTES, else the tuning table's min_bytes, else 16384)
      -> memory per rank (VmHWM) and a proposed `hybridkit sweep` (an app description
         generated for this program)
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from hybridkit.advice.model import Prediction, predicted_speedup
from hybridkit.errors import HKError

DEFAULT_MIN_BYTES = 16384  # HK_COLL_DEFAULT_MIN_BYTES, src/coll/coll_internal.h
# point-to-point functions and their completion (hk_check_calls.h)
P2P_PREFIXES = ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv", "MPI_Isend",
                "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv", "MPI_Wait", "MPI_Test",
                "MPI_Start", "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv",
                "MPI_Imrecv")
COLL_PREFIXES = ("MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Scan",
                 "MPI_Exscan", "MPI_Gather", "MPI_Scatter", "MPI_Allgather", "MPI_Alltoall",
                 "MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce",
                 "MPI_Iallgather", "MPI_Ialltoall", "MPI_Neighbor_")
WORTH = 1.01  # a predicted eps below this is no gain worth a rewrite
# MPI thread levels, weakest first (the profile's params.thread_level)
LEVELS = ("single", "funneled", "serialized", "multiple")


@dataclass
class Profile:
    run: Mapping[str, Any]
    sites: List[Mapping[str, Any]]
    sizes: List[Mapping[str, Any]]

    def stat(self, name: str, key: str = "avg") -> float:
        return float(self.run["results"][name][key])

    def value(self, name: str) -> float:
        return float(self.run["results"][name]["value"])

    @property
    def procs(self) -> int:
        return int(self.run["params"]["procs"])

    @property
    def threads(self) -> int:
        return int(self.run["params"]["threads"])

    @property
    def nodes(self) -> int:
        return int(self.run["params"]["nodes"])

    @property
    def ranks_per_node(self) -> int:
        return max(1, self.procs // max(1, self.nodes))


def split(records: Sequence[Mapping[str, Any]]) -> Profile:
    """The profile of one run; HKError when there is none or more than one."""
    runs = [r for r in records if r.get("kind") == "profile"]
    if len(runs) != 1:
        raise HKError(f"expected one record of kind 'profile', found {len(runs)} "
                      f"(is the program linked against the launcher's MPI, and did it "
                      f"call MPI_Finalize?)")
    return Profile(runs[0], [r for r in records if r.get("kind") == "profile.site"],
                   [r for r in records if r.get("kind") == "profile.size"])


@dataclass
class Problem:
    name: str
    score: float  # fraction of the run it costs (or could save)
    evidence: str
    advice: str


def human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def _site_text(s: Mapping[str, Any]) -> str:
    return f"{s['params']['function']} at {s['params']['site']}"


def _top_site(p: Profile, key: str) -> Optional[Mapping[str, Any]]:
    def val(s: Mapping[str, Any]) -> float:
        r = s["results"][key]
        return float(r["value"] if "value" in r else r["avg"])
    best = max(p.sites, key=val, default=None)
    return best if best is not None and val(best) > 0 else None


def model_threads(p: Profile) -> int:
    """n of the overlap model: the threads per rank, or with one thread per rank the
    ranks per node a hybrid layout would make threads of (at least 2)."""
    return p.threads if p.threads > 1 else max(2, p.ranks_per_node)


def task_prediction(p: Profile) -> Prediction:
    f = min(1.0, max(0.0, p.stat("f_comm")))
    return predicted_speedup(f, model_threads(p), 1)


def violations(p: Profile) -> List[str]:
    """What the profile proves erroneous: MPI calls that break the rule of the thread
    level the program asked for (MPI_THREAD_SINGLE: none from another thread or inside a
    parallel region; FUNNELED: none from another thread), and a level MPI did not provide.
    These come before any speed advice: an erroneous program may compute wrong results,
    hang or crash with another MPI library or more threads."""
    level = str(p.run["params"].get("thread_level", ""))
    given = str(p.run["params"].get("thread_level_provided", ""))
    parallel = int(p.value("calls_parallel"))
    off_main = int(p.value("calls_off_main"))
    name = f"MPI_THREAD_{level.upper()}"
    out = []
    if level == "single" and (parallel or off_main):
        out.append(f"the program asked for {name} (MPI_Init) but made {parallel} MPI call(s) "
                   f"inside OpenMP parallel regions and {off_main} from other threads than "
                   f"the main one")
    elif level == "funneled" and off_main:
        out.append(f"the program asked for {name} but made {off_main} MPI call(s) from other "
                   f"threads than the one that initialised MPI ({parallel} inside parallel "
                   f"regions)")
    if level in LEVELS and given in LEVELS and LEVELS.index(given) < LEVELS.index(level):
        out.append(f"the program asked for {name} and MPI provided only "
                   f"MPI_THREAD_{given.upper()}: it must check `provided` and not rely on more")
    return out


def _fn_time(p: Profile, prefixes: Sequence[str]) -> float:
    return sum(float(s["results"]["time"]["avg"]) for s in p.sites
               if s["params"]["function"].startswith(tuple(prefixes)))


def problems(p: Profile) -> List[Problem]:
    """The mismatch problems this profile can see, largest score first."""
    wall = max(p.stat("wall_time"), 1e-12)
    # the point-to-point share of the run: time in sends, receives and their completion
    # (not collectives, where waiting for late ranks is imbalance)
    f_mpi = min(1.0, _fn_time(p, P2P_PREFIXES) / wall)
    intra, inter = p.value("p2p_bytes_intra"), p.value("p2p_bytes_inter")
    total = intra + inter
    out: List[Problem] = []

    n = p.threads
    top = _top_site(p, "time_outside")
    share = p.stat("sleeping_share")
    out.append(Problem(
        "sleeping threads", share,
        f"{p.stat('sleeping_threads'):.3g} thread-s per rank asleep while the master was in "
        f"MPI outside parallel regions ({share:.1%} of the {n} threads' time"
        + (f"; most at {_site_text(top)}" if top else "") + ")"
        if n > 1 else "one thread per rank: no thread sleeps (the cores run ranks)",
        "overlap communication with computation: task mode (funneled & reserved: thread 0 "
        "communicates while the others compute), or split the work so that MPI is called "
        "inside the parallel region (hybridkit's modes, docs/modes.md)"))

    rpn = p.ranks_per_node
    s_intra = f_mpi * intra / total if total and rpn > 1 else 0.0
    fewer = max(1, rpn // 2)
    out.append(Problem(
        "intra-node communication", s_intra,
        f"{intra / total:.0%} of the point-to-point bytes ({human(intra)}) go to ranks of the "
        f"same node ({rpn} ranks per node); point-to-point MPI is {f_mpi:.1%} of the run"
        if total else "no point-to-point bytes",
        f"fewer processes per node with more threads each (e.g. {fewer} rank(s) x "
        f"{n * rpn // fewer} threads per node instead of {rpn} x {n}): shared memory "
        f"replaces these messages"))

    s_inter = f_mpi * inter / total if total and p.nodes > 1 else 0.0
    out.append(Problem(
        "inter-node bandwidth", s_inter,
        f"{inter / total:.0%} of the point-to-point bytes ({human(inter)}) cross nodes, "
        f"point-to-point MPI is {f_mpi:.1%} of the run" if total else "no point-to-point bytes",
        "let several threads drive the network (multiple mode), or fewer, larger messages; "
        "`hybridkit run hk-bench -- multipath` shows whether one thread saturates the link"))

    spread = p.stat("mpi_time", "max") - p.stat("mpi_time", "min")
    s_imb = max(0.0, spread) / max(p.stat("wall_time", "max"), 1e-12)
    out.append(Problem(
        "imbalance", s_imb,
        f"MPI time per rank from {p.stat('mpi_time', 'min'):.3g} s to "
        f"{p.stat('mpi_time', 'max'):.3g} s: the less loaded ranks wait for the others",
        "balance the work between ranks (fewer, larger ranks with a dynamic OpenMP schedule "
        "inside them absorb imbalance; NPB-MZ balances its zones this way)"))

    # collectives count too (a 1 MiB MPI_Allreduce can be most of the MPI time)
    t_coll = _fn_time(p, COLL_PREFIXES)
    f_coll = min(1.0, t_coll / wall)
    colls = [s for s in p.sites if s["params"]["function"].startswith(COLL_PREFIXES)]
    top_c = max(colls, key=lambda s: float(s["results"]["time"]["avg"]), default=None)
    mpi_all = max(_fn_time(p, ("MPI_",)), 1e-12)
    out.append(Problem(
        "collective communication", f_coll,
        (f"collectives take {f_coll:.1%} of the run ({t_coll / mpi_all:.0%} "
         f"of the MPI time); most at {_site_text(top_c)}" if top_c else "no collective calls"),
        "fewer ranks per node (threads instead) shrink every collective; large "
        "MPI_Allreduce calls: see the hybrid allreduce line below"))
    return sorted(out, key=lambda q: q.score, reverse=True)


def allreduce_threshold(environ: Optional[Mapping[str, str]] = None) -> int:
    env = os.environ if environ is None else environ
    given = env.get("HK_ALLREDUCE_MIN_BYTES", "")
    if given.isdigit():
        return int(given)
    table = env.get("HK_COLL_TUNING")
    if table:
        try:
            data = json.loads(Path(table).read_text())
            if isinstance(data.get("min_bytes"), int) and data["min_bytes"] >= 0:
                return int(data["min_bytes"])
        except (OSError, ValueError, AttributeError):
            pass
    return DEFAULT_MIN_BYTES


def allreduce_advice(p: Profile, threshold: int) -> str:
    bins = [s for s in p.sizes if s["params"]["class"] == "allreduce"]
    calls = sum(int(s["results"]["calls"]["value"]) for s in bins)
    if not calls:
        return "the program makes no MPI_Allreduce: the hybrid allreduce preload has nothing to do"
    if p.procs < 2:
        return (f"{calls} allreduce call(s) on one rank: the hybrid allreduce does not apply "
                f"(a one-rank communicator falls back to MPI_Allreduce); profile with 2 or "
                f"more ranks to see whether it would")
    big = sum(int(s["results"]["calls"]["value"]) for s in bins
              if int(s["params"]["bytes_min"]) >= threshold)
    top = max(bins, key=lambda s: int(s["params"]["bytes_min"]))
    text = (f"{calls} allreduce call(s), {big} of them of {human(threshold)} or more "
            f"(the preload's threshold; the largest {human(int(top['params']['bytes_min']))}"
            f" to {human(int(top['params']['bytes_max']) + 1)}): ")
    if not big:
        return text + ("all would pass through libhybridkit-preload.so unchanged: no gain "
                       "expected")
    t_allred = sum(float(s["results"]["time"]["avg"]) for s in p.sites
                   if s["params"]["function"] in ("MPI_Allreduce", "MPI_Iallreduce"))
    text += (f"LD_PRELOAD=libhybridkit-preload.so would run those with the hybrid allreduce "
             f"({t_allred:.3g} s per rank in MPI_Allreduce now)")
    if p.threads < 2:
        text += "; with one thread per rank it has no idle threads to use (hierarchical only)"
    return text + "; measure with `hybridkit tune allreduce` for the tuning table"


def app_name(program: str) -> str:
    base = Path(program).name or "program"
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in base).lower()


def app_description(p: Profile, argv: Sequence[str], library: str,
                    metric: Optional["ProgramMetric"] = None,
                    timeout: float = 3600.0) -> str:
    """A description that makes this program an app like the built-in ones (issue 37):
    `hybridkit sweep NAME` runs it over the machine's ranks x threads layouts (the quick
    set: every factorisation of all the cores; the full set: of each power of two), with
    its own command line (nothing appended: output = "none"), under the profiler writing
    to the run's records (HK_PROFILE_OUTPUT={records}), and the runner measures the
    metric: its wall time, or `metric.regex` over its output."""
    name = app_name(argv[0])
    args = ", ".join(json.dumps(a) for a in argv[1:])
    m = metric or ProgramMetric()
    if m.regex:
        metric_t = (f'source = "output"\nregex = {json.dumps(m.regex)}\nvalue = "metric"\n'
                    f'unit = {json.dumps(m.unit or "")}\n'
                    f'better = "{"higher" if m.higher_is_better else "lower"}"\n')
    else:
        metric_t = 'source = "wall"   # the runner\'s wall time of the launch, s, lower is better\n'
    return f"""# generated by `hybridkit profile` from a profile of {shlex.join(argv)}
# (a user's program as an app: docs/profile.md)
name = "{name}"
binary = {json.dumps(str(Path(argv[0]).resolve()))}
description = "{name} (a user's program) under libhybridkit-profile.so"
kind = "program"
args = [{args}]
output = "none"    # nothing is appended to the program's command line
usage_exit = 0     # no exit code of the program means 'bad arguments'
timeout = {timeout:g}

[env]
LD_PRELOAD = {json.dumps(library)}
HK_PROFILE_OUTPUT = "{{records}}"
HK_PROFILE_QUIET = "1"

[metric]
{metric_t}memory = "vmhwm"

[quick]
cores = ["max"]

[full]
cores = ["powers"]
"""


@dataclass(frozen=True)
class ProgramMetric:
    """What `hybridkit profile --metric REGEX --unit U [--higher-is-better]` asks for: a
    value parsed from the program's output; no regex: the wall time."""

    regex: Optional[str] = None
    unit: Optional[str] = None
    higher_is_better: bool = False


def advice_lines(p: Profile, threshold: int, sweep: Optional[str] = None,
                 not_representative: Sequence[str] = ()) -> List[str]:
    """The advice, correctness first: thread-level violations before anything about speed;
    a run that is not representative (oversubscribed, busy machine: `not_representative`
    says why) gets no speed advice, only what to run instead."""
    lines = []
    wrong = violations(p)
    if wrong:
        lines.append("CORRECTNESS: the program is erroneous (MPI standard, thread levels); fix "
                     "this before anything else")
        lines += [f"  - {w}" for w in wrong]
        lines.append("  find the calls with `hybridkit check --np R --threads T -- PROGRAM`; "
                     "ask for MPI_THREAD_MULTIPLE (and check `provided`) or funnel the calls "
                     "to the main thread outside parallel regions")
    if not_representative:
        lines.append("ADVICE (on speed): none from this run: " + "; ".join(not_representative))
        lines.append("  run it again with ranks x threads <= the cores, on a quiet machine"
                     + (f", or sweep the layouts: {sweep}" if sweep else ""))
        lines.append(f"  memory per rank (VmHWM): {p.stat('vmhwm') / 1024:.1f} MiB average, "
                     f"{p.stat('vmhwm', 'max') / 1024:.1f} MiB largest")
        return lines
    pred = task_prediction(p)
    n = model_threads(p)
    lines.append("ADVICE")
    lines.append(f"  f_comm = {p.stat('f_comm'):.3f} (MPI time outside parallel regions / "
                 f"wall, average rank; max {p.stat('f_comm', 'max'):.3f})")
    layout = (f"{p.threads} threads per rank" if p.threads > 1 else
              f"one thread per rank: the model is for {n} threads per rank, the "
              f"{p.ranks_per_node} ranks of a node made threads")
    lines.append(f"  task mode (funneled & reserved, 1 of {n} threads reserved for MPI; "
                 f"{layout}): predicted eps = {pred.predicted:.3f} over masteronly "
                 f"({pred.lower:.3f} <= eps <= {pred.upper:.3f}) -> "
                 + ("worth trying" if pred.predicted >= WORTH else
                    "no gain predicted: the reserved thread costs what the overlap saves"))
    probs = problems(p)
    top = probs[0]
    if top.score < 0.01:
        lines.append("  dominating mismatch problem: none above 1 % of the run")
    else:
        lines.append(f"  dominating mismatch problem: {top.name} ({top.score:.1%} of the run)")
        lines.append(f"    evidence: {top.evidence}")
        lines.append(f"    do: {top.advice}")
    lines.append("  all problems: " + ", ".join(f"{q.name} {q.score:.1%}" for q in probs))
    lines.append(f"  hybrid allreduce: {allreduce_advice(p, threshold)}")
    lines.append(f"  memory per rank (VmHWM): {p.stat('vmhwm') / 1024:.1f} MiB average, "
                 f"{p.stat('vmhwm', 'max') / 1024:.1f} MiB largest; x {p.ranks_per_node} "
                 f"rank(s) per node = {p.stat('vmhwm', 'max') * p.ranks_per_node / 1024:.1f} MiB")
    if sweep:
        lines.append(f"  confirm with a sweep over ranks x threads: {sweep}")
    return lines


def fixture_summary(p: Profile) -> Dict[str, Any]:
    """The numbers the advice rests on (tests)."""
    probs = problems(p)
    return {"dominant": probs[0].name, "scores": {q.name: q.score for q in probs},
            "eps": task_prediction(p).predicted}
