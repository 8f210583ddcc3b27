"""The mesh-splitting calculator (hybridkit advise --mesh-split) against hand-computed cases."""

import pytest

from hybridkit.advice import meshsplit
from hybridkit.cli import main


def test_npb_zones_match_the_class_tables():
    # SP-MZ class S: 24 x 24 x 6 in 2 x 2 equal zones of 12 x 12 x 6
    assert meshsplit.npb_zones("sp", "S") == [(12, 12, 6)] * 4
    # BT-MZ class S: widths 6 and 18 (ratio 3), the loads 216, 648, 648, 1944 of test_mz_map
    z = meshsplit.npb_zones("bt", "S")
    assert sorted(a * b * c for a, b, c in z) == [216, 648, 648, 1944]
    # BT-MZ class C: 16 x 16 zones covering 480 x 320 x 28
    z = meshsplit.npb_zones("bt", "C")
    assert len(z) == 256 and sum(a * b * c for a, b, c in z) == 480 * 320 * 28


def test_sp_s_on_8_cores_hand_computed():
    # 4 zones of 12x12x6 = 3456 points.  Pure MPI: 8 procs -> split 2, cut in x (tie), each
    # zone gains 2 * 1 * ny * nz = 2 * 12 * 6 = 144 ghosts -> 576; hybrid 2 x 4: no split.
    rows = {r.threads: r for r in meshsplit.calculate(meshsplit.npb_zones("sp", "S"), 8)}
    assert (rows[1].procs, rows[1].split, rows[1].zones) == (8, 2, 8)
    assert (rows[1].points, rows[1].ghost_points) == (3456 + 576, 576)
    assert rows[1].overhead == pytest.approx(576 / 3456)
    assert (rows[2].procs, rows[2].split, rows[2].ghost_points) == (4, 1, 0)
    assert rows[1].problem is None


def test_zone_list_cut_along_the_larger_dimension():
    # 2 zones 10x40x5: cut in y (40 > 10); 6 cores -> split 3: 2 * 2 * nx * nz = 200 per zone
    zones = meshsplit.parse_zones("10x40x5*2")
    assert meshsplit.split_axis(zones) == 1
    (row,) = meshsplit.calculate(zones, 6, [1])
    assert (row.split, row.zones, row.ghost_points, row.points) == (3, 6, 400, 4000 + 400)


def test_too_small_and_too_many_splits():
    zones = meshsplit.parse_zones("8x8x5")  # 6 interior points: split 2 fine, 3 too small
    assert meshsplit.check_split(zones, 2) is None
    assert "too small to split 3 ways" in meshsplit.check_split(zones, 3)
    assert "more splits than points" in meshsplit.check_split(zones, 7)


def test_cli(capsys):
    assert main(["advise", "--mesh-split", "sp:S", "--cores", "8", "--threads", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "4032" in out and "16.7%" in out and "split 1 instead of 2" in out
    assert main(["advise", "--mesh-split", "x3", "--cores", "4"]) == 2
    assert main(["advise", "--mesh-split", "qq:S", "--cores", "4"]) == 2
    assert main(["advise", "--mesh-split", "sp:S"]) == 2  # no --cores
    assert main(["advise"]) == 2  # neither RUNDIR nor --mesh-split
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4 and "bad zone 'x3'" in err[0] and "unknown NPB-MZ problem" in err[1]
    assert "--cores" in err[2] and "RUNDIR" in err[3]


def test_svg_figures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    for k, values in ((1, "1.0\n2,0.5"), (2, "2.0\n2,1.5")):
        (tmp_path / f"k{k}.csv").write_text(f"# hk-mz\nstep,residual\n1,{values}\n")
    assert meshsplit.read_history(str(tmp_path / "k2.csv")) == [(1.0, 2.0), (2.0, 1.5)]
    svg = tmp_path / "fig.svg"
    assert main(["advise", "--mesh-split", "sp:S", "--cores", "16", "--svg", str(svg),
                 "--history", str(tmp_path / "k1.csv"), str(tmp_path / "k2.csv")]) == 0
    assert svg.read_text().startswith("<svg") and "points vs processes" in svg.read_text()
    hist = (tmp_path / "fig-history.svg").read_text()
    assert "residual history" in hist and "k2.csv" in hist
