"""Simulated records (hybridkit simulate, issue 26) in the report, the advisor and compare:
never mixed with measured ones, their own sections per platform, and the seed comparisons
(seed value, simulated value, ratio) checked on hand-made records with numbers worked out
by hand."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path

import pytest

from hybridkit import appcatalog

from hybridkit.simulate import seedvalues as sv
from hybridkit.advice.advise import advise
from hybridkit.study.compare import compare
from hybridkit.errors import HKError
from hybridkit.records import record_error
from hybridkit.report.document import build, csv_text, markdown
from hybridkit.report.simulate import (beff_table_section, mapping_section, multipath_section,
                                       orthogonal_section)
from hybridkit.study.rundata import Run, assign_apps, entries, find_runs, split_simulated

from test_study_advise import make_run, template  # noqa: F401 (fixture)

PLATFORM = {"name": "sr8000-like", "file": "platforms/sr8000.xml", "nodes": 8,
            "cores_per_node": 8, "link_bw": "1GBps", "link_lat": "10us", "nic_per_node": 1,
            "cpu_injection": "500MBps"}
MIB = 1 << 20
# the provenance of a recorded run (a real one: the report's machine section reads it)
PROV = json.loads((Path(__file__).parent / "fixtures/dsm_quick/runs/dsm/"
                   "2x1-size_250-schedule_static-iters_10/records.jsonl").read_text()
                  .splitlines()[0])["provenance"]


def rec(kind, params, results, platform=None):
    r = {"schema_version": 1, "kind": kind, "program": "hk-bench", "params": params,
         "results": {k: (v if isinstance(v, dict) else {"value": v}) for k, v in results.items()},
         "warnings": [], "provenance": copy.deepcopy(PROV)}
    if platform is not None:
        r["simulated"], r["platform"] = True, dict(platform)
    return r


def ortho(size, t_pure_us, t_hyb_us, platform=None):
    s = {"min": 0.0, "avg": 0.0, "max": 0.0, "unit": "us"}
    return rec("bench.orthogonal", {"size": size, "hybrid_size": size * 8, "iters": 10},
               {"t_pure": dict(s, max=t_pure_us), "t_hybrid": dict(s, max=t_hyb_us),
                "t_hybrid_over_t_pure": t_hyb_us / t_pure_us}, platform)


def summary(run, procs, nodes, b, lmax_b, cyc, cyc_lmax, platform=None):
    res = {}
    for name, v in (("b_eff", b), ("b_eff_lmax", lmax_b), ("cyclic3d", cyc),
                    ("cyclic3d_lmax", cyc_lmax)):
        res[name], res[name + "_per_proc"], res[name + "_per_node"] = v, v / procs, v / nodes
    return rec("bench.beff.summary", {"run": run, "procs": procs, "nodes": nodes,
                                      "lmax": 8 * MIB}, res, platform)


def run_of(records, name="r", np=64, app=None, **info):
    return Run(Path(f"/nonexistent/{name}"), info={"np": np, "threads": 1, "app": app, **info},
               records=records)


# --- never mixed ------------------------------------------------------------------------

def test_entries_of_a_loaded_run_are_real_only_and_views_split_by_platform():
    other = dict(PLATFORM, name="fat-tree")
    run = run_of([ortho(MIB, 10, 20), ortho(MIB, 11.6e3, 19.2e3, PLATFORM),
                  ortho(MIB, 1, 3, other)])
    assert [e.result("t_pure", "max") for e in entries([run])] == [10]
    assert len(entries([run], include_simulated=True)) == 3
    real, sims = split_simulated([run])
    assert list(sims) == ["fat-tree", "sr8000-like"]
    assert [r.records for r in real] == [[run.records[0]]]
    assert [e.result("t_pure", "max") for e in entries(sims["sr8000-like"])] == [11.6e3]
    assert [e.platform for e in entries(sims["fat-tree"])] == ["fat-tree"]
    # a run made before any record was written goes where its run.json says
    empty = run_of([], "empty", simulated=True, platform={"name": "ibm-sp"})
    empty.status = "failed"
    assert list(split_simulated([empty])[1]) == ["ibm-sp"]
    sections = build([empty], appcatalog.load_all(), {})
    assert sections[-1].title == "Incomplete runs"
    assert sections[-1].tables[0].rows[0][0] == "empty (simulated on ibm-sp)"


def test_one_name_two_parameter_sets_are_two_platforms():
    """--platform sr8000 with and without the injection limit: never one platform."""
    free = dict(PLATFORM, cpu_injection=None)
    limited = run_of([ortho(MIB, 5800.0, 11600.0, PLATFORM)], "limited")
    unlimited = run_of([ortho(MIB, 5800.0, 2900.0, free)], "free")
    # each run directory has its own copy of the platform file: not a difference
    limited.records[0]["platform"]["file"] = "/r/1/platform.xml"
    sims = split_simulated([limited, unlimited])[1]
    assert list(sims) == ["sr8000-like (cpu_injection=500MBps)",
                          "sr8000-like (cpu_injection=None)"]
    ratios = {name: [e.result("t_hybrid_over_t_pure") for e in entries(v)]
              for name, v in sims.items()}
    assert ratios == {"sr8000-like (cpu_injection=500MBps)": [2.0],
                      "sr8000-like (cpu_injection=None)": [0.5]}
    sections = build([limited, unlimited], appcatalog.load_all(), {})
    assert sum(s.title.endswith(": the platform") for s in sections) == 2
    apps = appcatalog.load_all()
    a = run_of([summary("mpp", 4, 2, 100, 200, 90, 180, PLATFORM)], "a", np=4, app="beff")
    b = run_of([summary("mpp", 4, 2, 10, 20, 9, 18, free)], "b", np=4, app="beff")
    assert compare([a], [b], apps, 0.1)[0] == []
    b.records[0]["platform"] = dict(PLATFORM, file="elsewhere.xml")
    assert [c.verdict for c in compare([a], [b], apps, 0.1)[0]] == ["regression"]


@pytest.fixture
def figures(monkeypatch):
    """hybridkit.plot.lines records its series instead of drawing."""
    from hybridkit import plot
    drawn = []

    def fake(panels, *args, **kwargs):
        drawn.append(panels)
        return "<svg/>"

    def bars(labels, panels, ylabels):
        drawn.append({name: dict(zip(labels, values)) for name, values in panels.items()})
        return "<svg/>"
    monkeypatch.setattr(plot, "lines", fake)
    monkeypatch.setattr(plot, "bar_panels", bars)
    return drawn


def beff_per_size(run, pattern, size, bw, platform=None):
    return rec("bench.beff", {"run": run, "pattern": pattern, "size": size,
                              "msg_bytes": size, "loops": 1},
               {"bandwidth": bw, "bandwidth_per_proc": bw}, platform)


def test_report_keeps_real_and_simulated_apart(figures):
    real = run_of([summary("mpp", 4, 2, 100, 200, 90, 180),
                   summary("hybrid", 2, 2, 50, 100, 45, 90),
                   beff_per_size("mpp", "ring", 1024, 100),
                   beff_per_size("hybrid", "ring", 1024, 50)],
                  "real", np=4)
    simulated = run_of([summary("mpp", 96, 12, 5000, 16000, 4800, 17000, PLATFORM),
                        summary("hybrid", 12, 12, 1600, 5500, 1500, 5600, PLATFORM),
                        beff_per_size("mpp", "ring", 1024, 3000, PLATFORM),
                        beff_per_size("hybrid", "ring", 1024, 1000, PLATFORM)],
                       "sim", np=96)
    for r in simulated.records:
        r["provenance"]["hosts"] = ["sr8000-node-0"]   # SMPI's simulated hosts
    sections = build([real, simulated], appcatalog.load_all(), {})
    by = {s.title: s for s in sections}
    assert by["Machine and binding"].tables[0].rows[0] == ["hosts", "vm"]
    real_beff = by["Effective bandwidth b_eff"]
    assert [row[3] for row in real_beff.tables[0].rows] == [100, 50]   # the real b_eff only
    sim_beff = by["Simulated on sr8000-like: Effective bandwidth b_eff"]
    assert [row[3] for row in sim_beff.tables[0].rows] == [5000, 1600]
    # T_hybrid/T_pure per size: real 100/50 = 2, simulated 3000/1000 = 3; mixed medians
    # would give 2.5 (or one line with both points)
    for title, want in (("T_hybrid / T_pure vs message size", 2.0),
                        ("Simulated on sr8000-like: T_hybrid / T_pure vs message size", 3.0)):
        figures.clear()
        by[title].figures[0].svg
        (series,) = figures[0].values()
        assert series == {"ring": [(1024, want)]}
    assert by["Simulated on sr8000-like: the platform"].tables[0].rows[0] == ["name", "sr8000-like"]
    # the simulated sections come after every real one (and before the appendix)
    titles = [s.title for s in sections if not s.appendix]
    first_sim = min(i for i, t in enumerate(titles) if t.startswith("Simulated on"))
    assert all(t.startswith("Simulated on") for t in titles[first_sim:])
    rows = list(csv.DictReader(io.StringIO(csv_text([real, simulated]))))
    assert {r["simulated_on"] for r in rows if r["run"] == "sim"} == {"sr8000-like"}
    assert {r["simulated_on"] for r in rows if r["run"] == "real"} == {""}


def _simulate(path: Path, platform=PLATFORM):
    """Mark the records of a run directory simulated on `platform`."""
    recs = [json.loads(line) for line in (path / "records.jsonl").read_text().splitlines()]
    for r in recs:
        r["simulated"], r["platform"] = True, dict(platform)
    (path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def _advice(root):
    apps = appcatalog.load_all()
    runs = find_runs([root])
    assign_apps(runs, apps)
    return advise(runs, apps)


def test_advise_leaves_simulated_records_out_and_says_so(tmp_path, template):  # noqa: F811
    make_run(tmp_path, template, "pure", 2, 1, mlups=50.0, compute=1.0, comm=0.1)
    make_run(tmp_path, template, "funneled", 1, 2, mlups=60.0, compute=1.0, comm=0.1)
    # a simulated run far better than both: it must not win the real advice
    _simulate(make_run(tmp_path, template, "pure", 2, 1, mlups=500.0, compute=0.1, comm=0.01,
                       rep=2))
    a = _advice(tmp_path)
    assert a.simulated is None
    assert a.recommendation.startswith("1 x 2 (processes x threads), mode funneled")
    assert "500" not in a.reason
    assert any("1 simulated record(s) (platform(s) sr8000-like) left out" in n for n in a.notes)
    assert not a.lines()[0].startswith("input: SIMULATED")


def test_advise_on_simulated_input_only_says_it(tmp_path, template):  # noqa: F811
    _simulate(make_run(tmp_path, template, "pure", 2, 1, mlups=500.0, compute=0.1, comm=0.01))
    a = _advice(tmp_path)
    assert a.simulated == "sr8000-like"
    assert a.lines()[0] == ("input: SIMULATED on platform sr8000-like (SimGrid SMPI), "
                            "not measured")
    assert a.recommendation.startswith("2 x 1 (processes x threads), mode pure")


def test_advise_on_simulated_benchmarks_only_names_them():
    run = run_of([ortho(MIB, 1, 2, PLATFORM)])
    with pytest.raises(HKError, match="simulated records only .platform.s. sr8000-like: 1 "):
        advise([run], appcatalog.load_all())


def test_compare_never_matches_real_with_simulated():
    apps = appcatalog.load_all()
    a = run_of([summary("mpp", 4, 2, 100, 200, 90, 180)], "a", np=4, app="beff")
    b = run_of([summary("mpp", 4, 2, 10, 20, 9, 18, PLATFORM)], "b", np=4, app="beff")
    changes, only = compare([a], [b], apps, 0.1)
    assert changes == []                      # mixed, it would be a -90 % regression
    assert len(only) == 2 and any("simulated_on=sr8000-like" in o for o in only)
    b2 = run_of([summary("mpp", 4, 2, 95, 200, 90, 180, PLATFORM)], "b2", np=4, app="beff")
    changes, _ = compare([b], [b2], apps, 0.1)   # simulated vs simulated, same platform
    assert [c.verdict for c in changes] == ["improvement"]


# --- the seed comparisons ---------------------------------------------------------------

def rows_by_quantity(table):
    return {row[0]: row for row in table.rows}


def test_orthogonal_section_values_and_ratios(figures):
    # simulated T_pure and T_hybrid (us): masteronly faster up to 16 KiB, slower above
    pts = {8192: (100.0, 80.0), 16384: (150.0, 150.0), 32768: (200.0, 260.0),
           MIB: (5800.0, 11600.0), 2 * MIB: (11000.0, 19800.0)}
    views = split_simulated([run_of([ortho(L, tp, th, PLATFORM) for L, (tp, th) in pts.items()])
                             ])[1]["sr8000-like"]
    sec = orthogonal_section("sr8000-like", views)
    rows = rows_by_quantity(sec.tables[0])
    r = rows["T_pure at L = 1 MiB per CPU [ms]"]
    assert r[1] == "11.6 ms" and r[2] == "5.8" and r[3] == f"{5.8 / 11.6:.3g}"   # 0.5
    r = rows["T_hybrid at 1 MiB x CPUs per node per leader [ms]"]
    assert r[1] == "19.2 ms" and r[2] == "11.6" and r[3] == f"{11.6 / 19.2:.3g}"
    r = rows["T_hybrid / T_pure at L = 1 MiB"]
    assert r[1] == "1.655" and r[2] == "2" and r[3] == f"{2 / (19.2 / 11.6):.3g}"
    r = rows["smallest T_hybrid / T_pure at L >= 1 MiB"]   # min(2, 1.8) = 1.8 > 1.6
    assert (r[1], r[2], r[4]) == ("> 1.6", "1.8", "yes")
    r = rows["largest L per CPU with masteronly not slower (ratio <= 1) [B]"]
    assert (r[1], r[2], r[3]) == ("32768 B", "16384", "0.5")
    assert "seed 000" in r[5] and "line 713" in r[5]
    assert sec.text[0] == ("Seed machine: Hitachi SR8000, 8 nodes x 8 CPUs; simulated: 8 x 8 "
                           "(nodes x ranks per node).")
    sec.figures[0].svg
    series = figures[0]["masteronly vs pure MPI"]
    assert series["simulated, 64 ranks"][0] == (8192, 0.8)
    assert series["seed: 1.66 at 1 MiB"] == [(MIB, 19.2 / 11.6)]
    assert series["seed: > 1.6 for long messages"] == [(MIB, 1.6), (2 * MIB, 1.6)]


def test_beff_table_against_table_1(figures):
    p = dict(PLATFORM, nodes=12)
    views = split_simulated([run_of([summary("mpp", 96, 12, 4800, 15000, 4500, 16000, p),
                                     summary("hybrid", 12, 12, 1600, 6000, 1500, 5000, p)],
                                    np=96)])[1]["sr8000-like"]
    sec = beff_table_section("sr8000-like", views)
    rows = rows_by_quantity(sec.tables[0])
    r = rows["b_eff (avg.): b_hybrid [MB/s]"]
    assert (r[1], r[2], r[3]) == ("1535 MB/s", "1600", f"{1600 / 1535:.3g}")
    assert "Table 1" in r[5]
    assert rows["b_eff (avg.): b_hybrid per node [MB/s]"][1] == "(not given)"
    r = rows["b_eff at Lmax: b_hybrid per node [MB/s]"]
    assert (r[1], r[2], r[3]) == ("464 MB/s", "500", f"{500 / 464:.3g}")
    r = rows["3D-cyclic at Lmax: b_MPP per process [MB/s]"]
    assert (r[1], r[2]) == ("192 MB/s", f"{16000 / 96:.4g}")
    r = rows["b_eff (avg.): b_MPP / b_hybrid (measured)"]
    assert (r[1], r[2], r[3]) == ("3.45", "3", f"{3 / 3.45:.3g}")
    r = rows["3D-cyclic (avg.): T_hybrid / T_MPP (concluding)"]
    assert (r[1], r[2], r[3]) == ("1.56", "1.5", f"{1.5 / 1.56:.3g}")
    assert "12 nodes x 8 CPUs; simulated: 12 x 8 (nodes x ranks per node)." in sec.text[0]
    sec.figures[0].svg
    assert figures[0] == {
        "seed (SR8000, 12 x 8)": {"b_eff (avg.)": 3.45, "b_eff at Lmax": 2.99,
                                  "3D-cyclic (avg.)": 3.12, "3D-cyclic at Lmax": 3.27},
        "simulated on sr8000-like": {"b_eff (avg.)": 3.0, "b_eff at Lmax": 2.5,
                                     "3D-cyclic (avg.)": 3.0, "3D-cyclic at Lmax": 3.2}}


def multipath(k, s, size, bw, platform=PLATFORM):
    return rec("bench.multipath", {"mode": "processes", "paths": k, "stride": s, "size": size,
                                   "iters": 5},
               {"node_bandwidth": {"min": bw, "avg": bw, "max": bw, "unit": "MB/s"},
                "time": {"min": 1, "avg": 1, "max": 1, "unit": "us"}}, platform)


def test_multipath_section_against_the_ibm_sp_slides(figures):
    # 16 CPUs per node, each injects at most 110 MB/s, the node's 4 adapters 500 MB/s together;
    # 2 CPUs at stride 1 share an adapter (150), at stride 4 they do not (220)
    p = dict(PLATFORM, name="ibm-sp-like", nodes=16, cores_per_node=16, nic_per_node=4)
    recs = [multipath(1, 1, 4096, 20.0, p)]   # a smaller size: not the one compared
    for k in range(1, 17):
        for s in ([1] if k == 1 else range(1, 15 // (k - 1) + 1)):
            bw = 150.0 if (k, s) == (2, 1) else min(110.0 * k, 500.0)
            recs.append(multipath(k, s, MIB, bw, p))
    views = split_simulated([run_of(recs, np=256)])[1]["ibm-sp-like"]
    sec = multipath_section("ibm-sp-like", views)
    rows = rows_by_quantity(sec.tables[0])
    r = rows["CPUs per node needed for full bandwidth"]   # 5 x 110 >= 0.95 x 500
    assert (r[1], r[2], r[4]) == ("> 4 CPUs", "5", "yes")
    r = rows["bandwidth with 2 CPUs (best stride) / with 1 CPU"]
    assert (r[1], r[2], r[3]) == ("2", "2", "1")
    r = rows["bandwidth with 1 CPU (masteronly) / best"]
    assert (r[1], r[2], r[4]) == ("<= 0.5", "0.22", "yes")
    r = rows["bandwidth with 4 of 16 CPUs (25 %) / best"]
    assert (r[1], r[2], r[4]) == ("> 0.8", "0.88", "yes")
    sec.figures[0].svg
    by_stride = figures[0][f"{MIB} B per path"]
    assert by_stride["stride 1"][:2] == [(1, 110.0), (2, 150.0)]
    assert by_stride["stride 4"][0] == (2, 220.0)
    assert by_stride["best stride"][:3] == [(1, 110.0), (2, 220.0), (3, 330.0)]
    assert "stride 5" not in by_stride


def jacobi(m, procs, msgs_inter, bytes_inter, bytes_intra, boundary="dirichlet",
           platform=None):
    return rec("jacobi", {"map": m, "procs": procs, "boundary": boundary, "grid": "256x64x1"},
               {"bytes_inter": bytes_inter, "msgs_inter": msgs_inter, "bytes_intra": bytes_intra},
               platform)


def test_mapping_section_against_the_topology_slide(figures):
    p = dict(PLATFORM, name="two-nodes", nodes=2, cores_per_node=8)
    recs = [jacobi("round-robin", "8x2x1", 28, 28 * 256, 4 * 256, platform=p),
            jacobi("sequential", "8x2x1", 16, 16 * 256, 28 * 256, platform=p),
            jacobi("node-aware", "8x2x1", 4, 4 * 256, 40 * 256, platform=p)]
    cube = [jacobi("node-aware", "4x4x4", 192, 192 * 512, 192 * 512, "periodic", p),
            jacobi("sequential", "4x4x4", 256, 256 * 512, 128 * 512, "periodic", p)]
    views = split_simulated([run_of(recs, np=16),
                             run_of(cube, "cube", np=64, use_nodes=8, ranks_per_node=8)]
                            )[1]["two-nodes"]
    sec = mapping_section("two-nodes", views)
    assert [row[:2] + row[5:8] for row in sec.tables[0].rows] == [
        [16, 8, "node-aware", 1024, 2.0], [16, 8, "round-robin", 7168, 14.0],
        [16, 8, "sequential", 4096, 8.0],
        [64, 8, "node-aware", 192 * 512, 96.0], [64, 8, "sequential", 256 * 512, 128.0]]
    rows = rows_by_quantity(sec.tables[1])
    for m, links in (("round-robin", "14"), ("sequential", "8"), ("node-aware", "2")):
        r = rows[f"inter-node links, {m}, 8x2x1 dirichlet"]
        assert (r[1], r[2], r[3]) == (f"{links} links", links, "1")
    assert "Topology Problem" in rows["inter-node links, sequential, 8x2x1 dirichlet"][5]
    r = rows["inter-node / intra-node bytes, node-aware, 4x4x4"]
    assert (r[1], r[2], r[3]) == ("1", "1", "1") and "seed 003" in r[5]
    assert len(sec.tables[1].rows) == 4 and len(sec.figures) == 2
    sec.figures[0].svg
    assert figures[0]["inter-node links, seed"] == {"node-aware": 2, "round-robin": 14,
                                                    "sequential": 8}
    assert figures[0]["inter-node links"] == {"node-aware": 2, "round-robin": 14,
                                              "sequential": 8}


def test_seed_values_are_the_papers():
    assert sv.ORTHOGONAL["t_pure_ms"].value == 11.6 and sv.ORTHOGONAL["t_hybrid_ms"].value == 19.2
    assert sv.ORTHOGONAL["ratio_long"].text() == "> 1.6"
    t1 = sv.BEFF
    assert [t1["b_mpp"][c].value for c in sv.BEFF_COLUMNS] == [5299, 16624, 5000, 18458]
    assert [t1["b_hybrid"][c].value for c in sv.BEFF_COLUMNS] == [1535, 5565, 1604, 5638]
    # the table's own arithmetic: measured = b_MPP / b_hybrid, concluding = measured / 2,
    # per node = / 12, per process = / 96 (rounded as printed)
    for c in sv.BEFF_COLUMNS:
        measured = t1["b_mpp"][c].value / t1["b_hybrid"][c].value
        assert t1["ratio_measured"][c].value == pytest.approx(measured, abs=0.006)
        assert t1["ratio_concluding"][c].value == pytest.approx(measured / 2, abs=0.006)
        assert t1["b_mpp_per_proc"][c].value == pytest.approx(t1["b_mpp"][c].value / 96, abs=0.6)
        if t1["b_hybrid_per_node"][c]:
            assert t1["b_hybrid_per_node"][c].value == pytest.approx(
                t1["b_hybrid"][c].value / 12, abs=0.6)
    assert {m: s.value for m, s in sv.MAPPING_LINKS.items()} == {
        "round-robin": 14, "sequential": 8, "node-aware": 2}
    seeds = Path("/work/shared/seeds")
    if seeds.is_dir():   # the numbers stand in the seeds' text where the sources say
        slides = (seeds / "000_af38460cc99ef481.txt").read_text().splitlines()
        assert "19.2 ms" in slides[688 - 1] and "11.6 ms" in slides[670 - 1]
        assert "> 32 kB" in slides[713 - 1] and "> 1.6" in slides[716 - 1]
        assert "x14" in slides[544 - 1] and "x8" in slides[546 - 1] and "x2" in slides[548 - 1]
        paper = (seeds / "003_373c9e7f10186fbe.txt").read_text()
        assert "| 1535 | 5565 | 1604 | 5638 |" in paper
        assert "| 5299 | 16624 | 5000 | 18458 |" in paper


# --- on disk, through the CLI -----------------------------------------------------------

def test_simulated_records_are_valid_and_reported(cli, tmp_path):
    d = tmp_path / "sim" / "runs" / "orthogonal"
    d.mkdir(parents=True)
    recs = []
    for L, (tp, th) in {32768: (200.0, 180.0), MIB: (5800.0, 11600.0)}.items():
        r = ortho(L, tp, th, PLATFORM)
        r["results"]["t_pure"]["min"] = r["results"]["t_pure"]["avg"] = tp
        r["results"]["t_hybrid"]["min"] = r["results"]["t_hybrid"]["avg"] = th
        r["results"]["t_hybrid_over_t_pure"]["unit"] = "ratio"
        recs.append(r)
    assert record_error(recs[0]) is None
    bad = copy.deepcopy(recs[0])
    bad["platform"] = {"nodes": 8}
    assert "name" in record_error(bad)
    (d / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (d / "run.json").write_text(json.dumps({"app": "orthogonal", "np": 64, "threads": 1,
                                            "status": "ok", "exit_code": 0}))
    out = tmp_path / "report.md"
    result = cli(["report", str(tmp_path / "sim"), "-o", str(out), "--format", "md"])
    assert result.code == 0, result.err
    md = out.read_text()
    assert "## Simulated on sr8000-like: the platform" in md
    assert "## Simulated on sr8000-like: T_hybrid / T_pure vs message size" in md
    assert "| T_hybrid / T_pure at L = 1 MiB | 1.655 | 2 |" in md
    assert "No measured run: the records are simulated (sr8000-like)" in md
    advice = cli(["advise", str(tmp_path / "sim")])
    assert advice.code != 0 and "the input holds simulated records only" in advice.err


def test_markdown_has_the_seed_columns():
    views = split_simulated([run_of([ortho(MIB, 5800.0, 11600.0, PLATFORM)])])[1]["sr8000-like"]
    md = markdown([orthogonal_section("sr8000-like", views)], "t")
    assert "| quantity | seed value | simulated | simulated / seed | seed's statement holds " \
           "| source |" in md


def test_every_simulated_figure_draws():
    """matplotlib draws each figure of the simulated sections (seed points of one value,
    bar panels of the mappings)."""
    from hybridkit.report.document import html_page

    p = dict(PLATFORM, name="all", nodes=2, cores_per_node=8)
    recs = [ortho(L, 100.0, 150.0, p) for L in (8192, MIB, 2 * MIB)]
    recs += [multipath(k, 1, MIB, 100.0 * k, p) for k in (1, 2, 3, 4)]
    recs += [jacobi(m, "8x2x1", n, n * 256, 256, platform=p)
             for m, n in (("round-robin", 28), ("sequential", 16), ("node-aware", 4))]
    recs += [summary("mpp", 16, 2, 1000, 2000, 900, 1800, p),
             summary("hybrid", 2, 2, 300, 600, 250, 500, p)]
    sections = build([run_of(recs, np=16)], appcatalog.load_all(), {})
    sim = [s for s in sections if s.title.startswith("Simulated on all")]
    assert len(sim) == 6   # platform, orthogonal, b_eff table, multipath, mapping, b_eff
    page = html_page(sim, "t")
    assert page.count('<figure class="plot">') == 1 + 1 + 2 + 1
    assert all(f.svg.startswith("<svg") for s in sim for f in s.figures)
