"""`hybridkit run` end to end without MPI: the replay launcher plays back recorded runs."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from hybridkit.study.rundir import create_run_dir, run_dir_name, run_streaming

RUN_FILES = {"command.txt", "env.json", "stdout.txt", "stderr.txt", "records.jsonl", "run.json"}


@pytest.fixture
def replay(cli, bin_dir, fixtures, monkeypatch, tmp_path):
    """replay(NAME, *extra args) -> (result, run directory)."""

    def run(name, *extra, np="2", threads="1"):
        monkeypatch.setenv("HK_REPLAY_DIR", str(fixtures / "replay" / name))
        results = tmp_path / "results"
        result = cli(["run", "hk-fake", "--np", np, "--threads", threads, "--launcher", "replay",
                      "--results", str(results), *extra])
        dirs = sorted((results / "runs").iterdir()) if (results / "runs").exists() else []
        return result, dirs[-1] if dirs else None

    return run


def test_run_directory_contents(replay, fixtures, bin_dir):
    result, run_dir = replay("own-cores")
    assert result.code == 0, result.err
    assert re.fullmatch(r"\d{8}-\d{6}-hk-fake-2x1", run_dir.name)
    assert {p.name for p in run_dir.iterdir()} == RUN_FILES
    src = fixtures / "replay" / "own-cores"
    assert (run_dir / "stdout.txt").read_text() == (src / "stdout.txt").read_text()
    assert (run_dir / "records.jsonl").read_text() == (src / "records.jsonl").read_text()
    assert (src / "stdout.txt").read_text() in result.out  # streamed to the terminal too

    info = json.loads((run_dir / "run.json").read_text())
    assert info["exit_code"] == 0 and info["records"] == 1 and info["records_valid"] is True
    assert (info["np"], info["threads"], info["bind"], info["mpi"], info["launcher"]) == \
        (2, 1, "compact", "openmpi", "replay")
    assert info["argv"][-3:] == [str(bin_dir / "hk-fake"), "--output",
                                 str(run_dir / "records.jsonl")]
    for key in ("start", "end"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", info[key])
    assert info["duration_s"] >= 0

    env = json.loads((run_dir / "env.json").read_text())
    assert env["ranks"] == {"OMP_NUM_THREADS": "1", "OMP_PLACES": "cores",
                            "OMP_PROC_BIND": "close"}
    command = (run_dir / "command.txt").read_text()
    assert command.count("\n") == 1 and "--output" in command


def test_own_core_verdict(replay):
    result, _ = replay("own-cores")
    assert "verdict: each thread has its own core (2 threads)" in result.out
    assert re.search(r"^\s*1\s+0\s+node01\s+0\s+1\s+1\s*$", result.out, re.M)


def test_shared_core_verdict_and_warnings(replay):
    result, _ = replay("shared-cores", "--bind", "none")
    assert result.code == 0
    assert "warning: ranks are not bound: OMP_PROC_BIND is unset" in result.out
    assert "verdict: 2 threads share cores: r0/t0, r1/t0 on PU 0-1" in result.out


def test_exit_zero_but_invalid_records_is_1(replay):
    result, run_dir = replay("invalid-records")
    assert result.code == 1
    assert "records.jsonl:1: provenance: 'binding' is a required property" in result.err
    info = json.loads((run_dir / "run.json").read_text())
    assert info["exit_code"] == 0 and info["records_valid"] is False


def test_exit_zero_but_no_records_is_1(replay):
    result, run_dir = replay("no-records")
    assert result.code == 1
    assert "no valid records" in result.err and "no such file" in result.err
    assert "cannot open output file" in (run_dir / "stderr.txt").read_text()
    assert "cannot open output file" in result.err


def test_binary_failure_exit_code_wins(replay):
    result, run_dir = replay("failed")
    assert result.code == 3
    assert "hk-fake failed with exit code 3" in result.err
    assert json.loads((run_dir / "run.json").read_text())["exit_code"] == 3
    assert "verdict:" in result.out  # records were fine: still reported


def test_mode_and_binary_args(replay):
    result, run_dir = replay("own-cores", "--mode", "task", "--", "-v", "a b")
    assert result.code == 0
    assert run_dir.name.endswith("-hk-fake-2x1-task")
    argv = json.loads((run_dir / "run.json").read_text())["argv"]
    assert argv[-6:-2] == ["--mode", "task", "-v", "a b"]


def test_oversubscribed_run_warns(replay):
    result, run_dir = replay("own-cores", "--oversubscribe", np="2", threads="2")
    assert result.code == 0
    assert "hybridkit: warning: oversubscribed (2 ranks x 2 threads): binding is off" in result.err
    env = json.loads((run_dir / "env.json").read_text())
    assert env["ranks"] == {"OMP_NUM_THREADS": "2"}
    # run.json records the binding really used, not the --bind asked for
    assert json.loads((run_dir / "run.json").read_text())["bind"] == "none"


def test_run_dir_name_and_unique_suffix(tmp_path):
    name = run_dir_name("/x/hk-bench", 4, 2, "funneled")
    assert re.fullmatch(r"\d{8}-\d{6}-hk-bench-4x2-funneled", name)
    first = create_run_dir(tmp_path, "same")
    second = create_run_dir(tmp_path, "same")
    third = create_run_dir(tmp_path, "same")
    assert [p.name for p in (first, second, third)] == ["same", "same-2", "same-3"]
    assert first.parent == tmp_path / "runs"


CHILD = textwrap.dedent("""
    import os, signal, sys, time
    sys.stdout.write("first\\n"); sys.stdout.flush()
    sys.stderr.write("oops \\xe9\\n"); sys.stderr.flush()
    sys.stdout.buffer.write(b"bad byte \\xff\\n"); sys.stdout.flush()
    time.sleep(0.2)
    print("second " + os.environ["HK_TEST_VAR"], flush=True)
    if sys.argv[1] == "signal":
        os.kill(os.getpid(), signal.SIGTERM)
    sys.exit(int(sys.argv[1]))
""")


@pytest.mark.parametrize("how,code", [("0", 0), ("5", 5), ("signal", 143)])
def test_streaming_keeps_everything(tmp_path, capfd, how, code):
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    assert run_streaming([sys.executable, "-c", CHILD, how], {"HK_TEST_VAR": "set"},
                         out, err) == code
    assert out.read_bytes() == b"first\nbad byte \xff\nsecond set\n"
    assert err.read_text() == "oops \xe9\n"
    captured = capfd.readouterr()
    assert "first\n" in captured.out and "second set" in captured.out
    assert "oops \xe9" in captured.err


def test_replay_script_alone(tmp_path, fixtures):
    """replay.py is a plain script: it copies records to --output and exits as recorded."""
    import subprocess

    import hybridkit

    script = Path(hybridkit.__file__).parent / "launch" / "replay.py"
    target = tmp_path / "r.jsonl"
    proc = subprocess.run([sys.executable, str(script), str(fixtures / "replay" / "failed"), "--",
                           "bin", "--output", str(target)], capture_output=True, text=True)
    assert proc.returncode == 3
    assert proc.stderr == "hk-topology: verification FAILED\n"
    assert target.read_text() == (fixtures / "replay" / "failed" / "records.jsonl").read_text()


def test_records_of_another_rank_count_are_refused(replay):
    # records of a 2-rank job where 4 ranks were launched: what a binary built against
    # another MPI than the launcher's produces (4 singletons); never accepted silently
    result, run_dir = replay("own-cores", "--oversubscribe", np="4")
    assert result.code == 1
    assert "written by a job of 2 rank(s), 4 were launched" in result.err
    assert json.loads((run_dir / "run.json").read_text())["records_valid"] is False


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs the test mounts and removes; skipped (visibly) where mounting is not
    allowed (not root, or a container without CAP_SYS_ADMIN)."""
    import subprocess

    mnt = tmp_path / "small"
    mnt.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.strip() or 'not root'}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_full_disk_never_blocks_and_run_json_ends(small_disk, bin_dir, fixtures, tmp_path):
    """Output that does not fit the disk: the program is not blocked on its pipe, what was
    lost is said, and run.json still ends with the exit code, a status and the reason."""
    import shutil
    import subprocess

    from conftest import python_env

    src = tmp_path / "big"
    src.mkdir()
    shutil.copy(fixtures / "replay" / "own-cores" / "records.jsonl", src / "records.jsonl")
    (src / "stdout.txt").write_bytes((b"y" * 1023 + b"\n") * 1024)  # 1 MiB > pipe and disk
    results = small_disk / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "hybridkit", "run", "hk-fake", "--np", "2", "--threads", "1",
         "--launcher", "replay", "--results", str(results)],
        env=python_env(HK_BIN_DIR=str(bin_dir), HK_REPLAY_DIR=str(src)),
        capture_output=True, text=True, timeout=60)
    assert "Traceback" not in proc.stderr
    run_dir = next((results / "runs").iterdir())
    assert not (run_dir / "run.json.tmp").exists()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["exit_code"] == 0 and info["status"] == "ok"
    assert "No space left on device" in info["message"]
    assert info["output_lost"] and info["output_lost"][0].startswith("stdout.txt")
    assert "No space left on device" in proc.stderr
    assert proc.stdout.count("y" * 1023) == 1024  # the terminal got everything
