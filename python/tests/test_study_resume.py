"""Sweeps run through the replay launcher (no MPI): run directories, resumption, failures."""

from __future__ import annotations

import json

import pytest

REPLAY_OK = "study/quick/runs/jacobi/2x1-mode_pure-size_96-iters_30"
SWEEP = ["sweep", "jacobi", "--cores", "2", "--modes", "pure,task", "--sizes", "32,64",
         "--launcher", "replay"]


@pytest.fixture
def sweep(cli, study_bin, fixtures, monkeypatch, tmp_path):
    """sweep(replay source, *extra) -> (result, output directory)."""

    def run(source=REPLAY_OK, *extra):
        monkeypatch.setenv("HK_REPLAY_DIR", str(fixtures / source))
        out = tmp_path / "sw"
        return cli([*SWEEP, "-o", str(out), *extra]), out

    return run


def run_dirs(out):
    return sorted(p.name for p in (out / "runs" / "jacobi").iterdir())


def test_each_run_in_its_own_directory(sweep, study_bin):
    result, out = sweep()
    assert result.code == 0, result.err
    assert "# 4 of 4 runs ok" in result.out
    assert run_dirs(out) == ["1x2-mode_task-size_32-iters_50-min_time_0.5", "1x2-mode_task-size_64-iters_50-min_time_0.5",
                             "2x1-mode_pure-size_32-iters_50-min_time_0.5", "2x1-mode_pure-size_64-iters_50-min_time_0.5"]
    d = out / "runs" / "jacobi" / "1x2-mode_task-size_64-iters_50-min_time_0.5"
    assert {p.name for p in d.iterdir()} == {"command.txt", "env.json", "stdout.txt",
                                             "stderr.txt", "records.jsonl", "run.json"}
    info = json.loads((d / "run.json").read_text())
    assert (info["app"], info["status"], info["np"], info["threads"], info["mode"]) == \
        ("jacobi", "ok", 1, 2, "task")
    assert info["params"] == {"mode": "task", "size": 64, "iters": 50, "min_time": 0.5}
    assert info["argv"][-11:] == [str(study_bin / "hk-jacobi"), "--mode", "task", "--size",
                                  "64", "--iters", "50", "--min-time", "0.5", "--output",
                                  str(d / "records.jsonl")]
    assert "--mode task --size 64 --iters 50 --min-time 0.5 --output" in \
        (d / "command.txt").read_text()
    assert json.loads((d / "env.json").read_text())["ranks"]["OMP_NUM_THREADS"] == "2"


def test_resumes_skipping_finished_runs(sweep):
    sweep()
    result, out = sweep()
    assert result.code == 0
    assert result.out.count("skipped (done before)") == 4
    assert run_dirs(out) == sorted(run_dirs(out))  # nothing new
    assert len(run_dirs(out)) == 4


def test_unfinished_run_is_redone_and_the_old_attempt_kept(sweep):
    _, out = sweep()
    d = out / "runs" / "jacobi" / "2x1-mode_pure-size_32-iters_50-min_time_0.5"
    info = json.loads((d / "run.json").read_text())
    info.update(status="running", exit_code=None)
    (d / "run.json").write_text(json.dumps(info))
    dry, _ = sweep(REPLAY_OK, "--dry-run")
    assert "redo  jacobi 2x1 mode=pure size=32" in dry.out and dry.out.count("done ") == 3
    result, _ = sweep()
    assert result.out.count("skipped (done before)") == 3
    assert "2x1-mode_pure-size_32-iters_50-min_time_0.5.attempt-1" in run_dirs(out)
    assert json.loads((d / "run.json").read_text())["status"] == "ok"


def test_failed_runs_are_kept_and_exit_1(sweep):
    result, out = sweep("replay/failed")
    assert result.code == 1
    assert "hybridkit: error: 4 run(s) failed" in result.err
    info = json.loads((out / "runs/jacobi/1x2-mode_task-size_32-iters_50-min_time_0.5/run.json").read_text())
    assert info["status"] == "failed" and info["exit_code"] != 0
    again, _ = sweep()  # a good binary now: all four redone, the failed attempts kept
    assert again.code == 0
    assert sum(".attempt-" in n for n in run_dirs(out)) == 4


def test_dry_run_creates_nothing(sweep):
    result, out = sweep(REPLAY_OK, "--dry-run")
    assert result.code == 0 and "# 4 runs planned, 4 to run" in result.out
    assert not out.exists()


def test_ctrl_c_stops_the_sweep(sweep, fixtures, tmp_path):
    interrupted = tmp_path / "interrupted"
    interrupted.mkdir()
    (interrupted / "run.json").write_text('{"exit_code": 130}')
    result, out = sweep(str(interrupted))
    assert result.code == 130 and "hybridkit: error: interrupted" in result.err
    (only,) = run_dirs(out)  # the first run only, marked for a redo
    info = json.loads((out / "runs" / "jacobi" / only / "run.json").read_text())
    assert info["status"] == "interrupted"
