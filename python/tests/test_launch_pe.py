"""The launcher's PE (cores per rank) is the one `hk-topology --dry-run` models and warns about.

Skipped unless HK_BIN_DIR holds hk-topology (e.g. HK_BIN_DIR=build/release/bin).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from hybridkit.launch.launchers import LaunchSpec, launcher_for

BIN_DIR = os.environ.get("HK_BIN_DIR", "")
TOPOLOGY = Path(BIN_DIR) / "hk-topology" if BIN_DIR else None

pytestmark = [
    pytest.mark.skipif(not (TOPOLOGY and os.access(TOPOLOGY, os.X_OK)),
                       reason="HK_BIN_DIR does not hold hk-topology"),
]

MACHINE, CORES = "pack:2 numa:2 core:4 pu:2", 16


@pytest.mark.parametrize("np,threads,bind", [
    (2, 6, "compact"),   # the case: PE=8 for 6 threads, warned
    (4, 4, "compact"),   # PE = threads: no PE warning
    (1, 4, "scatter"),
    (16, 1, "compact"),
])
def test_launch_pe_is_the_dry_runs(np, threads, bind):
    spec = LaunchSpec(binary="/b/app", np=np, threads=threads, bind=bind, cores_per_host=CORES)
    argv = launcher_for("mpirun", "openmpi", which=lambda name: name, euid=1000).build(spec).argv
    out = subprocess.run([str(TOPOLOGY), "--dry-run", "--no-tree", "--ranks", str(np), "--threads",
                          str(threads), "--policy", bind, "--topology", MACHINE],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    pe = int(re.search(r"slot:PE=(\d+) --bind-to core,", out).group(1))
    assert f"slot:PE={pe}" in argv and pe == spec.pe
    warned = f"each rank owns PE={pe} cores for {threads} thread" in out
    assert warned == (pe != threads), out
