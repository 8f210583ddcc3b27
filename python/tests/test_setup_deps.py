"""tools/setup-deps.sh without root (issue 41): what the build needs is decided by what it uses
(commands on PATH, pkg-config hwloc jansson, the MPI's wrappers, python3 >= 3.9 with venv),
nothing is installed, and what is missing is named for apt, dnf and Spack in one block (exit 2).

Each case runs the script with PATH = a directory of links to the real tools the case keeps,
HK_SETUP_NO_INSTALL=1 (root here: the non-root path) and, in one case, really as a non-root user
(setpriv, when this is root). A fake apt-get / dpkg-query / sudo first on PATH records any call:
none may happen.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterable, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "setup-deps.sh"
# what the script itself runs, and what the build needs
BASE = ("grep", "sort", "head", "id", "cmake", "make", "cc", "gcc", "pkg-config", "python3")
OPENMPI = ("mpicc.openmpi", "mpirun.openmpi")


def bin_dir(tmp: Path, keep: Iterable[str], links: Optional[Dict[str, str]] = None) -> Path:
    d = tmp / "bin"
    d.mkdir(exist_ok=True)
    for name in keep:
        # python3: the interpreter itself (a PATH's python3 may be a shim script, e.g. pyenv's)
        real = os.path.realpath(sys.executable) if name == "python3" else shutil.which(name)
        if real is None:
            pytest.skip(f"{name} is not installed here")
        (d / name).symlink_to(real)
    for name, target in (links or {}).items():
        (d / name).symlink_to(target)
    calls = tmp / "calls"
    for fake in ("apt-get", "dpkg-query", "sudo"):  # any call is recorded and fails
        # (but `sudo -n true`, the probe for password-less sudo a non-root run makes: no sudo)
        probe = 'if [ "$*" = "-n true" ]; then exit 1; fi\n' if fake == "sudo" else ""
        (d / fake).write_text(f"#!/bin/sh\n{probe}echo {fake} \"$@\" >> {calls}\nexit 1\n")
        (d / fake).chmod(0o755)
    return d


def run(tmp: Path, path: Path, mpi: str = "openmpi", env: Optional[Dict[str, str]] = None,
        user: bool = False) -> subprocess.CompletedProcess:
    e = {"PATH": str(path), "HOME": str(tmp), "HK_SETUP_NO_INSTALL": "1"}
    e.update(env or {})
    cmd = ["/bin/bash", str(SCRIPT), mpi]
    if user:  # really not root
        e.pop("HK_SETUP_NO_INSTALL")
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("setpriv missing: cannot drop root")
            os.chmod(tmp, 0o755)
            cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    proc = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=60)
    assert not (tmp / "calls").exists(), (tmp / "calls").read_text()
    return proc


def test_everything_there_installs_nothing(tmp_path):
    proc = run(tmp_path, bin_dir(tmp_path, BASE + OPENMPI))
    assert proc.returncode == 0, proc.stderr
    assert "missing" not in proc.stderr
    # the optional pieces this PATH lacks are named, with the tests that skip
    assert "SimGrid (smpicc) missing" in proc.stdout
    assert "gfortran missing" in proc.stdout


def test_not_root_for_real():
    # a directory the user `nobody` can read (pytest's tmp_path is root's 0700), the system's
    # python3 (the venv's may live under /root)
    tmp = Path(tempfile.mkdtemp(prefix="hk-setup-deps-"))
    try:
        os.chmod(tmp, 0o755)
        system_py = Path("/usr/bin/python3")
        if not system_py.exists():
            pytest.skip("no /usr/bin/python3")
        path = bin_dir(tmp, tuple(t for t in BASE if t != "python3") + OPENMPI,
                       {"python3": str(system_py)})
        proc = run(tmp, path, user=True)
        assert proc.returncode == 0, proc.stderr
        assert "installing" not in proc.stdout
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_hwloc_and_jansson_missing_named_for_apt_dnf_spack(tmp_path):
    empty = tmp_path / "pc"
    empty.mkdir()
    proc = run(tmp_path, bin_dir(tmp_path, BASE + OPENMPI),
               env={"PKG_CONFIG_LIBDIR": str(empty), "PKG_CONFIG_PATH": ""})
    assert proc.returncode == 2
    rows = [l for l in proc.stderr.splitlines() if l.startswith("  ")]
    assert len(rows) == 2, proc.stderr
    hw = next(l for l in rows if "pkg-config hwloc" in l)
    assert "apt: libhwloc-dev" in hw and "dnf: hwloc-devel" in hw and hw.endswith("spack: hwloc")
    js = next(l for l in rows if "pkg-config jansson" in l)
    assert "apt: libjansson-dev" in js and "dnf: jansson-devel" in js and js.endswith("spack: jansson")
    assert "nothing installed" in proc.stderr


def test_no_mpi_and_no_cmake(tmp_path):
    keep = tuple(t for t in BASE if t != "cmake")
    proc = run(tmp_path, bin_dir(tmp_path, keep), mpi="mpich")
    assert proc.returncode == 2
    err = proc.stderr
    assert "cmake >= 3.20" in err
    assert "mpich: MPI C compiler (mpicc.mpich or mpicc)" in err
    assert "mpich: launcher (mpiexec.mpich or mpiexec)" in err
    assert "apt: mpich libmpich-dev" in err and "dnf: mpich-devel" in err and "spack: mpich" in err


def test_plain_mpicc_of_the_other_mpi_is_not_taken(tmp_path):
    mpich_cc = shutil.which("mpicc.mpich")
    ompi_cc, ompi_run = shutil.which("mpicc.openmpi"), shutil.which("mpirun.openmpi")
    if not (mpich_cc and ompi_cc and ompi_run):
        pytest.skip("needs both Open MPI and MPICH")
    # a module's plain names: mpicc is MPICH's, asked for Open MPI -> missing
    path = bin_dir(tmp_path, BASE, {"mpicc": mpich_cc, "mpirun": ompi_run})
    proc = run(tmp_path, path, mpi="openmpi")
    assert proc.returncode == 2 and "openmpi: MPI C compiler" in proc.stderr
    # and Open MPI's plain mpicc is taken
    (path / "mpicc").unlink()
    (path / "mpicc").symlink_to(ompi_cc)
    proc = run(tmp_path, path, mpi="openmpi")
    assert proc.returncode == 0, proc.stderr


def test_python_too_old(tmp_path):
    old = tmp_path / "python3.8"
    old.write_text("#!/bin/sh\n"
                   "case \"$2\" in *version_info\\ \\>=*) exit 1 ;; *'%d.%d'*) echo 3.8 ;; esac\n"
                   "exit 0\n")
    old.chmod(0o755)
    proc = run(tmp_path, bin_dir(tmp_path, BASE + OPENMPI), env={"PYTHON": str(old)})
    assert proc.returncode == 2
    assert "python3 >= 3.9 (have 3.8)" in proc.stderr
    assert "dnf: python39" in proc.stderr
