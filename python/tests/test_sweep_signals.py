"""Sweeps that stop, lock and time out (issue 14), with a fake app that sleeps.

The replay launcher (no MPI) plays back a recorded run; HK_REPLAY_SLEEP=S makes it sleep S
seconds first and end with exit code 1 on SIGINT, as Open MPI's mpirun does. The sweep runs
as a real process (`python -m hybridkit`) so that signals reach it as they would from a
terminal. Durations are only checked against generous bounds (5 s to stop)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PYTHON, python_env

REPLAY_OK = "study/quick/runs/jacobi/2x1-mode_pure-size_96-iters_30"
SIZES = "8,16,24,32"


def sweep_argv(out: Path, *extra: str):
    return [PYTHON, "-m", "hybridkit", "sweep", "jacobi", "--cores", "1", "--modes", "pure",
            "--sizes", SIZES, "--launcher", "replay", "-o", str(out), *extra]


def start(out: Path, fixtures: Path, sleep: float, *extra: str) -> subprocess.Popen:
    env = python_env(HK_REPLAY_DIR=str(fixtures / REPLAY_OK), HK_REPLAY_SLEEP=str(sleep))
    return subprocess.Popen(sweep_argv(out, *extra), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def read_until(proc: subprocess.Popen, needle: str, timeout: float = 60.0) -> str:
    """stdout of proc up to the first line containing needle."""
    seen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
            if needle in line:
                return seen
    raise AssertionError(f"no {needle!r} in the sweep's output: {seen!r}")


def statuses(out: Path):
    d = out / "runs" / "jacobi"
    return {p.name: json.loads((p / "run.json").read_text())["status"]
            for p in sorted(d.iterdir())}


@pytest.fixture
def fake(study_bin, fixtures, tmp_path):
    return fixtures


@pytest.mark.parametrize("target", ["group", "process"])
def test_sigint_stops_the_sweep_and_resume_finishes(fake, tmp_path, target):
    out = tmp_path / "sw"
    proc = start(out, fake, 2.0)
    first = read_until(proc, " ok ")               # one run finished, the second is running
    assert "jacobi/1x1-mode_pure-size_8-iters_50 ok" in first
    time.sleep(0.5)
    t0 = time.monotonic()
    if target == "group":
        os.killpg(proc.pid, signal.SIGINT)         # what Ctrl-C in a terminal does
    else:
        os.kill(proc.pid, signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 130, err
    assert elapsed < 5.0, f"the sweep took {elapsed:.1f} s to stop"
    assert "jacobi/1x1-mode_pure-size_16-iters_50 interrupted" in rest
    assert "1 of 4 runs finished and kept" in err
    assert statuses(out) == {"1x1-mode_pure-size_8-iters_50": "ok",
                             "1x1-mode_pure-size_16-iters_50": "interrupted"}

    env = python_env(HK_REPLAY_DIR=str(fake / REPLAY_OK))
    again = subprocess.run(sweep_argv(out), env=env, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr
    assert "1x1-mode_pure-size_8-iters_50 skipped (done before)" in again.stdout
    assert "# 4 of 4 runs ok" in again.stdout
    st = statuses(out)
    assert st["1x1-mode_pure-size_16-iters_50.attempt-1"] == "interrupted"
    assert [st[f"1x1-mode_pure-size_{n}-iters_50"] for n in (8, 16, 24, 32)] == ["ok"] * 4


def test_second_concurrent_sweep_is_refused(fake, tmp_path, cli, monkeypatch):
    out = tmp_path / "sw"
    proc = start(out, fake, 3.0)
    try:
        read_until(proc, "# 4 runs")
        monkeypatch.setenv("HK_REPLAY_DIR", str(fake / REPLAY_OK))
        second = cli(sweep_argv(out)[3:])
        assert second.code == 1
        assert f"another sweep or study is writing to {out}" in second.err
        assert f"pid {proc.pid}" in second.err
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=30)
    # the refused sweep wrote nothing: only the first one's runs are there
    assert set(statuses(out).values()) <= {"ok", "interrupted"}


def test_timeout_stops_a_hanging_run_and_the_sweep_goes_on(fake, tmp_path):
    out = tmp_path / "sw"
    env = python_env(HK_REPLAY_DIR=str(fake / REPLAY_OK), HK_REPLAY_SLEEP="600")
    t0 = time.monotonic()
    proc = subprocess.run(sweep_argv(out, "--timeout", "1"), env=env,
                          capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 1
    assert elapsed < 60, f"{elapsed:.0f} s"
    st = statuses(out)
    assert list(st.values()) == ["timeout"] * 4       # every run stopped, none skipped
    info = json.loads((out / "runs/jacobi/1x1-mode_pure-size_8-iters_50/run.json").read_text())
    assert info["message"] == "no end after 1 s (timeout), stopped"
    assert proc.stdout.count(" timeout ") == 4


def test_default_timeout_comes_from_the_description(fake, tmp_path, cli, monkeypatch):
    monkeypatch.setenv("HK_REPLAY_DIR", str(fake / REPLAY_OK))
    res = cli(sweep_argv(tmp_path / "sw")[3:])
    assert res.code == 0, res.err
    info = json.loads((tmp_path / "sw/runs/jacobi/1x1-mode_pure-size_8-iters_50/run.json")
                      .read_text())
    assert info["timeout_s"] == 300          # jacobi.toml: timeout = 300


def test_resume_refuses_a_run_made_with_another_node_count(fake, tmp_path, cli, monkeypatch):
    """A 1-node 2x1 run must not count as done for 2 nodes of 1 core (also 2x1)."""
    monkeypatch.setenv("HK_REPLAY_DIR", str(fake / REPLAY_OK))
    out = tmp_path / "sw"
    base = ["sweep", "jacobi", "--modes", "pure", "--sizes", "8", "--launcher", "replay",
            "-o", str(out)]
    assert cli([*base, "--cores", "2"]).code == 0
    again = cli([*base, "--cores", "2"])
    assert "skipped (done before)" in again.out
    plan = cli([*base, "--cores", "1", "--hosts", "n1,n2", "--dry-run"])
    assert plan.out.startswith("redo  jacobi 2x1 mode=pure")
    other = cli([*base, "--cores", "1", "--hosts", "n1,n2"])
    assert other.code == 0, other.err
    assert "skipped" not in other.out
    d = out / "runs" / "jacobi"
    info = json.loads((d / "2x1-mode_pure-size_8-iters_50" / "run.json").read_text())
    assert info["nodes"] == 2 and info["hosts"] == ["n1", "n2"]
    assert "nodes 1 -> 2" in info["resume_note"]
    old = json.loads((d / "2x1-mode_pure-size_8-iters_50.attempt-1" / "run.json").read_text())
    assert old["nodes"] == 1 and old["status"] == "ok"
