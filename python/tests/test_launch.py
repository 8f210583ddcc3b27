"""Launch lines of every launcher, table-driven: spec -> exact argv and environment."""

from __future__ import annotations

import shlex

import pytest

from hybridkit.errors import UsageError
from hybridkit.launch.launchers import LaunchSpec, default_mpi, launcher_for

ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
INSTALLED = {"mpirun.openmpi", "mpirun", "mpiexec.mpich", "mpiexec.hydra", "srun"}


def spec(np=2, threads=1, bind="compact", mpi="openmpi", hosts=(), hostfile=None,
         oversubscribe=False):
    return LaunchSpec(binary="/b/app", args=["-v", "a b"], np=np, threads=threads, bind=bind,
                      mpi=mpi, hosts=hosts, hostfile=hostfile, oversubscribe=oversubscribe)


OMPI = "mpirun.openmpi -np {np} --map-by slot:PE={t} --bind-to core -x OMP_NUM_THREADS={t} " \
       "-x OMP_PLACES=cores -x OMP_PROC_BIND={pb} /b/app -v 'a b'"
MPICH = "mpiexec.mpich -n {np} -bind-to core:{t} -genv OMP_NUM_THREADS {t} " \
        "-genv OMP_PLACES cores -genv OMP_PROC_BIND {pb} /b/app -v 'a b'"
SRUN = "srun -n {np} -c {t} --kill-on-bad-exit=1 --cpu-bind=cores " \
       "--export=ALL,OMP_NUM_THREADS={t},OMP_PLACES=cores,OMP_PROC_BIND={pb} /b/app -v 'a b'"

CASES = [
    # (id, launcher, spec, expected command line)
    ("ompi-compact-T1", "mpirun", spec(), OMPI.format(np=2, t=1, pb="close")),
    ("ompi-compact-T2", "mpirun", spec(np=1, threads=2), OMPI.format(np=1, t=2, pb="close")),
    ("ompi-scatter-T1", "mpirun", spec(bind="scatter"), OMPI.format(np=2, t=1, pb="spread")),
    ("ompi-scatter-T2", "mpirun", spec(np=1, threads=2, bind="scatter"),
     OMPI.format(np=1, t=2, pb="spread")),
    ("ompi-none-T1", "mpirun", spec(bind="none"),
     "mpirun.openmpi -np 2 --map-by slot:PE=1 --bind-to none -x OMP_NUM_THREADS=1 /b/app -v 'a b'"),
    ("ompi-none-T2", "mpirun", spec(np=1, threads=2, bind="none"),
     "mpirun.openmpi -np 1 --map-by slot:PE=2 --bind-to none -x OMP_NUM_THREADS=2 /b/app -v 'a b'"),
    ("ompi-hosts", "mpirun", spec(np=4, threads=2, hosts=("n1", "n2")),
     "mpirun.openmpi -np 4 --host n1:2,n2:2 --map-by slot:PE=2 --bind-to core "
     "-x OMP_NUM_THREADS=2 -x OMP_PLACES=cores -x OMP_PROC_BIND=close /b/app -v 'a b'"),
    ("ompi-hosts-uneven", "mpirun", spec(np=3, hosts=("n1", "n2")),
     "mpirun.openmpi -np 3 --host n1:2,n2:2 --map-by slot:PE=1 --bind-to core "
     "-x OMP_NUM_THREADS=1 -x OMP_PLACES=cores -x OMP_PROC_BIND=close /b/app -v 'a b'"),
    ("ompi-hostfile", "mpirun", spec(hostfile="hosts.txt"),
     "mpirun.openmpi -np 2 --hostfile hosts.txt --map-by slot:PE=1 --bind-to core "
     "-x OMP_NUM_THREADS=1 -x OMP_PLACES=cores -x OMP_PROC_BIND=close /b/app -v 'a b'"),
    ("ompi-oversubscribe", "mpirun", spec(threads=2, oversubscribe=True),
     "mpirun.openmpi -np 2 --oversubscribe --bind-to none -x OMP_NUM_THREADS=2 /b/app -v 'a b'"),
    ("mpich-compact-T1", "mpirun", spec(mpi="mpich"), MPICH.format(np=2, t=1, pb="close")),
    ("mpich-compact-T2", "mpirun", spec(np=1, threads=2, mpi="mpich"),
     MPICH.format(np=1, t=2, pb="close")),
    ("mpich-scatter-T2", "mpirun", spec(np=1, threads=2, bind="scatter", mpi="mpich"),
     MPICH.format(np=1, t=2, pb="spread")),
    ("mpich-none-T2", "mpirun", spec(np=1, threads=2, bind="none", mpi="mpich"),
     "mpiexec.mpich -n 1 -bind-to none -genv OMP_NUM_THREADS 2 /b/app -v 'a b'"),
    ("mpich-hosts", "mpirun", spec(np=4, threads=2, mpi="mpich", hosts=("n1", "n2")),
     "mpiexec.mpich -n 4 -hosts n1,n2 -ppn 2 -bind-to core:2 -genv OMP_NUM_THREADS 2 "
     "-genv OMP_PLACES cores -genv OMP_PROC_BIND close /b/app -v 'a b'"),
    ("mpich-hostfile", "mpirun", spec(mpi="mpich", hostfile="hosts.txt"),
     "mpiexec.mpich -n 2 -f hosts.txt -bind-to core:1 -genv OMP_NUM_THREADS 1 "
     "-genv OMP_PLACES cores -genv OMP_PROC_BIND close /b/app -v 'a b'"),
    ("mpich-oversubscribe", "mpirun", spec(threads=2, mpi="mpich", oversubscribe=True),
     "mpiexec.mpich -n 2 -bind-to none -genv OMP_NUM_THREADS 2 /b/app -v 'a b'"),
    ("srun-compact-T1", "srun", spec(), SRUN.format(np=2, t=1, pb="close")),
    ("srun-compact-T2", "srun", spec(np=1, threads=2), SRUN.format(np=1, t=2, pb="close")),
    ("srun-scatter-T2", "srun", spec(np=1, threads=2, bind="scatter"),
     SRUN.format(np=1, t=2, pb="spread")),
    ("srun-none-T2", "srun", spec(np=1, threads=2, bind="none"),
     "srun -n 1 -c 2 --kill-on-bad-exit=1 --cpu-bind=none --export=ALL,OMP_NUM_THREADS=2 /b/app -v 'a b'"),
    ("srun-hosts", "srun", spec(np=4, threads=2, hosts=("n1", "n2")),
     "srun -n 4 -c 2 --nodelist=n1,n2 -N 2 --kill-on-bad-exit=1 --cpu-bind=cores "
     "--export=ALL,OMP_NUM_THREADS=2,OMP_PLACES=cores,OMP_PROC_BIND=close /b/app -v 'a b'"),
    ("srun-hostfile", "srun", spec(hostfile="hosts.txt"),
     "srun -n 2 -c 1 --nodefile=hosts.txt --kill-on-bad-exit=1 --cpu-bind=cores "
     "--export=ALL,OMP_NUM_THREADS=1,OMP_PLACES=cores,OMP_PROC_BIND=close /b/app -v 'a b'"),
    ("srun-oversubscribe", "srun", spec(threads=2, oversubscribe=True),
     "srun -n 2 -c 2 --kill-on-bad-exit=1 --overcommit --cpu-bind=none --export=ALL,OMP_NUM_THREADS=2 /b/app -v 'a b'"),
]


@pytest.mark.parametrize("launcher,the_spec,expected", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_command_line(launcher, the_spec, expected):
    lau = launcher_for(launcher, the_spec.mpi, which=lambda n: n in INSTALLED and n, euid=1000)
    launch = lau.build(the_spec)
    assert launch.argv == shlex.split(expected)
    # srun: the ranks' variables also in srun's own environment (Slurm 22.05 keeps a
    # caller's OMP_NUM_THREADS=1 over --export=ALL,OMP_NUM_THREADS=2)
    assert launch.env == (the_spec.rank_env() if launcher == "srun" else {})
    assert bool(launch.warnings) == the_spec.oversubscribe


@pytest.mark.parametrize("mpi,launcher,euid,env", [
    ("openmpi", "mpirun", 0, ROOT_ENV),
    ("openmpi", "mpirun", 1000, {}),
    ("mpich", "mpirun", 0, {}),
    ("openmpi", "srun", 0, {"OMP_NUM_THREADS": "1", "OMP_PLACES": "cores",
                            "OMP_PROC_BIND": "close"}),
])
def test_root_environment(mpi, launcher, euid, env):
    launch = launcher_for(launcher, mpi, which=lambda n: n, euid=euid).build(spec(mpi=mpi))
    assert launch.env == env


def test_shell_line_puts_env_first_and_quotes():
    launch = launcher_for("mpirun", "openmpi", which=lambda n: n, euid=0).build(spec())
    line = launch.shell_line()
    assert line.startswith("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                           "mpirun.openmpi -np 2 ")
    assert line.endswith("/b/app -v 'a b'")
    assert "\n" not in line


@pytest.mark.parametrize("mpi,installed,program", [
    ("openmpi", {"mpirun.openmpi", "mpirun"}, "mpirun.openmpi"),
    ("openmpi", {"mpirun"}, "mpirun"),
    ("openmpi", set(), "mpirun.openmpi"),
    ("mpich", {"mpiexec.hydra"}, "mpiexec.hydra"),
    ("mpich", {"mpiexec.mpich", "mpiexec.hydra"}, "mpiexec.mpich"),
])
def test_program_fallback(mpi, installed, program):
    lau = launcher_for("mpirun", mpi, which=lambda n: n in installed and n, euid=1000)
    assert lau.build(spec(mpi=mpi)).argv[0] == program


def test_missing_launcher_program_is_an_error():
    lau = launcher_for("mpirun", "mpich", which=lambda n: None)
    with pytest.raises(Exception, match="mpiexec.mpich, mpiexec.hydra"):
        lau.check_available()


def test_oversubscribe_warning_says_binding_is_off():
    launch = launcher_for("mpirun", "openmpi", which=lambda n: n).build(
        spec(threads=2, oversubscribe=True))
    assert launch.warnings == ["oversubscribed (2 ranks x 2 threads): binding is off "
                               "(--bind-to none), timings will not be representative"]


def test_replay_needs_its_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("HK_REPLAY_DIR", raising=False)
    with pytest.raises(UsageError, match="HK_REPLAY_DIR"):
        launcher_for("replay", "openmpi").build(spec())
    monkeypatch.setenv("HK_REPLAY_DIR", str(tmp_path))
    argv = launcher_for("replay", "openmpi").build(spec()).argv
    assert argv[1].endswith("replay.py") and argv[2:] == [str(tmp_path), "--", "/b/app", "-v",
                                                          "a b"]


@pytest.mark.parametrize("kwargs,message", [
    ({"np": 0}, "--np must be >= 1"),
    ({"threads": 0}, "--threads must be >= 1"),
    ({"bind": "tight"}, "unknown binding 'tight'"),
    ({"mpi": "lam"}, "unknown MPI 'lam'"),
    ({"hosts": ("a",), "hostfile": "f"}, "not both"),
])
def test_bad_spec(kwargs, message):
    with pytest.raises(UsageError, match=message):
        spec(**kwargs)


def test_unknown_launcher():
    with pytest.raises(UsageError, match="unknown launcher 'qsub'"):
        launcher_for("qsub", "openmpi")


@pytest.mark.parametrize("value,expected", [(None, "openmpi"), ("", "openmpi"),
                                            ("mpich", "mpich"), ("openmpi", "openmpi")])
def test_default_mpi(monkeypatch, value, expected):
    monkeypatch.setenv("PATH", "/nonexistent")  # unset: auto, no mpicc on PATH -> openmpi
    if value is None:
        monkeypatch.delenv("HK_MPI", raising=False)
    else:
        monkeypatch.setenv("HK_MPI", value)
    assert default_mpi() == expected


def test_default_mpi_rejects_unknown(monkeypatch):
    monkeypatch.setenv("HK_MPI", "lam")
    with pytest.raises(UsageError, match="HK_MPI=lam is not one of auto"):
        default_mpi()


# Each rank owns the host's cores shared evenly (hk_launch_map_compute's model), so scatter can spread.
@pytest.mark.parametrize("cores,np,threads,pe", [
    (8, 2, 2, 4),   # 2 ranks share 8 cores: 4 each, 2 threads placed inside them
    (8, 1, 4, 8),   # 1 rank owns the node
    (8, 3, 2, 2),   # 8 // 3 = 2 cores each
    (2, 2, 1, 1),   # this machine
    (None, 2, 3, 3),  # unknown hosts: one core per thread
])
def test_cores_per_rank_share_the_host(cores, np, threads, pe):
    spec = LaunchSpec(binary="/b/app", np=np, threads=threads, bind="scatter", cores_per_host=cores)
    assert spec.pe == pe
    ompi = launcher_for("mpirun", "openmpi", which=lambda name: name, euid=1000).build(spec)
    assert f"slot:PE={pe}" in ompi.argv and "OMP_PROC_BIND=spread" in ompi.argv
    mpich = launcher_for("mpirun", "mpich", which=lambda name: name, euid=1000).build(spec)
    assert f"core:{pe}" in mpich.argv
    srun = launcher_for("srun", "openmpi", which=lambda name: name, euid=1000).build(spec)
    assert srun.argv[1:5] == ["-n", str(np), "-c", str(pe)]


def test_vcluster_launch_line():
    from hybridkit.launch.launchers import Vcluster

    spec = LaunchSpec(binary="/b/app", args=["--no-tree"], np=4, threads=2, bind="compact")
    launch = Vcluster("/repo/tools/vcluster/vcluster", nodes=2, euid=1000).build(spec)
    assert launch.argv == ["/repo/tools/vcluster/vcluster", "mpirun", "-np", "4", "--map-by",
                           "ppr:2:node", "--oversubscribe", "-x", "OMP_NUM_THREADS=2", "-x",
                           "OMP_PLACES=cores", "-x", "OMP_PROC_BIND=close", "/b/app", "--no-tree"]
    # 3 ranks on 2 nodes: blocks of 2 (node0: ranks 0 1, node1: rank 2)
    spec3 = LaunchSpec(binary="/b/app", np=3, threads=1)
    assert "ppr:2:node" in Vcluster("/vc", nodes=2, euid=1000).build(spec3).argv
