"""The collectives' cost model against a reference set measured on the project's 2-core
machine (issue 39): python/tests/fixtures/collmodel/reference.json holds the median over
3 interleaved rounds of hk-bench collparams and hk-bench coll (six collectives, every
algorithm, 1 KiB .. 16 MiB) at 2 ranks x 1 thread and 1 rank x 2 threads, with its
provenance; reference_params_<shape>.json the parameters collmodel.fit() gave for it
(committed: the tests below are deterministic, no timing is taken).

  - fit() of the reference gives the committed parameters (a changed fit shows here);
  - every predicted time is within a factor F = 3 of the measured one (cases measured
    at >= 0.5 us: below that, one rank's copies of <= 16 KiB run from L1 and bcast is a
    no-op, finer than collparams' smallest copy size of 64 KiB; docs/coll.md);
  - the model's pick is the measured best in >= 80 % of the (collective, size) cases
    at 2 x 1, none of the six below 60 % (at 1 x 2 every hybrid algorithm falls back:
    one rank, only mpi is left).
Planted faults seen failing: the intra-node bandwidth / 4 (33 predictions beyond F, pick
47 %); hierarchical alltoall's copy out dropped (alltoall's picks 5 of 15).

reference_newer.json: scan, exscan and alltoallv (hk-bench coll, same shapes and sizes, the
minimum of 5 interleaved rounds under a heavier load and without chrt: its provenance) on the
same committed parameters: every prediction within F for the cases measured at >= 0.5 us, at
2 x 1 up to 1 MiB (beyond, the load made even the minimum 2.5-10x slower: provenance
"large_messages"); at these shapes only mpi runs (1 thread, 1 rank), so the pick is mpi and
equal by construction.  Planted fault seen failing: the scan chain without its (P - 1)
reductions (1 of the 33 at 2 x 1 beyond F: scan at 8 KiB).
"""

import json
import math
from pathlib import Path

import pytest

from hybridkit.advice import collmodel as cm
from hybridkit.commands import tune

DATA = Path(__file__).parent / "fixtures" / "collmodel"
REF = json.loads((DATA / "reference.json").read_text())
NEWER = json.loads((DATA / "reference_newer.json").read_text())
NEWER_MAX_2X1 = 1 << 20  # bytes: the largest size of the 2 x 1 cases the newer checks use
FACTOR = 3.0
FLOOR_US = 0.5
SHAPES = ("2x1", "1x2")
SIX = cm.COLLECTIVES[:6]  # the reference's collectives (reference_newer.json: the others)


def records(shape: str, ref: dict = REF) -> list:
    """bench.collparams and bench.coll records (the fields fit() and check() read)"""
    out = []
    for q, link, t, size, us, _ in ref["shapes"][shape].get("collparams", []):
        out.append({"kind": "bench.collparams",
                    "params": {"quantity": q, "link": link, "threads": t, "size": size},
                    "results": {"time": {"avg": us}},
                    "provenance": {"machine": {"cores": 2}}})
    for coll, size, alg, t, ranks, local, us, _ in ref["shapes"][shape]["coll"]:
        out.append({"kind": "bench.coll",
                    "params": {"collective": coll, "size": size, "algorithm": alg, "ran": alg,
                               "threads": t, "threads_used": t, "ranks": ranks,
                               "ranks_per_node": local, "type": "double"},
                    "results": {"time": {"avg": us, "max": us}}})
    return out


def params(shape: str) -> cm.MachineParams:
    return cm.MachineParams.from_json(
        json.loads((DATA / f"reference_params_{shape}.json").read_text()))


def checked(shape: str) -> dict:
    return tune.check(params(shape), [r for r in records(shape) if r["kind"] == "bench.coll"])


def test_the_reference_has_its_provenance_and_every_case():
    prov = REF["provenance"]
    assert prov["commit"] and prov["date"] and prov["machine"] and prov["rounds"] == 3
    assert 0 <= prov["load"]["others_cpu_share_median"] <= 1
    for shape, algs in (("2x1", {"mpi", "hierarchical"}), ("1x2", {"mpi"})):
        cases = {(c[0], c[1]) for c in REF["shapes"][shape]["coll"]}
        assert {c for c, _ in cases} == set(SIX)
        assert len(cases) == 6 * 15  # 1 KiB .. 16 MiB, doubling
        assert {c[2] for c in REF["shapes"][shape]["coll"]} == algs


@pytest.mark.parametrize("shape", SHAPES)
def test_fit_of_the_reference_gives_the_committed_parameters(shape):
    got, want = cm.fit(records(shape)).to_json(), params(shape).to_json()
    assert got.keys() == want.keys()
    for k, v in want.items():
        assert got[k] == pytest.approx(v, rel=1e-9), k


def test_predictions_within_the_stated_factor():
    bad, n = [], 0
    for shape in SHAPES:
        for c in checked(shape)["cases"]:
            if c["measured_us"] < FLOOR_US:
                continue
            n += 1
            if not 1 / FACTOR <= c["ratio"] <= FACTOR:
                bad.append((shape, c["collective"], c["size"], c["algorithm"],
                            round(c["ratio"], 2)))
    assert not bad, f"{len(bad)} of {n} predictions beyond a factor {FACTOR}: {bad[:8]}"
    assert n == 230  # 180 at 2x1, 50 at 1x2 (the others below FLOOR_US)


def test_pick_accuracy_at_two_ranks():
    result = checked("2x1")
    picks = result["picks"]
    strict = sum(p["equal"] for p in picks) / len(picks)
    # within 5 %: the pick's measured time at most 5 % above the best's (ties in noise)
    cases = {(c["collective"], c["size"], f"{c['algorithm']} x{c['threads']}"): c["measured_us"]
             for c in result["cases"]}
    near = sum(cases[(p["collective"], p["size"], p["model"])]
               <= 1.05 * cases[(p["collective"], p["size"], p["measured"])]
               for p in picks) / len(picks)
    assert result["near"] == pytest.approx(near)
    assert len(picks) == 90
    assert strict >= 0.80, f"pick = measured best in {strict:.0%}"
    assert near >= strict
    # and no collective far behind (measured: reduce 10 of 15, the others 13 .. 15)
    for coll in SIX:
        mine = [p["equal"] for p in picks if p["collective"] == coll]
        assert sum(mine) / len(mine) >= 0.6, coll
    assert result["agree"] == pytest.approx(strict)


def test_one_rank_only_mpi_runs():
    result = checked("1x2")
    assert result["agree"] == 1.0
    assert all(math.isfinite(c["predicted_us"]) for c in result["cases"])


def test_the_newer_reference_has_scan_exscan_and_alltoallv():
    prov = NEWER["provenance"]
    assert prov["commit"] and prov["date"] and prov["rounds"] == 5
    assert 0 <= prov["load"]["others_cpu_share_median"] <= 1
    for shape in SHAPES:
        rows = NEWER["shapes"][shape]["coll"]
        assert {(r[0], r[1]) for r in rows} == {(c, 1024 << k) for c in cm.COLLECTIVES[6:]
                                                for k in range(15)}
        assert {r[2] for r in rows} == {"mpi"}  # nothing hybrid runs at 1 thread or 1 rank


@pytest.mark.parametrize("shape", SHAPES)
def test_newer_predictions_within_the_stated_factor(shape):
    recs = records(shape, NEWER)
    if shape == "2x1":
        recs = [r for r in recs if r["params"]["size"] <= NEWER_MAX_2X1]
    result = tune.check(params(shape), recs)
    cases = [c for c in result["cases"] if c["measured_us"] >= FLOOR_US]
    bad = [(c["collective"], c["size"], round(c["ratio"], 2)) for c in cases
           if not 1 / FACTOR <= c["ratio"] <= FACTOR]
    assert not bad, f"{len(bad)} of {len(cases)} predictions beyond a factor {FACTOR}: {bad[:8]}"
    assert len(cases) == {"2x1": 33, "1x2": 20}[shape]
    assert result["agree"] == 1.0  # only mpi measured: the pick among them is mpi
