"""The study commands with the real C binaries (HK_BIN_DIR): a small sweep, report, advise.

Skipped unless HK_BIN_DIR holds hk-jacobi and hk-bench. Kept short: tiny grids, few sizes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, python_env
from hybridkit.launch.cpuset import local_cores

BIN_DIR = os.environ.get("HK_BIN_DIR", "")
NEEDED = ("hk-jacobi", "hk-bench")

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not BIN_DIR, reason="HK_BIN_DIR is not set (point it at build/release/bin)"),
    pytest.mark.skipif(bool(BIN_DIR) and not all(os.access(Path(BIN_DIR) / n, os.X_OK)
                                                 for n in NEEDED),
                       reason=f"no {' or '.join(NEEDED)} in HK_BIN_DIR={BIN_DIR}"),
]


def hybridkit(args, cwd):
    env = python_env(HK_BIN_DIR=str(Path(BIN_DIR).resolve()))
    return subprocess.run([PYTHON, "-m", "hybridkit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_sweep_report_advise_compare(tmp_path):
    cores = min(2, local_cores())
    modes = "pure,masteronly,task" if cores == 2 else "pure"
    sweep = ["sweep", "jacobi", "--cores", str(cores), "--modes", modes, "--sizes", "24",
             "--param", "iters=5", "-o", "sw"]
    proc = hybridkit(sweep, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = sorted((tmp_path / "sw" / "runs" / "jacobi").iterdir())
    assert len(runs) == (3 if cores == 2 else 1)
    for d in runs:
        info = json.loads((d / "run.json").read_text())
        assert info["status"] == "ok" and info["records"] == 1, info
    again = hybridkit(sweep, tmp_path)
    assert again.returncode == 0 and again.stdout.count("skipped (done before)") == len(runs)

    rep = hybridkit(["report", "sw", "-o", "r.html", "--csv"], tmp_path)
    assert rep.returncode == 0, rep.stderr
    page = (tmp_path / "r.html").read_text()
    assert page.count('<figure class="plot">') == 4   # the answer's, scaling, breakdown, memory
    assert "mlups" in (tmp_path / "r.csv").read_text()

    adv = hybridkit(["advise", "sw"], tmp_path)
    assert adv.returncode == 0, adv.stderr
    assert adv.stdout.startswith("recommendation: ") and "dominating mismatch" in adv.stdout
    if cores == 2:
        assert "overlap model (Rabenseifner/Wellein): f_comm = " in adv.stdout

    cmp_ = hybridkit(["compare", "sw", "sw"], tmp_path)
    assert cmp_.returncode == 0 and "no regression" in cmp_.stdout


def test_quick_study_of_two_benchmarks(tmp_path):
    proc = hybridkit(["study", "--quick", "--apps", "barrier,pingpong", "-o", "st"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    st = tmp_path / "st"
    for name in ("study.json", "environment.json", "report.html"):
        assert (st / name).is_file(), name
    assert "study summary" in proc.stdout and "report: " in proc.stdout
    plan = json.loads((st / "study.json").read_text())["plan"]
    # --apps order, three rounds of repeats
    assert [p["app"] for p in plan] == ["barrier", "pingpong", "pingpong"] * 3
    page = (st / "report.html").read_text()
    assert "Barrier costs" in page and "Ping-pong: intra-node vs inter-node" in page
