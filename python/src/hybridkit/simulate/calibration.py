"""Where the named platforms' numbers come from (issue 43 item 4): published hardware numbers,
each with its source, and the platform parameters derived from them.

A platform that reproduces a seed's figure must not be calibrated from that figure: the
SR8000 platform used to take 874 MB/s per node and 437 MB/s per CPU from the orthogonal
experiment (9.6 ms and 19.2 ms for 8 MiB), so the simulated 19.2/11.6 ms ratio followed from
the settings.  Now:

  * SR8000: the inter-node link and its latency are the vendor's numbers (a press release
    of the SR8000-F1 installation at LRZ, 1999); one CPU's rate is the b_eff measurement with
    one MPI process per node (seed 003, Table 1: 3D-cyclic at Lmax, per node, 470 MB/s),
    a different experiment than the orthogonal one.  The orthogonal figure (seed 000 slide
    'Experiment: Orthogonal parallel communication', seed 003 Fig. 1) is then a prediction;
    b_hybrid's 3D-cyclic at Lmax is an input, not evidence (docs/simulate.md says so).
  * IBM SP (Juelich, Power4+, Federation switch = IBM HPS): link speed and MPI latency from
    van der Steen's overview of the p690, one task's delivered bandwidth from IBM's HPS paper;
    the multipath figures (seed 000) are predictions.
  * latencies inside a node are published for neither: they stay assumptions (`ASSUMED`).

`derive(name)` recomputes a platform's parameters from these numbers (a test checks that the
named platforms in platform.py are exactly what it returns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict

from hybridkit.simulate.seedvalues import BEFF


@dataclass(frozen=True)
class Number:
    value: float
    unit: str
    source: str
    note: str = ""


PRIMEUR_1999 = ("Primeur monthly, Dec. 1999, LRZ's Hitachi SR8000-F1 "
                "(http://www.hoise.com/primeur/99/articles/monthly/UH-PR-12-99-1.html)")
SEED003_T1 = "seed 003 (Rabenseifner 2002), Sect. 5, Table 1, line 76; line 144"
VDSTEEN_P690 = ("A. van der Steen, Overview of recent supercomputers, 'The IBM eServer p690' "
                "(https://www.netlib.org/utk/papers/advanced-computers/p690.html)")
HPS_2004 = ("R. K. Govindaraju et al., 'Architecture and Early Performance of the New IBM HPS "
            "Fabric and Adapter', HiPC 2004, LNCS 3296, pp. 156-165 (abstract)")
SEED000_IBM = "seed 000 (Rabenseifner 2007), slide 'Inter-node bandwidth per SMP node ... on IBM at Juelich', lines 844-846"

HARDWARE: Dict[str, Dict[str, Number]] = {
    "sr8000": {
        # "The nodes are connected via a three-dimensional crossbar with a bandwidth of 1
        # Gbyte/s bidirectional between nodes": read as 1 GB/s in each direction (the seed's
        # orthogonal experiment sends and receives 8 MiB per node at once in 9.6 ms, 874 MB/s
        # each way, which a 1 GB/s total could not carry)
        "link_bw": Number(1e9, "B/s", PRIMEUR_1999),
        # "... and a latency of 19 microseconds"
        "link_lat": Number(19e-6, "s", PRIMEUR_1999),
        # b_hybrid per node, 3D-cyclic at Lmax (8 MB): 470 MB/s -- one MPI process per node
        # sending to its 6 neighbours on other nodes, i.e. what one CPU sends per second
        # (b_eff counts the bytes a process sends); the b_eff average at Lmax gives 464
        # (the value is seedvalues.py's, the single source of the seeds' numbers)
        "cpu_rate": Number(BEFF["b_hybrid_per_node"]["cyclic3d_lmax"].value * 1e6, "B/s",
                           SEED003_T1),
        "nodes": Number(12, "", "seed 003 line 67: 16 nodes, 12 available for MPI"),
        "cpus": Number(8, "", "seed 003 line 67: 'Each node has 8 CPUs'; seed 000 lines 672-676"),
        "nics": Number(1, "", PRIMEUR_1999, "one crossbar port per node"),
    },
    "ibm-sp": {
        # "a bi-directional link speed of 2 GB/s and an MPI latency of 5-7 us": 2 GB/s each
        # way (one task alone delivers 1.8 GB/s in one direction, HPS_2004)
        "link_bw": Number(2e9, "B/s", VDSTEEN_P690),
        "link_lat": Number(6e-6, "s", VDSTEEN_P690, "the middle of '5-7 us'"),
        # "1.8GB/s of delivered unidirectional bandwidth and 2.9GB/s of bidirectional
        # bandwidth between 2 MPI tasks" (1.9 GHz Power4+ nodes; Juelich had 1.7 GHz)
        "cpu_rate": Number(1.8e9, "B/s", HPS_2004, "unidirectional; bidirectional 2.9 GB/s "
                           "= 1.45 GB/s each way"),
        "cpu_rate_bidir": Number(2.9e9 / 2, "B/s", HPS_2004, "each way, both directions at once"),
        "nodes": Number(16, "", "seed 000 lines 847-868: '16x16 CPUs'"),
        "cpus": Number(16, "", "seed 000 lines 845-868: 16 of the 32 CPUs per node"),
        "nics": Number(4, "", SEED000_IBM + ": 'FederationSwitch with 4 adapters per node'"),
    },
}

# Published for neither machine: latencies between two CPUs of one node.
ASSUMED: Dict[str, Dict[str, Number]] = {
    "sr8000": {"intra_lat": Number(4e-6, "s", "assumed (not published; the seeds give none)")},
    "ibm-sp": {"intra_lat": Number(3e-6, "s", "assumed (not published; the seeds give none)")},
}


def _bps(v: float) -> str:
    return f"{v / 1e6:.9g}MBps"


def _us(v: float) -> str:
    return f"{v * 1e6:.9g}us"


def derive(name: str) -> Dict[str, object]:
    """The Platform(...) keyword arguments of a named platform, from HARDWARE and ASSUMED."""
    hw, assumed = HARDWARE[name], ASSUMED[name]
    return {"name": name, "nodes": int(hw["nodes"].value), "cores": int(hw["cpus"].value),
            "link_bw": _bps(hw["link_bw"].value), "link_lat": _us(hw["link_lat"].value),
            "nic_per_node": int(hw["nics"].value), "cpu_injection": _bps(hw["cpu_rate"].value),
            "intra_lat": _us(assumed["intra_lat"].value)}
