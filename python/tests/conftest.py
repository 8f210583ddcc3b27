"""Shared pytest fixtures: the fixture directory, a fake binary dir, an in-process CLI runner."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple

import pytest

from hybridkit.cli import main
from hybridkit.paths import schema_path

FIXTURES = Path(__file__).parent / "fixtures"

FAKE_TOPOLOGY = """#!/bin/sh
# stands in for hk-topology: prints each argument in brackets, exits $HK_FAKE_EXIT
for a in "$@"; do echo "[$a]"; done
exit "${HK_FAKE_EXIT:-0}"
"""


class Result(NamedTuple):
    code: int
    out: str
    err: str


# what `hk-jacobi --list-modes` / `hk-bench halo --list-modes` print (test data of the fakes:
# the real list is the C table's, checked by ctest tools.list_modes.*)
FAKE_MODES = """pure single 0
pure-nb single 1
masteronly masteronly 0
funneled funneled 0
task funneled 1
task-balanced funneled 1
multiple multiple 0
multiple-reserved multiple 1
"""
FAKE_LIST_MODES = ("#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --list-modes ] && "
                   f"printf '%s' '{FAKE_MODES}' && exit 0; done\nexit 0\n")


def write_kind_schema(folder: Path, kind: str, metric: str, unit: str,
                      better: str = "higher") -> Path:
    """KIND.schema.json in `folder` as hk_kind_schema_write writes it for a kind declared in
    a user's own program (the parts an app description reads: metric, better, unit)."""
    schema = {"title": kind, "description": f"test kind {kind}", "x-metric": metric,
              "x-better": better, "x-time": None, "x-phases": [], "x-rest": None,
              "type": "object", "properties": {
                  "kind": {"const": kind}, "params": {"type": "object", "properties": {}},
                  "results": {"type": "object", "properties": {
                      metric: {"type": "object", "x-unit": unit}}}}}
    path = folder / f"{kind}.schema.json"
    path.write_text(json.dumps(schema))
    return path


def make_executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture(autouse=True)
def never_busy(monkeypatch):
    """Fake apps must not be repeated because other programs load the machine: no run is
    'busy' unless a test lowers HK_BUSY_SHARE itself."""
    monkeypatch.setenv("HK_BUSY_SHARE", "100")
    # --launcher auto is srun inside a Slurm allocation: the tests run as outside one
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def bin_dir(tmp_path, monkeypatch) -> Path:
    """HK_BIN_DIR with fake `hk-fake` and `hk-topology`; 2 local cores; no HK_MPI."""
    d = tmp_path / "bin"
    d.mkdir()
    make_executable(d / "hk-fake", "#!/bin/sh\nexit 0\n")
    make_executable(d / "hk-topology", FAKE_TOPOLOGY)
    monkeypatch.setenv("HK_BIN_DIR", str(d))
    monkeypatch.delenv("HK_MPI", raising=False)
    monkeypatch.delenv("HK_REPLAY_DIR", raising=False)
    monkeypatch.setattr("hybridkit.commands.run.local_cores", lambda: 2)
    monkeypatch.setattr("hybridkit.study.execute.local_cores", lambda: 2)
    monkeypatch.chdir(tmp_path)
    return d


@pytest.fixture
def study_bin(bin_dir, monkeypatch) -> Path:
    """bin_dir plus fake hk-jacobi and hk-bench (no hk-mz, hk-mc); only the packaged apps."""
    for name in ("hk-jacobi", "hk-bench"):
        make_executable(bin_dir / name, FAKE_LIST_MODES)
    monkeypatch.delenv("HK_APPS_PATH", raising=False)
    monkeypatch.setenv("HK_SCHEMA", str(schema_path()))  # before hiding the repository's builds
    monkeypatch.setattr("hybridkit.paths.repo_root", lambda: None)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    return bin_dir


@pytest.fixture
def cli(capfd):
    """Run `hybridkit ARGS` in this process; return (exit code, stdout, stderr)."""

    def run(args: List[str]) -> Result:
        code = main(args)
        captured = capfd.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def python_env(**extra: str) -> dict:
    """Environment for `python -m hybridkit` subprocesses (package importable either way)."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    env.update(extra)
    return env


PYTHON = sys.executable


def build_program(where: Path, source: str, compiler: str, *flags: str, out: str = "prog",
                  needs: tuple = ()) -> Path:
    """`source` written to where/<out's stem>.c (.f90 for a Fortran compiler) and built with
    `compiler -o where/out SOURCE FLAGS...` in `where`; the test is skipped when the compiler
    or one of `needs` (programs the test runs) is not installed, and fails with the
    compiler's messages when the build does."""
    missing = [p for p in (compiler, *needs) if shutil.which(p) is None]
    if missing:
        hint = " (SimGrid: apt-get install libsimgrid-dev)" if any(
            p.startswith("smpi") for p in missing) else ""
        pytest.skip(f"not installed: {', '.join(missing)}{hint}")
    fortran = compiler.endswith(("f90", "fortran"))
    src = where / (Path(out).name.split(".")[0] + (".f90" if fortran else ".c"))
    src.write_text(source)
    exe = where / out
    built = subprocess.run([compiler, "-o", str(exe), str(src), *flags], capture_output=True,
                           text=True, timeout=120, cwd=where)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    return exe


def last_level_cache_bytes() -> int:
    """The highest-level cache of cpu0 as Linux reports it (/sys, not hwloc), times the number
    of its instances (distinct shared_cpu_list over the CPUs); 0 when /sys does not say."""
    base = Path("/sys/devices/system/cpu")
    caches = []
    for idx in (base / "cpu0" / "cache").glob("index*"):
        try:
            size = (idx / "size").read_text().strip()
            level = int((idx / "level").read_text())
        except (OSError, ValueError):
            continue
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
        caches.append((level, int(size.rstrip("KMG")) * mult, idx.name))
    if not caches:
        return 0
    _, nbytes, name = max(caches)
    shared = set()
    for cpu in base.glob("cpu[0-9]*"):
        try:
            shared.add((cpu / "cache" / name / "shared_cpu_list").read_text().strip())
        except OSError:
            pass
    return nbytes * max(1, len(shared))
