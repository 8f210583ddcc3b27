"""Runs that cannot succeed or never end (issue 40), through the replay launcher (no MPI): an
app's usage error stops its sweep after one run, said once; a failed run is never tagged
"(busy machine)"; `run` stops a program after --timeout and records it in run.json."""

from __future__ import annotations

import json

import pytest

SWEEP = ["sweep", "jacobi", "--cores", "2", "--modes", "pure,task", "--sizes", "32,64",
         "--launcher", "replay"]
USAGE_LINE = "hk-jacobi: --size 32: not what it takes"


@pytest.fixture
def replay(study_bin, monkeypatch, tmp_path):
    """replay(exit code, stderr text) -> a run directory the replay launcher plays back."""

    def make(code, stderr=""):
        d = tmp_path / f"replay-{code}"
        d.mkdir()
        (d / "run.json").write_text(json.dumps({"exit_code": code}))
        (d / "stderr.txt").write_text(stderr)
        monkeypatch.setenv("HK_REPLAY_DIR", str(d))
        return d

    return make


def test_usage_error_stops_the_sweep_and_is_said_once(cli, replay, tmp_path):
    replay(2, USAGE_LINE + "\n")
    out = tmp_path / "sw"
    result = cli([*SWEEP, "-o", str(out)])
    assert result.code == 2
    text = result.out + result.err
    assert text.count(USAGE_LINE) == 1, text
    assert "the other 3 run(s) of jacobi were not started" in result.err
    assert "(busy machine)" not in text
    (only,) = [p for p in (out / "runs" / "jacobi").iterdir()]
    assert json.loads((only / "run.json").read_text())["status"] == "usage-error"


def test_usage_exit_0_means_none(cli, replay, tmp_path, monkeypatch):
    """A description with usage_exit = 0 runs on after an exit code 2 (a plain failure)."""
    apps = tmp_path / "apps"
    apps.mkdir()
    from hybridkit.appcatalog import APPS_DIR

    text = (APPS_DIR / "jacobi.toml").read_text()
    (apps / "jacobi.toml").write_text("usage_exit = 0\n" + text)
    monkeypatch.setenv("HK_APPS_PATH", str(apps))
    replay(2, USAGE_LINE + "\n")
    result = cli([*SWEEP, "-o", str(tmp_path / "sw")])
    assert result.code == 1 and "4 run(s) failed" in result.err


def test_failed_run_on_a_busy_machine_is_not_tagged_busy(cli, replay, tmp_path, monkeypatch):
    monkeypatch.setattr("hybridkit.study.quality.LoadProbe.finish",
                        lambda self, wall: {"busy": True, "share": 0.5, "others_cpu_s": 1.0})
    replay(3, "hk-jacobi: verification FAILED\n")
    result = cli([*SWEEP, "-o", str(tmp_path / "sw")])
    assert result.code == 1
    assert "(busy machine)" not in result.out + result.err
    assert result.out.count(" failed ") == 4  # each run once: failing is no reason to repeat


def test_run_stops_after_its_timeout(cli, study_bin, fixtures, monkeypatch, tmp_path):
    monkeypatch.setenv("HK_REPLAY_DIR", str(fixtures / "replay" / "failed"))
    monkeypatch.setenv("HK_REPLAY_SLEEP", "60")
    result = cli(["run", "hk-jacobi", "--np", "1", "--threads", "1", "--launcher", "replay",
                  "--timeout", "1", "--results", str(tmp_path / "res")])
    assert result.code == 1
    assert "hk-jacobi timed out after 1 s (--timeout 1) and was stopped" in result.err
    (run_dir,) = (tmp_path / "res" / "runs").iterdir()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["status"] == "timeout" and info["timeout_s"] == 1
    assert info["message"] == "no end after 1 s (timeout), stopped"


def test_description_values_are_checked_against_its_types(tmp_path):
    from hybridkit.appcatalog import APPS_DIR, load_file
    from hybridkit.errors import HKError

    text = (APPS_DIR / "jacobi.toml").read_text().replace('size = [64, 160, "llc*4"]',
                                                          'size = [64, "big"]')
    (tmp_path / "jacobi.toml").write_text(text)
    with pytest.raises(HKError, match=r"\[full\] size 'big': expected a positive integer or "
                                      r"llc\*K"):
        load_file(tmp_path / "jacobi.toml")
