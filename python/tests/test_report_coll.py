"""The report's sections of the hybrid collectives (hybridkit.report.coll) on synthetic
bench.coll records: the answer line, the table's values (computed here by hand from the
times written into the records), the marking of rows that fell back, the medians over
repeats, and the model's dashed lines only when bench.collparams records are there."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridkit.records import loads

from hybridkit.report import coll
from hybridkit.report.document import build, markdown
from hybridkit.study.rundata import Run

KIB = 1024
FIXTURE = Path(__file__).parent / "fixtures" / "records" / "valid.jsonl"
PROVENANCE = loads(FIXTURE.read_text().splitlines()[0])["provenance"]


def rec(collective, algorithm, threads, size, t, used=None, fallback="none", ran=None,
        kind="bench.coll", ranks=2, per_node=2, omp=2):
    params = {"collective": collective, "type": "double", "algorithm": algorithm,
              "threads": threads, "ran": ran or algorithm,
              "threads_used": threads if used is None else used, "fallback": fallback,
              "size": size, "count": size // 8, "iters": 10, "timing": "back-to-back",
              "ranks": ranks, "ranks_per_node": per_node, "nodes": 1}
    if kind == "bench.allreduce":
        for k in ("collective", "ranks", "ranks_per_node", "nodes"):
            params.pop(k)
    return {"kind": kind, "params": params,
            "results": {"time": {"min": t / 2, "avg": t * 0.8, "max": t, "unit": "us"},
                        "bandwidth": {"value": size / t, "unit": "MB/s"}},
            "provenance": {**PROVENANCE, "ranks": ranks, "threads_per_rank": omp, "nodes": 1,
                           "binding": []}}


def run(records, name="r"):
    return Run(Path(f"/nonexistent/{name}"), info={"np": 2, "threads": 2}, records=records)


# reduce at 2 ranks x 2 cores: MPI 10, 20, 40, 80 us at 1, 4, 16, 64 KiB; chunked x2 slower
# at 1 and 4 KiB, faster from 16 KiB (40 -> 25 in the median of 20 and 30; 80 -> 50);
# chunked x1 fell back to mpi (one-thread) and is fastest of all at 64 KiB: never chosen
REDUCE = [rec("reduce", "mpi", 1, s, t) for s, t in ((KIB, 10), (4 * KIB, 20), (16 * KIB, 40),
                                                     (64 * KIB, 80))]
REDUCE += [rec("reduce", "chunked", 2, KIB, 15), rec("reduce", "chunked", 2, 4 * KIB, 30),
           rec("reduce", "chunked", 2, 64 * KIB, 50)]
REPEATS = [run([rec("reduce", "chunked", 2, 16 * KIB, 20)], "a"),
           run([rec("reduce", "chunked", 2, 16 * KIB, 30)], "b")]
FELL = [rec("reduce", "chunked", 1, 64 * KIB, 5, used=1, fallback="one-thread", ran="mpi")]
RUNS = [run(REDUCE + FELL)] + REPEATS


def table_rows(sec, i=0):
    t = sec.tables[i]
    return {r[0]: dict(zip(t.headers, r)) for r in t.rows}


def test_section_answer_table_and_fallback():
    secs = coll.coll_sections(RUNS)
    assert [s.title for s in secs] == ["Collective reduce: plain MPI vs hybrid"]
    sec = secs[0]
    # the answer first: from 16 KiB chunked x2 wins, by 40/25 = 1.6 and 80/50 = 1.6
    assert sec.text[0] == "reduce: chunked x2 is 1.6x faster than MPI from 16 KiB; below, MPI"
    rows = table_rows(sec)
    assert list(rows) == ["1 KiB", "4 KiB", "16 KiB", "64 KiB"]
    one = rows["1 KiB"]
    assert one["MPI [us]"] == "10" and one["best hybrid"] == "chunked x2"
    assert one["T_hybrid/T_MPI"] == "1.5" and one["fastest"] == "mpi"
    assert one["cores busy (fastest)"] == "1 of 2 (50%)"
    assert rows["16 KiB"]["hybrid [us]"] == "25"                  # median of 20 and 30
    assert rows["16 KiB"]["T_hybrid/T_MPI"] == "0.625"            # 25 / 40
    big = rows["64 KiB"]
    assert big["fastest"] == "chunked x2" and big["T_hybrid/T_MPI"] == "0.625"  # 50 / 80
    assert big["cores busy (fastest)"] == "2 of 2 (100%)"
    # the row that fell back is marked and never the fastest although it has the least time
    assert big["fell back (what ran)"] == "chunked x1 (one-thread, ran mpi)"
    assert rows["1 KiB"]["fell back (what ran)"] == "-"
    assert "red crosses" in sec.figures[0].caption
    assert sec.figures[0].svg.startswith("<svg")


def test_answer_lines():
    mpi = {("mpi", 1): {s: coll.Cell([t], [1], []) for s, t in ((1, 10.0), (2, 20.0))}}
    slower = {**mpi, ("chunked", 2): {1: coll.Cell([20.0], [2], []), 2: coll.Cell([30.0], [2], [])}}
    assert coll.answer_line("bcast", slower) == ("bcast: MPI is the fastest at every size "
                                                 "measured; the best hybrid (chunked x2 at 2 B) "
                                                 "is 1.5x slower")
    faster = {**mpi, ("hierarchical", 2): {1: coll.Cell([5.0], [2], []),
                                           2: coll.Cell([5.0], [2], [])}}
    assert coll.answer_line("allgather", faster) == (
        "allgather: hierarchical x2 is 3x faster than MPI at every size measured (median of 2 "
        "sizes, 2x to 4x)")
    early = {**faster, ("mpi", 1): {**mpi[("mpi", 1)], 4: coll.Cell([1.0], [1], [])},
             ("hierarchical", 2): {**faster[("hierarchical", 2)], 4: coll.Cell([2.0], [2], []),
                                   8: coll.Cell([1.0], [2], [])}}
    early[("mpi", 1)][8] = coll.Cell([3.0], [1], [])
    assert coll.answer_line("reduce", early) == (
        "reduce: hierarchical x2 is 3x faster than MPI from 8 B; below, MPI (hybrid also at "
        "1 B, 2 B)")
    apart = {**mpi, ("chunked", 2): {8: coll.Cell([1.0], [2], [])}}
    assert coll.answer_line("bcast", apart).endswith("at different sizes: no comparison")
    assert coll.answer_line("alltoall", mpi) == ("alltoall: only plain MPI measured (no hybrid "
                                                 "row ran as asked)")


def test_allreduce_records_of_hk_bench_allreduce():
    """bench.allreduce has no collective nor layout: allreduce, from the provenance."""
    recs = [rec("allreduce", "mpi", 1, 8 * KIB, 10, kind="bench.allreduce"),
            rec("allreduce", "chunked", 2, 8 * KIB, 8, kind="bench.allreduce")]
    secs = coll.coll_sections([run(recs)])
    assert [s.title for s in secs] == ["Collective allreduce: plain MPI vs hybrid"]
    assert secs[0].text[0] == "allreduce: chunked x2 is 1.2x faster than MPI at every size measured"
    assert table_rows(secs[0])["8 KiB"]["T_hybrid/T_MPI"] == "0.8"


def test_layouts_apart():
    """2 ranks x 1 core and 1 rank x 2 cores are two tables, named in the answer lines."""
    a = [rec("bcast", "mpi", 1, KIB, 10, omp=1), rec("bcast", "chunked", 2, KIB, 5, omp=1)]
    b = [rec("bcast", "mpi", 1, KIB, 10, ranks=1, per_node=1),
         rec("bcast", "chunked", 2, KIB, 20, ranks=1, per_node=1)]
    sec = coll.coll_sections([run(a, "a"), run(b, "b")])[0]
    assert len(sec.tables) == 2
    assert sec.tables[0].headers[0] == "size (1 rank(s) on 1 node(s) x 2 core(s), double, back-to-back)"
    assert sec.text[0].startswith("bcast (1 rank(s) on 1 node(s) x 2 core(s), double, "
                                  "back-to-back): MPI is the fastest")
    assert sec.text[1].startswith("bcast (2 rank(s) on 1 node(s) x 1 core(s), double, "
                                  "back-to-back): chunked x2 is 2x faster")


def test_no_records_no_section():
    assert coll.coll_sections([run([{"kind": "bench.barrier", "params": {}, "results": {}}])]) == []


def test_in_the_report_without_model():
    sections = build(RUNS, {}, {})
    text = markdown(sections, "t")
    assert "## Collective reduce: plain MPI vs hybrid" in text
    assert "No prediction: no bench.collparams records" in text
    sec = next(s for s in sections if s.title.startswith("Collective reduce"))
    assert "model" not in " ".join(sec.tables[0].headers)
    assert "dashed" not in sec.figures[0].caption


def collparams(quantity, link, threads, size, t):
    return {"kind": "bench.collparams",
            "params": {"quantity": quantity, "link": link, "threads": threads, "size": size},
            "results": {"time": {"min": t, "avg": t, "max": t, "unit": "us"},
                        "rate": {"value": size / t if t else 0, "unit": "MB/s"}},
            "provenance": {**PROVENANCE, "ranks": 2, "threads_per_rank": 2, "nodes": 1,
                           "binding": []}}


# a machine: latency 1 us and 1 GB/s between ranks; copies 2 GB/s (3 with 2 threads),
# sums 1 GB/s (1.5 with 2 threads)
PARAMS = ([collparams("p2p", "intra", 1, s, 1.0 + s / 1000.0) for s in (0, 1024, 1 << 20)]
          + [collparams(q, "none", t, 1 << 21, (1 << 21) / r)
             for q, rates in (("copy", (2000.0, 3000.0)), ("reduce", (1000.0, 1500.0)))
             for t, r in zip((1, 2), rates)])


@pytest.mark.skipif(coll.collmodel is None, reason="hybridkit.advice.collmodel not there")
def test_predicted_lines_with_collparams():
    recs = [rec("allreduce", "mpi", 1, s, 10.0 * s / KIB) for s in (KIB, 64 * KIB)]
    recs += [rec("allreduce", "chunked", 2, s, 8.0 * s / KIB) for s in (KIB, 64 * KIB)]
    sec = coll.coll_sections([run(recs + PARAMS)])[0]
    assert "model's fastest" in sec.tables[0].headers
    assert "dashed" in sec.figures[0].caption
    assert any("median factor between predicted and measured" in t for t in sec.text)
    model = coll.fit_model([run(PARAMS)])
    g = coll.Group("allreduce", "double", "back-to-back", 2, 2, 2)
    want = coll.collmodel.predict(model.params, "allreduce", "chunked", 2, KIB, 2, 2) * 1e6
    assert model.predict(g, ("chunked", 2), KIB) == pytest.approx(want)
    # without the collparams records: measured only
    sec = coll.coll_sections([run(recs)])[0]
    assert "model's fastest" not in sec.tables[0].headers
    assert "dashed" not in sec.figures[0].caption


def test_several_winners_named():
    mpi = {("mpi", 1): {s: coll.Cell([10.0], [1], []) for s in (1, 2, 4)}}
    rows = {**mpi, ("chunked", 2): {s: coll.Cell([t], [2], []) for s, t in ((1, 20.0), (2, 5.0),
                                                                              (4, 6.0))},
            ("hierarchical", 2): {4: coll.Cell([4.0], [2], [])}}
    # 2 B: chunked 10/5 = 2x; 4 B: hierarchical 10/4 = 2.5x; median 2.25 -> 2.2x
    assert coll.answer_line("reduce", rows) == (
        "reduce: chunked x2 is 2.2x faster than MPI from 2 B; below, MPI (chunked x2 the "
        "fastest at 1 of 2 sizes, else hierarchical x2; median of 2 sizes, 2x to 2.5x)")
