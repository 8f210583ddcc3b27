"""The epsilon section of the report (hk-spmv, Rabenseifner's experiment) on a recorded
quick sweep (2 x 2, oversubscribed: the numbers are functional, not a performance
result): eps and f_comm recomputed here from the records, the bounds from their formulas."""

from __future__ import annotations

import json

from hybridkit import appcatalog
from hybridkit.report.document import build, markdown
from hybridkit.study.rundata import assign_apps, find_runs, study_meta


def test_epsilon_section(fixtures):
    root = fixtures / "spmv_eps"
    apps = appcatalog.load_all()
    assert "spmv" in apps and "epsilon" in apps["spmv"].report
    runs = find_runs([root])
    assign_apps(runs, apps)
    sections = build(runs, apps, study_meta([root]))
    sec = next(s for s in sections if s.title.startswith("SpMV: epsilon"))
    # the records, read directly: time_per_mult max of each mode, f_comm avg of masteronly
    t, f = {}, {}
    for rec_file in (root / "runs" / "spmv").glob("*/records.jsonl"):
        for line in rec_file.read_text().splitlines():
            r = json.loads(line)
            if r["kind"] != "spmv":
                continue
            key = r["params"]["matrix"]
            t[(key, r["params"]["mode"])] = r["results"]["time_per_mult"]["max"]
            if r["params"]["mode"] == "masteronly":
                f[key] = r["results"]["f_comm"]["avg"]
    rows = {row[0]: row for row in sec.tables[0].rows}
    assert set(rows) == set(f) == {"laplace3d:16", "laplace3d:40", "laplace3d:100"}
    n = 2  # threads per process of the fixture
    for m, row in rows.items():
        eps = t[(m, "masteronly")] / t[(m, "task")]
        assert row[2] == "2x2" and row[3] == f"{f[m]:.3f}" and row[4] == f"{eps:.3f}"
        upper = min(1 + (1 - 1 / n), 1 + f[m] * n * (1 - 1 / n))
        assert row[5] == f"{1 - 1 / n:.3f} .. {upper:.3f}"
        assert row[6] == ("yes" if 1 - 1 / n <= eps <= upper else "NO")
    assert sec.figures and sec.figures[0].svg.startswith("<svg")
    assert "SpMV: epsilon" in markdown(sections, "spmv")
    # where the runs ran, from their run.json, and what 2 cores can and cannot show
    assert any(t.startswith("Where the runs ran: one machine (shared memory between the ranks, "
                            "no network). What a 2-core machine can and cannot show")
               for t in sec.text)


def test_epsilon_where_the_runs_ran():
    from hybridkit.report.bench import _spmv_where

    assert _spmv_where({"launcher": "vcluster", "nodes": 2, "link_rate": "100mbit"}) == (
        "2 emulated nodes (tools/vcluster, TCP between them, links limited to 100mbit)")
    assert _spmv_where({"launcher": "vcluster", "nodes": 3}).endswith("links not limited)")
    assert _spmv_where({"launcher": "mpirun", "nodes": 2, "hosts": ["a", "b"]}) == "2 hosts"
    assert _spmv_where({"launcher": "mpirun"}).startswith("one machine")
