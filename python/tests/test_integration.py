"""With the real C binaries: `hybridkit run hk-topology` under mpirun, `hybridkit topology`.

Skipped unless HK_BIN_DIR holds hk-topology (e.g. HK_BIN_DIR=build/release/bin, Open MPI build).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, python_env
from hybridkit.launch.binding import bindings, pus_per_core, verdict
from hybridkit.launch.cpuset import local_cores, parse_cpuset
from hybridkit.records import load_records

BIN_DIR = os.environ.get("HK_BIN_DIR", "")
TOPOLOGY = Path(BIN_DIR) / "hk-topology" if BIN_DIR else None

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not BIN_DIR, reason="HK_BIN_DIR is not set (point it at build/release/bin)"),
    pytest.mark.skipif(bool(BIN_DIR) and not (TOPOLOGY and os.access(TOPOLOGY, os.X_OK)),
                       reason=f"no hk-topology in HK_BIN_DIR={BIN_DIR}"),
]


def hybridkit(args, cwd):
    # HK_MPI (set by `make test`) names the MPI the binaries in HK_BIN_DIR were built with
    env = python_env(HK_BIN_DIR=str(Path(BIN_DIR).resolve()))
    return subprocess.run([PYTHON, "-m", "hybridkit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("np,threads", [(2, 1), (1, 2)])
def test_run_hk_topology_each_thread_on_its_own_core(tmp_path, np, threads):
    if np * threads > local_cores():
        pytest.skip(f"needs {np * threads} cores")
    proc = hybridkit(["run", "hk-topology", "--np", str(np), "--threads", str(threads),
                      ], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run_dir, = (tmp_path / "results" / "runs").iterdir()
    records = load_records(run_dir / "records.jsonl")
    assert any(r["kind"] == "topology.binding" for r in records)
    threads_seen = bindings(records)
    assert len(threads_seen) == np * threads
    cpusets = [parse_cpuset(t.cpuset) for t in threads_seen]
    assert all(cpusets) and len(set(cpusets)) == len(cpusets)
    assert verdict(threads_seen, pus_per_core(records)).own_cores
    assert "verdict: each thread has its own core" in proc.stdout


def test_topology_dry_run(tmp_path):
    proc = hybridkit(["topology", "--dry-run", "--ranks", "2", "--threads", "1", "--policy",
                      "compact"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip()


def test_records_validate_on_real_records(tmp_path):
    proc = hybridkit(["run", "hk-topology", "--np", "1", "--threads", "1"],
                     tmp_path)
    assert proc.returncode == 0, proc.stderr
    files = [str(p) for p in (tmp_path / "results" / "runs").glob("*/records.jsonl")]
    check = hybridkit(["records", "validate", *files], tmp_path)
    assert check.returncode == 0 and "records OK" in check.stdout
