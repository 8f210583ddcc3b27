"""`hybridkit check --np R --threads T -- PROGRAM ARGS`: does a program keep the MPI thread
level it asked for?

    find PROGRAM and libhybridkit-check.so --> launch line (binding, OMP_*, LD_PRELOAD,
    HK_CHECK_OUTPUT=<rundir>/check.jsonl, HK_CHECK_ABORT=1 with --abort)   --dry-run: print it
    --> run in <results>/runs/<stamp>-check-<program>-<R>x<T> (stdout/stderr teed: the
        checker's lines come on stderr as it sees them) --> check.jsonl, validated (RECORDS)
    --> the verdict (check.txt): every rule broken, or "no violation of LEVEL in N calls";
        the exit code says which (EXIT_*)

The records (docs/check.md, "Records") are a small JSON Lines format of the checker's own,
validated here field by field: check.first (a rank's first violation of a (call, rule), as
it happens: all there is when the job was aborted or stopped), check.violation (per (call,
rule) at MPI_Finalize, counts per rank), check.summary (levels, calls checked).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from hybridkit.cliargs import (MAX_RANKS, MAX_THREADS, add_launch_arguments, add_one_run_arguments,
                               count)
from hybridkit.errors import HKError, UsageError
from hybridkit.launch.launchers import default_mpi, launcher_for
from hybridkit.paths import find_binary
from hybridkit.study.execute import vcluster_launcher
from hybridkit.study.onerun import (check_cores, find_library, plural, start_tool_run, timed_out,
                                    tool_launch)
from hybridkit.study.rundir import (TimedOut, create_run_dir, iso, run_dir_name, run_streaming,
                                    utc_now, write_json)

LIBRARY = "libhybridkit-check.so"
DEFAULT_TIMEOUT = 600.0  # a checker run of a hanging program should not wait an hour
ABORT_CODE = 86          # the checker's MPI_Abort code under HK_CHECK_ABORT (hk_check.c)

EXIT_CLEAN = 0       # the program ended and broke no rule
EXIT_VIOLATIONS = 1  # a rule was broken (also when the program then failed or was stopped)
EXIT_USAGE = 2       # a usage error (hybridkit's)
EXIT_FAILED = 3      # no verdict: the program failed, or the checker never saw its MPI_Init
EXIT_TIMEOUT = 4     # no verdict: stopped after --timeout, no violation seen until then

HELP = "run a program under libhybridkit-check.so: does it keep the MPI thread level it asked for?"
DESCRIPTION = f"""\
Run PROGRAM (any MPI+OpenMP program, unmodified, C or Fortran; after '--') with R ranks of T
threads, binding and OMP_* set as for `hybridkit run`, under the thread-level checker
libhybridkit-check.so (docs/check.md). Every MPI call the program makes is checked against
the rule of the level it asked for (MPI_Init: SINGLE; MPI_Init_thread: the lower of the
level asked and the level provided): SINGLE: the main thread outside parallel regions;
FUNNELED: the main thread; SERIALIZED: never two threads inside MPI at once.

It prints every rule broken: the MPI function, the rule, the calls per rank, and where it
was first broken: the rank, the OpenMP thread (number of team size) and parallel level,
and the call site as file:line (function) when the program has debug info (-g), else as
function+offset (module). A clean run prints "no violation of LEVEL in N calls".

--abort stops the job at the first violation, before the call reaches MPI (two threads in
MPI under FUNNELED can deadlock or crash it): the run ends within seconds with that
violation. Without --abort a program that hangs is stopped after --timeout S (default
{DEFAULT_TIMEOUT:g} s) with what was seen until then.

The run directory <results>/runs/<stamp>-check-<program>-<R>x<T> keeps check.jsonl (the
checker's records), stdout.txt, stderr.txt, check.txt (the verdict) and run.json.

exit status:
  {EXIT_CLEAN}  the program ended and broke no rule
  {EXIT_VIOLATIONS}  a rule was broken (also when the job was then aborted, failed or timed out)
  {EXIT_USAGE}  usage error (also: PROGRAM not found)
  {EXIT_FAILED}  no verdict: the program failed (non-zero exit, no MPI_Finalize) or its MPI
     calls never reached the checker; also when hybridkit cannot run it
  {EXIT_TIMEOUT}  no verdict: the program was stopped after --timeout with no violation seen

examples:
  hybridkit check --np 2 --threads 2 -- ./my_app input.dat
  hybridkit check --np 2 --threads 2 --abort --timeout 60 -- ./my_app"""


class NoVerdict(HKError):
    """The run gave no answer (the program failed, or nothing reached the checker)."""

    exit_code = EXIT_FAILED


class Stopped(HKError):
    """The run was stopped after --timeout and no violation had been seen."""

    exit_code = EXIT_TIMEOUT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--np", type=count(MAX_RANKS), metavar="R", required=True,
                        help=f"number of MPI ranks (1 to {MAX_RANKS})")
    parser.add_argument("--threads", type=count(MAX_THREADS), default=1, metavar="T",
                        help=f"OpenMP threads per rank (1 to {MAX_THREADS}; default: %(default)s)")
    parser.add_argument("--abort", action="store_true",
                        help="stop the job at the first violation, before the call reaches MPI "
                             "(HK_CHECK_ABORT=1): for programs that then hang or crash")
    add_launch_arguments(parser)
    add_one_run_arguments(parser)
    parser.set_defaults(timeout=DEFAULT_TIMEOUT)


# ---------------------------------------------------------------- records

LEVELS = ("MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
          "MPI_THREAD_MULTIPLE")
RULES = ("not the main thread", "inside an OpenMP parallel region",
         "another thread is inside an MPI call")
SITE = {"where": str, "file": str, "line": str, "function": str, "module": str,
        "offset": str, "symbol": str}
THREAD = {"tid": int, "omp_thread": int, "omp_threads": int, "parallel_level": int}
FIRST = {"rank": int, "thread": THREAD, "site": SITE}
HEAD = {"kind": str, "format": int, "function": str, "level": LEVELS, "asked": LEVELS,
        "rule": RULES}
RECORDS: Dict[str, Dict[str, Any]] = {
    "check.first": {**HEAD, **FIRST, "abort": bool},
    "check.violation": {**HEAD, "ranks": {str: int}, "count": int, "first": FIRST},
    "check.summary": {"kind": str, "format": int, "ranks": int, "threads": int,
                      "level": LEVELS, "asked": LEVELS, "provided": LEVELS, "calls": int,
                      "violations": int},
}


def _check(value: Any, spec: Any, where: str) -> None:
    """`value` against `spec`: a type, a tuple of allowed strings, {str: type} (a mapping
    of rank numbers), or a dict of fields (exactly those)."""
    if isinstance(spec, tuple):
        if value not in spec:
            raise ValueError(f"{where}: {value!r} is not one of {', '.join(spec)}")
    elif isinstance(spec, dict) and list(spec) == [str]:
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object")
        for key, item in value.items():
            if not key.isdigit():
                raise ValueError(f"{where}: key {key!r} is not a rank")
            _check(item, spec[str], f"{where}.{key}")
    elif isinstance(spec, dict):
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object")
        missing, extra = set(spec) - set(value), set(value) - set(spec)
        if missing or extra:
            raise ValueError(f"{where}: " + "; ".join(
                filter(None, [missing and f"missing {', '.join(sorted(missing))}",
                              extra and f"unknown {', '.join(sorted(extra))}"])))
        for key, item in spec.items():
            _check(value[key], item, f"{where}.{key}" if where else key)
    elif spec is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where}: expected an integer, got {value!r}")
    elif not isinstance(value, spec):
        raise ValueError(f"{where}: expected {spec.__name__}, got {value!r}")


def read_records(path: Path) -> List[dict]:
    """The checker's records, each validated against RECORDS; NoVerdict on a bad one."""
    if not path.is_file():
        return []
    records = []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        try:
            record = json.loads(line)
            kind = record.get("kind") if isinstance(record, dict) else None
            if kind not in RECORDS:
                raise ValueError(f"kind {kind!r} is not one of {', '.join(RECORDS)}")
            if record.get("format") != 1:
                raise ValueError(f"format {record.get('format')!r}, this hybridkit reads 1")
            _check(record, RECORDS[record["kind"]], "")
        except ValueError as exc:  # json.JSONDecodeError is one
            raise NoVerdict(f"{path}:{number}: not a record of the checker: {exc}") from None
        records.append(record)
    return records


# ---------------------------------------------------------------- the verdict



def site_text(site: dict) -> str:
    """file:line (function) when the debug info said, else function+offset (module)."""
    if site["where"]:
        return site["where"]
    module = site["module"].rsplit("/", 1)[-1]
    if site["symbol"]:
        return f"{site['symbol']} ({module}+{site['offset']})"
    return f"{module}+{site['offset']}"


def violation_line(function: str, rule: str, level: str, counts: Dict[str, int],
                   first: dict) -> str:
    """One rule broken; `counts` per rank, 0 where only the rank is known (the program never
    reached MPI_Finalize: the check.first records)."""
    t = first["thread"]
    ranks = sorted(counts, key=int)
    if not all(counts.values()):
        how = f"seen on {plural(len(ranks), 'rank')} ({', '.join(ranks)})"
    else:
        total = sum(counts.values())
        how = (f"{plural(total, 'call')} on {plural(len(ranks), 'rank')} ("
               + ", ".join(f"rank {r}: {counts[r]}" for r in ranks) + ")")
    return (f"  {function} violates {level}: {rule}; {how}; first on rank {first['rank']} by "
            f"OpenMP thread {t['omp_thread']} of {t['omp_threads']}, parallel level "
            f"{t['parallel_level']}, at {site_text(first['site'])}")


def _seen(records: List[dict]) -> List[Tuple[dict, Dict[str, int]]]:
    """Per (function, rule): the first violation (lowest rank) and the counts per rank.
    From check.violation when the program reached MPI_Finalize, else from check.first
    (one per rank that saw it: counts unknown, at least 1)."""
    final = [r for r in records if r["kind"] == "check.violation"]
    if final:
        return [(dict(r["first"], function=r["function"], rule=r["rule"], level=r["level"],
                      asked=r["asked"]), r["ranks"]) for r in final]
    seen: Dict[Tuple[str, str], Tuple[dict, Dict[str, int]]] = {}
    for r in records:
        if r["kind"] != "check.first":
            continue
        key = (r["function"], r["rule"])
        first, counts = seen.get(key, (r, {}))
        if r["rank"] < first["rank"]:
            first = r
        counts[str(r["rank"])] = 0  # unknown: at least one
        seen[key] = (first, counts)
    return list(seen.values())


def verdict(records: List[dict], np: int, threads: int) -> Tuple[List[str], int]:
    """The lines to print and the number of (function, rule) violations."""
    summary = next((r for r in records if r["kind"] == "check.summary"), None)
    seen = _seen(records)
    lines = []
    if summary:
        shape = (f"{plural(summary['ranks'], 'rank')} x {plural(threads, 'thread')}; the "
                 f"program asked {summary['asked']}, MPI provided {summary['provided']}")
        if not seen:
            return [f"hybridkit check: no violation of {summary['level']} in "
                    f"{summary['calls']} calls ({shape})"], 0
        lines.append(f"hybridkit check: {plural(summary['violations'], 'violation')} of "
                     f"{summary['level']} in {summary['calls']} calls ({shape}):")
    elif seen:
        first = seen[0][0]
        lines.append(f"hybridkit check: violations of {first['level']} "
                     f"({plural(np, 'rank')} x {plural(threads, 'thread')}; the program asked "
                     f"{first['asked']}), as far as the run got:")
    for first, counts in seen:
        lines.append(violation_line(first["function"], first["rule"], first["level"], counts,
                                    first))
    if any(not first["site"]["where"] for first, _ in seen):
        lines.append("  (a site as function+offset: build the program with -g for file:line)")
    return lines, len(seen)


# ---------------------------------------------------------------- the run

def run(ns: argparse.Namespace) -> int:
    if not ns.extra:
        raise UsageError("the program to check goes after '--' "
                         "(see 'hybridkit check --help')")
    if ns.rate and not ns.vcluster:
        raise UsageError("--rate limits the links of emulated nodes: give --vcluster N too")
    mpi = ns.mpi or default_mpi()
    launcher = vcluster_launcher(ns, mpi) if ns.vcluster else launcher_for(ns.launcher, mpi)
    oversubscribed = check_cores(ns.np, ns.threads, ns.oversubscribe,
                                 remote=bool(ns.hosts or ns.hostfile), nodes=ns.vcluster or 1)
    try:
        binary = find_binary(ns.extra[0], mpi)
    except HKError as exc:  # the program named after '--' is not there
        raise UsageError(str(exc)) from None
    try:
        library = find_library(mpi, LIBRARY)
    except HKError as exc:
        raise NoVerdict(str(exc)) from None
    name = run_dir_name(f"check-{binary.name}", ns.np, ns.threads, None)
    results = ns.results.resolve()
    run_dir = results / "runs" / name if ns.dry_run else create_run_dir(results, name)
    records_path = run_dir / "check.jsonl"
    env = {"LD_PRELOAD": str(library), "HK_CHECK_OUTPUT": str(records_path)}
    if ns.abort:
        env["HK_CHECK_ABORT"] = "1"
    launch = tool_launch(ns, launcher, binary, mpi, oversubscribed, env)
    if ns.dry_run:
        print(launch.shell_line())
        return 0
    try:
        launcher.check_available()
    except HKError as exc:
        raise NoVerdict(str(exc)) from None
    info = start_tool_run(ns, launch, run_dir, binary, mpi, abort=ns.abort, violations=None)
    t0 = time.monotonic()
    stopped: Optional[TimedOut] = None
    try:
        code = run_streaming(launch.argv, launch.env, run_dir / "stdout.txt",
                             run_dir / "stderr.txt", timeout=ns.timeout)
    except TimedOut as exc:
        stopped, code = exc, exc.code
        timed_out(info, run_dir, exc, t0, binary.name)  # run.json: status timeout
    else:
        info.update(exit_code=code, end=iso(utc_now()),
                    duration_s=round(time.monotonic() - t0, 3))
    try:
        records = read_records(records_path)
    except NoVerdict as exc:
        info.update(status="failed", message=str(exc))
        write_json(run_dir / "run.json", info)
        raise
    lines, broken = verdict(records, ns.np, ns.threads)
    finished = any(r["kind"] == "check.summary" for r in records)
    aborted = any(r["kind"] == "check.first" and r["abort"] for r in records)
    if stopped:
        lines.insert(0, f"hybridkit check: {binary.name} was stopped after {stopped.timeout:g} s "
                        f"(--timeout {stopped.timeout:g}) without ending; "
                        + ("what the checker saw until then:" if broken else
                           "the checker saw no violation until then"))
    elif aborted:
        lines.append("hybridkit check: the job was stopped at the first violation (--abort), "
                     "before the call reached MPI")
    elif broken and (code != 0 or not finished):
        lines.append(f"hybridkit check: {binary.name} exited with {code}")
    if not stopped:
        status = "violations" if broken else "ok" if code == 0 and finished else "failed"
        info.update(status=status, message=None if status != "failed" else
                    _failure(binary.name, code, finished, run_dir))
    info["violations"] = broken
    write_json(run_dir / "run.json", info)
    (run_dir / "check.txt").write_text("\n".join(lines) + "\n" if lines else "")
    if lines:
        print("\n".join(lines), flush=True)
    if broken:
        return EXIT_VIOLATIONS
    if stopped:
        raise Stopped(f"{binary.name} was stopped after {stopped.timeout:g} s (--timeout) with "
                      f"no violation seen; no verdict (see {run_dir})")
    if info["status"] == "failed":
        raise NoVerdict(f"{info['message']}; no verdict (see {run_dir}/stderr.txt)")
    return EXIT_CLEAN


UNSEEN = "MPI ran but MPI_Init never reached hybridkit-check"


def _failure(name: str, code: int, finished: bool, run_dir: Path) -> str:
    """Why a run without violations gave no verdict."""
    try:
        err = (run_dir / "stderr.txt").read_text(errors="replace")
    except OSError:
        err = ""
    if UNSEEN in err:
        return f"{name} exited with {code}; its MPI calls never reached the checker ({UNSEEN})"
    if finished:
        return f"{name} exited with {code} after MPI_Finalize"
    if code == 0:
        return (f"{name} exited with 0 but the checker never saw its MPI_Finalize (its MPI calls "
                "not intercepted: a static MPI?)")
    return f"{name} exited with {code} before MPI_Finalize"
