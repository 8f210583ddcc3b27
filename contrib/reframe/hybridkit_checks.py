# contrib/reframe/hybridkit_checks.py: ReFrame checks of hybridkit's apps (issue 41), so an HPC
# centre can keep the hybrid layouts of its machines under regression:
#   HkJacobiCheck  hk-jacobi in a hybrid mode at every (ranks x threads) layout: the app's own
#                  verification (bit-identical to its serial reference) as sanity, MLUP/s as
#                  the performance variable
#   HkMcCheck      hk-mc (Monte Carlo, an allreduce per step): its checksum verification as
#                  sanity, allreduce bandwidth (MB/s) as the performance variable
# Parameters: `layout` (pure MPI vs hybrid: "RxT"), `mode` (jacobi). Variables (-S NAME=VALUE):
#   bin_dir     where the hk-* binaries are (default $HK_BIN_DIR, else PATH)
#   mpi         openmpi | mpich | auto (default $HK_MPI, else auto: the MPI of the mpicc on
#               PATH, as make finds it; openmpi when hybridkit is not importable): the
#               binding flags of mpirun
#   references  a JSON file {"<system>:<partition>": {"<check name>": {"<layout>": [ref,
#               lower, upper, unit]}}} of the centre's per-layout references (default none:
#               performance reported, not judged)
# Run: reframe -C contrib/reframe/config.py -c contrib/reframe/hybridkit_checks.py -r
import json
import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, performance_function, run_after, run_before,
                                   sanity_function, variable)

LAYOUTS = os.environ.get("HK_RFM_LAYOUTS", "2x1,1x2").split(",")


def detected_mpi() -> str:
    """The MPI of the mpicc on PATH as hybridkit's make finds it (openmpi, mpich, intelmpi,
    cray-mpich); openmpi when hybridkit is not importable from ReFrame's Python."""
    try:
        from hybridkit.launch.launchers import detected_mpi as detect
    except ImportError:
        return "openmpi"
    return detect()


class HybridkitCheck(rfm.RunOnlyRegressionTest):
    """The launch of one layout: R ranks x T threads, each thread on its own core."""

    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    layout = parameter(LAYOUTS)
    bin_dir = variable(str, value=os.environ.get("HK_BIN_DIR", ""))
    mpi = variable(str, value=os.environ.get("HK_MPI", "") or "auto")
    references = variable(str, value="")
    binary = ""
    perf_name = ""

    @run_after("init")
    def set_shape(self):
        ranks, threads = (int(x) for x in self.layout.split("x"))
        self.num_tasks = ranks
        self.num_cpus_per_task = threads
        self.env_vars = {"OMP_NUM_THREADS": str(threads), "OMP_PLACES": "cores",
                         "OMP_PROC_BIND": "close"}
        self.executable = os.path.join(self.bin_dir, self.binary) if self.bin_dir else self.binary
        self.tags = {"hybridkit", "pure-mpi" if threads == 1 else "hybrid"}

    @run_before("run")
    def set_binding(self):
        # each rank owns T cores, its threads one each (Open MPI binds np <= 2 to one core
        # otherwise and traps the threads there)
        if self.job.launcher.registered_name in ("mpirun", "mpiexec"):
            t = self.num_cpus_per_task
            if self.mpi == "auto":
                self.mpi = detected_mpi()
            self.job.launcher.options = (["--map-by", f"slot:PE={t}", "--bind-to", "core"]
                                         if self.mpi == "openmpi" else ["-bind-to", f"core:{t}"])

    @run_before("performance")
    def set_reference(self):
        if not self.references:
            return
        with open(self.references) as f:
            table = json.load(f)
        for sysname, checks in table.items():
            row = checks.get(type(self).__name__, {}).get(self.layout)
            if row:
                self.reference = {sysname: {self.perf_name: tuple(row)}}

    @sanity_function
    def verified(self):
        return sn.assert_found(r"^# Verification = SUCCESSFUL", self.stdout)


@rfm.simple_test
class HkJacobiCheck(HybridkitCheck):
    descr = "hk-jacobi (3D Jacobi, halo exchange) in a hybrid mode at one layout"
    mode = parameter(os.environ.get("HK_RFM_MODES", "funneled").split(","))
    binary = "hk-jacobi"
    perf_name = "mlups"

    @run_after("init")
    def set_args(self):
        self.executable_opts = ["--mode", self.mode, "--size", os.environ.get("HK_RFM_SIZE", "64"),
                                "--iters", "20"]

    @performance_function("MLUP/s")
    def mlups(self):
        return sn.extractsingle(r"^\s+mlups\s+(\S+) MLUP/s", self.stdout, 1, float)


@rfm.simple_test
class HkMcCheck(HybridkitCheck):
    descr = "hk-mc (Monte Carlo, an allreduce per step) at one layout"
    binary = "hk-mc"
    perf_name = "allreduce_bandwidth"

    @run_after("init")
    def set_args(self):
        self.executable_opts = ["--particles", "20000", "--steps", "5"]

    @performance_function("MB/s")
    def allreduce_bandwidth(self):
        return sn.extractsingle(r"^\s+allreduce_bandwidth\s+(\S+) MB/s", self.stdout, 1, float)
