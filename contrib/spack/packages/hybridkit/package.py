# contrib/spack/packages/hybridkit/package.py: hybridkit as a Spack package (issue 41).
# Use: `spack repo add contrib/spack` (the repo.yaml beside packages/), then
# `spack install hybridkit ^openmpi` (or ^mpich, or the site's MPI as an external).
# The variants are CMakeLists.txt's options and the dependencies its find_package /
# pkg_check_modules (python/tests/test_recipes.py checks that they agree).
from spack.package import *


class Hybridkit(CMakePackage):
    """Hybrid MPI+OpenMP on clusters of multicore nodes: the hk_ library (thread levels,
    topology and pinning, node-aware Cartesian mapping, halo exchange in every hybrid mode,
    hybrid collectives and their PMPI preload), self-verifying mini-apps, micro-benchmarks
    and the `hybridkit` command line (run, sweep, study, report, advise, profile, check)."""

    homepage = "https://example.org/hybridkit"
    git = "https://example.org/hybridkit.git"

    maintainers("hybridkit-team")
    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("tests", default=False, description="Build the tests (ctest; HK_BUILD_TESTS)")
    variant("tools", default=True, description="Build hk-topology and the other tools (HK_BUILD_TOOLS)")
    variant("native", default=False,
            description="Optimise for the build machine, -march=native (HK_NATIVE)")
    variant("cli", default=True, description="Install the Python front end `hybridkit`")

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("hwloc@2.0:")
    depends_on("jansson@2.13:")
    with when("+cli"):
        extends("python")
        depends_on("python@3.9:", type=("build", "run"))
        depends_on("py-pip", type="build")
        depends_on("py-setuptools@61:", type="build")
        depends_on("py-jsonschema@4:", type="run")
        depends_on("py-matplotlib@3.5:", type="run")
        depends_on("py-rich", type="run")

    def cmake_args(self):
        args = [
            self.define_from_variant("HK_BUILD_TESTS", "tests"),
            self.define_from_variant("HK_BUILD_TOOLS", "tools"),
            self.define_from_variant("HK_NATIVE", "native"),
            self.define("HK_SMPI", False),
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
        ]
        if self.spec.satisfies("+cli"):
            args.append(self.define("HK_PYTHON", self.spec["python"].command.path))
        return args

    @run_after("install")
    def install_cli(self):
        # the front end into the same prefix: it finds the hk-* binaries beside itself
        if self.spec.satisfies("+cli"):
            pip = which(self.spec["python"].command.path)
            pip("-m", "pip", "install", "--no-deps", "--no-build-isolation", "--ignore-installed",
                "--prefix", self.prefix, join_path(self.stage.source_path, "python"))
