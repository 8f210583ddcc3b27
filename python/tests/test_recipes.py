"""contrib/spack and contrib/easybuild (issue 41) agree with the build they package: every
option of CMakeLists.txt is a Spack variant passed by define_from_variant (HK_SMPI: fixed off)
and an EasyBuild configure option; every library CMake looks up (MPI, hwloc, jansson with their
minimum versions, cmake_minimum_required) is a dependency of both; the Python front end's
dependencies (python/pyproject.toml) too.  Text checks: neither Spack nor EasyBuild is needed
(`eb --dry-run` is not run here)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Tuple

ROOT = Path(__file__).resolve().parents[2]
CMAKE = (ROOT / "CMakeLists.txt").read_text()
SPACK = (ROOT / "contrib" / "spack" / "packages" / "hybridkit" / "package.py").read_text()
EB_FILE = ROOT / "contrib" / "easybuild" / "hybridkit-0.1.0-foss-2023a.eb"
# Python packages an easyconfig of the toolchain generation has only inside a bundle
EB_BUNDLED = {"rich": "python-bundle-pypi"}


def version(text: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def cmake_options() -> Dict[str, str]:
    return dict(re.findall(r'option\((HK_\w+) "[^"]*" (ON|OFF)\)', CMAKE))


def cmake_libraries() -> Dict[str, str]:
    """pkg-config module -> minimum version"""
    return dict(re.findall(r"pkg_check_modules\(\w+ REQUIRED IMPORTED_TARGET (\w+)>=([\d.]+)\)",
                           CMAKE))


def easyconfig() -> dict:
    ns: dict = {}
    exec(compile(EB_FILE.read_text(), str(EB_FILE), "exec"), {}, ns)  # an easyconfig is Python
    return ns


def pyproject_deps() -> Dict[str, str]:
    text = (ROOT / "python" / "pyproject.toml").read_text()
    block = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    deps = {}
    for name, ver in re.findall(r'"([A-Za-z_-]+)(?:>=([\d.]+))?[^"]*"', block):
        deps[name] = ver
    return deps


def test_cmake_side_is_what_the_recipes_assume():
    assert set(cmake_options()) == {"HK_BUILD_TESTS", "HK_BUILD_TOOLS", "HK_NATIVE", "HK_SMPI"}
    assert cmake_libraries() == {"hwloc": "2.0", "jansson": "2.13"}
    assert "find_package(MPI REQUIRED COMPONENTS C)" in CMAKE


def test_spack_variants_and_dependencies():
    defined = dict(re.findall(r'define_from_variant\("(HK_\w+)", "(\w+)"\)', SPACK))
    variants = set(re.findall(r'variant\("(\w+)"', SPACK))
    for opt in cmake_options():
        if opt == "HK_SMPI":
            assert 'self.define("HK_SMPI", False)' in SPACK
            continue
        assert opt in defined, f"{opt}: no define_from_variant in package.py"
        assert defined[opt] in variants
    deps = dict(re.findall(r'depends_on\("([\w-]+)(?:@([\d.]+):)?"', SPACK))
    for lib, minimum in cmake_libraries().items():
        assert deps.get(lib) == minimum, f"{lib}@{minimum}: not a dependency of package.py"
    assert "mpi" in deps and deps["cmake"] == re.search(r"cmake_minimum_required\(VERSION ([\d.]+)",
                                                         CMAKE).group(1)
    for name, minimum in pyproject_deps().items():
        if name == "tomli":  # Python < 3.11 only; spack's python is newer
            continue
        assert f"py-{name}" in deps, f"py-{name} missing"
        assert deps[f"py-{name}"] in (None, "", minimum), (name, deps[f"py-{name}"], minimum)


def test_easyconfig_options_and_dependencies():
    eb = easyconfig()
    opts = dict(re.findall(r"-D(HK_\w+)=(\w+)", eb["configopts"]))
    assert set(opts) == set(cmake_options()), opts
    assert opts["HK_SMPI"] == "OFF" and opts["HK_BUILD_TESTS"] == "OFF"
    deps = {name.lower(): ver for name, ver, *_ in eb["dependencies"]}
    build = {name.lower(): ver for name, ver, *_ in eb["builddependencies"]}
    for lib, minimum in cmake_libraries().items():
        assert lib in deps and version(deps[lib]) >= version(minimum), (lib, deps.get(lib))
    cmake_min = re.search(r"cmake_minimum_required\(VERSION ([\d.]+)", CMAKE).group(1)
    assert version(build["cmake"]) >= version(cmake_min)
    assert "pkgconf" in build
    assert eb["toolchain"]["name"] in ("gompi", "foss", "iimpi", "intel")  # with an MPI
    for name in pyproject_deps():
        if name != "tomli":
            assert EB_BUNDLED.get(name.lower(), name.lower()) in deps, \
                f"{name} missing from the easyconfig"
    assert "bin/hybridkit" in eb["sanity_check_paths"]["files"]
