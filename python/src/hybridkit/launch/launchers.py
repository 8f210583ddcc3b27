"""Launchers: turn one LaunchSpec (binary, R ranks x T threads, binding) into a command line.

Each launcher is a class in LAUNCHERS; `hybridkit run --launcher L --mpi M` picks the
first class whose `command` is L and whose `mpi` is M (or None: any). A launcher only
builds `Launch(argv, env, rank_env, warnings)`; running it is hybridkit.study.rundir's job.

    LaunchSpec --build()--> argv  e.g. mpirun.openmpi -np 2 --map-by slot:PE=2 --bind-to core
                                       -x OMP_NUM_THREADS=2 -x OMP_PLACES=cores ... BINARY ARGS
                            env       variables set in the launcher's own environment
                            rank_env  OMP_* every rank gets (carried by -x / -genv / --export)

Binding (same meaning for every launcher; the model of hk_launch_map_compute in src/topo/map.c,
so `hk-topology --dry-run` shows what a launch gets):
    each rank owns S = max(T, cores per host / ranks per host) consecutive cores (S = T when
    the hosts' core count is unknown); inside them its T threads are placed:
    compact  threads OMP_PROC_BIND=close on OMP_PLACES=cores (the first T cores)
    scatter  threads OMP_PROC_BIND=spread (spread over the S cores)
    none     no process binding, no OMP_PLACES/OMP_PROC_BIND (OMP_NUM_THREADS still set)
An oversubscribed spec (more R x T than cores) always runs unbound, with a warning.
"""

from __future__ import annotations

import math
import re
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Type

from hybridkit.errors import HKError, UsageError
from hybridkit.launch import mpivendor

BINDS = ("compact", "scatter", "none")
# --mpi / HK_MPI: the launcher family (mpivendor.FAMILY maps each vendor, MVAPICH and
# unknown MPIs to mpich's); HK_MPI=auto or unset: the MPI of the mpicc on PATH
MPIS = ("openmpi", "mpich", "intelmpi", "cray-mpich")

# OMP_PROC_BIND of each binding that pins threads
PROC_BIND = {"compact": "close", "scatter": "spread"}


@dataclass(frozen=True)
class LaunchSpec:
    """What to run. `oversubscribe` means: R x T exceeds the cores, run without binding."""

    binary: str
    args: Sequence[str] = ()
    np: int = 1
    threads: int = 1
    bind: str = "compact"
    mpi: str = "openmpi"
    hosts: Sequence[str] = ()
    hostfile: Optional[str] = None
    oversubscribe: bool = False
    cores_per_host: Optional[int] = None  # known for the local machine only
    env: Dict[str, str] = field(default_factory=dict)  # more variables every rank gets

    def __post_init__(self) -> None:
        if self.np < 1:
            raise UsageError(f"--np must be >= 1, got {self.np}")
        if self.threads < 1:
            raise UsageError(f"--threads must be >= 1, got {self.threads}")
        if self.bind not in BINDS:
            raise UsageError(f"unknown binding {self.bind!r} (choose from {', '.join(BINDS)})")
        if self.mpi not in MPIS:
            raise UsageError(f"unknown MPI {self.mpi!r} (choose from {', '.join(MPIS)})")
        if self.hosts and self.hostfile:
            raise UsageError("give --hosts or --hostfile, not both")

    @property
    def pinned(self) -> bool:
        """True when processes and threads are bound to cores."""
        return self.bind != "none" and not self.oversubscribe

    @property
    def ranks_per_host(self) -> int:
        return math.ceil(self.np / len(self.hosts)) if self.hosts else self.np

    @property
    def pe(self) -> int:
        """Cores each rank owns: the host's cores shared evenly, at least one per thread."""
        if not self.cores_per_host:
            return self.threads
        return max(self.threads, self.cores_per_host // self.ranks_per_host)

    def rank_env(self) -> Dict[str, str]:
        """The environment every rank gets: OMP_* and the spec's own `env`."""
        env = {"OMP_NUM_THREADS": str(self.threads)}
        if self.pinned:
            env["OMP_PLACES"] = "cores"
            env["OMP_PROC_BIND"] = PROC_BIND[self.bind]
        env.update(self.env)
        return env


@dataclass
class Launch:
    """A command line ready to run."""

    argv: List[str]
    env: Dict[str, str] = field(default_factory=dict)
    rank_env: Dict[str, str] = field(default_factory=dict)
    warnings: List[str] = field(default_factory=list)

    def shell_line(self) -> str:
        """One shell-quoted line: the env assignments, then the argv."""
        assigns = [f"{k}={shlex.quote(v)}" for k, v in self.env.items()]
        return " ".join(assigns + [shlex.join(self.argv)])


class Launcher:
    """Base class: a program to find on PATH and the flags it needs."""

    command = ""  # value of --launcher
    mpi: Optional[str] = None  # value of --mpi it serves, None: any
    programs: Tuple[str, ...] = ()  # candidates, the first one on PATH wins
    unbound_flag = ""  # how the warning names "binding is off"
    env_prefixes: Tuple[str, ...] = ()  # its variables worth keeping with a run's provenance
    yields_oversubscribed = False  # waiting ranks yield when oversubscribed (MPICH polls)

    def __init__(self, which: Optional[Callable[[str], Optional[str]]] = None,
                 euid: Optional[int] = None) -> None:
        self.which = which or shutil.which
        self.euid = os.geteuid() if euid is None else euid

    def program(self) -> str:
        """Name of the launcher program: the first candidate on PATH, else the first."""
        for name in self.programs:
            if self.which(name):
                return name
        return self.programs[0]

    # `--version` marks of another MPI's plain mpirun/mpiexec (it would start singletons)
    foreign_marks: Tuple[str, ...] = ()

    def check_available(self) -> None:
        """Raise HKError when none of the candidate programs is installed, or when the one
        found is a plain mpirun/mpiexec that says it is another MPI's."""
        if not any(self.which(name) for name in self.programs):
            raise HKError(f"launcher not found: none of {', '.join(self.programs)} is on PATH")
        program = self.program()
        if program in ("mpirun", "mpiexec") and self.foreign_marks:
            first = mpivendor.foreign_launcher(self.which(program) or program,
                                               self.foreign_marks)
            if first is not None:
                raise HKError(f"--mpi {self.mpi}: the {program} on PATH is another MPI's "
                              f"({first!r}; {', '.join(self.programs[:-1])} not found): load "
                              f"or install {self.mpi}'s launcher, or pick the MPI of that "
                              f"{program} with --mpi / HK_MPI")

    def build(self, spec: LaunchSpec) -> Launch:
        launch = Launch(argv=[self.program(), *self.flags(spec), spec.binary, *spec.args],
                        env=self.env(spec), rank_env=spec.rank_env())
        if spec.oversubscribe:
            launch.warnings.append(
                f"oversubscribed ({spec.np} ranks x {spec.threads} threads): binding is off "
                f"({self.unbound_flag}), timings will not be representative")
        return launch

    def flags(self, spec: LaunchSpec) -> List[str]:
        raise NotImplementedError

    def env(self, spec: Optional[LaunchSpec] = None) -> Dict[str, str]:
        return {}


class OpenMPI(Launcher):
    """Open MPI's mpirun: map T cores per rank, bind ranks to them, export OMP_* with -x."""

    command, mpi = "mpirun", "openmpi"
    env_prefixes = ("OMPI_MCA",)
    yields_oversubscribed = True
    foreign_marks = ("HYDRA", "Intel(R) MPI")  # MPICH's / Intel MPI's mpiexec --version
    programs = ("mpirun.openmpi", "mpirun")
    unbound_flag = "--bind-to none"

    def flags(self, spec: LaunchSpec) -> List[str]:
        flags = ["-np", str(spec.np)]
        if spec.hosts:
            flags += ["--host", ",".join(f"{h}:{spec.ranks_per_host}" for h in spec.hosts)]
        elif spec.hostfile:
            flags += ["--hostfile", spec.hostfile]
        if spec.oversubscribe:
            flags += ["--oversubscribe", "--bind-to", "none"]
        else:
            flags += ["--map-by", f"slot:PE={spec.pe}",
                      "--bind-to", "core" if spec.pinned else "none"]
        for key, value in spec.rank_env().items():
            flags += ["-x", f"{key}={value}"]
        return flags

    def env(self, spec: Optional[LaunchSpec] = None) -> Dict[str, str]:
        """Open MPI refuses to start as root (even a singleton) without these."""
        if self.euid == 0:
            return {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        return {}


class MPICH(Launcher):
    """MPICH's Hydra mpiexec: -bind-to core:T gives each rank T cores, OMP_* with -genv."""

    command, mpi = "mpirun", "mpich"
    env_prefixes = ("MPICH_", "HYDRA_")
    foreign_marks = ("OpenRTE", "Open MPI", "Intel(R) MPI")
    programs = ("mpiexec.mpich", "mpiexec.hydra", "mpiexec")  # plain: a site's MPICH module
    unbound_flag = "-bind-to none"

    @staticmethod
    def placement(spec: LaunchSpec) -> List[str]:
        """Hydra's rank count and hosts (-n, -hosts/-ppn or -f), Intel MPI's too."""
        flags = ["-n", str(spec.np)]
        if spec.hosts:
            flags += ["-hosts", ",".join(spec.hosts), "-ppn", str(spec.ranks_per_host)]
        elif spec.hostfile:
            flags += ["-f", spec.hostfile]
        return flags

    def flags(self, spec: LaunchSpec) -> List[str]:
        flags = self.placement(spec)
        flags += ["-bind-to", f"core:{spec.pe}" if spec.pinned else "none"]
        for key, value in spec.rank_env().items():
            flags += ["-genv", key, value]
        return flags


class IntelMPI(Launcher):
    """Intel MPI's mpiexec (Hydra-derived: -n, -hosts/-ppn, -f, -genv). Intel MPI pins by its
    own variables, not Hydra's -bind-to: I_MPI_PIN_DOMAIN=S:compact gives each rank a domain
    of S consecutive cores (OMP_PLACES/OMP_PROC_BIND place the threads inside it), I_MPI_PIN=0
    unbinds; they go to every rank with -genv like OMP_*. Built from Intel MPI's documented
    variables, not run here (no Intel MPI on this machine: test_launch_vendors.py checks the
    command line only)."""

    command, mpi = "mpirun", "intelmpi"
    env_prefixes = ("I_MPI_",)
    foreign_marks = ("OpenRTE", "Open MPI")
    programs = ("mpiexec.hydra", "mpiexec", "mpirun")
    unbound_flag = "I_MPI_PIN=0"

    def flags(self, spec: LaunchSpec) -> List[str]:
        flags = MPICH.placement(spec)
        pin = {"I_MPI_PIN": "1", "I_MPI_PIN_DOMAIN": f"{spec.pe}:compact"} if spec.pinned \
            else {"I_MPI_PIN": "0"}
        for key, value in {**pin, **spec.rank_env()}.items():
            flags += ["-genv", key, value]
        return flags


def srun_binding_flags(spec: LaunchSpec) -> List[str]:
    """srun's tail of every launch: a rank that dies ends the step (--kill-on-bad-exit=1;
    srun's default leaves the others blocked in MPI: a rank's SIGSEGV in MPI_Init hung a batch
    job until its sweep's timeout, docs/vcluster.md), overcommit when oversubscribed, the cores
    bound (or not), the ranks' OMP_* exported."""
    flags = ["--kill-on-bad-exit=1"]
    flags += ["--overcommit"] if spec.oversubscribe else []
    flags += ["--cpu-bind=cores" if spec.pinned else "--cpu-bind=none"]
    exports = ",".join(f"{k}={v}" for k, v in spec.rank_env().items())
    return flags + [f"--export=ALL,{exports}"]


class Srun(Launcher):
    """Slurm's srun: -c T cores per task, --cpu-bind, OMP_* through --export."""

    env_prefixes = ("SLURM_",)
    command, mpi = "srun", None
    programs = ("srun",)
    unbound_flag = "--cpu-bind=none"

    def flags(self, spec: LaunchSpec) -> List[str]:
        flags = ["-n", str(spec.np), "-c", str(spec.pe)]
        if spec.hosts:
            flags += [f"--nodelist={','.join(spec.hosts)}", "-N", str(len(spec.hosts))]
        elif spec.hostfile:
            flags += [f"--nodefile={spec.hostfile}"]
        return flags + srun_binding_flags(spec)

    def env(self, spec: Optional[LaunchSpec] = None) -> Dict[str, str]:
        """The ranks' variables also in srun's own environment: Slurm 22.05 keeps a variable
        the caller already has over the value --export=ALL,VAR=value gives it (measured:
        OMP_NUM_THREADS=1 in the caller's environment won over --export=ALL,OMP_NUM_THREADS=2)."""
        return dict(spec.rank_env()) if spec is not None else {}


class CrayMPICH(Srun):
    """Cray MPICH (HPE Cray EX): its launcher is Slurm's srun (there is no mpirun), so
    `--launcher mpirun --mpi cray-mpich` (and auto) launch with srun: -c S cores per task,
    --cpu-bind=cores (none when unbound), OMP_* exported. Not run here (no Cray PE)."""

    command, mpi = "mpirun", "cray-mpich"


class Vcluster(Launcher):
    """Open MPI across the emulated nodes of tools/vcluster (`vcluster mpirun`): ranks fill the
    nodes in blocks (ppr:S:node), binding off (every emulated node sees the same cores)."""

    command, mpi = "vcluster", "openmpi"
    unbound_flag = "vcluster: binding off"
    yields_oversubscribed = True  # Open MPI's mpirun --oversubscribe

    def __init__(self, tool: str, nodes: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tool = tool
        self.nodes = nodes
        self.programs = (tool,)

    def program(self) -> str:
        return self.tool

    def flags(self, spec: LaunchSpec) -> List[str]:
        per_node = math.ceil(spec.np / self.nodes)
        flags = ["mpirun", "-np", str(spec.np), "--map-by", f"ppr:{per_node}:node",
                 "--oversubscribe"]
        for key, value in spec.rank_env().items():
            flags += ["-x", f"{key}={value}"]
        return flags


class VclusterSrun(Launcher):
    """Slurm's srun across the emulated nodes of `vcluster up N --slurm` (`vcluster srun`):
    -N nodes, -c T cores per task bound with --cpu-bind=cores, OMP_* through --export, the
    MPI's process-management interface as Debian's builds support it under srun (Open MPI:
    pmix, MPICH: pmi2; measured in docs/vcluster.md)."""

    command = "srun"
    unbound_flag = "--cpu-bind=none"
    env_prefixes = ("SLURM_",)
    PMI = {"openmpi": "pmix", "mpich": "pmi2"}

    def __init__(self, tool: str, nodes: int, mpi: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tool, self.nodes, self.mpi = tool, nodes, mpi
        self.programs = (tool,)

    def program(self) -> str:
        return self.tool

    def flags(self, spec: LaunchSpec) -> List[str]:
        nodes = min(self.nodes, spec.np)
        flags = ["srun", "-N", str(nodes), "-n", str(spec.np), "-c", str(spec.threads),
                 f"--mpi={self.PMI[self.mpi]}"]
        return flags + srun_binding_flags(spec)

    env = Srun.env


class SbatchWrap(Launcher):
    """`sweep --submit`: every run a batch job, `sbatch --wait` with the srun line of the
    wrapped launcher as its script (--wrap); the job's output in <run dir>/job.txt, sbatch's
    exit status the job's. Waiting in sbatch keeps the sweep's collecting and resuming as
    they are for local runs."""

    command = "sbatch"
    env_prefixes = ("SLURM_",)

    def __init__(self, inner: Launcher, nodes: int = 1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.inner, self.nodes = inner, nodes
        self.programs = inner.programs
        self.unbound_flag = inner.unbound_flag
        self.yields_oversubscribed = inner.yields_oversubscribed

    def program(self) -> str:
        return self.inner.program()

    def build(self, spec: LaunchSpec) -> Launch:
        inner = self.inner.build(spec)
        argv = inner.argv
        prefix, srun = (argv[:1], argv[1:]) if argv[1:2] == ["srun"] else ([], argv)
        out = "job-%j.txt"
        if "--output" in spec.args:
            out = str(Path(spec.args[spec.args.index("--output") + 1]).parent / "job.txt")
        job = ["sbatch", "--wait", "--parsable", f"--output={out}", "-J", Path(spec.binary).name,
               "-N", str(min(self.nodes, spec.np)), "-n", str(spec.np), "-c", str(spec.threads),
               "--wrap", shlex.join(srun)]
        return Launch(argv=prefix + job, env=inner.env, rank_env=inner.rank_env,
                      warnings=inner.warnings)


class Replay(Launcher):
    """Test launcher, no MPI: replays the run directory $HK_REPLAY_DIR (see replay.py)."""

    command, mpi = "replay", None
    programs = (sys.executable,)
    unbound_flag = "replay"
    yields_oversubscribed = True  # no MPI: nothing polls

    def flags(self, spec: LaunchSpec) -> List[str]:
        replay_dir = os.environ.get("HK_REPLAY_DIR")
        if not replay_dir:
            raise UsageError("--launcher replay needs HK_REPLAY_DIR (a recorded run directory)")
        return [str(Path(__file__).with_name("replay.py")), replay_dir, "--"]

    def program(self) -> str:
        return sys.executable


LAUNCHERS: Tuple[Type[Launcher], ...] = (OpenMPI, MPICH, IntelMPI, CrayMPICH, Srun, Replay)

LAUNCHER_HELP = {
    "auto": "srun inside a Slurm allocation (SLURM_JOB_ID set, srun on PATH), else mpirun",
    "mpirun": "the launcher of the MPI chosen by --mpi (mpirun.openmpi / mpiexec.mpich / "
              "Intel MPI's mpiexec / Cray MPICH's srun)",
    "srun": "Slurm srun (inside an allocation; with --vcluster N: the emulated nodes' own Slurm)",
    "replay": "testing: replay the run directory $HK_REPLAY_DIR, no MPI",
}


def launcher_names() -> List[str]:
    names: List[str] = []
    for cls in LAUNCHERS:
        if cls.command not in names:
            names.append(cls.command)
    return names


def resolve_launcher(name: str, environ: Optional[Dict[str, str]] = None) -> str:
    """--launcher auto: srun inside a Slurm allocation (SLURM_JOB_ID set and srun on PATH),
    else mpirun; any other name as given."""
    if name != "auto":
        return name
    env = os.environ if environ is None else environ
    return "srun" if env.get("SLURM_JOB_ID") and shutil.which("srun") else "mpirun"


def slurm_allocation(environ: Optional[Dict[str, str]] = None
                     ) -> Optional[Tuple[Tuple[str, ...], int]]:
    """(hosts, CPUs per node) of the Slurm allocation this runs in, None outside one.
    Hosts: SLURM_JOB_NODELIST expanded by `scontrol show hostnames`; CPUs: the smallest
    count of SLURM_JOB_CPUS_PER_NODE ("36(x2),24" -> 24; Slurm's CPUs, hardware threads
    where the nodes are configured so)."""
    env = os.environ if environ is None else environ
    if not env.get("SLURM_JOB_ID"):
        return None
    nodelist, per_node = env.get("SLURM_JOB_NODELIST", ""), env.get("SLURM_JOB_CPUS_PER_NODE", "")
    counts = [int(m) for m in re.findall(r"(\d+)(?:\(x\d+\))?", per_node)]
    if not nodelist or not counts:
        raise HKError(f"Slurm allocation {env['SLURM_JOB_ID']}: SLURM_JOB_NODELIST or "
                      "SLURM_JOB_CPUS_PER_NODE missing")
    try:
        proc = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HKError(f"scontrol show hostnames {nodelist}: {exc}") from None
    hosts = tuple(h for h in proc.stdout.split() if h)
    if proc.returncode != 0 or not hosts:
        raise HKError(f"scontrol show hostnames {nodelist} failed: "
                      f"{(proc.stderr or proc.stdout).strip() or 'no hosts'}")
    return hosts, min(counts)


def launcher_for(command: str, mpi: str, **kwargs) -> Launcher:
    """The launcher for `--launcher COMMAND --mpi MPI`."""
    for cls in LAUNCHERS:
        if cls.command == command and cls.mpi in (None, mpi):
            return cls(**kwargs)
    raise UsageError(f"unknown launcher {command!r} for --mpi {mpi} "
                     f"(choose from {', '.join(launcher_names())})")


def provenance_env(environ: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The variables of `environ` (default os.environ) that shape a run: hybridkit's
    (HK_*), OpenMP's (OMP_*), PATH, and those of every launcher (its env_prefixes)."""
    environ = dict(os.environ if environ is None else environ)
    prefixes = ("HK_", "OMP_", *(p for cls in LAUNCHERS for p in cls.env_prefixes))
    return {k: v for k, v in environ.items() if k.startswith(prefixes) or k == "PATH"}


def singleton_env(mpi: str) -> Dict[str, str]:
    """What a binary of MPI library `mpi` needs in its environment to start without a
    launcher (a singleton, e.g. hk-topology printing the machine)."""
    return OpenMPI().env() if mpi == "openmpi" else {}


_detected: Dict[Tuple[str, str, str], str] = {}


def detected_mpi(environ: Optional[Dict[str, str]] = None) -> str:
    """HK_MPI=auto: the launcher family of the mpicc on PATH (mpivendor.detect; openmpi when
    there is none), probed once per PATH."""
    env = os.environ if environ is None else environ
    key = (env.get("PATH", ""), env.get("CRAY_MPICH_DIR", ""), env.get("CRAY_MPICH_VERSION", ""))
    if key not in _detected:
        _detected[key] = mpivendor.detect(env).mpi
    return _detected[key]


def default_mpi() -> str:
    """--mpi default: $HK_MPI (make exports it resolved); auto or unset: detected_mpi()."""
    mpi = os.environ.get("HK_MPI", "").strip() or "auto"
    if mpi == "auto":
        return detected_mpi()
    if mpi not in MPIS:
        raise UsageError(f"HK_MPI={mpi} is not one of auto, {', '.join(MPIS)}")
    return mpi
