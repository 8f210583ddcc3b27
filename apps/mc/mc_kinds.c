/* apps/mc/mc_kinds.c: the fields of hk-mc's record (kind "mc"), declared once; the
 * schema python/src/hybridkit/schemas/mc.schema.json is generated from it. */
#include "hybridkit/kind_fields.h"
#include "mc_kinds.h"

static const hk_field_decl_t fields[] = {
  {"procs", PI, NULL, SAME, 0, 0, "MPI processes"},
  {"threads", PI, NULL, SAME, 0, 0, "OpenMP threads per process"},
  {"particles", PI, NULL, SAME, 0, 0, "particles in total"},
  {"steps", PI, NULL, SAME, 0, 0, "timed time steps"},
  {"tally_bytes", PI, NULL, SAME, 0, 0, "bytes of the tally array reduced every step"},
  {"seed", PI, NULL, SAME, 0, 0, "random seed"},
  {"collective", PS, NULL, SAME, 0, 0,
   "how a step reduces the tally (--collective: allreduce, reduce, reduce-scatter, allgather, "
   "alltoall, bcast)"},
  {"calls", PS, NULL, SAME, 0, 0, "the MPI collectives of a step, e.g. MPI_Reduce+MPI_Bcast"},
  {"allreduce", PS, NULL, SAME, 0, 0,
   "the algorithm asked for (--algorithm, formerly --allreduce): mpi or the hk_* functions'"},
  {"preload", PS, NULL, SAME, 0, 0, "on: the preload library is loaded"},
  {"allreduce_used", PS, NULL, SAME, 0, 0,
   "what ran: mpi, preload, or the algorithm of each hk_* call of a step joined by +"},
  {"fallback", PS, NULL, SAME, 0, OPT,
   "why mpi ran instead of the hybrid algorithm, per hk_* call of a step joined by + "
   "(none: it did not); only with an hk_* algorithm"},
  {"time_per_step", ST, "s", RANKS, 0, 0, "wall time of one timed step"},
  {"compute", ST, "s", RANKS, HK_PHASE_YES, 0, "moving the particles and merging the tallies, per step"},
  {"allreduce", ST, "s", RANKS, HK_PHASE_YES, 0,
   "the collective(s) of the step on the tally (and their local sums), per step"},
  {"maxrss", ST, "KiB", RANKS, 0, 0, "peak resident memory of a rank"},
  {"allreduce_fraction", V, "fraction", SAME, 0, 0,
   "slowest rank's collective time over the slowest rank's step time"},
  {"allreduce_bandwidth", V, "MB/s", SAME, 0, 0, "tally bytes over the slowest collective time"},
  {"checksum", VI, "fnv1a64 & (2^53-1)", SAME, 0, 0,
   "FNV-1a over every step's global tally (the same for every layout, collective and algorithm)"},
  {"absorptions", VI, "events", SAME, 0, 0, "absorptions in the timed steps"},
  {"preload_accelerated", VI, "calls", SAME, 0, OPT,
   "calls the preload library accelerated (hk_preload_state_t.accelerated)"},
};

const hk_kind_decl_t mc_kind = {
  .kind = "mc",
  .caption = "hk-mc: Monte Carlo particles with a reduction of a tally array per step (an allreduce "
             "or the collectives of --collective)",
  .metric = "allreduce_fraction",
  .better = "lower",
  .time = "time_per_step",
  HK_KIND_FIELDS(fields),
};
