"""Launch lines of the MPIs HK_MPI=auto may find besides Debian's (issue 41 item 2): Intel MPI
(its mpiexec, pinning by I_MPI_PIN / I_MPI_PIN_DOMAIN) and Cray MPICH (srun, --cpu-bind).
Command lines only: neither MPI is on this machine, so no run checks that the binding holds."""

from __future__ import annotations

import shlex

import pytest

from hybridkit.errors import HKError
from hybridkit.launch.launchers import LaunchSpec, launcher_for, provenance_env


def spec(np=2, threads=1, bind="compact", mpi="intelmpi", hosts=(), hostfile=None,
         oversubscribe=False, cores=None):
    return LaunchSpec(binary="/b/app", args=["-v"], np=np, threads=threads, bind=bind, mpi=mpi,
                      hosts=hosts, hostfile=hostfile, oversubscribe=oversubscribe,
                      cores_per_host=cores)


PIN = "-genv I_MPI_PIN 1 -genv I_MPI_PIN_DOMAIN {pe}:compact -genv OMP_NUM_THREADS {t} " \
      "-genv OMP_PLACES cores -genv OMP_PROC_BIND {pb}"
CASES = [
    ("impi-compact-T2", spec(np=2, threads=2),
     "mpiexec.hydra -n 2 " + PIN.format(pe=2, t=2, pb="close") + " /b/app -v"),
    # each rank owns the host's cores shared evenly: 8 cores / 2 ranks -> domains of 4
    ("impi-scatter-pe4", spec(np=2, threads=2, bind="scatter", cores=8),
     "mpiexec.hydra -n 2 " + PIN.format(pe=4, t=2, pb="spread") + " /b/app -v"),
    ("impi-none", spec(threads=2, bind="none"),
     "mpiexec.hydra -n 2 -genv I_MPI_PIN 0 -genv OMP_NUM_THREADS 2 /b/app -v"),
    ("impi-oversubscribed", spec(threads=2, oversubscribe=True),
     "mpiexec.hydra -n 2 -genv I_MPI_PIN 0 -genv OMP_NUM_THREADS 2 /b/app -v"),
    ("impi-hosts", spec(np=4, hosts=("n1", "n2")),
     "mpiexec.hydra -n 4 -hosts n1,n2 -ppn 2 " + PIN.format(pe=1, t=1, pb="close") + " /b/app -v"),
    ("impi-hostfile", spec(hostfile="h.txt"),
     "mpiexec.hydra -n 2 -f h.txt " + PIN.format(pe=1, t=1, pb="close") + " /b/app -v"),
    ("cray-compact-T2", spec(np=2, threads=2, mpi="cray-mpich"),
     "srun -n 2 -c 2 --kill-on-bad-exit=1 --cpu-bind=cores "
     "--export=ALL,OMP_NUM_THREADS=2,OMP_PLACES=cores,OMP_PROC_BIND=close /b/app -v"),
    ("cray-none", spec(threads=2, bind="none", mpi="cray-mpich"),
     "srun -n 2 -c 2 --kill-on-bad-exit=1 --cpu-bind=none --export=ALL,OMP_NUM_THREADS=2 /b/app -v"),
]


@pytest.mark.parametrize("the_spec,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_command_line(the_spec, expected):
    # --launcher mpirun: the MPI's own launcher (auto outside an allocation resolves to it)
    lau = launcher_for("mpirun", the_spec.mpi, which=lambda n: n, euid=0)
    launch = lau.build(the_spec)
    assert launch.argv == shlex.split(expected)
    assert launch.env == (the_spec.rank_env() if the_spec.mpi == "cray-mpich" else {})
    assert bool(launch.warnings) == the_spec.oversubscribe


@pytest.mark.parametrize("installed,program", [
    ({"mpiexec.hydra", "mpiexec"}, "mpiexec.hydra"), ({"mpiexec", "mpirun"}, "mpiexec"),
    ({"mpirun"}, "mpirun")])
def test_intel_mpi_program(installed, program):
    lau = launcher_for("mpirun", "intelmpi", which=lambda n: n in installed and n)
    assert lau.build(spec()).argv[0] == program


def test_plain_mpiexec_for_a_site_mpich():
    lau = launcher_for("mpirun", "mpich", which=lambda n: n == "mpiexec" and n)
    assert lau.build(spec(mpi="mpich")).argv[0] == "mpiexec"


def test_intel_mpi_variables_kept_with_the_provenance():
    assert provenance_env({"I_MPI_PIN_DOMAIN": "2:compact", "X": "1"}) == \
        {"I_MPI_PIN_DOMAIN": "2:compact"}


@pytest.mark.parametrize("mpi,version,refused", [
    ("mpich", "mpiexec (OpenRTE) 4.1.4\n", True),        # Debian's alternatives, Open MPI first
    ("mpich", "HYDRA build details:\n    Version: 4.0.2\n", False),
    ("openmpi", "HYDRA build details:\n    Version: 4.0.2\n", True),
    ("openmpi", "mpirun (Open MPI) 5.0.3\n", False),
    ("intelmpi", "mpiexec (OpenRTE) 4.1.4\n", True),
    ("mpich", "", False)])                                 # --version fails: not refused
def test_a_plain_launcher_of_another_mpi_is_refused(monkeypatch, mpi, version, refused):
    """--mpi mpich where the only mpiexec on PATH is Open MPI's would start singletons: said
    before anything runs, naming what it found."""
    from hybridkit.launch import mpivendor

    asked = []
    real = mpivendor.subprocess.run

    def fake_run(argv, **kwargs):
        if argv[1:] != ["--version"]:
            return real(argv, **kwargs)
        asked.append(argv[0])
        return mpivendor.subprocess.CompletedProcess(argv, 0 if version else 1, version, "")
    monkeypatch.setattr(mpivendor.subprocess, "run", fake_run)
    lau = launcher_for("mpirun", mpi, which=lambda n: n in ("mpiexec", "mpirun") and f"/x/{n}")
    if refused:
        with pytest.raises(HKError, match="another MPI's"):
            lau.check_available()
    else:
        lau.check_available()
    assert asked and asked[0].startswith("/x/mpi")
    suffixed = launcher_for("mpirun", "mpich", which=lambda n: n == "mpiexec.mpich" and n)
    asked.clear()
    suffixed.check_available()   # a vendor's own name is not asked
    assert asked == []
