"""The report built from recorded fixture runs: sections, formats, and a real browser.

The browser test renders report.html in Debian's headless Chromium (tests/browser.py,
DevTools protocol), saves a screenshot, and asserts that every <figure> and its image
rendered with a non-zero size and that the page logged no console error."""

from __future__ import annotations

import csv
import io
import re

import pytest

from browser import chromium, render
from hybridkit import appcatalog
from hybridkit.report.document import build, csv_text, html_page, markdown
from hybridkit.study.rundata import assign_apps, find_runs, study_meta

FIGURE_CAPTIONS = [  # one per plot the quick study feeds
    "jacobi on 2 cores: mlups (MLUP/s, higher is better) of every configuration",
    "jacobi: mlups vs threads per process", "jacobi: where the time goes",
    "jacobi: memory (max resident set) per rank and per core", "Half round-trip latency",
    "Ping-pong bandwidth", "Rabenseifner's ratio of communication times",
    "Hager/Wellein's overlap test", "Cost of one thread barrier", "Time of one halo exchange",
]


@pytest.fixture(scope="module")
def quick(request):
    from conftest import FIXTURES

    root = FIXTURES / "study" / "quick"
    apps = appcatalog.load_all()
    runs = find_runs([root])
    assign_apps(runs, apps)
    return build(runs, apps, study_meta([root])), runs


def test_sections(quick):
    sections, _ = quick
    titles = [s.title for s in sections]
    # the answer first, the conditions in one line; the details in the appendix at the end
    # (the fixture's beff (4 ranks) and overlap (2 x 2) runs oversubscribe its 2 cores)
    assert titles[:2] == ["Answer", "Measurement conditions"]
    assert sections[0].text[0].startswith("recommendation: ")
    line = sections[1]
    assert not line.banner and "oversubscribed (functional only, left out)" in line.text[0]
    appendix = [s.title for s in sections if s.appendix]
    assert appendix == titles[-len(appendix):]  # all at the end
    assert appendix[:2] == ["Flagged runs (busy machine, oversubscribed)", "Machine and binding"]
    banner = sections[titles.index("Flagged runs (busy machine, oversubscribed)")]
    assert banner.banner and "functional run, not a performance result" in banner.text[0]
    assert "BUSY" not in " ".join(banner.text)
    beff = next(s for s in sections if s.title == "Effective bandwidth b_eff")
    assert beff.banner and beff.text[0].startswith("Oversubscribed: functional run")
    for t in ("jacobi: 3D 7-point Jacobi", "Ping-pong: intra-node vs inter-node",
              "Effective bandwidth b_eff", "T_hybrid / T_pure vs message size",
              "Overlap of communication and computation", "Barrier costs",
              "Halo exchange per mode"):
        assert any(x.startswith(t) for x in titles), t
    assert "Incomplete runs" not in titles
    captions = [f.caption for s in sections for f in s.figures]
    assert len(captions) == len(FIGURE_CAPTIONS)
    for want, got in zip(FIGURE_CAPTIONS, captions):
        assert got.startswith(want)
    assert all(f.svg.startswith("<svg") for s in sections for f in s.figures)


def test_beff_table(quick):
    sections, _ = quick
    beff = next(s for s in sections if s.title == "Effective bandwidth b_eff")
    runs = [row[0] for row in beff.tables[0].rows]
    assert runs == ["mpp", "hybrid"]
    assert [row[0] for row in beff.tables[1].rows] == ["ring", "random", "3d-cyclic", "b_eff"]


def test_html_is_self_contained(quick):
    sections, _ = quick
    page = html_page(sections, "t")
    assert page.count('<figure class="plot">') == len(FIGURE_CAPTIONS)
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert "<script" not in page
    assert "machine: this machine: 1 package(s)" in page   # machine.txt of the study


def test_markdown_and_csv(quick):
    sections, runs = quick
    md = markdown(sections, "t")
    assert md.startswith("# t\n\n## Answer\n") and "*Figure: jacobi: mlups" in md
    assert md.index("## Appendix") > md.index("## Measurement conditions")
    rows = list(csv.DictReader(io.StringIO(csv_text(runs))))
    mlups = [r for r in rows if r["result"] == "mlups"]
    assert len(mlups) == 5 and {r["app"] for r in mlups} == {"jacobi"}
    assert all(r["unit"] == "MLUP/s" and float(r["value"]) > 0 for r in mlups)


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="chromium not installed (tools/setup-deps.sh)")
def test_report_renders_in_chromium(cli, study_bin, fixtures, tmp_path):
    out = tmp_path / "report.html"
    result = cli(["report", str(fixtures / "study" / "quick"), "-o", str(out)])
    assert result.code == 0, result.err
    shot = tmp_path / "report.png"
    page = render(out, shot)
    assert page.errors == []
    assert page.title == "hybridkit report"
    assert len(page.figures) == len(FIGURE_CAPTIONS)
    for fig in page.figures:
        assert fig["w"] > 0 and fig["h"] > 0, fig
    assert len(page.images) == len(FIGURE_CAPTIONS)
    for img in page.images:
        assert img["complete"] and img["nw"] > 100 and img["nh"] > 100 and img["h"] > 0, img
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10000


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="chromium not installed (tools/setup-deps.sh)")
def test_browser_check_can_fail(tmp_path):
    """The harness sees console errors and a figure that did not render."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>x</title></head><body>'
                   '<figure style="display:none"><img src="data:image/svg+xml;base64,AAAA">'
                   '</figure><script>console.error("boom")</script></body></html>')
    page = render(bad, tmp_path / "bad.png")
    assert "boom" in page.errors
    assert page.figures[0]["w"] == 0 and page.images[0]["nw"] == 0


def test_busy_run_gets_a_banner_a_flag_and_is_left_out(tmp_path, fixtures):
    """A study with one run flagged busy: the banner says so, the table flags it, the
    figure marks it, the advice leaves it out."""
    import json
    import shutil

    src = fixtures / "study" / "quick" / "runs" / "jacobi"
    dst = tmp_path / "runs" / "jacobi"
    shutil.copytree(src, dst)
    busy = dst / "1x2-mode_funneled-size_96-iters_30"   # the fixture's best configuration
    info = json.loads((busy / "run.json").read_text())
    info["load"] = {"busy": True, "share": 0.47, "others_cpu_s": 1.5, "own_cpu_s": 3.1}
    (busy / "run.json").write_text(json.dumps(info))
    apps = appcatalog.load_all()
    runs = find_runs([tmp_path])
    assign_apps(runs, apps)
    sections = build(runs, apps, {})
    assert sections[1].title == "Measurement conditions" and sections[1].banner
    assert "1 made on a busy machine (left out of the advice)" in sections[1].text[0]
    flagged = next(s for s in sections if s.title.startswith("Flagged runs"))
    assert flagged.appendix and flagged.banner
    assert flagged.text[0].startswith("BUSY MACHINE: 1 of 5 run(s)")
    assert flagged.tables[0].rows == [["1x2-mode_funneled-size_96-iters_30", "jacobi", "busy",
                                       "others used 47% of the machine (1.50 CPU s)"]]
    advice = sections[0]
    assert advice.title == "Answer"
    # without funneled (88.3), pure MPI (80.4) is the best of the rest
    assert advice.text[0].startswith("recommendation: 2 x 1 (processes x threads), mode pure,")
    assert any("1 run(s) made while the machine was busy" in t for t in advice.text)
    jac = next(s for s in sections if s.title.startswith("jacobi"))
    row = next(r for r in jac.tables[0].rows if r[3] == "funneled")
    assert row[6] == "0/1" and row[8] == "1 busy: UNRELIABLE"
    scaling = jac.figures[0]
    assert "Red crosses: 1 point(s)" in scaling.caption
    page = html_page(sections, "busy")
    assert '<section id="conditions" class="banner"><h2>Measurement conditions</h2>' in page
    # the details are collapsed at the end
    assert page.index('<details id="appendix">') > page.index("<h2>Measurement conditions")
    assert page.index('<details id="appendix">') < page.index("Flagged runs")


def test_repeats_are_plotted_as_medians_and_single_rank_halo_is_marked(quick):
    from hybridkit.report.parts import median_lines

    assert median_lines({"a": [(8, 3.0), (8, 1.0), (8, 2.0), (16, 5.0)]}) == \
        {"a": [(8, 2.0), (16, 5.0)]}
    sections, _ = quick
    halo = next(s for s in sections if s.title == "Halo exchange per mode")
    svg = halo.figures[0].svg
    assert "1x2 (no messages)" in svg and "2x1 (no messages)" not in svg


def test_halo_faces_vs_full_table(tmp_path):
    """The report tables what a face-only halo saves against faces+edges+corners, from the
    records' messages and bytes (2 ranks, periodic 2x1x1: 2 x-faces vs the 18 offsets with
    dx != 0 per rank, counted by hand) and median times."""
    import json
    import shutil

    from conftest import FIXTURES
    from hybridkit.report.bench import halo_section

    src = next((FIXTURES / "study" / "quick" / "runs" / "halo").glob("2x1-*"))
    for stencil, msgs, scale in (("faces", 4, 1.0), ("full", 36, 1.5)):
        dst = tmp_path / "runs" / "halo" / f"2x1-{stencil}"
        shutil.copytree(src, dst)
        meta = json.loads((dst / "run.json").read_text())
        meta["id"] = dst.name
        (dst / "run.json").write_text(json.dumps(meta))
        recs = [json.loads(line) for line in (dst / "records.jsonl").read_text().splitlines()]
        for r in recs:
            if r["kind"] == "bench.halo":
                r["params"]["stencil"] = stencil
                r["results"]["msgs_intra"] = {"value": msgs, "unit": "msgs/exchange"}
                r["results"]["bytes_intra"]["value"] *= 2 if stencil == "full" else 1
                for k in ("min", "avg", "max"):
                    r["results"]["time"][k] *= scale
        (dst / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    runs = find_runs([tmp_path])
    sec = halo_section(runs)
    assert sec and sec.tables, "no faces vs full table"
    t = sec.tables[0]
    assert t.headers[3:6] == ["msgs faces", "msgs full", "msgs saved"]
    rows = {r[1]: r for r in t.rows}
    assert set(rows) == {"pure", "masteronly", "funneled", "task-balanced"}
    pure = rows["pure"]
    assert pure[0] == "2x1" and pure[2] == 32768           # the largest size with both
    assert pure[3:6] == [4, 36, 32]
    assert pure[6] * 2 == pure[7] and pure[8] == pure[6]     # bytes doubled in the full copy
    assert pure[11].endswith("(33%)")                        # full took 1.5x: 1/3 of it saved
    assert "pure (full)" in sec.figures[0].svg
