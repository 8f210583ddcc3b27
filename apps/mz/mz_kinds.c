/* apps/mz/mz_kinds.c: the fields of hk-mz's record (kind "mz"), declared once; the
 * schema python/src/hybridkit/schemas/mz.schema.json is generated from it. */
#include "hybridkit/kind_fields.h"
#include "mz_kinds.h"

static const hk_field_decl_t fields[] = {
  /* name, type, unit, ranks, phase, optional, meaning */
  {"bench", PS, NULL, SAME, 0, 0, "sp (SP-MZ), bt (BT-MZ) or lu (LU-MZ)"},
  {"class", PS, NULL, SAME, 0, 0, "NPB problem class"},
  {"procs", PI, NULL, SAME, 0, 0, "MPI processes"},
  {"threads", PI, NULL, SAME, 0, 0, "OpenMP threads per process"},
  {"zone_threads", PI, NULL, SAME, 0, 0, "zones a process solves at once (nested OpenMP)"},
  {"steps", PI, NULL, SAME, 0, 0, "time steps"},
  {"grid", PS, NULL, SAME, 0, 0, "aggregate grid GXxGYxGZ"},
  {"zones", PI, NULL, SAME, 0, 0, "zones of the class"},
  {"groups", PI, NULL, SAME, 0, 1, "first level: process groups sharing the zones (N1)"},
  {"n2", PI, NULL, SAME, 0, 1, "second level: threads (omp) or sub-ranks (mpi) per group (N2)"},
  {"second_level", PS, NULL, SAME, 0, 1, "inside a zone: omp (threads) or mpi (sub-ranks)"},
  {"assignment", PS, NULL, SAME, 0, 0, "zones to processes (LU-MZ: to the NZP groups): block (SP-MZ, LU-MZ) or binpack (BT-MZ)"},
  {"layout", PS, NULL, SAME, 0, OPT, "where the zone data's pages go (--layout, docs/mem.md)"},
  {"nxp", PI, NULL, SAME, 0, 0, "ranks splitting each zone's x range (LU-MZ's process grid NXP x NZP; 1: zones only)"},
  {"nzp", PI, NULL, SAME, 0, 0, "groups of ranks the zones are assigned to (NZP)"},
  {"mops", V, "Mop/s", SAME, 0, 0, "Mop/s total, NPB operation count over the slowest rank's time"},
  {"mops_per_thread", V, "Mop/s", SAME, 0, 0, "Mop/s total over all threads"},
  {"verified", VI, NULL, SAME, 0, 0, "1: the norms match the official values (relative 1e-8)"},
  {"imbalance", V, "max/avg", SAME, 0, 0, "points per process, max over average"},
  {"time", V, "s", SAME, 0, 0, "timed steps, slowest rank"},
  {"bytes_copy", VI, "B/step", SAME, 0, 0, "zone boundary bytes copied within processes per step"},
  {"bytes_mpi", VI, "B/step", SAME, 0, 0, "zone boundary bytes sent over MPI per step"},
  {"time_per_step", ST, "s", RANKS, 0, 0, "wall time of one step"},
  {"comm", ST, "s", RANKS, HK_PHASE_YES, 0, "exchange of the zone boundaries, per step"},
  {"compute", ST, "s", RANKS, HK_PHASE_YES, 0, "ADI on the zones of the process, per step"},
  {"maxrss", ST, "KiB", RANKS, 0, 0, "peak resident memory of a rank"},
  {"pages_max_node", ST, "fraction", RANKS, 0, OPT,
   "share of the zone data's pages on the NUMA node that holds most of them (measured)"},
  {"zones_per_proc", ST, "zones", RANKS, 0, 0, "zones of a process"},
  {"split", PI, NULL, SAME, 0, 0,
   "--split K: sub-zones per zone (1: unsplit; > 1 a different numerical method, never verified)"},
  {"points", VI, "points", SAME, 0, 0, "grid points of all zones, ghosts (boundary layers) included"},
  {"ghost_points", VI, "points", SAME, 0, 0, "points the --split cuts add (0 unsplit)"},
  {"residual_final", V, NULL, SAME, 0, OPT,
   "--history: global RMS residual after the last step (the CSV holds every step)"},
};

const hk_kind_decl_t mz_kind = {
  .kind = "mz",
  .caption = "hk-mz: one verified NPB-MZ run (SP-MZ, BT-MZ or LU-MZ) with MPI across zones and "
             "OpenMP inside",
  .metric = "mops",
  .better = "higher",
  .time = "time_per_step",
  HK_KIND_FIELDS(fields),
};
