"""`hybridkit run BINARY --np R --threads T ...`: launch a binary, keep the run, check it.

    check R x T against the cores --> find BINARY --> build the launch line
        --dry-run: print it, stop
    make the run directory --> run (stdout/stderr teed) --> validate records.jsonl
        --> binding table + verdict --> exit code of the binary
                                        (1 if it said 0 but its records are missing/invalid)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional

from hybridkit import __version__
from hybridkit.cliargs import (MAX_RANKS, MAX_THREADS, add_launch_arguments, add_one_run_arguments,
                               count, mode_name)
from hybridkit.errors import HKError, UsageError, warn
from hybridkit.launch.binding import render
from hybridkit.launch.cpuset import local_cores
from hybridkit.launch.launchers import Launch, LaunchSpec, default_mpi, launcher_for
from hybridkit.paths import find_binary
from hybridkit.records import load_records
from hybridkit.study.execute import launcher_label, vcluster_launcher
from hybridkit.study.onerun import check_cores, check_layout, timed_out
from hybridkit.study.rundir import (RESERVE, TimedOut, create_run_dir, iso, run_dir_name,
                                    run_streaming, utc_now, write_json, write_launch)

HELP = "launch a hybridkit binary with MPI ranks x OpenMP threads and check its records"
DESCRIPTION = """\
Launch BINARY with R MPI ranks of T OpenMP threads each, binding and OMP_* set by the
launcher, in a new run directory <results>/runs/<stamp>-<binary>-<R>x<T>[-<mode>] holding
command.txt, env.json, stdout.txt, stderr.txt, records.jsonl and run.json. The binary gets
'--mode M' (with --mode), BINARY_ARGS, then '--output <rundir>/records.jsonl'. Afterwards
the records are validated and the binding of every rank and thread is shown.

A binary still running after --timeout S (default 3600) is stopped with its ranks and the
run marked 'timeout' in run.json.

Exit code: the binary's, or 1 when it exited 0 but left no valid records or timed out.

examples:
  hybridkit run hk-topology --np 2 --threads 1
  hybridkit run hk-topology --np 1 --threads 2 --bind scatter --dry-run
  hybridkit run hk-bench --np 4 --threads 2 --mpi mpich --hosts n1,n2 -- pingpong"""

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("binary", metavar="BINARY",
                        help="path, or name looked up in $HK_BIN_DIR, build/*/bin, PATH")
    parser.add_argument("--np", type=count(MAX_RANKS), required=True, metavar="R",
                        help=f"number of MPI ranks (1 to {MAX_RANKS})")
    parser.add_argument("--threads", type=count(MAX_THREADS), required=True, metavar="T",
                        help=f"OpenMP threads per rank (1 to {MAX_THREADS})")
    parser.add_argument("--mode", type=mode_name, metavar="M",
                        help="hybrid mode, passed as '--mode M' (the binary's --list-modes "
                             "names them, e.g. hk-jacobi --list-modes)")
    add_launch_arguments(parser)
    add_one_run_arguments(parser)
    parser.add_argument("binary_args", nargs="*", metavar="-- BINARY_ARGS",
                        help="arguments passed to BINARY")








def run(ns: argparse.Namespace) -> int:
    mpi = ns.mpi or default_mpi()
    if ns.rate and not ns.vcluster:
        raise UsageError("--rate limits the links of emulated nodes: give --vcluster N too")
    launcher = vcluster_launcher(ns, mpi) if ns.vcluster else launcher_for(ns.launcher, mpi)
    if ns.hostfile and not Path(ns.hostfile).is_file():
        raise UsageError(f"hostfile {ns.hostfile} does not exist")
    oversubscribed = check_cores(ns.np, ns.threads, ns.oversubscribe,
                                 remote=bool(ns.hosts or ns.hostfile), nodes=ns.vcluster or 1)
    binary = find_binary(ns.binary, mpi)

    name = run_dir_name(binary.name, ns.np, ns.threads, ns.mode)
    results = ns.results.resolve()
    if ns.dry_run:
        run_dir = results / "runs" / name
    else:
        launcher.check_available()
        run_dir = create_run_dir(results, name)
    records_path = run_dir / "records.jsonl"
    args = (["--mode", ns.mode] if ns.mode else []) + list(ns.binary_args) + list(ns.extra)
    spec = LaunchSpec(binary=str(binary), args=[*args, "--output", str(records_path)],
                      np=ns.np, threads=ns.threads, bind=ns.bind, mpi=mpi,
                      hosts=ns.hosts or (), hostfile=ns.hostfile, oversubscribe=oversubscribed,
                      cores_per_host=None if (ns.hosts or ns.hostfile) else local_cores())
    launch = launcher.build(spec)
    # the emulated nodes' mpirun runs unbound; their Slurm binds (srun --cpu-bind=cores)
    vc_unbound = ns.vcluster and ns.launcher != "srun"
    ns.bind_used = "none" if vc_unbound or not spec.pinned else ns.bind
    for message in launch.warnings:
        warn(message)
    if ns.dry_run:
        print(launch.shell_line())
        return 0
    return execute(ns, launch, run_dir, records_path, mpi)


def execute(ns: argparse.Namespace, launch: Launch, run_dir: Path, records_path: Path,
            mpi: str) -> int:

    write_launch(run_dir, launch)
    info = {
        "hybridkit_version": __version__, "argv": launch.argv, "binary": ns.binary,
        "np": ns.np, "threads": ns.threads, "mode": ns.mode,
        # the binding really used: none on emulated nodes (they share the cores) or when
        # oversubscribed
        "bind": getattr(ns, "bind_used", ns.bind),
        "mpi": mpi,
        "launcher": launcher_label(ns), "vcluster": ns.vcluster,
        "link_rate": ns.rate, "hosts": ns.hosts, "hostfile": ns.hostfile,
        "oversubscribe": ns.oversubscribe, "timeout_s": ns.timeout, "exit_code": None,
        "start": iso(utc_now()),
        "end": None, "duration_s": None, "records": None, "records_valid": None,
        "status": "running", "message": None,
    }
    write_json(run_dir / "run.json", info, reserve=RESERVE)
    print(f"# run directory: {run_dir}", flush=True)
    print(f"# command: {launch.shell_line()}", flush=True)

    t0 = time.monotonic()
    lost: List[str] = []
    try:
        binary_code = run_streaming(launch.argv, launch.env, run_dir / "stdout.txt",
                                    run_dir / "stderr.txt", lost=lost, timeout=ns.timeout)
    except TimedOut as exc:
        raise timed_out(info, run_dir, exc, t0, Path(ns.binary).name) from None
    info.update(exit_code=binary_code, end=iso(utc_now()),
                duration_s=round(time.monotonic() - t0, 3))

    problem: Optional[HKError] = None
    records = []
    try:
        records = load_records(records_path)
        check_layout(records, ns.np, mpi)
    except HKError as exc:
        problem = exc
    failed = ([f"{Path(ns.binary).name} exit code {binary_code}"] if binary_code else []) \
        + ([f"no valid records: {problem}"] if problem else [])
    info.update(records=len(records), records_valid=problem is None, output_lost=lost or None,
                status="failed" if failed else "ok", message="; ".join(failed + lost) or None)
    write_json(run_dir / "run.json", info)
    for message in lost:
        warn(message)

    name = Path(ns.binary).name
    if problem is None:
        render(records)
    else:
        print(f"hybridkit: error: no valid records: {problem}", file=sys.stderr)
    if binary_code != 0:
        print(f"hybridkit: error: {name} failed with exit code {binary_code} (see {run_dir})",
              file=sys.stderr)
        return binary_code
    return 0 if problem is None else 1
