"""The named platforms are calibrated from published hardware numbers (issue 43 item 4):
their parameters are recomputed here from hybridkit.simulate.calibration's numbers, and no
number comes from the seed figure the platform is used to reproduce."""

from __future__ import annotations

import pytest

from hybridkit.simulate import calibration, seedvalues
from hybridkit.simulate.platform import NAMED, parse_bw, parse_lat


@pytest.mark.parametrize("name", sorted(calibration.HARDWARE))
def test_platform_parameters_are_the_published_numbers(name):
    hw, assumed, plat = calibration.HARDWARE[name], calibration.ASSUMED[name], NAMED[name]
    assert plat.nodes == hw["nodes"].value and plat.cores == hw["cpus"].value
    assert plat.nic_per_node == hw["nics"].value
    assert parse_bw(plat.link_bw) == pytest.approx(hw["link_bw"].value, rel=1e-12)
    assert parse_lat(plat.link_lat) == pytest.approx(hw["link_lat"].value, rel=1e-12)
    assert parse_bw(plat.cpu_injection) == pytest.approx(hw["cpu_rate"].value, rel=1e-12)
    assert parse_lat(plat.intra_lat) == pytest.approx(assumed["intra_lat"].value, rel=1e-12)
    assert all(n.source for n in hw.values()) and "assumed" in assumed["intra_lat"].source


def test_sr8000_is_not_calibrated_from_the_orthogonal_figure():
    """The orthogonal experiment's own numbers (8 MiB in 9.6 ms per node, in 19.2 ms by the
    master alone) are not the platform's bandwidths, and no hardware number cites it."""
    plat = NAMED["sr8000"]
    mib8 = 8 * 1024 * 1024
    for ms in (seedvalues.ORTHOGONAL["t_pure_ms"].value - 2.0,  # 9.6 ms inter-node
               seedvalues.ORTHOGONAL["t_hybrid_ms"].value):
        figure_rate = mib8 / (ms * 1e-3)
        for bw in (plat.link_bw, plat.cpu_injection):
            assert abs(parse_bw(bw) / figure_rate - 1) > 0.03, (bw, figure_rate)
    for n in calibration.HARDWARE["sr8000"].values():
        assert "Orthogonal" not in n.source and "Fig. 1" not in n.source, n.source


def test_ibm_sp_cpu_rate_below_its_adapter():
    """One task cannot fill an adapter (HPS paper: 1.8 of 2 GB/s): the effect the multipath
    figures show, now from the hardware numbers instead of chosen to show it."""
    hw = calibration.HARDWARE["ibm-sp"]
    assert hw["cpu_rate"].value < hw["link_bw"].value
