"""The simulated study of the seeds' experiments (hybridkit.simulate.study, issue 26): the study
file loads, expands into `hybridkit simulate` calls that cover every comparison of the report, and
(once `hybridkit simulate` is there) each call parses with its own options."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hybridkit.report import bench as report_bench

from hybridkit.report import simulate as report_simulate

from hybridkit.simulate import seedvalues as sv

from hybridkit.simulate import study as simstudy
from hybridkit.errors import HKError


def runs(quick=False):
    return {r.name: r for r in simstudy.plan(simstudy.load(), Path("res"), quick)}


def opt(argv, name):
    return argv[argv.index(name) + 1] if name in argv else None


def binary_args(argv):
    return argv[argv.index("--") + 1:]


@pytest.mark.parametrize("quick", [False, True])
def test_every_comparison_of_the_report_has_its_runs(quick):
    plan = runs(quick)
    ortho = plan["orthogonal-sr8000"].argv
    assert (opt(ortho, "--platform"), opt(ortho, "--use-nodes")) == ("sr8000", "8")   # 8 x 8
    assert binary_args(ortho)[0] == "orthogonal" and ortho[ortho.index("--") - 1] == "hk-bench"
    beff = plan["beff-sr8000"].argv
    assert "--compare-hybrid" in binary_args(beff)
    assert opt(beff, "--use-nodes") == ("2" if quick else None)        # 12 x 8 in full
    if not quick:
        assert opt(binary_args(beff), "--lmax") == "8M"                   # Table 1's Lmax
        assert binary_args(ortho)[-1] == "128:2M"                          # the seed's figure
    mp = plan["multipath-ibm-sp"].argv
    assert opt(mp, "--platform") == "ibm-sp" and binary_args(mp)[0] == "multipath"
    maps = {opt(binary_args(r.argv), "--map"): r for n, r in plan.items()
            if n.startswith("mapping-2d")}
    assert set(maps) == set(sv.MAPPING_LINKS)            # the slide's three mappings
    for r in maps.values():
        a = binary_args(r.argv)
        assert opt(r.argv, "--use-nodes") == "2" and opt(a, "--boundary") == "dirichlet"
        assert opt(a, "--grid") == "256x64" and opt(a, "--dims") == "2"
    cube = [r for n, r in plan.items() if n.startswith("mapping-3d")]
    assert {opt(binary_args(r.argv), "--map") for r in cube} == {"sequential", "node-aware"}
    assert all(opt(binary_args(r.argv), "--boundary") == "periodic" for r in cube)
    # every run names a section the report really has
    titles = set(report_simulate.TITLES.values())
    assert "Ping-pong: intra-node vs inter-node" in Path(report_bench.__file__).read_text()
    titles.add("Ping-pong: intra-node vs inter-node")
    assert {r.report for r in plan.values()} <= titles
    assert all(opt(r.argv, "--results") == "res" for r in plan.values())


def test_hk_jacobi_chooses_the_slides_8x2_grid():
    """256 x 64 on 16 ranks, not periodic: 8 x 2 has the smallest halo surface (the rule of
    src/cart/layout.c: faces 2(P-1) per dimension times the grid's cross-section)."""
    def surface(px, py):
        return 2 * (px - 1) * 64 + 2 * (py - 1) * 256
    best = min(((px, 16 // px) for px in (1, 2, 4, 8, 16)), key=lambda p: surface(*p))
    assert best == (8, 2)


def test_bad_study_files(tmp_path):
    bad = tmp_path / "s.toml"
    bad.write_text('[[run]]\nname = "a"\nplatform = "sr8000"\nbinary = "hk-mz"\nargs = []\n')
    with pytest.raises(HKError, match="binary must be one of"):
        simstudy.load(bad)
    bad.write_text('[[run]]\nname = "a"\nplatform = "sr8000"\nbinary = "hk-bench"\n')
    with pytest.raises(HKError, match="'args' is missing"):
        simstudy.load(bad)
    bad.write_text('[[run]]\nname = "a"\nplatform = "sr8000"\nbinary = "hk-bench"\n'
                   'args = []\n[run.quick]\nplatform = "ibm-sp"\n')
    with pytest.raises(HKError, match=r"\[run.quick\] may set only args"):
        simstudy.load(bad)
    with pytest.raises(HKError, match="no run named nope"):
        simstudy.plan(simstudy.load(), Path("r"), only=["nope"])


def test_dry_run_prints_the_commands(capsys):
    assert simstudy.main(["--dry-run", "--quick", "--only", "orthogonal-sr8000"]) == 0
    out = capsys.readouterr().out
    assert ("hybridkit simulate --platform sr8000 --use-nodes 8 --results results/simulated "
            "hk-bench -- orthogonal -m 1K:1M") in out


def test_each_call_parses_with_hybridkit_simulate():
    simulate = pytest.importorskip("hybridkit.commands.simulate",
                                   reason="hybridkit simulate is not in this tree yet")
    for quick in (False, True):
        for r in runs(quick).values():
            parser = argparse.ArgumentParser()
            simulate.add_arguments(parser)
            ns = parser.parse_args(r.argv)
            assert ns.binary in ("hk-bench", "hk-jacobi") and ns.binary_args
