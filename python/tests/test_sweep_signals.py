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
    # unbuffered: the test reads the sweep's lines as they come (a block-buffered pipe would
    # hand them over only at the end, after the runs it means to interrupt)
    env = python_env(HK_REPLAY_DIR=str(fixtures / REPLAY_OK), HK_REPLAY_SLEEP=str(sleep),
                     PYTHONUNBUFFERED="1")
    # SIGINT as a terminal's program has it: a shell that starts a job in the background
    # (`cmd &` in a script, as a CI wrapper may) hands it on ignored, and a Python started
    # with SIGINT ignored keeps ignoring it, so the sweep would never see the Ctrl-C
    return subprocess.Popen(sweep_argv(out, *extra), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=default_sigint)


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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
    assert "jacobi/1x1-mode_pure-size_8-iters_50-min_time_0.5 ok" in first
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
    assert "jacobi/1x1-mode_pure-size_16-iters_50-min_time_0.5 interrupted" in rest
    assert "1 of 4 runs finished and kept" in err
    assert statuses(out) == {"1x1-mode_pure-size_8-iters_50-min_time_0.5": "ok",
                             "1x1-mode_pure-size_16-iters_50-min_time_0.5": "interrupted"}

    env = python_env(HK_REPLAY_DIR=str(fake / REPLAY_OK))
    again = subprocess.run(sweep_argv(out), env=env, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr
    assert "1x1-mode_pure-size_8-iters_50-min_time_0.5 skipped (done before)" in again.stdout
    assert "# 4 of 4 runs ok" in again.stdout
    st = statuses(out)
    assert st["1x1-mode_pure-size_16-iters_50-min_time_0.5.attempt-1"] == "interrupted"
    assert [st[f"1x1-mode_pure-size_{n}-iters_50-min_time_0.5"] for n in (8, 16, 24, 32)] == ["ok"] * 4


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
    info = json.loads((out / "runs/jacobi/1x1-mode_pure-size_8-iters_50-min_time_0.5/run.json").read_text())
    assert info["message"] == "no end after 1 s (timeout), stopped"
    assert proc.stdout.count(" timeout ") == 4


def test_default_timeout_comes_from_the_description(fake, tmp_path, cli, monkeypatch):
    monkeypatch.setenv("HK_REPLAY_DIR", str(fake / REPLAY_OK))
    res = cli(sweep_argv(tmp_path / "sw")[3:])
    assert res.code == 0, res.err
    info = json.loads((tmp_path / "sw/runs/jacobi/1x1-mode_pure-size_8-iters_50-min_time_0.5/run.json")
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
    info = json.loads((d / "2x1-mode_pure-size_8-iters_50-min_time_0.5" / "run.json").read_text())
    assert info["nodes"] == 2 and info["hosts"] == ["n1", "n2"]
    assert "nodes 1 -> 2" in info["resume_note"]
    old = json.loads((d / "2x1-mode_pure-size_8-iters_50-min_time_0.5.attempt-1" / "run.json").read_text())
    assert old["nodes"] == 1 and old["status"] == "ok"


def test_busy_runs_are_repeated_then_flagged(fake, tmp_path, cli, monkeypatch):
    """Others 'use' the machine during every attempt (threshold below any load): each run
    is made 1 + 2 times, the busy attempts kept aside, the last kept and flagged."""
    monkeypatch.setenv("HK_REPLAY_DIR", str(fake / REPLAY_OK))
    monkeypatch.setenv("HK_BUSY_SHARE", "-1")
    monkeypatch.setenv("HK_BUSY_FLOOR_S", "-1")
    out = tmp_path / "sw"
    res = cli(["sweep", "jacobi", "--cores", "1", "--modes", "pure", "--sizes", "8",
               "--launcher", "replay", "-o", str(out)])
    assert res.code == 0, res.err
    assert "1x1-mode_pure-size_8-iters_50-min_time_0.5 ok" in res.out and "(busy machine)" in res.out
    st = statuses(out)
    assert st == {"1x1-mode_pure-size_8-iters_50-min_time_0.5": "ok",
                  "1x1-mode_pure-size_8-iters_50-min_time_0.5.busy-1": "busy-repeated",
                  "1x1-mode_pure-size_8-iters_50-min_time_0.5.busy-2": "busy-repeated"}
    info = json.loads((out / "runs/jacobi/1x1-mode_pure-size_8-iters_50-min_time_0.5/run.json").read_text())
    assert info["load"]["busy"] is True and info["busy_retries"] == 2
    assert info["load"]["others_cpu_s"] >= 0 and info["load"]["cpus"] >= 1


def test_quiet_run_records_its_load_and_is_not_repeated(fake, tmp_path, cli, monkeypatch):
    monkeypatch.setenv("HK_REPLAY_DIR", str(fake / REPLAY_OK))
    out = tmp_path / "sw"
    res = cli(["sweep", "jacobi", "--cores", "1", "--modes", "pure", "--sizes", "8",
               "--launcher", "replay", "-o", str(out)])
    assert res.code == 0, res.err
    assert list(statuses(out)) == ["1x1-mode_pure-size_8-iters_50-min_time_0.5"]
    load = json.loads((out / "runs/jacobi/1x1-mode_pure-size_8-iters_50-min_time_0.5/run.json")
                      .read_text())["load"]
    assert load["busy"] is False and load["own_cpu_s"] > 0   # the replay child's CPU time
    assert load["busy_cpu_s"] >= 0 and 0 <= load["share"]


def test_failed_run_carries_the_apps_own_error_line(fake, tmp_path, cli, monkeypatch):
    """Not the launcher's last stderr line: the app's 'verification UNSUCCESSFUL'."""
    replay = tmp_path / "replay"
    replay.mkdir()
    (replay / "stdout.txt").write_text("# hk-jacobi\n# Verification = UNSUCCESSFUL (12 cells "
                                       "differ from the serial reference)\n")
    (replay / "stderr.txt").write_text(
        "hk-jacobi: the sweeps differ from the serial reference in 12 cells\n"
        "--------------------------------------------------------------------------\n"
        "prterun detected that one or more processes exited with non-zero status\n"
        "--------------------------------------------------------------------------\n")
    (replay / "run.json").write_text('{"exit_code": 1}')
    monkeypatch.setenv("HK_REPLAY_DIR", str(replay))
    out = tmp_path / "sw"
    res = cli(["sweep", "jacobi", "--cores", "1", "--modes", "pure", "--sizes", "8",
               "--launcher", "replay", "-o", str(out)])
    assert res.code == 1
    info = json.loads((out / "runs/jacobi/1x1-mode_pure-size_8-iters_50-min_time_0.5/run.json").read_text())
    assert info["message"] == ("exit code 1: hk-jacobi: the sweeps differ from the serial "
                               "reference in 12 cells")
    (replay / "stderr.txt").write_text("prterun detected that one or more processes exited\n")
    res = cli(["sweep", "jacobi", "--cores", "1", "--modes", "pure", "--sizes", "8",
               "--launcher", "replay", "-o", str(out)])
    info = json.loads((out / "runs/jacobi/1x1-mode_pure-size_8-iters_50-min_time_0.5/run.json").read_text())
    assert info["message"] == ("exit code 1: # Verification = UNSUCCESSFUL (12 cells differ "
                               "from the serial reference)")
