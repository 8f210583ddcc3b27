"""The binding verdict and table, from hand-made binding lists."""

from __future__ import annotations

import io

import pytest

from hybridkit.launch.binding import ThreadBinding, bindings, pus_per_core, render, verdict
from hybridkit.records import load_records


def threads(*cpusets, hosts=None, per_rank=1):
    hosts = hosts or ["n0"] * len(cpusets)
    return [ThreadBinding(i // per_rank, i % per_rank, host, 0, cs, -1)
            for i, (cs, host) in enumerate(zip(cpusets, hosts))]


@pytest.mark.parametrize("ts,per_core,own,text", [
    (threads("0", "1"), 1, True, "each thread has its own core (2 threads)"),
    (threads("0", "1", per_rank=2), 1, True, "each thread has its own core (2 threads)"),
    (threads("0-1", "0-1"), 1, False, "2 threads share cores: r0/t0, r1/t0 on PU 0-1"),
    (threads("0", "0", "1"), 1, False, "2 threads share cores: r0/t0, r1/t0 on PU 0"),
    (threads("0-1", "1-2", "4"), 1, False, "2 threads share cores: r0/t0, r1/t0 on PU 0-2"),
    (threads("0", "0", "1", "1", per_rank=2), 1, False,
     "4 threads share cores: r0/t0, r0/t1 on PU 0; r1/t0, r1/t1 on PU 1"),
    (threads("0", "0", hosts=["a", "b"]), 1, True, "each thread has its own core"),
    (threads("0", "0", "0", hosts=["a", "b", "b"]), 1, False,
     "2 threads share cores: b: r1/t0, r2/t0 on PU 0"),
    (threads("0-1"), 1, False, "1 thread is not pinned to one core: r0/t0 on PU 0-1"),
    (threads("0-1", "2-3"), 2, True, "each thread has its own core (2 threads)"),
    (threads("x", "1"), 1, False, "1 thread is not pinned to one core: r0/t0 on PU x"),
    (threads("0-1", "2-3"), 1, False, "2 threads are not pinned to one core: r0/t0 on PU 0-1, "
                                      "r1/t0 on PU 2-3"),
    ([], 1, False, "no binding information in the records"),
])
def test_verdict(ts, per_core, own, text):
    result = verdict(ts, per_core)
    assert result.own_cores is own
    assert result.text.startswith(text)


def test_verdict_counts_threads_right():
    # one thread: singular; a 1 x 2 run whose records hold only thread 0's binding is not
    # "each thread has its own core (1 threads)" (issue 37)
    assert verdict(threads("0")).text == "each thread has its own core (1 thread)"
    text = verdict(threads("0"), 1, expected=2).text
    assert text == ("each of the 1 thread recorded has its own core (the binding of 1 of the "
                    "run's 2 threads is not recorded)")
    assert verdict(threads("0", "1"), 1, expected=2).text == \
        "each thread has its own core (2 threads)"


def test_many_sharing_groups_are_summarised():
    ts = threads(*[str(i // 2) for i in range(20)])
    assert verdict(ts).text.endswith("and 6 more groups")


def record(binding, source="this machine", cores=2, pus=2, warnings=()):
    return {"warnings": list(warnings),
            "provenance": {"machine": {"source": source, "cores": cores, "pus": pus},
                           "binding": binding}}


def entry(rank, thread, cpuset, host="n0"):
    return {"rank": rank, "thread": thread, "host": host, "node": 0, "cpuset": cpuset, "cpu": 0}


@pytest.mark.parametrize("rec,expected", [
    (record([], cores=2, pus=4), 2),
    (record([], cores=2, pus=2), 1),
    (record([], source="synthetic:pack:1 core:2 pu:2", cores=2, pus=4), 1),
    (record([], cores=3, pus=4), 1),
])
def test_pus_per_core(rec, expected):
    assert pus_per_core([rec]) == expected


def test_bindings_deduplicated_and_sorted():
    recs = [record([entry(1, 0, "1"), entry(0, 0, "0")]), record([entry(0, 0, "0")])]
    assert [(b.rank, b.thread) for b in bindings(recs)] == [(0, 0), (1, 0)]


def test_render_table_warnings_verdict(fixtures):
    recs = load_records(fixtures / "replay" / "shared-cores" / "records.jsonl")
    out = io.StringIO()
    result = render(recs, out)
    text = out.getvalue()
    assert not result.own_cores
    header = next(line for line in text.splitlines() if "rank" in line)
    assert header.split() == ["rank", "thread", "host", "node", "cpuset", "cpu"]
    assert "node01" in text and "0-1" in text
    assert "warning: ranks are not bound: OMP_PROC_BIND is unset" in text
    assert text.rstrip().endswith("verdict: 2 threads share cores: r0/t0, r1/t0 on PU 0-1")
