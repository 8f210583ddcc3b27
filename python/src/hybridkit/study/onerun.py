"""One run of a program outside a sweep (`hybridkit run`, `profile`, `check`, `simulate`):
the core check before it, the checks of its records, run.json when it times out, and the
launch and run directory of a program under a preloaded tool (profile, check).

    check_cores --> build the launch (tool_launch) --> start_tool_run (run.json "running")
                --> run --> timed_out (run.json "timeout") | check_layout of the records
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import List

from hybridkit import __version__
from hybridkit.errors import HKError, UsageError, env_dir, warn
from hybridkit.launch.cpuset import local_cores
from hybridkit.launch.launchers import LaunchSpec
from hybridkit.paths import binary_search_dirs, find_binary
from hybridkit.study.execute import launcher_label
from hybridkit.study.rundir import RESERVE, TimedOut, iso, utc_now, write_json, write_launch


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check_cores(np: int, threads: int, oversubscribe: bool, remote: bool, nodes: int = 1) -> bool:
    """Whether the run is oversubscribed; raise UsageError if it is and was not allowed.
    `nodes` emulated nodes (each with this machine's cores): the ranks of the fullest one
    count."""
    if remote:
        return oversubscribe
    per_node = -(-np // nodes)
    need, have = per_node * threads, local_cores()
    if need <= have:
        return False
    if not oversubscribe:
        where = "this machine has" if nodes == 1 else f"an emulated node ({per_node} ranks) has"
        raise UsageError(f"{plural(np, 'rank')} x {plural(threads, 'thread')} need "
                         f"{plural(need, 'core')}, {where} {have} "
                         f"(pass --oversubscribe to run anyway)")
    return True


def check_layout(records: list, np: int, mpi: str) -> None:
    """The records must come from one job of `np` ranks: a binary built against another MPI
    than the launcher's runs as np separate one-rank jobs, each writing its own records."""
    for number, record in enumerate(records, 1):
        prov = record["provenance"]
        if prov["ranks"] != np:
            raise HKError(
                f"record {number} was written by a job of {prov['ranks']} rank(s), "
                f"{np} were launched: the binary uses {prov['mpi_impl']} "
                f"({prov['mpi_library'][:40]}...), the launcher {mpi}; "
                f"use --mpi {prov['mpi_impl']} or a build for {mpi}")


def timed_out(info: dict, run_dir: Path, exc: TimedOut, t0: float, name: str) -> HKError:
    """Record a run stopped after its --timeout in run.json (status 'timeout', as a sweep's
    runs) and return the error to raise."""
    message = f"no end after {exc.timeout:g} s (timeout), stopped"
    info.update(exit_code=exc.code, end=iso(utc_now()),
                duration_s=round(time.monotonic() - t0, 3), status="timeout",
                message=message, timeout_s=exc.timeout)
    write_json(run_dir / "run.json", info)
    return HKError(f"{name} timed out after {exc.timeout:g} s (--timeout {exc.timeout:g}) and "
                   f"was stopped (see {run_dir})")


def find_library(mpi: str, name: str) -> Path:
    """A library of the build, `name` (libhybridkit-profile.so, ...-check.so): $HK_LIB_DIR,
    else next to the binaries (../lib of the build's or the installation's bin)."""
    lib_dir = env_dir("HK_LIB_DIR")
    dirs: List[Path] = [lib_dir] if lib_dir is not None else []
    for d in binary_search_dirs(mpi):
        dirs += [d.parent / "lib", d]
    try:
        dirs.append(find_binary("hk-jacobi", mpi).parent.parent / "lib")
    except HKError:
        pass
    for d in dirs:
        if (d / name).is_file():
            return (d / name).resolve()
    raise HKError(f"{name} not found in {', '.join(map(str, dirs)) or 'HK_LIB_DIR'}; "
                  f"build the C side first or set HK_LIB_DIR")


def tool_launch(ns: argparse.Namespace, launcher, binary: Path, mpi: str,
                oversubscribed: bool, env: dict):
    """The launch of the program after '--' under a preloaded tool (profile, check): its
    own arguments, the layout and binding of the command line, the tool's env; the
    launcher's warnings printed."""
    spec = LaunchSpec(binary=str(binary), args=list(ns.extra[1:]), np=ns.np,
                      threads=ns.threads, bind=ns.bind, mpi=mpi, hosts=ns.hosts or (),
                      hostfile=ns.hostfile, oversubscribe=oversubscribed,
                      cores_per_host=None if (ns.hosts or ns.hostfile) else local_cores(),
                      env=env)
    launch = launcher.build(spec)
    for message in launch.warnings:
        warn(message)
    return launch


def start_tool_run(ns: argparse.Namespace, launch, run_dir: Path, binary: Path, mpi: str,
                   **extra) -> dict:
    """The run directory of a program under a tool (profile, check): its launch files and
    run.json, status 'running' (room reserved), `extra` fields added; the two header lines
    printed. Returns run.json's fields, for the caller to complete."""
    write_launch(run_dir, launch)
    info = {
        "hybridkit_version": __version__, "argv": launch.argv, "binary": str(binary),
        "np": ns.np, "threads": ns.threads, "mode": None, "bind": ns.bind,
        "mpi": mpi, "launcher": launcher_label(ns), "vcluster": ns.vcluster,
        "hosts": ns.hosts, "hostfile": ns.hostfile, "oversubscribe": ns.oversubscribe,
        "timeout_s": ns.timeout, "exit_code": None, "start": iso(utc_now()), "end": None,
        "duration_s": None, "status": "running", "message": None, **extra,
    }
    write_json(run_dir / "run.json", info, reserve=RESERVE)
    print(f"# run directory: {run_dir}", flush=True)
    print(f"# command: {launch.shell_line()}", flush=True)
    return info
