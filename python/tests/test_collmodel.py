"""The collectives' cost model (advice/collmodel.py): formulas against hand-computed values,
fit() recovering known parameters from synthetic bench.collparams records, best()."""

import math

import pytest

from hybridkit.advice import collmodel as cm

PARAMS = cm.MachineParams(alpha_intra=1e-6, beta_intra=1e9, alpha_inter=5e-6, beta_inter=1e8,
                          copy_rate=(2e9, 3e9), reduce_rate=(1e9, 1.5e9), cores_per_node=2,
                          overhead=2e-6, thread_overhead=1e-6)


def test_mpi_allreduce_small_is_recursive_doubling():
    # P = 4 on one node: lg = 2; n = 1024: the send buffer copied to the receive buffer
    # (n / c(1)) + 2 (1e-6 + 1024/1e9 + 1024/1e9)
    t = cm.predict(PARAMS, "allreduce", "mpi", 1, 1024, 4, 4)
    assert t == pytest.approx(1024 / 2e9 + 2 * (1e-6 + 1024e-9 + 1024e-9))


def test_mpi_allreduce_large_is_rabenseifner_on_the_inter_link():
    # P = 4, 2 per node: inter link; n = 1 MiB: n/c(1) + 2*2*5e-6 + 2*(3/4) n/1e8 + (3/4) n/1e9
    n = 1 << 20
    t = cm.predict(PARAMS, "allreduce", "mpi", 1, n, 4, 2)
    assert t == pytest.approx(n / 2e9 + 4 * 5e-6 + 1.5 * n / 1e8 + 0.75 * n / 1e9)


def test_chunked_two_threads_allreduce():
    # P = 2 one node, T = 2, n = 256 KiB: chunk 128 KiB > SMALL -> Rabenseifner with r(2),
    # the chunks' copies to the receive buffer at c(2)
    n = 256 * 1024
    t = cm.predict(PARAMS, "allreduce", "chunked", 2, n, 2, 2)
    assert t == pytest.approx(3e-6 + n / 3e9 + 2 * 1e-6 + 2 * 0.5 * n / 1e9 + 0.5 * n / 1.5e9)
    assert cm.predict(PARAMS, "allreduce", "chunked-shifted", 2, n, 2, 2) == pytest.approx(t)


def test_hierarchical_bcast_and_fallbacks():
    n = 4096
    # P = 4, L = 2, N = 2: leaders' binomial bcast over 2 nodes + 2 copies at c(1)
    t = cm.predict(PARAMS, "bcast", "hierarchical", 1, n, 4, 2)
    assert t == pytest.approx(2e-6 + (5e-6 + n / 1e8) + 2 * n / 2e9)
    assert cm.predict(PARAMS, "bcast", "hierarchical", 1, n, 4, 1) == math.inf
    assert cm.predict(PARAMS, "alltoall", "hierarchical", 1, n, 4, 2) == math.inf
    assert math.isfinite(cm.predict(PARAMS, "alltoall", "hierarchical", 1, n, 2, 2))


def test_hierarchical_on_one_node_has_no_leaders_step():
    # P = L = 2, T = 2, n = 1 MiB: copy in of the other rank's chunks (n/2 at c(2)), the
    # node reduction of n/2 at r(2), copy out at c(2); no MPI call among one node
    n = 1 << 20
    over = 2e-6 + 1e-6
    t = cm.predict(PARAMS, "allreduce", "hierarchical", 2, n, 2, 2)
    assert t == pytest.approx(over + 0.5 * n / 3e9 + 0.5 * n / 1.5e9 + n / 3e9)
    assert cm.predict(PARAMS, "reduce", "hierarchical", 2, n, 2, 2) == pytest.approx(t)
    # reduce-scatter copies out its block (n / P); allgather copies in its block, out all
    assert cm.predict(PARAMS, "reduce-scatter", "hierarchical", 2, n, 2, 2) == pytest.approx(
        over + 0.5 * n / 3e9 + 0.5 * n / 1.5e9 + 0.5 * n / 3e9)
    assert cm.predict(PARAMS, "allgather", "hierarchical", 2, n, 2, 2) == pytest.approx(
        over + 0.5 * n / 3e9 + n / 3e9)


def test_mpi_reduce_scatter_is_reduce_then_scatter():
    # P = 2 one node, n = 1 MiB: reduce (pipelined: a + n/b + n/r1) + scatter (a + n/2 / b)
    n = 1 << 20
    t = cm.predict(PARAMS, "reduce-scatter", "mpi", 1, n, 2, 2)
    assert t == pytest.approx(1e-6 + n / 1e9 + n / 1e9 + 1e-6 + 0.5 * n / 1e9)


def test_one_rank_copies_at_the_local_rate():
    # the copy of a process's own buffer at the rate the cache curve gives for its size
    # (log-linear between the measured sizes, constant beyond)
    p = cm.MachineParams(**{**PARAMS.__dict__, "local_sizes": (1 << 16, 1 << 20),
                            "local_copy": (40e9, 10e9)})
    assert cm.predict(p, "allreduce", "mpi", 1, 1 << 16, 1, 1) == pytest.approx(65536 / 40e9)
    assert cm.predict(p, "allreduce", "mpi", 1, 1 << 18, 1, 1) == pytest.approx(
        (1 << 18) / 25e9)
    assert cm.predict(p, "alltoall", "mpi", 1, 1 << 24, 1, 1) == pytest.approx(
        (1 << 24) / 10e9)
    assert cm.predict(p, "reduce-scatter", "mpi", 1, 1 << 24, 1, 1) == pytest.approx(
        2 * (1 << 24) / 10e9)
    assert cm.MachineParams.from_json(p.to_json()) == p


def test_one_rank_is_a_copy_and_hybrid_falls_back():
    assert cm.predict(PARAMS, "allreduce", "mpi", 1, 2000, 1, 1) == pytest.approx(2000 / 2e9)
    assert cm.predict(PARAMS, "bcast", "mpi", 1, 2000, 1, 1) == 0.0
    assert cm.predict(PARAMS, "reduce", "chunked", 2, 2000, 1, 1) == math.inf
    assert cm.best(PARAMS, "allreduce", 1 << 20, 1, 1, 2)[:2] == ("mpi", 1)


def test_every_case_is_positive_or_inf():
    for coll in cm.COLLECTIVES:
        for alg in cm.ALGORITHMS:
            for p, l in ((2, 1), (2, 2), (3, 3), (4, 2)):
                t = cm.predict(PARAMS, coll, alg, 2, 1 << 16, p, l)
                assert t > 0


def test_best_picks_the_minimum():
    for coll in cm.COLLECTIVES:
        for size in (8, 1 << 14, 1 << 24):
            alg, thr, sec = cm.best(PARAMS, coll, size, 4, 2, 2)
            every = [cm.predict(PARAMS, coll, a, t, size, 4, 2)
                     for a in cm.ALGORITHMS for t in (1, 2)]
            assert sec == pytest.approx(min(every))
            assert cm.predict(PARAMS, coll, alg, thr, size, 4, 2) == sec


def test_json_round_trip():
    d = PARAMS.to_json()
    assert d["copy_rate"] == [2e9, 3e9]
    assert cm.MachineParams.from_json(d) == PARAMS


def synthetic(params, repeats=3):
    """bench.collparams records a machine with `params` would write (times in us; noise
    on the repeats, the median is exact)"""
    recs = []

    def rec(q, link, t, size, sec, k):
        noise = (1.0, 1.3, 0.9)[k % 3]
        recs.append({"kind": "bench.collparams",
                     "params": {"quantity": q, "link": link, "threads": t, "size": size},
                     "results": {"time": {"min": sec * 1e6 * noise, "avg": sec * 1e6 * noise,
                                          "max": sec * 1e6 * noise}}})
    for k in range(repeats):
        for size in [0] + [1 << i for i in range(0, 23, 2)]:
            rec("p2p", "intra", 1, size, params.alpha_intra + size / params.beta_intra, k)
            rec("p2p", "inter", 1, size, params.alpha_inter + size / params.beta_inter, k)
        for t in (1, 2):
            for size in (1 << 16, 1 << 20, 1 << 24):
                rec("copy", "none", t, size, size / params.copy_rate[t - 1], k)
                rec("reduce", "none", t, size, size / params.reduce_rate[t - 1], k)
    return recs


def test_fit_recovers_known_parameters():
    recs = synthetic(PARAMS)
    recs[0]["provenance"] = {"machine": {"cores": 4, "pus": 8}}
    got = cm.fit(recs)
    assert got.cores_per_node == 4
    for name in ("alpha_intra", "beta_intra", "alpha_inter", "beta_inter"):
        assert getattr(got, name) == pytest.approx(getattr(PARAMS, name), rel=1e-6), name
    assert got.copy_rate == pytest.approx(PARAMS.copy_rate)
    assert got.reduce_rate == pytest.approx(PARAMS.reduce_rate)
    # the local (cache) curve: one thread's copy rate per measured size
    assert got.local_sizes == (1 << 16, 1 << 20, 1 << 24)
    assert got.local_copy == pytest.approx((PARAMS.copy_rate[0],) * 3)


def test_fit_without_inter_uses_intra():
    recs = [r for r in synthetic(PARAMS) if r["params"]["link"] != "inter"]
    got = cm.fit(recs)
    assert (got.alpha_inter, got.beta_inter) == (got.alpha_intra, got.beta_intra)


def test_fit_overhead_from_coll_records():
    truth = cm.MachineParams(**{**PARAMS.__dict__, "mpi_overhead": 5e-7})
    recs = synthetic(truth)
    for alg, t in (("mpi", 1), ("chunked", 1), ("chunked", 2)):
        for size in (8, 64, 512):
            sec = cm.predict(truth, "allreduce", alg, t, size, 2, 2)
            recs.append({"kind": "bench.coll",
                         "params": {"collective": "allreduce", "algorithm": alg,
                                    "ran": alg, "threads": t, "threads_used": t,
                                    "size": size, "ranks": 2, "ranks_per_node": 2},
                         "results": {"time": {"min": sec * 1e6, "avg": sec * 1e6,
                                              "max": sec * 1e6}}})
    got = cm.fit(recs)
    assert got.mpi_overhead == pytest.approx(truth.mpi_overhead, rel=1e-3)
    assert got.overhead == pytest.approx(truth.overhead, rel=1e-3)
    assert got.thread_overhead == pytest.approx(truth.thread_overhead, rel=1e-3)


def test_fit_needs_records():
    with pytest.raises(ValueError):
        cm.fit([])


def test_fit_overhead_ignores_one_noisy_run():
    recs = []
    for size in (8, 64, 512, 1024, 2048):
        sec = cm.predict(PARAMS, "bcast", "chunked", 1, size, 2, 2)
        sec += 1e-3 if size == 64 else 0.0  # the machine was busy once
        recs.append({"kind": "bench.coll",
                     "params": {"collective": "bcast", "algorithm": "chunked", "ran": "chunked",
                                "threads": 1, "threads_used": 1, "size": size, "ranks": 2,
                                "ranks_per_node": 2},
                     "results": {"time": {"avg": sec * 1e6, "max": sec * 1e6}}})
    got = cm.fit_overhead(PARAMS, recs)
    assert got.overhead == pytest.approx(PARAMS.overhead, rel=1e-3)


def test_scan_and_exscan_are_a_chain_in_rank_order():
    # P = 4 on one node, n = 64 KiB: scan copies, then 3 hops of (a + n/b + n/r1); exscan
    # has no copy and one reduction fewer
    n = 1 << 16
    assert cm.predict(PARAMS, "scan", "mpi", 1, n, 4, 4) == pytest.approx(
        n / 2e9 + 3 * (1e-6 + n / 1e9 + n / 1e9))
    assert cm.predict(PARAMS, "exscan", "mpi", 1, n, 4, 4) == pytest.approx(
        3 * (1e-6 + n / 1e9) + 2 * n / 1e9)
    # chunked: MPI's chain on T chunks at the T-thread rates, plus the hybrid overheads
    assert cm.predict(PARAMS, "scan", "chunked", 2, n, 4, 4) == pytest.approx(
        2e-6 + 1e-6 + n / 3e9 + 3 * (1e-6 + n / 1e9 + n / 1.5e9))
    # one rank: scan copies its buffer, exscan moves nothing
    assert cm.predict(PARAMS, "scan", "mpi", 1, 2000, 1, 1) == pytest.approx(2000 / 2e9)
    assert cm.predict(PARAMS, "exscan", "mpi", 1, 2000, 1, 1) == 0.0


def test_scan_has_no_shifted_or_hierarchical():
    for coll in ("scan", "exscan"):
        for alg in ("chunked-shifted", "hierarchical"):
            assert cm.predict(PARAMS, coll, alg, 2, 1 << 20, 4, 4) == math.inf
        assert math.isfinite(cm.predict(PARAMS, coll, "chunked", 2, 1 << 20, 4, 4))
        assert cm.best(PARAMS, coll, 1 << 20, 4, 4, 2)[0] in ("mpi", "chunked")


def test_alltoallv_is_alltoall_with_per_pair_counts():
    # uniform counts: n = P x the per-pair bytes, as hk-bench coll and the table count it;
    # MPI's pairwise exchange, the chunked runs alike; no hierarchical (alltoallv.c)
    for p, l in ((2, 2), (4, 4), (4, 2)):
        for n in (1024, 1 << 20):
            for alg in ("mpi", "chunked", "chunked-shifted"):
                assert cm.predict(PARAMS, "alltoallv", alg, 2, n, p, l) == pytest.approx(
                    cm.predict(PARAMS, "alltoall", alg, 2, n, p, l))
            assert cm.predict(PARAMS, "alltoallv", "hierarchical", 2, n, p, l) == math.inf
    n = 1 << 16  # P = 4 on one node: 3 x (a + n/(4 b)) + n/(4 c1)
    assert cm.predict(PARAMS, "alltoallv", "mpi", 1, n, 4, 4) == pytest.approx(
        3 * (1e-6 + n / 4e9) + n / 8e9)
    assert cm.best(PARAMS, "alltoallv", 1 << 20, 4, 4, 2)[0] != "hierarchical"
    assert cm.MEASURED == cm.COLLECTIVES and "alltoallv" in cm.COLLECTIVES
