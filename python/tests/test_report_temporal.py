"""The report's 'performance vs looseness' figure (hybridkit.report.temporal) on hand-made
records of the jacobi-temporal app: the pipeline's median per (dl, du), the wavefront and off
flat over the panel's du range, a busy run flagged, and no figure without pipeline runs."""

from __future__ import annotations

from pathlib import Path

from hybridkit import appcatalog
from hybridkit.report.temporal import looseness_data, looseness_figure
from hybridkit.study.rundata import Entry, Run


def entry(temporal: str, mlups: float, looseness: str = "", busy: bool = False) -> Entry:
    params = {"temporal": temporal, "halo_width": 4, "grid": "64x64x64"}
    if looseness:
        params["looseness"] = looseness
    rec = {"kind": "jacobi", "params": params,
           "results": {"mlups": {"value": mlups, "unit": "MLUP/s"}}}
    info = {"np": 1, "threads": 2, "app": "jacobi-temporal", "load": {"busy": busy}}
    return Entry(Run(Path("."), info=info, records=[rec]), rec)


def test_looseness_panels():
    app = appcatalog.get("jacobi-temporal")
    es = [entry("pipeline", 100, "1:1"), entry("pipeline", 120, "1:1"),
          entry("pipeline", 110, "1:1"),
          entry("pipeline", 200, "1:4"), entry("pipeline", 150, "2:4", busy=True),
          entry("wavefront", 300, "1:1"), entry("wavefront", 320, "1:4"), entry("off", 90, "2:4")]
    panels, flagged = looseness_data(app, es)
    assert list(panels) == ["1x2, w=4"]
    p = panels["1x2, w=4"]
    assert p["pipeline dl=1"] == [(1, 110, 100, 120, 0.0), (4, 200, 200, 200, 0.0)]
    assert p["pipeline dl=2"] == [(4, 150, 150, 150, 1.0)]   # only busy runs: flagged
    assert flagged == 1
    assert p["wavefront"] == [(1, 310, 300, 320, 0.0), (4, 310, 300, 320, 0.0)]
    assert p["off"] == [(1, 90, 90, 90, 0.0), (4, 90, 90, 90, 0.0)]
    assert looseness_figure(app, es) is not None


def test_no_pipeline_no_figure():
    app = appcatalog.get("jacobi-temporal")
    assert looseness_figure(app, [entry("wavefront", 300), entry("off", 90)]) is None


def test_quick_plan_passes_scheme_and_looseness():
    from hybridkit.study.plan import Cluster, expand

    app = appcatalog.get("jacobi-temporal")
    runs = expand(app, "quick", Cluster(cores=2))
    assert len(runs) == 6 and {(r.ranks, r.threads) for r in runs} == {(1, 2)}
    argv = app.argv(runs[-1].param_dict, runs[-1].ranks, runs[-1].threads)
    text = " ".join(argv)
    assert "--temporal pipeline" in text and "--looseness 2:16" in text
    assert "--halo-width 4" in text and "--size 256" in text


def ceil_entry(temporal: str, mlups: float, w: int, roof: float, incore: float, bound: str,
               busy: bool = False) -> Entry:
    sweeps = w if temporal != "off" else 1
    limit = min(roof * sweeps, incore)
    params = {"temporal": temporal, "halo_width": w, "grid": "64x64x64", "bound": bound}
    res = {"mlups": {"value": mlups}, "roofline_mlups": {"value": roof},
           "incore_mlups": {"value": incore}, "limit_mlups": {"value": limit}}
    rec = {"kind": "jacobi", "params": params, "results": res}
    info = {"np": 1, "threads": 2, "app": "jacobi", "load": {"busy": busy}}
    return Entry(Run(Path("."), info=info, records=[rec]), rec)


def test_ceiling_table_share_of_limit():
    from hybridkit.report.temporal import CEILING_HEADERS, ceiling_table

    app = appcatalog.get("jacobi")
    es = [ceil_entry("wavefront", 540, 4, 400, 900, "in-core"),
          ceil_entry("wavefront", 560, 4, 400, 900, "in-core"),
          ceil_entry("wavefront", 9999, 4, 400, 900, "in-core", busy=True),  # left out
          ceil_entry("off", 300, 1, 400, 900, "memory")]
    t = ceiling_table(app, es)
    assert t is not None and t.headers == CEILING_HEADERS
    rows = {(r[0], r[1], r[2]): r for r in t.rows}
    off = rows[("1x2", "off", "1")]
    assert off[3:7] == [300, 400, 900, 400]         # limit = min(400 x 1, 900)
    assert off[7:] == ["75 %", "75 %", "memory"]
    wf = rows[("1x2", "wavefront", "4")]
    assert wf[3:7] == [550, 400, 900, 900]          # limit = min(400 x 4, 900)
    # above the roofline (550/400), below the limit (550/900), bound in-core
    assert wf[7:] == ["138 %", "61 %", "in-core"]


def test_no_ceiling_table_without_roofline():
    from hybridkit.report.temporal import ceiling_table

    assert ceiling_table(appcatalog.get("jacobi"), [entry("off", 90)]) is None
