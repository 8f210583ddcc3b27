"""The report's two-level section (issue 24, hybridkit.report.twolevel): hk-mz records (kind
mz) of the OpenMP and the MPI second level at several N1 x N2, with repeats, an unverified run
and a busy one; the ratios time(MPI) / time(hybrid) are computed here by hand."""

from __future__ import annotations

from pathlib import Path

from hybridkit import appcatalog
from hybridkit.report.apps import app_sections
from hybridkit.report.twolevel import twolevel_section
from hybridkit.study.rundata import Run


def mz_run(level, n1, n2, t, verified=1, busy=False, bench="sp", cls="W"):
    ranks, threads = (n1 * n2, 1) if level == "mpi" else (n1, n2)
    rec = {"kind": "mz",
           "params": {"bench": bench, "class": cls, "steps": 400, "procs": ranks,
                      "threads": threads, "groups": n1, "n2": n2, "second_level": level},
           "results": {"time": {"value": t, "unit": "s"}, "verified": {"value": verified}}}
    info = {"np": ranks, "threads": threads}
    if busy:
        info["load"] = {"busy": True}
    return Run(Path(f"/nonexistent/mz-{level}-{n1}x{n2}-{t}"), info=info, records=[rec])


RUNS = [
    mz_run("omp", 1, 2, 10.0), mz_run("omp", 1, 2, 12.0), mz_run("omp", 1, 2, 14.0),
    mz_run("mpi", 1, 2, 11.0),
    mz_run("omp", 2, 2, 5.0), mz_run("mpi", 2, 2, 4.0),
    mz_run("mpi", 2, 2, 1.0, verified=0),         # unverified: left out
    mz_run("omp", 1, 4, 3.0), mz_run("mpi", 1, 4, 6.0),
    mz_run("mpi", 4, 1, 2.0),                      # no omp partner: no ratio
    mz_run("omp", 1, 2, 2.0, bench="bt"), mz_run("mpi", 1, 2, 3.0, bench="bt"),
]


def _apps():
    apps = appcatalog.load_all()
    assert "twolevel" in apps["mz-twolevel"].report and apps["mz-twolevel"].kind == "mz"
    return apps


def test_ratios_by_hand():
    sec = twolevel_section(RUNS, _apps())
    assert sec is not None
    head = sec.tables[0].headers
    rows = {(r[0].split()[0], r[1], r[2]): dict(zip(head, r)) for r in sec.tables[0].rows}
    assert set(rows) == {("bench=sp", 1, 2), ("bench=sp", 2, 2), ("bench=sp", 1, 4),
                         ("bench=bt", 1, 2)}
    assert rows[("bench=sp", 1, 2)]["MPI / hybrid"] == 11.0 / 12.0   # median of 10, 12, 14
    assert rows[("bench=sp", 2, 2)]["MPI / hybrid"] == 4.0 / 5.0     # the unverified 1.0 out
    assert rows[("bench=sp", 1, 4)]["MPI / hybrid"] == 2.0
    assert rows[("bench=bt", 1, 2)]["MPI / hybrid"] == 1.5
    assert len(sec.figures) == 1 and sec.figures[0].svg.startswith("<svg")


def test_busy_repeat_left_out_when_others_are_not():
    runs = [mz_run("omp", 1, 2, 10.0), mz_run("omp", 1, 2, 100.0, busy=True),
            mz_run("mpi", 1, 2, 20.0)]
    sec = twolevel_section(runs, _apps())
    assert sec.tables[0].rows[0][-1] == 2.0


def test_no_pairs_no_section_and_in_the_report():
    assert twolevel_section([mz_run("omp", 1, 2, 1.0)], _apps()) is None
    titles = [s.title for s in app_sections(RUNS, _apps())]
    assert any(t.startswith("Two-level parallelism") for t in titles)
