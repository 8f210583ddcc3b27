"""The cost model of the hybrid allreduce (hybridkit.advice.collmodel) and `hybridkit tune
allreduce --predict` (issue 39 item 2): the formulas against hand-computed values, the fit
recovering known parameters from synthetic bench.collparams records, the table --predict
writes (from hk-bench collparams records measured once on the 2-core VM, fixtures/coll), and
the predicted/measured comparison of --check."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from hybridkit.advice import collmodel
from hybridkit.advice.collmodel import MachineParams, fit, fit_line, predict
from hybridkit.commands import tune
from hybridkit.errors import HKError
from hybridkit.records import load_records

FIX = Path(__file__).resolve().parent / "fixtures" / "coll"
P = MachineParams(alpha_intra=1e-6, beta_intra=1e9, alpha_inter=5e-6, beta_inter=2e8,
                  copy_rate=(1e10, 1.6e10), reduce_rate=(5e9, 8e9), cores_per_node=2,
                  thread_overhead=2e-6)
MB = 1 << 20


def test_formulas_by_hand():
    # mpi, small (recursive doubling, log2 2 = 1 step): alpha + n/beta + n/reduce
    assert predict(P, "allreduce", "mpi", 1, 1024, 2, 2) == pytest.approx(2.2288e-6)
    # mpi, large (Rabenseifner): 2 alpha + 2 (1/2) n / beta + (1/2) n / reduce
    assert predict(P, "allreduce", "mpi", 1, MB, 2, 2) == pytest.approx(1.1554336e-3)
    # chunked x2: overhead + mpi latency of n/2 + 2 x the chunk's transfer / 1.6 + ... / 1.6
    assert predict(P, "allreduce", "chunked", 2, MB, 2, 2) == pytest.approx(7.24896e-4)
    assert predict(P, "allreduce", "chunked-shifted", 2, MB, 2, 2) == pytest.approx(7.24896e-4)
    # chunked x1 is MPI (the library falls back)
    assert predict(P, "allreduce", "chunked", 1, MB, 2, 2) == predict(P, "allreduce", "mpi", 1,
                                                                    MB, 2, 2)
    # hierarchical x2, one node of 2: 2 n / copy(2) + (1/2) n / reduce(2) + 2 alpha + overhead
    assert predict(P, "allreduce", "hierarchical", 2, MB, 2, 2) == pytest.approx(2.00608e-4)
    # one rank: MPI's copy, whatever the algorithm; one rank a node: hierarchical falls back
    assert predict(P, "allreduce", "chunked", 2, MB, 1, 1) == pytest.approx(MB / 1e10)
    assert predict(P, "allreduce", "hierarchical", 2, MB, 2, 1) == math.inf
    # two nodes of 2: the leaders' chunked allreduce over the inter link (no copy scaling)
    two = predict(P, "allreduce", "hierarchical", 2, MB, 4, 2)
    # overhead + 2 alpha_inter (Rabenseifner, log2 2 = 1) + T x 2 (1/2) m / beta_inter (no
    # scaling between nodes) + T x (1/2) m / reduce(1) / 1.6, m = n / 2
    inter = (2e-6 + 2 * 5e-6 + 2 * (2 * 0.5 * (MB / 2) / 2e8) + 2 * (0.5 * (MB / 2) / 5e9) / 1.6)
    assert two == pytest.approx(2.00608e-4 + inter)


def test_best_prefers_mpi_on_ties_and_hybrid_when_faster():
    assert collmodel.best(P, "allreduce", 8, 2, 2, 2)[:2] == ("mpi", 1)
    alg, t, _ = collmodel.best(P, "allreduce", 16 * MB, 2, 2, 2)
    assert (alg, t) == ("hierarchical", 2)


def test_bad_input():
    with pytest.raises(HKError, match="covers allreduce"):
        predict(P, "scan", "mpi", 1, 8, 2, 2)
    with pytest.raises(HKError, match="unknown algorithm"):
        predict(P, "allreduce", "ring", 1, 8, 2, 2)
    with pytest.raises(HKError, match="positive"):
        predict(P, "allreduce", "mpi", 0, 8, 2, 2)


def synthetic(alpha=2e-6, beta=4e9, copy=(8e9, 12e9), red=(3e9, 5e9)):
    """bench.collparams records of a machine with exactly these parameters"""
    recs = []

    def rec(q, link, t, size, sec):
        recs.append({"kind": "bench.collparams",
                     "params": {"quantity": q, "link": link, "threads": t, "size": size},
                     "results": {"time": {"min": sec * 1e6, "avg": sec * 1e6, "max": sec * 1e6}},
                     "provenance": {"ranks": 2, "nodes": 1, "threads_per_rank": 2}})
    for s in (0, 1, 64, 4096, 65536, MB, 4 * MB):
        rec("p2p", "intra", 1, s, alpha + s / beta)
    for t in (1, 2):
        for s in (64 << 10, MB, 4 * MB):
            rec("copy", "none", t, s, s / copy[t - 1])
            rec("reduce", "none", t, s, s / red[t - 1])
    return recs


def test_fit_recovers_the_parameters():
    m = fit(synthetic())
    assert m.alpha_intra == pytest.approx(2e-6, rel=1e-6)
    assert m.beta_intra == pytest.approx(4e9, rel=1e-6)
    assert (m.alpha_inter, m.beta_inter) == (m.alpha_intra, m.beta_intra)  # not measured
    assert m.copy_rate == pytest.approx((8e9, 12e9))
    assert m.reduce_rate == pytest.approx((3e9, 5e9))
    assert MachineParams.from_json(json.loads(json.dumps(m.to_json()))) == m


def test_fit_refuses_what_it_cannot_fit():
    with pytest.raises(HKError, match="no bench.collparams"):
        fit([])
    # one rank: no ping-pong; alpha 0 and beta the copy rate (only P = 1 is predictable)
    one = fit([r for r in synthetic() if r["params"]["quantity"] != "p2p"])
    assert one.alpha_intra == 0.0 and one.beta_intra == one.copy_rate[0]
    assert predict(one, "allreduce", "chunked", 2, MB, 1, 1) == MB / one.copy_rate[0]
    with pytest.raises(HKError, match="two"):
        fit_line([(8, 1e-6)])


def test_predict_table():
    m = fit(synthetic())
    sizes = tune.size_list("8:16M")
    assert sizes == [8 << i for i in range(22)]
    table = tune.table_of(tune.predictions(m, sizes, 2, 2, 2), {"model": m.to_json()},
                          "predicted")
    assert table["format"] == "hybridkit-allreduce-tuning" and table["version"] == 1
    assert [p["size"] for p in table["predicted"]] == sizes
    rows = table["rows"]
    assert rows[0]["algorithm"] == "mpi" and rows[-1]["max_bytes"] is None
    assert rows[-1]["algorithm"] != "mpi"  # large messages: a hybrid algorithm
    assert table["min_bytes"] == rows[0]["max_bytes"] + 1
    # one rank: only MPI rows (the hybrid algorithms fall back), so one mpi row
    one = tune.table_of(tune.predictions(m, sizes, 1, 1, 2), {}, "predicted")
    assert [(r["algorithm"], r["max_bytes"]) for r in one["rows"]] == [("mpi", None)]


def test_predict_command(tmp_path):
    """tune allreduce --predict --params: the table file from fixed collparams records"""
    out = tmp_path / "t.json"
    ns = tune_ns(out, params=[FIX / "collparams-1x2.jsonl"], np=1, threads=2, sizes="1K:4M")
    assert tune.run_allreduce(ns) == 0
    table = json.loads(out.read_text())
    assert table["ranks"] == 1 and table["threads"] == 2 and "model" in table
    assert len(table["predicted"]) == 13


def tune_ns(out, **kw):
    import argparse
    base = dict(np=2, threads=None, mpi=None, sizes="8:16M", iters=None, oversubscribe=False,
                from_records=None, output=out, predict=True, params=None, check=False)
    base.update(kw)
    return argparse.Namespace(**base)


def test_compare_counts_picks_and_ratios():
    pred = {8: {("mpi", 1): 1.0, ("chunked", 2): 2.0}, 1024: {("mpi", 1): 3.0, ("chunked", 2): 1.0}}
    meas = {8: {("mpi", 1): 2.0, ("chunked", 2): 4.0}, 1024: {("mpi", 1): 1.0, ("chunked", 2): 2.0}}
    c = tune.compare(pred, meas)
    assert c["cases"] == 4 and c["sizes"] == 2
    assert c["pick_equals_best"] == 0.5  # 8: mpi both; 1024: chunked predicted, mpi measured
    assert (c["ratio_min"], c["ratio_max"]) == (0.5, 3.0)
