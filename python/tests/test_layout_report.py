"""The report's data-layout section (issue 23, hybridkit.report.layout): hand-made hk-mz
records (kind mz) of several layouts and thread counts, with repeats, an unverified run, a
busy one and the measured pages_max_node; the medians and the sentences are checked by hand."""

from __future__ import annotations

from pathlib import Path

from hybridkit import appcatalog
from hybridkit.report.apps import app_sections
from hybridkit.report.layout import layout_section, single_node_sentence
from hybridkit.study.rundata import Entry, Run


def mz_run(layout, threads, mops, pages=(1.0, 1.0), verified=1, busy=False, ranks=1,
           bench="bt", cls="S"):
    rec = {"kind": "mz",
           "params": {"bench": bench, "class": cls, "procs": ranks, "threads": threads,
                      "layout": layout},
           "results": {"mops": {"value": mops, "unit": "Mop/s"}, "verified": {"value": verified}}}
    if pages is not None:
        lo, hi = pages
        rec["results"]["pages_max_node"] = {"min": lo, "avg": (lo + hi) / 2, "max": hi,
                                            "unit": "fraction"}
    info = {"np": ranks, "threads": threads}
    if busy:
        info["load"] = {"busy": True}
    return Run(Path(f"/nonexistent/mz-{layout}-{threads}-{mops}"), info=info, records=[rec])


ONE_NODE = [
    mz_run("first-touch", 1, 100.0), mz_run("first-touch", 1, 120.0),
    mz_run("first-touch", 1, 140.0),
    mz_run("first-touch", 2, 190.0),
    mz_run("random", 2, 180.0), mz_run("random", 2, 999.0, verified=0),   # unverified: out
    mz_run("one-location", 2, 170.0), mz_run("one-location", 2, 10.0, busy=True),  # busy: out
    mz_run("access", 2, 150.0, bench="sp"),
]


def _apps():
    apps = appcatalog.load_all()
    assert "layout" in apps["mz-layout"].report and apps["mz-layout"].kind == "mz"
    return apps


def _rows(sec):
    head = sec.tables[0].headers
    return {(r[0], r[1], r[2], r[3]): dict(zip(head, r)) for r in sec.tables[0].rows}


def test_medians_and_pages_by_hand():
    sec = layout_section(ONE_NODE, _apps())
    assert sec is not None
    rows = _rows(sec)
    bt = "bench=bt class=S"
    assert set(rows) == {(bt, 1, 1, "first-touch"), (bt, 1, 2, "first-touch"),
                         (bt, 1, 2, "random"), (bt, 1, 2, "one-location"),
                         ("bench=sp class=S", 1, 2, "access")}
    assert rows[(bt, 1, 1, "first-touch")]["Mop/s (median)"] == 120.0  # of 100, 120, 140
    assert rows[(bt, 1, 1, "first-touch")]["runs"] == 3
    assert rows[(bt, 1, 2, "random")]["Mop/s (median)"] == 180.0      # the unverified 999 out
    assert rows[(bt, 1, 2, "one-location")]["Mop/s (median)"] == 170.0  # the busy 10 out
    assert rows[(bt, 1, 2, "one-location")]["Mop/s (pages_max_node) per run"] == "170.0 (1.00)"
    assert any("Every run had pages_max_node = 1" in t for t in sec.text)
    assert len(sec.figures) == 1 and sec.figures[0].svg.startswith("<svg")


def test_spread_pages_shown_per_run_and_no_single_node_sentence():
    runs = [mz_run("interleave", 4, 300.0, pages=(0.5, 0.52), ranks=2),
            mz_run("interleave", 4, 310.0, pages=(0.5, 0.5), ranks=2),
            mz_run("one-location", 4, 200.0, ranks=2)]
    sec = layout_section(runs, _apps())
    rows = _rows(sec)
    cell = rows[("bench=bt class=S", 2, 4, "interleave")]["Mop/s (pages_max_node) per run"]
    assert cell == "300.0 (0.50-0.52), 310.0 (0.50)"
    assert rows[("bench=bt class=S", 2, 4, "interleave")]["Mop/s (median)"] == 305.0
    text = " ".join(sec.text)
    assert "Every run had pages_max_node = 1" not in text
    assert "pages_max_node below 1 in 2 of 3 run(s)" in text


def test_sentence_edge_cases():
    def es(*runs):
        return [Entry(r, r.records[0]) for r in runs]
    # one rank on one node and another rank spread: not all 1
    spread = es(mz_run("block", 2, 1.0, pages=(0.6, 1.0)))
    assert "below 1 in 1 of 1" in single_node_sentence(spread)
    s = single_node_sentence(es(mz_run("block", 2, 1.0), mz_run("block", 2, 1.0, pages=None)))
    assert s.startswith("Every run had pages_max_node = 1") and "1 run(s) did not measure" in s
    assert single_node_sentence(es(mz_run("block", 2, 1.0, pages=None))).startswith("No run")


def test_no_layout_records_no_section_and_in_the_report():
    assert layout_section([mz_run("random", 1, 1.0, verified=0)], _apps()) is None
    titles = [s.title for s in app_sections(ONE_NODE, _apps())]
    assert any(t.startswith("Data layout: Mop/s per page placement policy") for t in titles)
