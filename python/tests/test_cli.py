"""The command line from a table: args -> exit code, text expected on stdout / stderr."""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import PYTHON, python_env
from hybridkit import __version__
from hybridkit.cli import COMMANDS
from hybridkit.launch.cpuset import local_cores

OMPI_2x1 = ("-np 2 --map-by slot:PE=1 --bind-to core -x OMP_NUM_THREADS=1 "
            "-x OMP_PLACES=cores -x OMP_PROC_BIND=close")

# (args, exit code, text on stdout, text on stderr); {bin} is the fake HK_BIN_DIR,
# {fx} the fixture directory. The machine has 2 cores (bin_dir fixture).
CASES = [
    (["--help"], 0, "topology", ""),
    (["--version"], 0, f"hybridkit {__version__}", ""),
    (["run", "--help"], 0, "--oversubscribe", ""),
    (["topology", "--help"], 0, "hk-topology", ""),
    (["topology", "-h"], 0, "passed to it verbatim", ""),
    (["records", "--help"], 0, "validate", ""),
    (["records", "validate", "--help"], 0, "FILE", ""),
    ([], 2, "", "hybridkit: error: a command is required: topology, run, profile, records"),
    (["--bogus"], 2, "", "hybridkit: error: unrecognized arguments: --bogus"),
    (["frobnicate"], 2, "", "invalid choice: 'frobnicate'"),
    (["records"], 2, "", "a subcommand is required: validate"),
    (["records", "validate"], 2, "", "the following arguments are required: FILE"),
    (["records", "validate", "x.jsonl", "--", "y"], 2, "", "unexpected arguments after '--': y"),
    (["run", "hk-fake", "--np", "1", "--threads", "1", "--bogus"], 2, "",
     "unrecognized arguments: --bogus; arguments of the binary go after '--'"),
    (["run", "hk-fake", "--threads", "1"], 2, "", "the following arguments are required: --np"),
    (["run", "hk-fake", "--np", "0", "--threads", "1"], 2, "",
     "hybridkit: error: argument --np: 0 is out of range (allowed: 1 to 65536)"),
    (["run", "hk-fake", "--np", "-3", "--threads", "1"], 2, "",
     "argument --np: -3 is out of range (allowed: 1 to 65536)"),
    (["run", "hk-fake", "--np", "1", "--threads", "0"], 2, "",
     "argument --threads: 0 is out of range (allowed: 1 to 8192)"),
    (["run", "hk-fake", "--np", "two", "--threads", "1"], 2, "",
     "argument --np: 'two' is not an integer (allowed: 1 to 65536)"),
    (["run", "hk-fake", "--np", "2", "--threads", "2"], 2, "",
     "hybridkit: error: 2 ranks x 2 threads need 4 cores, this machine has 2 "
     "(pass --oversubscribe to run anyway)\n"),
    (["run", "hk-fake", "--np", "1", "--threads", "3", "--dry-run"], 2, "",
     "1 rank x 3 threads need 3 cores, this machine has 2"),
    (["run", "hk-nope", "--np", "1", "--threads", "1"], 1, "", "unknown binary 'hk-nope'"),
    (["run", "./no/such/binary", "--np", "1", "--threads", "1"], 1, "",
     "binary ./no/such/binary does not exist"),
    (["run", "hk-fake", "--np", "1", "--threads", "1", "--launcher", "qsub"], 2, "",
     "argument --launcher: invalid choice: 'qsub'"),
    (["run", "hk-fake", "--np", "1", "--threads", "1", "--mpi", "lam"], 2, "",
     "argument --mpi: invalid choice: 'lam'"),
    (["run", "hk-fake", "--np", "1", "--threads", "1", "--bind", "tight"], 2, "",
     "argument --bind: invalid choice: 'tight'"),
    (["run", "hk-fake", "--np", "1", "--threads", "1", "--hosts", "a", "--hostfile", "f"], 2,
     "", "not allowed with argument"),
    (["run", "hk-fake", "--np", "1", "--threads", "1", "--hostfile", "nofile"], 2, "",
     "hostfile nofile does not exist"),
    (["run", "hk-fake", "--np", "1", "--threads", "1", "--mode", "Bad Mode"], 2, "",
     "bad mode name"),
    (["run", "hk-fake", "--np", "2", "--threads", "1", "--dry-run"], 0, OMPI_2x1 + " {bin}/hk-fake --output ", ""),
    (["run", "hk-fake", "--np", "2", "--threads", "1", "--mode", "task", "--dry-run", "--", "-v",
      "a b"], 0, "{bin}/hk-fake --mode task -v 'a b' --output ", ""),
    (["run", "hk-fake", "--np", "1", "--threads", "2", "--bind", "scatter", "--dry-run"], 0,
     "-np 1 --map-by slot:PE=2 --bind-to core -x OMP_NUM_THREADS=2 -x OMP_PLACES=cores "
     "-x OMP_PROC_BIND=spread", ""),
    (["run", "hk-fake", "--np", "2", "--threads", "1", "--mpi", "mpich", "--dry-run"], 0,
     "-n 2 -bind-to core:1 -genv OMP_NUM_THREADS 1 -genv OMP_PLACES cores "
     "-genv OMP_PROC_BIND close {bin}/hk-fake", ""),
    (["run", "hk-fake", "--np", "2", "--threads", "2", "--oversubscribe", "--dry-run"], 0,
     "-np 2 --oversubscribe --bind-to none -x OMP_NUM_THREADS=2 {bin}/hk-fake",
     "hybridkit: warning: oversubscribed (2 ranks x 2 threads): binding is off"),
    (["run", "hk-fake", "--np", "1", "--threads", "2", "--oversubscribe", "--dry-run"], 0,
     "--map-by slot:PE=2 --bind-to core", ""),
    (["run", "hk-fake", "--np", "4", "--threads", "4", "--hosts", "n1,n2", "--dry-run"], 0,
     "-np 4 --host n1:2,n2:2 --map-by slot:PE=4 --bind-to core", ""),
    (["run", "hk-fake", "--np", "2", "--threads", "1", "--launcher", "srun", "--dry-run"], 0,
     "srun -n 2 -c 1 --kill-on-bad-exit=1 --cpu-bind=cores", ""),
    (["records", "validate", "{fx}/records/valid.jsonl"], 0, "valid.jsonl: 2 records OK", ""),
    (["records", "validate", "{fx}/records/valid.jsonl",
      "{fx}/records/missing_provenance_field.jsonl"], 1, "valid.jsonl: 2 records OK",
     "missing_provenance_field.jsonl:2: provenance: 'git_sha' is a required property"),
    (["records", "validate", "{fx}/records/nonexistent.jsonl"], 1, "",
     "nonexistent.jsonl: no such file"),
    (["topology", "--dry-run", "--ranks", "2", "--policy", "compact", "--topology",
      "pack:2 core:4"], 0, "[--dry-run]\n[--ranks]\n[2]\n[--policy]\n[compact]\n[--topology]\n"
     "[pack:2 core:4]\n", ""),
    (["topology", "--", "--help"], 0, "[--help]\n", ""),
    (["topology"], 0, "", ""),
]


@pytest.mark.parametrize("args,code,out,err", CASES, ids=[" ".join(c[0]) or "(none)"
                                                         for c in CASES])
def test_cli(cli, bin_dir, fixtures, args, code, out, err):
    subst = {"bin": str(bin_dir), "fx": str(fixtures)}
    result = cli([a.format(**subst) for a in args])
    assert result.code == code, result
    assert out.format(**subst) in result.out
    assert err.format(**subst) in result.err
    if code != 0:
        errors = [line for line in result.err.splitlines() if line.startswith("hybridkit:")]
        assert len(errors) == 1 and errors[0].startswith("hybridkit: error: "), result.err
        assert "usage:" not in result.err


def test_every_command_has_help(cli, bin_dir):
    """--help of each table entry (and nested entries) works and shows its help line."""
    main_help = cli(["--help"]).out
    for name, command in COMMANDS.items():
        assert name in main_help and command.help.split()[0] in main_help
        result = cli([name, "--help"])
        assert result.code == 0 and f"usage: hybridkit {name}" in result.out
        for sub in command.subcommands:
            assert cli([name, sub, "--help"]).code == 0


def test_dry_run_is_one_line_and_creates_nothing(cli, bin_dir, tmp_path):
    result = cli(["run", "hk-fake", "--np", "2", "--threads", "1", "--dry-run",
                  "--results", str(tmp_path / "res")])
    assert result.code == 0
    lines = result.out.splitlines()
    assert len(lines) == 1
    assert re.search(r"--output \S+/res/runs/\d{8}-\d{6}-hk-fake-2x1/records\.jsonl$", lines[0])
    assert not (tmp_path / "res").exists()


def test_hk_mpi_selects_mpich(cli, bin_dir, monkeypatch):
    monkeypatch.setenv("HK_MPI", "mpich")
    result = cli(["run", "hk-fake", "--np", "1", "--threads", "1", "--dry-run"])
    # one rank owns all the local cores (the even share of hk_launch_map_compute)
    assert f"-bind-to core:{local_cores()}" in result.out and "OMPI_ALLOW" not in result.out


def test_topology_returns_binary_exit_code(cli, bin_dir, monkeypatch):
    monkeypatch.setenv("HK_FAKE_EXIT", "3")
    assert cli(["topology", "--version"]).code == 3


def test_topology_without_binary(cli, bin_dir, monkeypatch, tmp_path):
    (bin_dir / "hk-topology").unlink()
    monkeypatch.setattr("hybridkit.paths.repo_root", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = cli(["topology"])
    assert result.code == 1
    assert result.err.startswith("hybridkit: error: unknown binary 'hk-topology'")


@pytest.mark.parametrize("args,code,text", [
    (["--version"], 0, f"hybridkit {__version__}"),
    (["--help"], 0, "usage: hybridkit"),
    (["run", "true", "--np", "1", "--threads", "8000", "--dry-run"], 2,
     "hybridkit: error: 1 rank x 8000 threads need 8000 cores, this machine has "),
    (["run", "true", "--np", "1", "--threads", "100000", "--dry-run"], 2,
     "hybridkit: error: argument --threads: 100000 is out of range (allowed: 1 to 8192)"),
])
def test_python_dash_m(args, code, text):
    """`python -m hybridkit` in a fresh process, with the real core count."""
    proc = subprocess.run([PYTHON, "-m", "hybridkit", *args], capture_output=True, text=True,
                          env=python_env(), timeout=60)
    assert proc.returncode == code
    assert text in proc.stdout + proc.stderr


@pytest.mark.parametrize("extra,text", [
    (["--hosts", "a,b"], "--vcluster chooses the hosts itself (--launcher mpirun or srun)"),
    (["--mpi", "mpich"], "--vcluster runs Open MPI's mpirun (MPICH: --launcher srun"),
])
def test_vcluster_bad_combinations(cli, bin_dir, extra, text):
    result = cli(["run", "hk-fake", "--np", "2", "--threads", "1", "--vcluster", "2", "--dry-run",
                  *extra])
    assert result.code == 2 and text in result.err


def test_vcluster_dry_run(cli, bin_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("VCLUSTER_STATE", str(tmp_path / "no-cluster"))
    result = cli(["run", "hk-fake", "--np", "2", "--threads", "1", "--vcluster", "2", "--dry-run"])
    assert result.code == 0, result.err
    assert "vcluster mpirun -np 2 --map-by ppr:1:node --oversubscribe" in result.out


@pytest.mark.parametrize("mpi,pmi", [("openmpi", "pmix"), ("mpich", "pmi2")])
def test_vcluster_srun_dry_run(cli, bin_dir, monkeypatch, tmp_path, mpi, pmi):
    """--vcluster N --launcher srun: the emulated cluster's Slurm, one core per thread bound,
    the MPI's process-management interface (tests/vcluster/slurm.sh runs it for real)."""
    monkeypatch.setenv("VCLUSTER_STATE", str(tmp_path / "no-cluster"))
    result = cli(["run", "hk-fake", "--np", "2", "--threads", "2", "--vcluster", "2",
                  "--launcher", "srun", "--mpi", mpi, "--dry-run"])
    assert result.code == 0, result.err
    assert (f"vcluster srun -N 2 -n 2 -c 2 --mpi={pmi} --kill-on-bad-exit=1 --cpu-bind=cores "
            "--export=ALL,OMP_NUM_THREADS=2,OMP_PLACES=cores,OMP_PROC_BIND=close") in result.out
    assert result.out.startswith("OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close ")



@pytest.mark.parametrize("args,text", [
    (["run", "hk-fake", "--np", "2", "--threads", "1", "--rate", "1gbit", "--dry-run"],
     "--rate limits the links of emulated nodes: give --vcluster N too"),
    (["sweep", "spmv", "--quick", "--rate", "1gbit", "--dry-run"],
     "--rate limits the links of emulated nodes: give --vcluster N too"),
    (["run", "hk-fake", "--np", "2", "--threads", "1", "--vcluster", "2", "--rate", "fast"],
     "expected a rate like 1gbit"),
])
def test_rate_errors(cli, bin_dir, args, text):
    result = cli(args)
    assert result.code == 2 and text in result.err


def test_vcluster_rate_shapes_the_links(bin_dir, monkeypatch, tmp_path):
    """--rate R runs `vcluster up N --rate R` even when the cluster is up (up sets the
    shaping to what it is asked); without --rate a cluster that is up is left as it is."""
    import argparse
    import os

    from hybridkit.study.execute import vcluster_launcher

    log, state = tmp_path / "calls", tmp_path / "state"
    tool = tmp_path / "vcluster"
    tool.write_text(f"#!/bin/sh\necho \"$*\" >> {log}\n")
    os.chmod(tool, 0o755)
    monkeypatch.setenv("HK_VCLUSTER", str(tool))
    monkeypatch.setenv("VCLUSTER_STATE", str(state))

    def ns(rate):
        return argparse.Namespace(vcluster=2, rate=rate, hosts=None, hostfile=None,
                                  launcher="mpirun", dry_run=False)

    vcluster_launcher(ns("100mbit"), "openmpi")
    assert log.read_text() == "up 2 --rate 100mbit\n"
    state.mkdir()
    (state / "nodes").write_text("2\n")
    vcluster_launcher(ns(None), "openmpi")
    assert log.read_text() == "up 2 --rate 100mbit\n"
    vcluster_launcher(ns("1gbit"), "openmpi")
    assert log.read_text().splitlines()[-1] == "up 2 --rate 1gbit"
