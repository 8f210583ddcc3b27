"""Threads in `hybridkit simulate` (issue 43 item 1): the node compute-rate model
(hybridkit.simulate.noderate) and its speed factor R(P T) / (P R(1)) applied to the simulated
CPUs.  The model's arithmetic needs nothing; the simulated runs need SimGrid (smpirun), the
SMPI build of hk-jacobi or smpicc, and are skipped otherwise.  A burst of known flops
(smpi_execute_flops) makes the check of the factor exact: simulated time is deterministic."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import build_program, python_env
from test_simulate import _simgrid_or_skip, simulate

from hybridkit.errors import UsageError
from hybridkit.records import record_error
from hybridkit.report.simulate import platform_section
from hybridkit.simulate.noderate import NodeRate, from_records, read_table, roofline
from hybridkit.study.rundata import find_runs, split_simulated

CURVE = [1.0, 1.9, 2.6, 3.0, 3.0, 3.0, 3.0, 3.0]  # R(1..8): a memory-bound node saturating


def _model(rates=CURVE) -> NodeRate:
    return NodeRate(source="test", rates=tuple((n + 1, r) for n, r in enumerate(rates)))


# ---------------------------------------------------------------- the model (no SimGrid)

@pytest.mark.parametrize("per_node,threads,factor", [
    (2, 4, 3.0 / 2),      # R(8) / (2 R(1))
    (8, 1, 3.0 / 8),      # pure MPI on a full node: R(8)/8 per rank, not R(1)
    (1, 8, 3.0),          # one rank of 8 threads: the node's rate
    (1, 1, 1.0),
    (1, 2, 1.9), (2, 1, 1.9 / 2), (4, 1, 3.0 / 4), (1, 3, 2.6)])
def test_factor_by_hand(per_node, threads, factor):
    assert _model().factor(per_node, threads, 8) == pytest.approx(factor)


def test_roofline():
    """R(n) = min(n, node_bw / core_bw): 40 GB/s per node, 12 GB/s per core saturate at 3.33."""
    m = roofline("40GBps", "12GBps", 8)
    assert m.rate(1) == 1 and m.rate(3) == 3 and m.rate(4) == pytest.approx(40 / 12)
    assert m.factor(8, 1, 8) == pytest.approx(40 / 12 / 8)
    assert m.factor(1, 8, 8) == pytest.approx(40 / 12)
    assert m.factor(2, 4, 8) == pytest.approx(40 / 12 / 2)
    assert roofline("100GBps", "10GBps", 4).factor(4, 1, 4) == 1.0  # never saturated


@pytest.mark.parametrize("rates,message", [
    (((1, 1.0), (2, 0.0)), "R(2) = 0.0: rates must be positive"),
    (((1, 1.0), (2, -1.5)), "R(2) = -1.5: rates must be positive"),
    (((1, float("nan")),), "rates must be positive"),
    (((2, 1.9), (4, 3.0)), "R(1), the rate of one core, is missing"),
    (((1, 1.0), (1, 2.0)), "appears twice"),
    ((), "no entries"),
])
def test_bad_models_refused(rates, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        NodeRate(source="t", rates=rates)


def test_layout_outside_the_model_refused():
    with pytest.raises(UsageError, match=r"2 ranks x 8 threads per node = 16 cores: more than "
                                         r"the 8 cores"):
        _model().factor(2, 8, 8)
    gaps = NodeRate(source="t", rates=((1, 1.0), (2, 1.9), (4, 3.0)))
    with pytest.raises(UsageError, match=r"no entry for 3 busy cores per node \(entries for "
                                         r"1, 2, 4\); give R\(3\)"):
        gaps.factor(1, 3, 8)
    assert gaps.factor(2, 2, 8) == pytest.approx(1.5)


def test_table_file(tmp_path):
    f = tmp_path / "rate.txt"
    f.write_text("# cores  MLUP/s\n1 100\n2, 190  # comma\n\n4\t300\n")
    m = read_table(f)
    assert m.factor(2, 2, 4) == pytest.approx(1.5) and m.source == f"table {f}"
    f.write_text("1 100\n2 fast\n")
    with pytest.raises(UsageError, match=r"line 2: expected 'cores rate'"):
        read_table(f)


def test_table_layout_lines(tmp_path):
    """'PxT rate': that layout's measured node rate, used instead of R(P T) (threads pay
    OpenMP's overhead, ranks do not: one curve cannot hold both); other layouts still on R(n);
    the record says which."""
    f = tmp_path / "rate.txt"
    f.write_text("1 100\n2 150\n4 200\n2x1 190  # two ranks\n1x2 150\n")
    m = read_table(f)
    assert m.factor(2, 1, 4) == pytest.approx(0.95) and m.factor(1, 2, 4) == pytest.approx(1.5)
    assert m.factor(2, 2, 4) == pytest.approx(1.0) and m.factor(1, 4, 4) == pytest.approx(2.0)
    assert m.field(2, 1, 4)["layout_rate"] == 190 and "layout_rate" not in m.field(2, 2, 4)
    for bad in ("2x0 5", "2x1 -3", "2x1 nan", "x2 4"):
        f.write_text(f"1 100\n{bad}\n")
        with pytest.raises(UsageError, match=r"line 2: expected 'cores rate' or 'PxT rate'"):
            read_table(f)


def _jacobi_record() -> dict:
    fixture = Path(__file__).parent / "fixtures/study/quick/runs/jacobi"
    path = fixture / "1x2-mode_masteronly-size_96-iters_30/records.jsonl"
    return next(r for r in map(json.loads, path.read_text().splitlines()) if r["kind"] == "jacobi")


def _write_records(path: Path, rows) -> None:
    """rows: (ranks, threads, mode, grid, mlups, nodes) as real one-node records."""
    base = _jacobi_record()
    out = []
    for ranks, threads, mode, grid, mlups, nodes in rows:
        r = copy.deepcopy(base)
        r["provenance"].update(ranks=ranks, threads_per_rank=threads, nodes=nodes)
        r["params"].update(mode=mode, grid=grid, threads=threads)
        r["results"]["mlups"]["value"] = mlups
        assert record_error(r) is None
        out.append(json.dumps(r))
    path.write_text("\n".join(out) + "\n")


def test_rates_from_records(tmp_path):
    """R(n): of the largest grid, the best layout at n cores, its repeats by their median;
    other grids, runs on 2 nodes and rates of other kinds left out."""
    f = tmp_path / "records.jsonl"
    _write_records(f, [(1, 1, "pure", "96x96x96", 100.0, 1),
                       (1, 1, "pure", "96x96x96", 110.0, 1),
                       (1, 1, "pure", "96x96x96", 90.0, 1),     # median 100
                       (1, 2, "masteronly", "96x96x96", 170.0, 1),
                       (2, 1, "pure", "96x96x96", 180.0, 1),    # best at 2 cores
                       (1, 2, "masteronly", "32x32x32", 999.0, 1),  # smaller problem
                       (2, 2, "pure", "96x96x96", 999.0, 2)])   # two nodes
    m = from_records(f)
    assert dict(m.rates) == {1: 100.0, 2: 180.0} and m.unit == "MLUP/s"
    # each measured layout at its own rate (1 x 2: 170, not the best at 2 cores, 2 x 1's 180)
    assert m.factor(1, 2, 2) == pytest.approx(1.7) and m.factor(2, 1, 2) == pytest.approx(0.9)
    empty = tmp_path / "none.jsonl"
    _write_records(empty, [(2, 2, "pure", "96x96x96", 50.0, 2)])
    with pytest.raises(UsageError, match="no valid records of kind 'jacobi' from a run on one"):
        from_records(empty)


def test_rates_from_mz_records(tmp_path):
    """hk-mz records: Mop/s of the largest class (class W over S)."""
    base = _jacobi_record()
    out = []
    for cls, ranks, threads, mops in (("S", 1, 1, 999.0), ("W", 1, 1, 50.0),
                                      ("W", 1, 2, 90.0), ("W", 2, 2, 150.0)):
        r = copy.deepcopy(base)
        r.update(kind="mz", program="hk-mz", params={"bench": "sp", "class": cls,
                                                     "threads": threads},
                 results={"mops": {"value": mops, "unit": "Mop/s"}})
        r["provenance"].update(ranks=ranks, threads_per_rank=threads, nodes=1)
        assert record_error(r) is None
        out.append(json.dumps(r))
    (tmp_path / "records.jsonl").write_text("\n".join(out) + "\n")
    m = from_records(tmp_path, "mz")  # a directory of runs
    assert dict(m.rates) == {1: 50.0, 2: 90.0, 4: 150.0} and m.unit == "Mop/s"
    assert "sp class W" in m.source


# ---------------------------------------------------------------- the command line

@pytest.mark.parametrize("args,message", [
    (["--threads", "2", "--", "--mode", "masteronly"], "--threads 2 needs a node rate model"),
    (["--threads", "2", "--node-bw", "4GBps", "--core-bw", "2GBps", "--", "--mode", "pure"],
     "threads are modelled for hk-jacobi --mode masteronly, funneled, task and hk-mz only"),
    (["--", "--mode", "funneled"], "SimGrid 3.32's SMPI provides MPI_THREAD_SINGLE only"),
    (["--", "--mode=task"], "hk-jacobi --mode task is not simulated"),
    (["--node-bw", "4GBps", "--core-bw", "2GBps", "--compute", "off"],
     "not with --compute off"),
    (["--node-bw", "4GBps"], "needs both --node-bw and --core-bw"),
    (["--ranks-per-node", "2", "--threads", "4", "--node-bw", "4GBps", "--core-bw", "2GBps",
      "--", "--mode", "masteronly"], "do not fit in the 4 CPUs"),
    (["--ranks-per-node", "2", "--stride", "1", "--threads", "4", "--node-bw", "4GBps",
      "--core-bw", "2GBps", "--", "--mode", "masteronly"],
     "2 ranks x 4 threads per node = 8 cores: more than the 4 cores"),
])
def test_usage_errors(cli, tmp_path, args, message):
    _simgrid_or_skip()
    cut = args.index("--") if "--" in args else len(args)
    res = cli(["simulate", "--nodes", "2", "--cores", "4", "--results", str(tmp_path),
               *args[:cut], "hk-jacobi", *args[cut:]])
    assert res.code == 2 and message in res.err, res.err
    assert not (tmp_path / "runs").exists()


def test_dry_run_says_the_factor(cli, tmp_path):
    _simgrid_or_skip()
    res = cli(["simulate", "--nodes", "2", "--cores", "8", "--ranks-per-node", "2",
               "--threads", "4", "--node-bw", "40GBps", "--core-bw", "12GBps", "--results",
               str(tmp_path), "--dry-run", "hk-jacobi", "--", "--mode", "masteronly"])
    assert res.code == 0, res.err
    assert "2 x 2 ranks x 4 threads" in res.out and "speed factor 1.667" in res.out
    assert "-np 4" in res.out and "smpi/host-speed:1Gf" in res.out


# ---------------------------------------------------------------- simulated runs

BURST = r"""
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  smpi_execute_flops(1e8); /* 0.1 s on a CPU of 1 Gflop/s */
  double t = MPI_Wtime() - t0;
  if (rank == 0)
    printf("burst %.9f\n", t);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
"""


@pytest.fixture(scope="module")
def burst_program(tmp_path_factory) -> Path:
    return build_program(tmp_path_factory.mktemp("burst"), BURST, "smpicc", "-O1",
                         needs=("smpirun",))


def _burst(tmp_path: Path, program: Path, *args: str) -> float:
    results = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "hybridkit", "simulate", "--results",
                           str(results), "--nodes", "2", "--cores", "4", "--link-bw", "2GBps",
                           "--link-lat", "5us", *args, str(program)], capture_output=True,
                          text=True, timeout=120, env=python_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    return float(re.search(r"burst (\S+)", proc.stdout).group(1))


@pytest.mark.parametrize("model,factor", [
    ([], 1.0),                                            # no model: one core's rate
    (["--node-rate", "TABLE"], 2.0),                      # R(2) / (2 R(1)) = 4 / 2
    (["--node-bw", "15GBps", "--core-bw", "10GBps"], 0.75)])  # min(2, 1.5) / 2
def test_factor_scales_every_burst(tmp_path, burst_program, model, factor):
    """2 ranks per node, a burst of 1e8 flops: 0.1 s / factor of simulated time (within 0.2 %: the timer calls are measured compute)
    (the factor ignored: 0.1 s every time)."""
    table = tmp_path / "rate.txt"
    table.write_text("1 1\n2 4\n")
    model = [str(table) if a == "TABLE" else a for a in model]
    t = _burst(tmp_path, burst_program, "--ranks-per-node", "2", *model)
    assert t == pytest.approx(0.1 / factor, rel=2e-3)


def test_jacobi_threads_halve_the_compute(tmp_path):
    """hk-jacobi masteronly on 2 nodes, 1 rank each: modelled with 2 threads and R(2) = 2
    R(1) (factor 2), the compute phase takes about half of the 1-thread run's.  Measured
    bursts are noisy (this machine): the bound is generous (the factor ignored gives 1)."""
    table = tmp_path / "rate.txt"
    table.write_text("1 1\n2 2\n")
    common = ["--nodes", "2", "--cores", "2", "--ranks-per-node", "1", "--compute", "measured"]
    app = ["hk-jacobi", "--", "--mode", "masteronly", "--size", "64", "--iters", "10"]
    compute = {}
    for threads in (1, 2, 1, 2):  # interleaved
        extra = ["--threads", "2", "--node-rate", str(table)] if threads == 2 else []
        recs = simulate(tmp_path / f"t{threads}-{len(compute)}", *common, *extra, *app)
        jac = next(r for r in recs if r["kind"] == "jacobi")
        assert jac["params"]["threads"] == threads
        assert jac["provenance"]["threads_per_rank"] == threads
        if threads == 2:
            rate = jac["platform"]["node_rate"]
            assert rate["speed_factor"] == 2.0 and rate["threads_per_rank"] == 2
            assert rate["rates"] == {"1": 1.0, "2": 2.0}
        assert record_error(jac) is None
        compute.setdefault(threads, []).append(jac["results"]["phase_compute"]["avg"])
    ratio = min(compute[2]) / min(compute[1])
    assert 0.25 < ratio < 0.8, compute


def test_layouts_of_one_model_are_one_platform(tmp_path):
    """8 x 1, 4 x 2, 2 x 4 on 2 nodes of 4 cores with one roofline: one simulated platform
    for report and advise (the layout's part of node_rate is no part of its identity),
    each run's factor in its records."""
    _simgrid_or_skip()
    roof = ["--nodes", "2", "--cores", "4", "--node-bw", "30GBps", "--core-bw", "10GBps"]
    app = ["hk-jacobi", "--", "--size", "32", "--iters", "4", "--mode"]
    results = tmp_path / "results"
    for per_node, threads, mode in ((4, 1, "masteronly"), (2, 2, "masteronly"),
                                    (1, 4, "masteronly"), (1, 4, "task")):
        proc = subprocess.run([sys.executable, "-m", "hybridkit", "simulate", "--results",
                               str(results), *roof, "--ranks-per-node", str(per_node),
                               "--threads", str(threads), *app, mode], capture_output=True,
                              text=True, timeout=120, env=python_env(OMP_NUM_THREADS="1"))
        assert proc.returncode == 0, proc.stderr[-2000:]
    runs = find_runs([results])
    real, sims = split_simulated(runs)
    assert not [r for r in real if r.records] and len(sims) == 1  # task's mode_model too
    views = [v for v in next(iter(sims.values())) if v.records[0]["params"]["mode"] != "task"]
    layouts = sorted((v.ranks, v.threads) for v in views)
    assert layouts == [(2, 4), (4, 2), (8, 1)]
    factors = {v.threads: v.records[0]["platform"]["node_rate"]["speed_factor"] for v in views}
    assert factors == pytest.approx({1: 3 / 4, 2: 3 / 2, 4: 3.0})
    # the report's platform section says the model and each layout's factor
    sec = platform_section(next(iter(sims)), views)
    assert any("R(4) = 3" in t and "modelled, not run" in t for t in sec.text), sec.text
    assert sec.tables[-1].rows == [[1, 4, 3.0], [2, 2, 1.5], [4, 1, 0.75]]


def test_mz_threads_modelled(tmp_path):
    """hk-mz (SP-MZ class S) in the SMPI build: 2 nodes x 2 ranks, modelled with 2 threads
    each (factor R(4) / (2 R(1)) = 1.5); it verifies, and its records say 2 threads per
    process (mops_per_thread: mops over the 4 x 2 modelled threads)."""
    _simgrid_or_skip()
    table = tmp_path / "rate.txt"
    table.write_text("1 1\n2 1.8\n4 3\n")
    recs = simulate(tmp_path, "--nodes", "2", "--cores", "4", "--ranks-per-node", "2",
                    "--threads", "2", "--node-rate", str(table), "hk-mz", "--", "--bench",
                    "sp", "--class", "S")
    mz = next(r for r in recs if r["kind"] == "mz")
    assert record_error(mz) is None
    assert mz["results"]["verified"]["value"] == 1
    assert mz["params"]["threads"] == 2 and mz["provenance"]["threads_per_rank"] == 2
    assert mz["platform"]["node_rate"]["speed_factor"] == pytest.approx(1.5)
    assert mz["results"]["mops_per_thread"]["value"] == \
        pytest.approx(mz["results"]["mops"]["value"] / 8)


def test_mz_uneven_threads_refused(cli, tmp_path):
    _simgrid_or_skip()
    res = cli(["simulate", "--nodes", "2", "--cores", "4", "--threads", "2", "--node-bw",
               "4GBps", "--core-bw", "2GBps", "--results", str(tmp_path), "hk-mz", "--",
               "--bench", "bt", "--zone-threads", "2"])
    assert res.code == 2 and "hk-mz --zone-threads sets threads per zone" in res.err, res.err


def test_task_and_funneled_modelled(tmp_path):
    """SMPI gives MPI_THREAD_SINGLE; hk-jacobi's task mode is modelled as pure-nb with T - 1
    computing threads (its halo progresses during the interior's burst), funneled as
    masteronly: the records say the mode asked for, FUNNELED, the stand-in and the factor
    (roofline 20/12 GB/s: R(1) = 1, R(2) = 5/3). Task's exchange waits less than half of
    masteronly's (a stand-in without overlap, masteronly: about equal, fails)."""
    common = ["--nodes", "2", "--cores", "2", "--link-bw", "1GBps", "--link-lat", "5us",
              "--ranks-per-node", "1", "--threads", "2", "--node-bw", "20GBps",
              "--core-bw", "12GBps", "hk-jacobi", "--", "--size", "128", "--iters", "6"]
    out = {}
    for mode in ("task", "funneled", "masteronly"):
        (r,) = [x for x in simulate(tmp_path / mode, *common, "--mode", mode)
                if x["kind"] == "jacobi"]
        out[mode] = r
        assert r["params"]["mode"] == mode
    task, fun = out["task"], out["funneled"]
    assert task["provenance"]["thread_level"]["requested"] == "funneled"
    assert task["platform"]["node_rate"]["mode_model"] == {
        "mode": "task", "run_as": "pure-nb", "computing_threads": 1}
    assert task["platform"]["node_rate"]["speed_factor"] == pytest.approx(1.0)
    assert fun["platform"]["node_rate"]["mode_model"]["run_as"] == "masteronly"
    assert fun["platform"]["node_rate"]["speed_factor"] == pytest.approx(5 / 3)
    assert "mode_model" not in out["masteronly"]["platform"]["node_rate"]
    assert record_error(task) is None and record_error(fun) is None
    # the 128 KiB halo (0.13 ms) hides behind the interior (1M cells a rank): less than half
    assert task["results"]["comm"]["avg"] < 0.5 * out["masteronly"]["results"]["comm"]["avg"]


def test_threaded_modes_without_a_model_refused(cli, tmp_path):
    """task-balanced and multiple are refused; task needs a second thread and a node rate."""
    base = ["simulate", "--dry-run", "--results", str(tmp_path), "--nodes", "2", "--cores", "2",
            "--ranks-per-node", "1"]
    for extra, mode in ((["--threads", "2", "--node-bw", "2GBps", "--core-bw", "1GBps"],
                         "task-balanced"),
                        (["--threads", "2"], "task"),
                        (["--threads", "1", "--node-bw", "2GBps", "--core-bw", "1GBps"], "task")):
        code, out, err = cli([*base, *extra, "hk-jacobi", "--", "--mode", mode])
        assert code == 2 and f"--mode {mode} is not simulated" in err, (extra, mode, err)
