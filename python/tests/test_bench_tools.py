"""tools/bench-limits.py and tools/bench-coll.py share tools/benchlib.py's run loop: rounds
interleaved, a busy run repeated and flagged, the records read back by --summarize. Checked
with a fake runner in place of mpirun (no MPI, no timing asserted)."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(TOOLS))
import benchlib  # noqa: E402


def load(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), TOOLS / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LIMITS, COLL = load("bench-limits"), load("bench-coll")

OSU_HEAD = "# OSU MPI Allreduce Latency Test v7.4\n# Size       Avg Latency(us)\n"
OSU_OUT, OSU_PRELOAD = OSU_HEAD + "4 2.00\n8 2.50\n", OSU_HEAD + "4 1.50\n8 1.00\n"
PLAIN_OUT = "mlups 1000.0\nchecksum 1.5\nbinding thread 0 cpu 0\nVerification = SUCCESSFUL\n"


class FakeRun:
    """stands in for benchlib.measured_run: the output each program would print, and the
    others' share given by `shares` (one per call, the last repeated)"""

    def __init__(self, shares=(0.0,)):
        self.shares, self.calls = list(shares), []

    def __call__(self, argv, timeout):
        self.calls.append(argv)
        share = self.shares[min(len(self.calls), len(self.shares)) - 1]
        out = ""
        if "--output" in argv:  # hk-jacobi writes its record
            rec = {"results": {"mlups": {"value": 900.0 + len(self.calls)}}, "params": {"procs": 1},
                   "provenance": {"git_sha": "abc"}}
            Path(argv[argv.index("--output") + 1]).write_text(json.dumps(rec) + "\n")
            out = "Verification = SUCCESSFUL\n"
        elif any("osu_" in x for x in argv):
            preload = any(x.startswith("LD_PRELOAD=") for x in argv)
            out = OSU_PRELOAD if preload else OSU_OUT
        elif any("jacobi_omp" in x for x in argv):
            out = PLAIN_OUT
        return {"rc": 0, "stdout": out, "stderr": "", "wall_s": 1.0, "own_cpu_s": 1.0,
                "others_cpu_s": 2 * share, "others_share": share, "steal_s": 0.0}


def test_bench_limits_rounds_interleaved_and_summarize_agrees(tmp_path, capsys):
    a = LIMITS.parse_args(["--quick", "--sizes", "64", "--only", "jacobi,osu", "--variants", "hk-w1",
                           "--out", str(tmp_path / "l.jsonl"), "--hk-bin", str(tmp_path / "bin")])
    a.mpirun = "mpirun"
    tools = {"plain": "/x/jacobi_omp", "osu": "/x/osu_allreduce"}
    prov = {"host": "h", "cpu_model": "m", "cpus": 2, "repo_commit": "r", "osu_commit": "o" * 7,
            "hk_bin_b": None, "max_busy": a.max_busy}
    fake = FakeRun()
    recs = LIMITS.measure(a, prov, tools, str(tmp_path), run=fake)
    # 3 roofline runs first, then per round 3 hk-w1 + 2 plain + osu plain/preload, twice
    per_round = 3 + 2 + 2
    assert len(recs) == 3 + 2 * per_round == len(fake.calls)
    assert [r["round"] for r in recs] == ["roofline"] * 3 + [0] * per_round + [1] * per_round
    assert [r["id"] for r in recs[3:3 + per_round]] == [r["id"] for r in recs[3 + per_round:]]
    assert not any("error" in r for r in recs)
    capsys.readouterr()
    LIMITS.summary(a, prov, recs)
    measured = capsys.readouterr().out
    assert "17 runs; others' CPU share: median 0.0 %" in measured
    assert "| 8 | 2.50 (2.50-2.50) | 1.00 (1.00-1.00) | 0.40 (0.40-0.40) |" in measured  # osu: plain, preload, ratio
    assert LIMITS.main(["--summarize", a.out]) == 0
    assert capsys.readouterr().out == measured


def test_busy_run_repeated_least_busy_kept(tmp_path):
    a = COLL.parse_args(["--quick", "--retries", "2", "--out", str(tmp_path / "c.jsonl")])
    case = {"id": "x", "group": "osu", "variant": "plain", "set": None, "size": None, "layout": "2x1",
            "ranks": 2, "threads": 1, "parse": "osu", "launch": ["mpirun"], "argv": ["osu_allreduce"]}
    fake = FakeRun([0.5, 0.2, 0.3])
    rec = benchlib.one_run(a, case, str(tmp_path), fake)
    assert len(fake.calls) == 3 and rec["attempt"] == 1 and rec["flagged_busy"]
    fake = FakeRun([0.5, 0.01])
    rec = benchlib.one_run(a, case, str(tmp_path), fake)
    assert len(fake.calls) == 2 and rec["attempt"] == 1 and not rec["flagged_busy"]


def test_bench_coll_ratio_table_and_summarize(tmp_path, capsys):
    a = COLL.parse_args(["--quick", "--rounds", "2", "--collectives", "allreduce,bcast",
                         "--out", str(tmp_path / "c.jsonl"), "--hk-lib", str(tmp_path)])
    a.mpirun, a.threshold = "mpirun", 16384
    exes = {"osu_allreduce": "/x/osu_allreduce", "osu_bcast": "/x/osu_bcast"}
    prov = {"host": "h", "cpu_model": "m", "cpus": 2, "repo_commit": "r", "osu_commit": "o" * 7,
            "max_busy": a.max_busy, "threshold": 16384, "osu_precision": 4}
    fake = FakeRun()
    recs = COLL.measure(a, prov, exes, str(tmp_path), run=fake)
    # per round: 2 collectives x (small, large) x (plain, preload)
    assert len(recs) == 2 * 8 and [r["round"] for r in recs] == [0] * 8 + [1] * 8
    assert [r["variant"] for r in recs[:4]] == ["plain", "preload"] * 2
    capsys.readouterr()
    COLL.summary(a, prov, recs)
    measured = capsys.readouterr().out
    assert "16 runs; others' CPU share: median 0.0 %, max 0.0 %; 0 runs above 5 % kept flagged; " \
           "0 failed. OSU -i:" in measured
    assert "| 8 | 0.40 (0.40-0.40) | 0.40 (0.40-0.40) |" in measured  # preload / plain per collective
    assert COLL.main(["--summarize", a.out]) == 0
    assert capsys.readouterr().out == measured


def test_measured_run_counts_the_run_as_own_time(tmp_path):
    run = benchlib.measured_run([sys.executable, "-c", "pass"], timeout=60)
    assert run["rc"] == 0 and run["wall_s"] > 0
    assert set(run) >= {"own_cpu_s", "others_cpu_s", "others_share", "steal_s"}
    assert 0.0 <= run["others_share"]


@pytest.mark.parametrize("tool", ["bench-limits", "bench-coll"])
def test_summarize_without_records_fails(tool, tmp_path, capsys):
    f = tmp_path / "none.jsonl"
    f.write_text(json.dumps({"tool": "other"}) + "\n")
    mod = LIMITS if tool == "bench-limits" else COLL
    assert mod.main(["--summarize", str(f)]) == 1
    assert "no %s records" % tool in capsys.readouterr().err


def test_sim_validate_summary_and_layouts():
    """tools/sim-validate.py: the table's ratio (median simulated / median real), the check
    column, the ranking compared; layouts that oversubscribe this machine refused."""
    sv = load("sim-validate")
    cal = {"tool": "sim-validate", "what": "calibration", "link_lat": 5e-6, "link_bw": 1.4e8,
           "intra_lat": 3e-7, "intra_bw": 2e10, "halo_bytes": 294912,
           "node_rate_table": "# x\n1 1000\n2 1900\n2x1 1950\n"}
    recs = [cal]
    for lay, real, sim in (("2n1x1", (6.0, 6.2, 5.8), (5.7, 5.6, 5.9)),
                           ("1n1x1", (7.0, 7.1, 6.9), (7.2, 7.0, 7.1))):
        for side, values in (("real", real), ("simulated", sim)):
            recs += [{"tool": "sim-validate", "what": side, "layout": lay, "round": i,
                      "others_share": 0.0, "time_per_iter": v / 1e3, "compute": v / 2e3,
                      "comm": v / 2e3} for i, v in enumerate(values)]
    text = sv.summary(recs)
    assert "| 2n1x1 | 6.000 (5.800-6.200) | 5.700 (5.600-5.900) | 0.95 |" in text
    assert "| 1n1x1 |" in text and "| 1.01 |" in text and "replay" in text
    assert "1 1000; 2 1900; 2x1 1950" in text and "5.00 us, 140.0 MB/s at 294912 B" in text
    assert "real 2n1x1 < 1n1x1; simulated 2n1x1 < 1n1x1: the same" in text
    swapped = [dict(r, time_per_iter=r["time_per_iter"] * 2) if r.get("layout") == "2n1x1"
               and r["what"] == "simulated" else r for r in recs]
    assert ": DIFFERENT" in sv.summary(swapped)
    with pytest.raises(SystemExit):
        sv.parse_args(["--layouts", "2n4096x1"])  # more cores than this machine has
