"""HK_MPI=auto (issue 41 item 2): the MPI of the mpicc on PATH, found by preprocessing mpi.h
(hybridkit.launch.mpivendor), decides HK_MPI, make's preset and the CLI's launcher.

Fake wrappers on PATH answer `mpicc -E -dM -x c -` (stdin '#include <mpi.h>') with the macros
each vendor's mpi.h defines (the MPICH derivatives define MPICH_VERSION too) and fail for any
other call, so the probe's exact command is checked as well. make itself is checked with
`make print-mpi` (what configure would pass to CMake)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hybridkit.launch import launchers, mpivendor

ROOT = Path(__file__).resolve().parents[2]

MACROS = {
    "openmpi": ['#define OPEN_MPI 1', '#define OMPI_MAJOR_VERSION 4'],
    "mpich": ['#define MPICH_VERSION "4.0.2"', '#define MPICH_NUMVERSION 40002300'],
    "intelmpi": ['#define MPICH_VERSION "3.4a2"', '#define I_MPI_VERSION "2021.10.0"'],
    "mvapich": ['#define MPICH_VERSION "3.2.1"', '#define MVAPICH2_VERSION "2.3.7"'],
    "cray-mpich": ['#define MPICH_VERSION "3.4a2"', '#define CRAY_MPICH_VERSION 8.1.27'],
    "other": ['#define MPI_VERSION 3'],
}
# vendor -> (HK_MPI, preset, the launcher beside the wrapper)
EXPECTED = {"openmpi": ("openmpi", "release", "mpirun"),
            "mpich": ("mpich", "mpich-release", "mpiexec"),
            "intelmpi": ("intelmpi", "mpich-release", "mpiexec"),
            "mvapich": ("mpich", "mpich-release", "mpiexec"),
            "cray-mpich": ("cray-mpich", "release", "srun"),
            "other": ("mpich", "release", "mpiexec")}


def fake_wrapper(d: Path, vendor: str, name: str = "mpicc") -> Path:
    """`name` in d answering the probe with the vendor's macros; launchers beside it."""
    d.mkdir(parents=True, exist_ok=True)
    lines = "\\n".join(MACROS[vendor]).replace('"', '\\"')
    script = d / name
    script.write_text(
        "#!/bin/sh\n"
        '[ "$*" = "-E -dM -x c -" ] || exit 1\n'
        'read -r line; [ "$line" = "#include <mpi.h>" ] || exit 1\n'
        f'printf "#define __STDC__ 1\\n{lines}\\n"\n')
    script.chmod(0o755)
    for launcher in ("mpirun", "mpiexec", "srun"):
        (d / launcher).write_text("#!/bin/sh\nexit 0\n")
        (d / launcher).chmod(0o755)
    return script


@pytest.mark.parametrize("vendor", sorted(MACROS))
def test_vendor_of_each_wrapper(tmp_path, vendor):
    cc = fake_wrapper(tmp_path / "bin", vendor)
    d = mpivendor.detect({"PATH": str(tmp_path / "bin")})
    mpi, preset, launcher = EXPECTED[vendor]
    assert d == (vendor, mpi, preset, str(cc), str(tmp_path / "bin" / launcher))


def test_the_launcher_on_path_when_none_beside(tmp_path):
    cc = fake_wrapper(tmp_path / "mpi", "intelmpi")
    (tmp_path / "mpi" / "mpiexec").unlink()
    (tmp_path / "mpi" / "mpirun").unlink()
    other = tmp_path / "other"
    other.mkdir()
    (other / "mpiexec").write_text("#!/bin/sh\n")
    (other / "mpiexec").chmod(0o755)
    d = mpivendor.detect({"PATH": f"{tmp_path / 'mpi'}:{other}"})
    assert (d.vendor, d.mpicc, d.launcher) == ("intelmpi", str(cc), str(other / "mpiexec"))


def test_no_wrapper_means_open_mpi(tmp_path):
    assert mpivendor.detect({"PATH": str(tmp_path)}) == ("none", "openmpi", "release", "", "")


def test_cray_cc_with_the_module_loaded(tmp_path):
    cc = fake_wrapper(tmp_path / "bin", "cray-mpich", name="cc")
    path = {"PATH": str(tmp_path / "bin")}
    assert mpivendor.detect(path).vendor == "none"  # cc without cray-mpich loaded: not an MPI
    d = mpivendor.detect({**path, "CRAY_MPICH_DIR": "/opt/cray/pe/mpich/8.1.27/ofi/gnu/9.1"})
    assert (d.vendor, d.mpi, d.mpicc, d.launcher) == ("cray-mpich", "cray-mpich", str(cc),
                                                        str(tmp_path / "bin" / "srun"))


def test_a_wrapper_that_fails_is_another_mpi(tmp_path):
    d = tmp_path / "bin"
    d.mkdir()
    (d / "mpicc").write_text("#!/bin/sh\necho 'mpi.h: No such file' >&2\nexit 1\n")
    (d / "mpicc").chmod(0o755)
    assert mpivendor.detect({"PATH": str(d)})[:3] == ("other", "mpich", "release")


def test_the_real_wrappers():
    """This machine's Debian wrappers, where installed: the probe on real headers."""
    for name, vendor in (("mpicc.openmpi", "openmpi"), ("mpicc.mpich", "mpich")):
        if shutil.which(name):
            assert mpivendor.probe(shutil.which(name)) == vendor


@pytest.mark.parametrize("vendor", ["openmpi", "mpich", "intelmpi", "cray-mpich"])
def test_default_mpi_auto_follows_the_wrapper(tmp_path, monkeypatch, vendor):
    fake_wrapper(tmp_path / "bin", vendor)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    for value in ("auto", None):
        if value is None:
            monkeypatch.delenv("HK_MPI", raising=False)
        else:
            monkeypatch.setenv("HK_MPI", value)
        assert launchers.default_mpi() == EXPECTED[vendor][0]
    monkeypatch.setenv("HK_MPI", "mpich")  # given: no probe
    assert launchers.default_mpi() == "mpich"


def make_print(tmp_path: Path, path: str, **env: str) -> subprocess.CompletedProcess:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    e = {"PATH": path, "HOME": str(tmp_path), "PYTHON": sys.executable, **env}
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "print-mpi"],
                          env=e, capture_output=True, text=True, timeout=60)


def resolved(out: str) -> dict:
    last = out.strip().splitlines()[-1]
    return dict(w.split("=", 1) for w in last.split())


@pytest.mark.parametrize("vendor", ["openmpi", "mpich", "intelmpi", "cray-mpich"])
def test_make_auto_picks_the_preset(tmp_path, vendor):
    cc = fake_wrapper(tmp_path / "bin", vendor)
    proc = make_print(tmp_path, f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    assert proc.returncode == 0, proc.stderr
    mpi, preset, launcher = EXPECTED[vendor]
    assert proc.stdout.count("HK_MPI=auto: using") == 1
    assert f"HK_MPI=auto: using {vendor} ({cc}); HK_MPI={mpi}, build/{preset}" in proc.stdout
    assert resolved(proc.stdout) == {"HK_MPI": mpi, "PRESET": preset,
                                     "BUILD_DIR": f"build/{preset}", "HK_MPICC": str(cc),
                                     "HK_MPIEXEC": str(tmp_path / "bin" / launcher)}


def test_make_auto_keeps_the_presets_own_wrapper(tmp_path):
    real = shutil.which("mpicc.mpich")
    if real is None:
        pytest.skip("Debian's MPICH (mpicc.mpich) is not installed")
    d = tmp_path / "bin"
    d.mkdir()
    (d / "mpicc").symlink_to(real)  # what Debian's alternatives make of mpicc
    proc = make_print(tmp_path, f"{d}:{os.environ['PATH']}")
    assert resolved(proc.stdout) == {"HK_MPI": "mpich", "PRESET": "mpich-release",
                                     "BUILD_DIR": "build/mpich-release", "HK_MPICC": "",
                                     "HK_MPIEXEC": ""}


def test_make_auto_without_any_mpi_is_open_mpi(tmp_path):
    d = tmp_path / "bin"
    d.mkdir()
    for tool in ("sh", "make"):
        (d / tool).symlink_to(shutil.which(tool))
    proc = make_print(tmp_path, str(d))
    assert "HK_MPI=auto: using Open MPI (no mpicc on PATH" in proc.stdout
    assert resolved(proc.stdout)["PRESET"] == "release"


@pytest.mark.parametrize("given,preset", [("openmpi", "release"), ("mpich", "mpich-release")])
def test_make_given_mpi_does_not_probe(tmp_path, given, preset):
    fake_wrapper(tmp_path / "bin", "intelmpi")
    proc = make_print(tmp_path, f"{tmp_path / 'bin'}:{os.environ['PATH']}", HK_MPI=given)
    assert "HK_MPI=auto" not in proc.stdout
    assert resolved(proc.stdout)["PRESET"] == preset and resolved(proc.stdout)["HK_MPI"] == given
