"""--launcher auto and the Slurm allocation (issue 41): inside an allocation (SLURM_JOB_ID set,
srun on PATH) auto is srun, and a sweep plans for the allocation's nodes and CPUs (hosts from
`scontrol show hostnames`), not for the login node; outside one, auto is mpirun.  Slurm is
faked: `srun` and `scontrol` scripts on PATH (tests/vcluster/slurm.sh runs a real one)."""

from __future__ import annotations

import pytest

from conftest import make_executable
from hybridkit.errors import HKError
from hybridkit.launch.launchers import resolve_launcher, slurm_allocation


@pytest.fixture
def fake_slurm(tmp_path, monkeypatch):
    d = tmp_path / "slurm-bin"
    d.mkdir()
    make_executable(d / "srun", "#!/bin/sh\nexit 0\n")
    # scontrol show hostnames node[3-4] -> node3 node4 (what Slurm prints, one a line)
    make_executable(d / "scontrol", "#!/bin/sh\n"
                    "[ \"$1 $2\" = 'show hostnames' ] || exit 1\n"
                    "case $3 in 'node[3-4]') printf 'node3\\nnode4\\n' ;; *) exit 1 ;; esac\n")
    monkeypatch.setenv("PATH", f"{d}:/usr/bin:/bin")
    return d


def test_auto_outside_an_allocation_is_mpirun(fake_slurm):
    assert resolve_launcher("auto", {}) == "mpirun"
    assert resolve_launcher("auto", {"SLURM_JOB_ID": "7"}) == "srun"
    assert resolve_launcher("mpirun", {"SLURM_JOB_ID": "7"}) == "mpirun"  # asked for


def test_auto_without_srun_is_mpirun(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert resolve_launcher("auto", {"SLURM_JOB_ID": "7"}) == "mpirun"


def test_allocation(fake_slurm):
    env = {"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "node[3-4]",
           "SLURM_JOB_CPUS_PER_NODE": "8(x1),6"}
    assert slurm_allocation(env) == (("node3", "node4"), 6)
    assert slurm_allocation({}) is None
    with pytest.raises(HKError, match="scontrol show hostnames bad"):
        slurm_allocation(dict(env, SLURM_JOB_NODELIST="bad"))
    with pytest.raises(HKError, match="SLURM_JOB_CPUS_PER_NODE missing"):
        slurm_allocation({"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "node[3-4]"})


def test_sweep_plans_for_the_allocation(cli, bin_dir, fake_slurm, monkeypatch):
    """2 nodes x 4 CPUs: pure MPI is 8 ranks over node3,node4 (the login node has 2 cores)."""
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "node[3-4]")
    monkeypatch.setenv("SLURM_JOB_CPUS_PER_NODE", "4(x2)")
    res = cli(["sweep", "jacobi", "--modes", "pure", "--sizes", "8", "--dry-run"])
    assert res.code == 0, res.err
    assert "jacobi 8x1 mode=pure size=8" in res.out
    res = cli(["run", "hk-fake", "--np", "2", "--threads", "1", "--dry-run"])
    assert res.code == 0, res.err
    assert "srun -n 2 -c 1" in res.out  # auto: srun inside the allocation
