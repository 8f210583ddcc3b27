"""The report's mesh-splitting section (issue 24, hybridkit.report.split): hand-made hk-mz
records of pure MPI runs with split zones and unsplit hybrid runs at equal cores, repeats, a
busy repeat, residual histories in run directories; expected values computed here by hand."""

from __future__ import annotations

from pathlib import Path

from hybridkit import appcatalog
from hybridkit.report.apps import app_sections
from hybridkit.report.split import compare, histories, points_table, split_entries, split_section
from hybridkit.study.rundata import Run

UNSPLIT = 3456  # SP-MZ class S: 4 zones of 24x24x6


def mz_run(procs, threads, split, t, res, ghosts=0, busy=False, path=None):
    rec = {"kind": "mz",
           "params": {"bench": "sp", "class": "S", "steps": 20, "procs": procs,
                      "threads": threads, "split": split},
           "results": {"time_per_step": {"avg": t, "unit": "s"},
                       "points": {"value": UNSPLIT + ghosts},
                       "ghost_points": {"value": ghosts},
                       "residual_final": {"value": res}}}
    info = {"np": procs, "threads": threads}
    if busy:
        info["load"] = {"busy": True}
    return Run(path or Path(f"/nonexistent/mz-{procs}x{threads}-s{split}-{t}"), info=info,
               records=[rec])


RUNS = [
    mz_run(8, 1, 2, 0.010, 2e-3, ghosts=576), mz_run(8, 1, 2, 0.030, 2e-3, ghosts=576),
    mz_run(8, 1, 2, 0.020, 2e-3, ghosts=576),                       # median 0.020
    mz_run(8, 1, 2, 0.001, 2e-3, ghosts=576, busy=True),            # busy: left out
    mz_run(4, 2, 1, 0.012, 1e-3), mz_run(2, 4, 1, 0.016, 1e-3),     # hybrid: fastest 4x2
    mz_run(16, 1, 4, 0.040, 5e-3, ghosts=1728),                     # no hybrid partner
    mz_run(4, 1, 1, 0.050, 1e-3),                                   # unsplit pure MPI
    mz_run(2, 2, 2, 0.001, 1e-3, ghosts=576),                       # split with threads: out
]


def _apps():
    apps = appcatalog.load_all()
    assert "split" in apps["mz-split"].report and apps["mz-split"].kind == "mz"
    return apps


def test_points_vs_processes_by_hand():
    es = split_entries(RUNS, _apps())
    assert len(es) == len(RUNS) - 1
    (problem, by), = points_table(es).items()
    assert problem == "bench=sp class=S steps=20"
    assert by == {(8, 2): (4032, 576), (4, 1): (3456, 0), (2, 1): (3456, 0),
                  (16, 4): (5184, 1728)}


def test_equal_cores_comparison_by_hand():
    cmp = compare(split_entries(RUNS, _apps()))
    assert list(cmp) == [("bench=sp class=S steps=20", 8)]
    sides = cmp[("bench=sp class=S steps=20", 8)]
    assert sides["split"] == (8, 1, 2, 0.020, 2e-3)
    assert sides["hybrid"] == (4, 2, 1, 0.012, 1e-3)
    sec = split_section(RUNS, _apps())
    rows = sec.tables[1].rows
    assert len(rows) == 1 and rows[0][-1] == 0.020 / 0.012
    assert [t.headers[0] for t in sec.tables] == ["problem", "problem"]
    assert len(sec.figures) == 2 and all(f.svg.startswith("<svg") for f in sec.figures)


def test_histories_from_run_directories(tmp_path):
    split_dir, hyb_dir = tmp_path / "split", tmp_path / "hybrid"
    for d, rows in ((split_dir, [(0, 1.0), (1, 0.9), (2, 0.85)]),
                    (hyb_dir, [(0, 1.0), (1, 0.5), (2, 0.25)])):
        d.mkdir()
        (d / "history.csv").write_text(
            "# sp class S\nstep,residual\n" + "".join(f"{s},{r:.15e}\n" for s, r in rows))
    runs = [mz_run(8, 1, 2, 0.02, 0.85, ghosts=576, path=split_dir),
            mz_run(4, 2, 1, 0.01, 0.25, path=hyb_dir)]
    h = histories(split_entries(runs, _apps()))
    assert h == {"bench=sp class=S steps=20": {
        "8x1 split 2": [(0.0, 1.0), (1.0, 0.9), (2.0, 0.85)],
        "4x2 split 1": [(0.0, 1.0), (1.0, 0.5), (2.0, 0.25)]}}
    sec = split_section(runs, _apps())
    assert len(sec.figures) == 3


def test_no_split_records_no_section():
    assert split_section([], _apps()) is None
    run = mz_run(4, 2, 1, 0.01, 1e-3)
    del run.records[0]["params"]["split"]
    assert split_section([run], _apps()) is None


def test_section_in_the_report():
    titles = [s.title for s in app_sections(RUNS, _apps())]
    assert sum("Mesh splitting" in t for t in titles) == 1


def test_study_entry_argv_and_quick_plan():
    from hybridkit.study.plan import Cluster, expand
    app = appcatalog.get("mz-split")
    plan = [(r.ranks, r.threads, r.param_dict["split"])
            for r in expand(app, "quick", Cluster(cores=2))]
    assert plan == [(2, 1, 1), (2, 1, 2), (1, 2, 1)]  # split only for pure MPI
    assert app.argv({"bench": "sp", "class": "S", "split": 2}, 2, 1, "/r") == \
        ["--bench", "sp", "--class", "S", "--split", "2",
         "--history", "/r/history.csv"]
