"""The study's `mc` app sweeps hk-mc's --collective (issue 39): the full set runs every
collective with every algorithm, each collective is its own problem (the algorithms are
compared per collective), and the command line names both options."""
from __future__ import annotations

import pytest

from hybridkit import appcatalog
from hybridkit.errors import HKError, UsageError
from hybridkit.study.plan import Cluster, expand

HERE = Cluster(cores=2)
COLLECTIVES = ("allreduce", "reduce", "reduce-scatter", "allgather", "alltoall", "bcast")


def test_full_sweeps_every_collective_and_algorithm():
    mc = appcatalog.get("mc")
    runs = expand(mc, "full", HERE)
    pairs = {(r.param_dict["collective"], r.param_dict["allreduce"]) for r in runs}
    assert pairs == {(c, a) for c in COLLECTIVES
                     for a in ("mpi", "chunked", "chunked-shifted", "hierarchical")}
    # every layout for each pair
    assert len(runs) == len(pairs) * len({(r.ranks, r.threads) for r in runs})


def test_quick_stays_the_allreduce():
    runs = expand(appcatalog.get("mc"), "quick", HERE)
    assert {r.param_dict["collective"] for r in runs} == {"allreduce"}


def test_argv_and_problem_key():
    mc = appcatalog.get("mc")
    assert mc.argv({"collective": "reduce-scatter", "allreduce": "chunked", "steps": 5}, 2, 1) \
        == ["--collective", "reduce-scatter", "--algorithm", "chunked", "--steps", "5"]
    rec = {"particles": 1000, "tally_bytes": 131072, "steps": 5, "allreduce": "mpi"}
    keys = {mc.problem_key(dict(rec, collective=c)) for c in COLLECTIVES}
    assert len(keys) == len(COLLECTIVES)
    assert mc.problem_key(dict(rec, collective="reduce")) == \
        mc.problem_key(dict(rec, collective="reduce", allreduce="chunked"))


def test_collective_values_are_checked():
    mc = appcatalog.get("mc")
    assert mc.values("collective", "alltoall") == ("alltoall",)
    with pytest.raises((HKError, UsageError)):
        expand(mc, "quick", HERE, overrides={"collective": ["ring"]})
