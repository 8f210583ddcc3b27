"""`hybridkit topology ARGS...`: run hk-topology standalone, arguments passed verbatim."""

from __future__ import annotations

import argparse
import os
import subprocess

from hybridkit.launch.launchers import default_mpi, singleton_env
from hybridkit.paths import find_binary
from hybridkit.study.rundir import exit_status

BINARY = "hk-topology"
HELP = "show the machine and where ranks/threads would be (or are) bound (runs hk-topology)"
DESCRIPTION = f"""\
Run {BINARY} without an MPI launcher; every argument is passed to it verbatim and its exit
code is returned. Examples:

  hybridkit topology
  hybridkit topology --dry-run --ranks 4 --threads 2 --policy scatter --topology "pack:2 core:4 pu:2"
  hybridkit topology -- --help        ({BINARY}'s own options)

{BINARY} is found in $HK_BIN_DIR, build/release/bin (build/mpich-release/bin when HK_MPI=mpich),
then PATH."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("args", nargs="*", metavar="ARGS", help=f"arguments of {BINARY}")


def run(ns: argparse.Namespace) -> int:
    mpi = default_mpi()
    binary = find_binary(BINARY, mpi)
    proc = subprocess.run([str(binary), *ns.extra], env={**os.environ, **singleton_env(mpi)})
    return exit_status(proc.returncode)
