"""The numbers the seeds give for the cluster-scale experiments that `hybridkit simulate`
reproduces on simulated platforms (issue 26); hybridkit.report.simulate puts each next to
its simulated counterpart.

Every value names its paper, its table, figure or slide, and where it stands in the seed's
extracted text (/work/shared/seeds/, see its README): the extracted texts carry no page
numbers, so the slide's title or the paper's section and the line of the text file stand
in for the page. Seed 000 is R. Rabenseifner, "Hybrid MPI and OpenMP Parallel Programming"
(tutorial slides, 2007); seed 003 is R. Rabenseifner, "Communication and Optimization
Aspects on Hybrid Architectures" (EuroPVM/MPI 2002, LNCS 2474).

A value's `relation` says how the seed states it: "=" a measured number, ">" or "<" a bound
("ratio > 1.6"), so the report can say whether the simulation keeps the seed's statement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional


def number(v: float) -> str:
    """A value as the tables show it: integers whole, others with 4 significant digits."""
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else f"{v:.4g}"


@dataclass(frozen=True)
class Seed:
    value: float
    source: str
    relation: str = "="  # "=", ">", "<", "<=", ">="
    unit: str = ""

    def text(self) -> str:
        rel = "" if self.relation == "=" else self.relation + " "
        return f"{rel}{number(self.value)}" + (f" {self.unit}" if self.unit else "")

    def holds(self, simulated: Optional[float]) -> str:
        """'yes'/'no' for a bound, '' for a measured value (or when nothing was simulated)."""
        if simulated is None or self.relation == "=":
            return ""
        ok = {">": simulated > self.value, "<": simulated < self.value,
              ">=": simulated >= self.value, "<=": simulated <= self.value}[self.relation]
        return "yes" if ok else "NO"


ORTHO = "seed 000, slide 'Experiment: Orthogonal parallel communication'"
ORTHO_RESULTS = "seed 000, slide 'Results of the experiment'"
PAPER_FIG1 = "seed 003, Sect. 5, text on Fig. 1"
TABLE1 = "seed 003, Sect. 5, Table 1"
IBM_SP = "seed 000, slide 'Multiple inter-node communication paths: IBM SP'"
COMPARISON = "seed 000, slide 'Inter-node bandwidth per SMP node ... Comparison'"
TOPOLOGY = "seed 000, slide 'The Topology Problem with pure MPI'"
CUBE = "seed 003, Sect. 4"

# --- orthogonal communication, Hitachi SR8000, 8 nodes x 8 CPUs, MPI_Sendrecv ----------------
ORTHOGONAL_SHAPE = (8, 8)  # nodes, CPUs per node (seed 000 lines 653-663; seed 003 line 101)
ORTHOGONAL_L = 1 << 20     # 1 MB per CPU ("8*8*1MB"); the leader sends 8 MB ("8*8MB")
ORTHOGONAL: Dict[str, Seed] = {
    # seed 000, slide 'Experiment: Orthogonal parallel communication' (text lines 652-670):
    # pure MPI, vertical (inter-node) 9.6 ms + horizontal (intra-node) 2.0 ms = 11.6 ms
    "t_pure_ms": Seed(11.6, f"{ORTHO} (seed 000 lines 658-670)", unit="ms"),
    # the same slide (line 688): masteronly, 8 MB per node leader, 19.2 ms
    "t_hybrid_ms": Seed(19.2, f"{ORTHO} (seed 000 line 688)", unit="ms"),
    # seed 003, Sect. 5 on Fig. 1 (line 101): 19.2 ms is 66 % greater than 11.6 ms
    "ratio_at_L": Seed(19.2 / 11.6, f"{PAPER_FIG1} (seed 003 line 101: '66% greater')"),
    # seed 000, slide 'Results of the experiment' (line 716): long messages
    # T_hybrid / T_pureMPI > 1.6 (the slide's figure: up to 2 MB per CPU)
    "ratio_long": Seed(1.6, f"{ORTHO_RESULTS} (seed 000 line 716)", ">"),
    # the same slide (line 713) and seed 003 line 106: pure MPI is faster for message sizes
    # greater than 32 kB; here the largest size (per CPU) at which masteronly still is not
    # slower (T_hybrid/T_pure <= 1)
    "crossover_bytes": Seed(32 * 1024, f"{ORTHO_RESULTS} (seed 000 line 713; seed 003 line 106)",
                            unit="B"),
}

# --- b_eff, Hitachi SR8000, 12 nodes x 8 CPUs: Table 1 of seed 003 (text lines 73-83) --------
# columns: b_eff (average over 21 sizes 8 B - 8 MB), b_eff at Lmax (8 MB), 3D-cyclic
# (average), 3D-cyclic at Lmax.  b_hybrid: 12 processes (1 per node), b_MPP: 96 processes,
# sequential ranking.  Values in MB/s; the "concluding" row assumes s_MPP/s_hybrid = 2.
BEFF_SHAPE = (12, 8)
BEFF_COLUMNS = ("b_eff", "b_eff_lmax", "cyclic3d", "cyclic3d_lmax")
BEFF_COLUMN_TITLES = {"b_eff": "b_eff (avg.)", "b_eff_lmax": "b_eff at Lmax",
                      "cyclic3d": "3D-cyclic (avg.)", "cyclic3d_lmax": "3D-cyclic at Lmax"}
_T1 = f"{TABLE1} (seed 003 lines 73-83)"
BEFF: Dict[str, Dict[str, Optional[Seed]]] = {
    # row "b_hybrid [MB/s]": 1535 5565 1604 5638
    "b_hybrid": {"b_eff": Seed(1535, _T1, unit="MB/s"), "b_eff_lmax": Seed(5565, _T1, unit="MB/s"),
                 "cyclic3d": Seed(1604, _T1, unit="MB/s"),
                 "cyclic3d_lmax": Seed(5638, _T1, unit="MB/s")},
    # row "(per node)": blank, (464), (134), (470) -- the table leaves b_eff's average blank
    "b_hybrid_per_node": {"b_eff": None, "b_eff_lmax": Seed(464, _T1, unit="MB/s"),
                          "cyclic3d": Seed(134, _T1, unit="MB/s"),
                          "cyclic3d_lmax": Seed(470, _T1, unit="MB/s")},
    # row "b_MPP [MB/s]": 5299 16624 5000 18458
    "b_mpp": {"b_eff": Seed(5299, _T1, unit="MB/s"), "b_eff_lmax": Seed(16624, _T1, unit="MB/s"),
              "cyclic3d": Seed(5000, _T1, unit="MB/s"),
              "cyclic3d_lmax": Seed(18458, _T1, unit="MB/s")},
    # row "(per process)": (55) (173) (52) (192)
    "b_mpp_per_proc": {"b_eff": Seed(55, _T1, unit="MB/s"),
                       "b_eff_lmax": Seed(173, _T1, unit="MB/s"),
                       "cyclic3d": Seed(52, _T1, unit="MB/s"),
                       "cyclic3d_lmax": Seed(192, _T1, unit="MB/s")},
    # row "b_MPP/b_hybrid (measured)": 3.45 2.99 3.12 3.27
    "ratio_measured": {"b_eff": Seed(3.45, _T1), "b_eff_lmax": Seed(2.99, _T1),
                       "cyclic3d": Seed(3.12, _T1), "cyclic3d_lmax": Seed(3.27, _T1)},
    # row "(concluding)" T_hybrid/T_MPP = measured / (s_MPP/s_hybrid = 2): 1.73 1.49 1.56 1.64
    "ratio_concluding": {"b_eff": Seed(1.73, _T1), "b_eff_lmax": Seed(1.49, _T1),
                         "cyclic3d": Seed(1.56, _T1), "cyclic3d_lmax": Seed(1.64, _T1)},
}
BEFF_S_RATIO = 2.0  # s_MPP / s_hybrid "(assumed)", Table 1 of seed 003

# --- multiple inter-node paths, IBM SP (Juelich, Power4+, Federation switch, 4 adapters per
# node), 16 nodes x 16 CPUs; bandwidth per node = inter-node bytes / wall time / nodes ------
MULTIPATH_SHAPE = (16, 16)
MULTIPATH_FULL = 0.95  # "full" bandwidth: this share of the best measured (hybridkit's choice)
MULTIPATH: Dict[str, Seed] = {
    # seed 000, slide 'Multiple inter-node communication paths: IBM SP' (lines 871-877):
    # "More than 4 CPUs per node needed to achieve full inter-node bandwidth"
    "k_full": Seed(4, f"{IBM_SP} (seed 000 line 873)", ">", "CPUs"),
    # the same slide (lines 887-892): "The second CPU doubles the accumulated bandwidth",
    # "but only if second process is located on CPU connected with 2nd adapter!"
    "second_cpu": Seed(2.0, f"{IBM_SP} (seed 000 lines 887-892)"),
    # seed 000, slide 'Inter-node bandwidth per SMP node ... Comparison (as percentage of
    # maximal bandwidth and #CPUs)' (line 951): one CPU (masteronly) reaches "50 % and less"
    # of the maximum on the platforms other than Cray X1 and NEC SX
    "one_cpu_share": Seed(0.5, f"{COMPARISON} (seed 000 line 951)", "<="),
    # the same slide (line 955): "Nearly all platforms: >80% bandwidth with 25% of CPUs/node"
    "quarter_share": Seed(0.8, f"{COMPARISON} (seed 000 line 955)", ">"),
}
# NEC SX-6, 4 x 8 CPUs, global memory (seed 000 lines 922-925): "Inverse: More CPUs = less
# bandwidth" -- memory contention of the SX-6's global memory, which no platform models.

# --- node-aware Cartesian mapping -------------------------------------------------------------
# seed 000, slide 'The Topology Problem with pure MPI' (lines 494-552): "Exa.: 2 SMP nodes, 8
# CPUs/node", the inter-node links ("Slow inter-node link") of a Cartesian grid of 16
# sub-domains: "Round-robin x14", "Sequential x8", "Optimal ? x2". The figure is lost in the
# text; the counts are those of a non-periodic 8 x 2 grid (round robin: all 14 links along
# the 8; sequential: the 8 links between the two rows; two blocks of 4 x 2: 2 links), which is
# how hybridkit reads them (hybridkit's node-aware mapping is the "optimal" one).
MAPPING_SHAPE = (2, 8)  # nodes, CPUs per node
MAPPING_PROCS = (8, 2)  # process grid (either orientation)
MAPPING_LINKS: Dict[str, Seed] = {
    "round-robin": Seed(14, f"{TOPOLOGY} (seed 000 line 544)", unit="links"),
    "sequential": Seed(8, f"{TOPOLOGY} (seed 000 line 546)", unit="links"),
    "node-aware": Seed(2, f"{TOPOLOGY} (seed 000 line 548, 'Optimal')", unit="links"),
}
# seed 003, Sect. 4 (line 63): 8-way SMP nodes each holding a 2x2x2 cube of a 3D Cartesian
# decomposition: each domain has 3 neighbours inside the cube and 3 outside, so the inter-node
# and the intra-node bytes of pure MPI are the same (ratio 1) (periodic boundaries: every
# domain has its 6 neighbours).
CUBE_INTER_OVER_INTRA = Seed(1.0, f"{CUBE} (seed 003 line 63: '3 neighbors inside the cube "
                                  f"and 3 neighbors outside')")
