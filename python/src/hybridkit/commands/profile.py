"""`hybridkit profile --np R --threads T -- PROGRAM ARGS`: profile a program, advise on it.

    find PROGRAM and libhybridkit-profile.so --> launch line (binding, OMP_*, LD_PRELOAD,
    HK_PROFILE_OUTPUT=<rundir>/records.jsonl)   --dry-run: print it, stop
    --> run in <results>/runs/<stamp>-profile-<program>-<R>x<T> (stdout/stderr teed: the
        library's summary comes on stderr) --> records (kinds profile, profile.site,
        profile.size) --> ADVICE (hybridkit.advice.profile) + an app description for
        `hybridkit sweep` in <rundir>/apps/<program>.toml
    --from FILE.jsonl: the advice for records profiled before (no run)
"""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path
from typing import List, Optional, Sequence

from hybridkit.advice.profile import (ProgramMetric, advice_lines, allreduce_threshold,
                                      app_description, app_name, split)
from hybridkit.appcatalog import USER_APPS_DIR
from hybridkit.appdesc import regex_problem
from hybridkit.cliargs import (MAX_RANKS, MAX_THREADS, add_launch_arguments, add_one_run_arguments,
                               count)
from hybridkit.errors import HKError, UsageError
from hybridkit.launch.cpuset import local_cores
from hybridkit.launch.launchers import default_mpi, launcher_for
from hybridkit.paths import find_binary
from hybridkit.records import load_records
from hybridkit.study.execute import vcluster_launcher
from hybridkit.study.onerun import (check_cores, check_layout, find_library, start_tool_run,
                                    timed_out, tool_launch)
from hybridkit.study.quality import LoadProbe, load_text
from hybridkit.study.rundir import (TimedOut, create_run_dir, iso, run_dir_name, run_streaming,
                                    utc_now, write_json)

HELP = "run a program under libhybridkit-profile.so: its MPI time, sleeping threads, advice"
DESCRIPTION = """\
Run PROGRAM (any MPI+OpenMP program, unmodified; after '--') with R ranks of T threads,
binding and OMP_* set as for `hybridkit run`, under the PMPI profiler
libhybridkit-profile.so. Per MPI function and call site: calls, time, bytes, peers on the
same node or others, calls inside parallel regions; per rank: MPI time outside parallel
regions, the sleeping threads (that time x the idle threads), CPU, VmHWM; size histograms
(docs/profile.md). The run directory <results>/runs/<stamp>-profile-<program>-<R>x<T>
keeps records.jsonl, stdout.txt, stderr.txt (the summary), advice.txt and run.json. A
program still running after --timeout S (default 3600, as for `hybridkit run`; a deadlock)
is stopped with its ranks, run.json says status 'timeout', and the exit code is 1.

The advice: f_comm and the overlap model's eps for task mode, the dominating mismatch
problem with its evidence, whether the hybrid allreduce preload would apply, memory per
rank, and a `hybridkit sweep` over ranks x threads of this program (an app description
written to <rundir>/apps/).

examples:
  hybridkit profile --np 2 --threads 2 -- hk-mz --bench sp --class S
  hybridkit profile --np 4 --threads 1 --oversubscribe -- ./my_app input.dat
  hybridkit profile --from results/runs/<dir>/records.jsonl"""

LIBRARY = "libhybridkit-profile.so"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--np", type=count(MAX_RANKS), metavar="R",
                        help=f"number of MPI ranks (1 to {MAX_RANKS})")
    parser.add_argument("--threads", type=count(MAX_THREADS), default=1, metavar="T",
                        help=f"OpenMP threads per rank (1 to {MAX_THREADS}; default: %(default)s)")
    add_launch_arguments(parser)
    add_one_run_arguments(parser)
    parser.add_argument("--from", dest="from_file", type=Path, metavar="FILE",
                        help="advise on records profiled before (no run)")
    parser.add_argument("--metric", type=metric_regex, metavar="REGEX",
                        help="the app description it writes takes the program's metric from "
                             "its output: the last match of REGEX (one group, the number), "
                             "e.g. 'Mop/s total\\s*=\\s*(\\S+)'; default: the wall time of "
                             "the run (lower is better)")
    parser.add_argument("--unit", metavar="U", help="the unit of --metric (e.g. Mop/s)")
    parser.add_argument("--higher-is-better", action="store_true",
                        help="--metric is a rate: higher is better (default: lower)")


def metric_regex(text: str) -> str:
    """--metric: a regular expression with exactly one group (appdesc.regex_problem)."""
    problem = regex_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text




def advise(records_path: Path, argv: Optional[List[str]], library: Optional[Path],
           cores: int, run_dir: Optional[Path], np: Optional[int] = None,
           mpi: str = "openmpi", results: Optional[Path] = None,
           metric: Optional[ProgramMetric] = None, timeout: float = 3600.0,
           not_representative: Sequence[str] = ()) -> List[str]:
    """The advice on a profile; with the program's argv, also an app description of it in
    <results>/apps/NAME.toml (and the run directory's apps/), which `hybridkit sweep NAME`
    finds from the directory holding <results> (else through HK_APPS_PATH). `cores`: the
    machine's cores per node, for the sweep line."""

    records = load_records(records_path)
    if np is not None:
        check_layout(records, np, mpi)  # a program of another MPI: np one-rank jobs
    profile = split(records)
    sweep = None
    if argv and library and run_dir:
        name = app_name(argv[0])
        text = app_description(profile, argv, str(library), metric, timeout)
        apps = (results or run_dir.parent.parent) / "apps"
        for d in (run_dir / "apps", apps):
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{name}.toml").write_text(text)
        found = (Path.cwd() / USER_APPS_DIR).resolve() == apps.resolve()
        sweep = ("" if found else f"HK_APPS_PATH={shlex.quote(str(apps))} ") + \
            f"hybridkit sweep {name} --quick --cores {cores} --repeat 3"
    lines = advice_lines(profile, allreduce_threshold(), sweep, not_representative)
    if run_dir:
        (run_dir / "advice.txt").write_text("\n".join(lines) + "\n")
    return lines






UNSEEN = "MPI ran but MPI_Init never reached hybridkit-profile"


def no_profile(name: str, code: int, stderr: Path) -> str:
    """Why a run left no profile: the profiler's own line when MPI ran without it (a
    binding or a static MPI whose calls it cannot see), else, after exit 0, that its
    MPI calls were not intercepted; else the exit code (it stopped before MPI_Finalize)."""
    try:
        lines = stderr.read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    seen = [ln for ln in lines if UNSEEN in ln]
    if seen:
        return f"{name} exited with {code}; {seen[0].split(': ', 1)[-1]}"
    if code == 0:
        return (f"{name} exited with 0 but the profiler never saw its MPI_Init: the "
                "program's MPI calls were not intercepted (a Fortran binding or a static MPI?)")
    return f"{name} exited with {code} and left no profile"


def run(ns: argparse.Namespace) -> int:
    if ns.unit and not ns.metric:
        raise UsageError("--unit names the unit of --metric: give --metric REGEX too")
    if ns.higher_is_better and not ns.metric:
        raise UsageError("--higher-is-better is about --metric: give --metric REGEX too "
                         "(the wall time is always lower-is-better)")
    if ns.from_file:
        if ns.extra:
            raise UsageError("give --from FILE or a program after '--', not both")
        print("\n".join(advise(ns.from_file, None, None, local_cores(), None)))
        return 0
    if not ns.extra:
        raise UsageError("the program to profile goes after '--' (or give --from FILE)")
    if ns.np is None:
        raise UsageError("--np is required to run a program")
    mpi = ns.mpi or default_mpi()
    launcher = vcluster_launcher(ns, mpi) if ns.vcluster else launcher_for(ns.launcher, mpi)
    oversubscribed = check_cores(ns.np, ns.threads, ns.oversubscribe,
                                 remote=bool(ns.hosts or ns.hostfile))
    binary = find_binary(ns.extra[0], mpi)
    library = find_library(mpi, LIBRARY)
    name = run_dir_name(f"profile-{binary.name}", ns.np, ns.threads, None)
    results = ns.results.resolve()
    run_dir = results / "runs" / name if ns.dry_run else create_run_dir(results, name)
    records = run_dir / "records.jsonl"
    launch = tool_launch(ns, launcher, binary, mpi, oversubscribed,
                         {"LD_PRELOAD": str(library), "HK_PROFILE_OUTPUT": str(records)})
    if ns.dry_run:
        print(launch.shell_line())
        return 0
    launcher.check_available()
    info = start_tool_run(ns, launch, run_dir, binary, mpi)
    probe = LoadProbe.start()
    t0 = time.monotonic()
    try:
        code = run_streaming(launch.argv, launch.env, run_dir / "stdout.txt",
                             run_dir / "stderr.txt", timeout=ns.timeout)
    except TimedOut as exc:
        raise timed_out(info, run_dir, exc, t0, binary.name) from None
    duration = round(time.monotonic() - t0, 3)
    load = probe.finish(duration)
    info.update(exit_code=code, end=iso(utc_now()), duration_s=duration, load=load,
                status="ok" if code == 0 and records.is_file() else "failed",
                message=None if code == 0 else f"{binary.name} exit code {code}")
    if not records.is_file():
        info["message"] = no_profile(binary.name, code, run_dir / "stderr.txt")
    write_json(run_dir / "run.json", info)
    if not records.is_file():
        raise HKError(f"{info['message']}; no profile in {records} (see {run_dir}/stderr.txt)")
    why_not = []
    if oversubscribed:
        why_not.append(f"it was oversubscribed ({ns.np} x {ns.threads} on {local_cores()} "
                       f"cores): threads waited for cores, so its times are not the program's")
    if load.get("busy"):
        why_not.append(f"other programs used the machine during it ({load_text(info)})")
    # the sweep's layouts come from this machine's cores (or the nodes'), not from the run
    cores = local_cores() if not (ns.hosts or ns.hostfile) else \
        ns.np * ns.threads // max(1, len(ns.hosts or ()) or 1)
    metric = ProgramMetric(ns.metric, ns.unit, ns.higher_is_better)
    timeout = max(300.0, 20 * float(info["duration_s"] or 0))
    print("\n".join(advise(records, [str(binary), *ns.extra[1:]], library, cores, run_dir,
                            ns.np, mpi, results, metric, timeout, why_not)))
    return code
