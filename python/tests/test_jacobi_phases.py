"""hk-jacobi's time breakdown on real runs: every mode at 1x2 and 2x1.

The record's disjoint phases (phase_pack, phase_post, phase_wait, phase_unpack,
phase_compute) must add up to the measured time per iteration within 5 %, and the report's
stacked bars (hybridkit.report.apps.breakdown_data) never exceed the measured time (same 5 %).
No speed is asserted. Other programs on the machine preempt threads at random (a thread
preempted between two timed phases leaves the others waiting in an untimed barrier): a run
whose phases miss is repeated, and only attempts on a quiet machine (others used at most
10 % of it, measured from /proc/stat like the study does) count; when no attempt was quiet
the test is skipped and says so.

Skipped unless HK_BIN_DIR holds hk-jacobi (Open MPI or MPICH as HK_MPI says)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PYTHON, python_env
from hybridkit import appcatalog
from hybridkit.launch.cpuset import local_cores
from hybridkit.study.quality import LoadProbe
from hybridkit.report.apps import breakdown_data
from hybridkit.study.rundata import assign_apps, entries, find_runs

BIN_DIR = os.environ.get("HK_BIN_DIR", "")
JACOBI = Path(BIN_DIR) / "hk-jacobi" if BIN_DIR else None
MODES = ("pure", "pure-nb", "masteronly", "funneled", "task", "task-balanced", "multiple",
         "multiple-reserved")
PHASES = ("phase_pack", "phase_post", "phase_wait", "phase_unpack", "phase_compute")
TOLERANCE = 0.05
ATTEMPTS = 4

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not BIN_DIR, reason="HK_BIN_DIR is not set (point it at build/release/bin)"),
    pytest.mark.skipif(bool(BIN_DIR) and not (JACOBI and os.access(JACOBI, os.X_OK)),
                       reason=f"no hk-jacobi in HK_BIN_DIR={BIN_DIR}"),
    pytest.mark.skipif(local_cores() < 2, reason="needs 2 cores"),
]


def run_jacobi(results: Path, mode: str, np: int, threads: int, *launch: str) -> Path:
    env = python_env(HK_BIN_DIR=str(Path(BIN_DIR).resolve()))
    before = set((results / "runs").glob("*")) if (results / "runs").exists() else set()
    proc = subprocess.run([PYTHON, "-m", "hybridkit", "run", "hk-jacobi", "--np", str(np),
                           "--threads", str(threads), "--mode", mode, *launch, "--results",
                           str(results), "--", "--size", "128", "--iters", "12"],
                          env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run_dir, = set((results / "runs").glob("*")) - before
    return run_dir


def gap(run_dir: Path) -> float:
    """|sum of phases - time per iteration| / time per iteration (averages over ranks)."""
    runs = find_runs([run_dir])
    e, = entries(runs, kind="jacobi")
    t = e.result("time_per_iter")
    total = sum(e.result(p) for p in PHASES)
    other = e.result("phase_other")
    assert other == pytest.approx(t - total, rel=1e-6, abs=1e-9)
    assert all(e.result(p) >= 0 for p in PHASES)
    return abs(total - t) / t


def overshoot(run_dir: Path) -> float:
    """(sum of phases - time per iteration) / time per iteration, on the slowest rank's
    average."""
    e, = entries(find_runs([run_dir]), kind="jacobi")
    t = e.result("time_per_iter")
    return (sum(e.result(p) for p in PHASES) - t) / t


@pytest.mark.parametrize("np,threads", [(1, 2), (2, 1)])
def test_phases_add_up_and_bars_stay_within_the_measured_time(tmp_path, np, threads,
                                                              monkeypatch):
    monkeypatch.delenv("HK_BUSY_SHARE")  # the real threshold: conftest turns it off
    misses, busy = {}, {}
    keep = tmp_path / "kept"
    keep.mkdir()
    for mode in MODES:
        quiet_misses = []
        for attempt in range(ATTEMPTS):
            probe = LoadProbe.start()
            t0 = time.monotonic()
            d = run_jacobi(tmp_path / f"try-{mode}-{attempt}", mode, np, threads)
            load = probe.finish(time.monotonic() - t0)
            g = gap(d)
            # preemption can only add untimed time: on any machine, busy or not, the
            # phases never exceed the measured time (what the report's bars show)
            assert overshoot(d) <= TOLERANCE, f"{mode}: phases above the measured time"
            if g <= TOLERANCE:
                d.rename(keep / f"{mode}-{d.name}")
                break
            if load["busy"] is False:
                quiet_misses.append(g)
            else:
                busy[mode] = (g, load["share"])
        else:
            if quiet_misses:
                misses[mode] = quiet_misses
            else:
                pytest.skip(f"machine busy during every attempt of {mode} (gap, others' "
                            f"share): {busy[mode]}")
    assert not misses, f"phases miss the measured time by more than 5 % on a quiet machine: " \
                       f"{misses} (busy attempts: {busy})"

    apps = appcatalog.load_all()
    runs = find_runs([keep])
    assign_apps(runs, apps)
    es = entries(runs, kind="jacobi")
    assert {e.params["mode"] for e in es} == set(MODES)
    data = breakdown_data(apps["jacobi"], es)
    assert data is not None and list(data.parts) == list(PHASES)
    assert len(data.labels) == len(MODES)
    for i, label in enumerate(data.labels):
        stacked = sum(vals[i] for vals in data.parts.values())
        assert stacked <= data.measured[i] * (1 + TOLERANCE), label
        assert stacked >= data.measured[i] * (1 - TOLERANCE), label
    overlap = [i for i, l in enumerate(data.labels) if l.split()[1] in
               ("task", "task-balanced", "multiple-reserved")]
    if threads > 1:  # a communicating thread beside computing ones: hidden time recorded
        assert all(data.hidden[i] >= 0 for i in overlap)


def test_phases_never_exceed_the_measured_time_when_threads_wait_for_cores(tmp_path):
    """2 ranks x 4 unpinned threads on the machine's cores (8 threads on 2 here): threads
    wait for a core at every barrier.  Waiting is not a phase: the phases still add up to at
    most the measured time (before the fix, a thread preempted as a barrier released the others
    counted its wait as packing while they already communicated: multiple mode 13 % above)."""
    over = {}
    for mode in MODES:
        d = run_jacobi(tmp_path / mode, mode, 2, 4, "--oversubscribe", "--bind", "none")
        gap(d)  # the record's own arithmetic
        over[mode] = overshoot(d)
    above = {m: round(o, 3) for m, o in over.items() if o > TOLERANCE}
    assert not above, f"phases above the measured time by (fraction): {above}; all: {over}"
