/* apps/dsm/dsm_kinds.c: the fields of hk-dsm-heat's record (kind "dsm.heat"), declared
 * once; the schema python/src/hybridkit/schemas/dsm.heat.schema.json is generated from it.
 * The DSM counters are those of hk_dsm_stats (hybridkit/dsm.h), per timed step. */
#include "hybridkit/kind_fields.h"
#include "dsm_kinds.h"

static const hk_field_decl_t fields[] = {
  {"grid", PS, NULL, SAME, 0, 0, "global grid NXxNY (the problem of hk-jacobi --dims 2)"},
  {"dims", PI, NULL, SAME, 0, 0, "2: the 5-point heat equation"},
  {"boundary", PS, NULL, SAME, 0, 0, "periodic or dirichlet"},
  {"ranks", PI, NULL, SAME, 0, 0, "MPI processes (DSM nodes)"},
  {"threads", PI, NULL, SAME, 0, 0, "OpenMP threads per rank updating rows"},
  {"schedule", PS, NULL, SAME, 0, 0, "static (a block of rows per worker) or static,N (chunks of N rows)"},
  {"home", PS, NULL, SAME, 0, 0, "home assignment of the region's pages: block or cyclic"},
  {"iters", PI, NULL, SAME, 0, 0, "timed time steps"},
  {"page_size", PI, NULL, SAME, 0, 0, "bytes of a DSM page"},
  {"verification", PS, NULL, SAME, 0, 0, "reference (bit-identical to the serial reference) or none"},
  {"time_per_step", ST, "s", RANKS, 0, 0, "wall time of one timed step (updates and the DSM barrier)"},
  {"barrier", ST, "s", RANKS, 0, 0, "protocol: time in hk_dsm_barrier, per step"},
  {"fault", ST, "s", RANKS, 0, 0, "protocol: time in the fault handler summed over threads, per step"},
  {"mlups", V, "MLUP/s", SAME, 0, 0, "million lattice updates per second: cells / slowest rank's time per step"},
  {"bytes_per_step", V, "B/step", SAME, 0, 0,
   "bytes the DSM moved per step, summed over ranks: fetched pages, diffs and write notices"},
  {"bytes_fetched", V, "B/step", SAME, 0, 0, "bytes of pages fetched from other ranks per step, summed over ranks"},
  {"bytes_diffs", V, "B/step", SAME, 0, 0, "bytes of diffs sent to other ranks' homes per step, summed over ranks"},
  {"bytes_notices", V, "B/step", SAME, 0, 0, "bytes of write notices received per step, summed over ranks"},
  {"faults", V, "faults/step", SAME, 0, 0, "read and write faults per step, summed over ranks"},
  {"fetches", V, "pages/step", SAME, 0, 0, "pages fetched from other ranks per step, summed over ranks"},
  {"reference_diffs", VI, NULL, SAME, 0, 0, "cells that differ from the serial reference (-1: not compared)"},
};

const hk_kind_decl_t dsm_heat_kind = {
  .kind = "dsm.heat",
  .caption = "hk-dsm-heat: the heat example in shared-memory style on the page-based DSM",
  .metric = "time_per_step",
  .better = "lower",
  .time = "time_per_step",
  HK_KIND_FIELDS(fields),
};
