"""hk-mz --split-for P (issue 24): the smallest split K with zones x K >= P, the K given by
hand here (SP-MZ class S has 2 x 2 zones of 10 interior points in x, NPB-MZ's class table); the
run's record must equal that of --split K (points, ghosts, split), and bad input is one line.
Runs the real binary on one process without mpirun, the class's 100 steps (an unsplit run
that cannot verify exits 1); skipped unless HK_BIN_DIR holds hk-mz."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

BIN_DIR = os.environ.get("HK_BIN_DIR", "")
MZ = str(Path(BIN_DIR) / "hk-mz") if BIN_DIR else ""

pytestmark = pytest.mark.skipif(not (MZ and os.access(MZ, os.X_OK)),
                                reason="HK_BIN_DIR does not hold hk-mz")


def record(tmp_path, *args):
    out = tmp_path / f"r{len(list(tmp_path.iterdir()))}.jsonl"
    proc = subprocess.run([MZ, "-q", "--output", str(out), *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(out.read_text().splitlines()[-1])
    return (rec["params"]["split"], rec["results"]["points"]["value"],
            rec["results"]["ghost_points"]["value"])


@pytest.mark.parametrize("bench,cls,procs,k", [
    ("sp", "S", 1, 1), ("sp", "S", 4, 1), ("sp", "S", 5, 2), ("sp", "S", 8, 2),
    ("sp", "S", 9, 3), ("sp", "S", 12, 3)])
def test_smallest_split_for_the_processes(tmp_path, bench, cls, procs, k):
    got = record(tmp_path, "--bench", bench, "--class", cls, "--split-for", str(procs))
    assert got[0] == k
    assert got == record(tmp_path, "--bench", bench, "--class", cls, "--split", str(k))


@pytest.mark.parametrize("args,line", [
    (["--split-for", "0"], None),  # 0: not given, unsplit
    (["--split-for", "-2"], "--split-for -2: a process count >= 1"),
    (["--split", "2", "--split-for", "8"], "not together with --split"),
    (["--split-for", "40"], "too small to split 10 ways"),
])
def test_bad_split_for_is_one_line(tmp_path, args, line):
    proc = subprocess.run([MZ, "-q", "--bench", "sp", "--class", "S", *args],
                          capture_output=True, text=True, timeout=120)
    if line is None:
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode != 0
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1 and line in errors[0], proc.stderr
