"""`hybridkit check` (issue 37): programs built here with the MPI's compiler wrapper and -g,
run for real under libhybridkit-check.so (HK_BIN_DIR's build, its ../lib):

    clean     FUNNELED kept, 8 checked calls per rank -> exit 0, "no violation of
              MPI_THREAD_FUNNELED in 16 calls" (2 ranks)
    bad       MPI_Iprobe from OpenMP thread 1 under FUNNELED (r + 1 times on rank r) -> exit 1,
              the function, rule, counts per rank, thread, parallel level, level asked,
              bad.c:LINE (probe_from_worker)
    hang      two threads of each rank in MPI_Recv nobody matches, FUNNELED: --abort ends it
              within 10 s (exit 1, the violation, hang.c:LINE)
    stuck     thread 1 alone in such an MPI_Recv: --timeout stops it and says what was seen
    usage     no program, --np 0, no --np -> one error line, exit 2 (no MPI)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PYTHON, python_env

MPI = os.environ.get("HK_MPI", "openmpi")

CLEAN = r"""
#include <mpi.h>
#include <omp.h>
/* keeps MPI_THREAD_FUNNELED with threads: per rank Comm_rank, Comm_size, 5 Allreduce
   outside parallel regions, 1 Barrier from the master thread inside one = 8 calls */
int main(int argc, char **argv) {
  int provided, rank, np, one = 1, sum = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  for (int k = 0; k < 5; k++) {
#pragma omp parallel
    { volatile double x = omp_get_thread_num() * 2.0; (void)x; }
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    MPI_Barrier(MPI_COMM_WORLD);
#pragma omp barrier
  }
  MPI_Finalize();
  return sum == np ? 0 : 1;
}
"""

BAD = r"""
#include <mpi.h>
#include <omp.h>
/* asks for MPI_THREAD_FUNNELED, then OpenMP thread 1 of rank r probes r + 1 times:
   erroneous, but harmless enough for the MPI library, so the run ends */
__attribute__((noinline)) static void probe_from_worker(void) {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* BAD */
}
int main(int argc, char **argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1)
    for (int i = 0; i <= rank; i++)
      probe_from_worker();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
"""

HANG = r"""
#include <mpi.h>
#include <omp.h>
/* FUNNELED; both threads of every rank wait for a message nobody sends: hangs */
__attribute__((noinline)) static void wait_forever(int from) {
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* HANG */
}
int main(int argc, char **argv) {
  int provided, rank, np;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
#pragma omp parallel num_threads(2)
  wait_forever((rank + 1) % np);
  MPI_Finalize();
  return 0;
}
"""

STUCK = r"""
#include <mpi.h>
#include <omp.h>
/* FUNNELED; OpenMP thread 1 alone waits for a message nobody sends (the main thread waits
   for it at the end of the region, outside MPI): hangs, with one thread inside MPI (two
   at once, as in HANG, crash MPICH instead) */
__attribute__((noinline)) static void wait_alone(void) {
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* STUCK */
}
int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1)
    wait_alone();
  MPI_Finalize();
  return 0;
}
"""


def _line_of(source: str, marker: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if marker in line)


def _build(tmp: Path, name: str, source: str) -> Path:
    wrapper = next((w for w in (f"mpicc.{MPI}", "mpicc") if shutil.which(w)), None)
    if not wrapper:
        pytest.skip(f"no MPI C compiler wrapper for {MPI}")
    src = tmp / f"{name}.c"
    src.write_text(source)
    exe = tmp / name
    subprocess.run([wrapper, "-O1", "-g", "-fopenmp", "-o", str(exe), str(src)], check=True,
                   capture_output=True, timeout=120)
    return exe


def _check(args, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = python_env()
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return subprocess.run([PYTHON, "-m", "hybridkit", "check", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _run_json(tmp: Path) -> dict:
    (path,) = (tmp / "results" / "runs").glob("*-check-*/run.json")
    return json.loads(path.read_text())


@pytest.fixture
def built():
    bindir = os.environ.get("HK_BIN_DIR", "")
    if not bindir or not (Path(bindir).parent / "lib" / "libhybridkit-check.so").is_file():
        pytest.skip("HK_BIN_DIR does not point at a build with libhybridkit-check.so")


def test_clean_program(built, tmp_path):
    exe = _build(tmp_path, "clean", CLEAN)
    r = _check(["--np", "2", "--threads", "2", "--oversubscribe", "--", str(exe)], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "hybridkit check: no violation of MPI_THREAD_FUNNELED in 16 calls (2 ranks x " \
           "2 threads; the program asked MPI_THREAD_FUNNELED" in r.stdout, r.stdout
    assert " violates " not in r.stdout + r.stderr
    info = _run_json(tmp_path)
    assert (info["status"], info["violations"], info["exit_code"]) == ("ok", 0, 0)


def test_funneled_violation(built, tmp_path):
    exe = _build(tmp_path, "bad", BAD)
    r = _check(["--np", "2", "--threads", "2", "--oversubscribe", "--", str(exe)], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    line = _line_of(BAD, "/* BAD */")
    # rank 0: Comm_rank, 1 Iprobe, Barrier; rank 1: Comm_rank, 2 Iprobe, Barrier
    assert "hybridkit check: 3 violations of MPI_THREAD_FUNNELED in 7 calls (2 ranks x 2 " \
           "threads; the program asked MPI_THREAD_FUNNELED" in r.stdout, r.stdout
    assert ("  MPI_Iprobe violates MPI_THREAD_FUNNELED: not the main thread; 3 calls on 2 ranks "
            "(rank 0: 1, rank 1: 2); first on rank 0 by OpenMP thread 1 of 2, parallel level 1, "
            f"at bad.c:{line} (probe_from_worker)") in r.stdout, r.stdout
    info = _run_json(tmp_path)
    assert (info["status"], info["violations"]) == ("violations", 1)


def test_abort_ends_a_hang(built, tmp_path):
    exe = _build(tmp_path, "hang", HANG)
    t0 = time.monotonic()
    r = _check(["--np", "2", "--threads", "2", "--oversubscribe", "--abort", "--timeout", "60",
                "--", str(exe)], tmp_path)
    took = time.monotonic() - t0
    assert took < 10, f"{took:.1f} s\n{r.stdout}{r.stderr}"
    assert r.returncode == 1, r.stdout + r.stderr
    line = _line_of(HANG, "/* HANG */")
    # the checker's own line, printed before the call reached MPI
    assert "MPI_Recv violates MPI_THREAD_FUNNELED: not the main thread (thread " in r.stderr
    assert "stopping the job before the call reaches MPI (HK_CHECK_ABORT)" in r.stderr
    # ranks that were killed before their record was written are not seen
    assert re.search(r"^  MPI_Recv violates MPI_THREAD_FUNNELED: not the main thread; seen on "
                     r"(1 rank \([01]\)|2 ranks \(0, 1\)); first on rank [01] by OpenMP thread 1 "
                     rf"of 2, parallel level 1, at hang\.c:{line} \(wait_forever\)$", r.stdout,
                     re.M), r.stdout
    assert "the job was stopped at the first violation (--abort)" in r.stdout


def test_timeout_says_what_was_seen(built, tmp_path):
    exe = _build(tmp_path, "stuck", STUCK)
    t0 = time.monotonic()
    r = _check(["--np", "2", "--threads", "2", "--oversubscribe", "--timeout", "4", "--",
                str(exe)], tmp_path)
    assert time.monotonic() - t0 < 30, r.stdout + r.stderr
    assert r.returncode == 1, r.stdout + r.stderr
    assert "hybridkit check: stuck was stopped after 4 s (--timeout 4) without ending; what " \
           "the checker saw until then:" in r.stdout, r.stdout
    assert ("  MPI_Recv violates MPI_THREAD_FUNNELED: not the main thread; seen on 2 ranks "
            "(0, 1); first on rank 0 by OpenMP thread 1 of 2, parallel level 1, at "
            f"stuck.c:{_line_of(STUCK, '/* STUCK */')} (wait_alone)") in r.stdout, r.stdout
    assert _run_json(tmp_path)["status"] == "timeout"


def test_program_failing_is_no_verdict(built, tmp_path):
    r = _check(["--np", "1", "--", "/bin/false"], tmp_path)
    assert r.returncode == 3, r.stdout + r.stderr
    err = [l for l in r.stderr.splitlines() if l.startswith("hybridkit: error: ")]
    assert len(err) == 1 and "no verdict" in err[0], r.stderr


@pytest.mark.parametrize("args, text", [
    (["--np", "2"], "the program to check goes after '--'"),
    (["--np", "0", "--", "x"], "argument --np: 0 is out of range (allowed: 1 to"),
    (["--", "/bin/true"], "the following arguments are required: --np"),
    (["--np", "1", "--timeout", "0", "--", "/bin/true"], "argument --timeout: must be"),
])
def test_usage_errors(cli, args, text):
    r = cli(["check", *args])
    assert r.code == 2, r
    assert r.out == ""
    lines = r.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hybridkit: error: ") and text in lines[0], r


def test_help(cli):
    r = cli(["check", "--help"])
    assert r.code == 0
    text = " ".join(r.out.split())
    for expected in ("--abort", "--timeout S", "default: 600", "exit status:",
                     "1 a rule was broken", "3 no verdict", "4 no verdict",
                     "no violation of LEVEL in N calls"):
        assert expected in text, expected
    assert "check" in cli(["--help"]).out
