/* apps/jacobi/jacobi_kinds.c: the fields of hk-jacobi's records, declared once.
 * The report's metric, units, captions and time breakdown come from here (through
 * the generated python/src/hybridkit/schemas/jacobi.schema.json), not from the app description. */
#include "hk_kind_fields.h"
#include "jacobi_kinds.h"

static const hk_field_decl_t run_fields[] = {
  {"mode", PS, NULL, SAME, 0, 0, "hybrid mode of the halo exchange"},
  {"dims", PI, NULL, SAME, 0, 0, "2: 5-point heat equation, 3: 7- or 27-point Jacobi"},
  {"stencil", PI, NULL, SAME, 0, 0, "points of the stencil: 5 (2D), 7 or 27 (3D)"},
  {"halo_stencil", PS, NULL, SAME, 0, 0,
   "ghosts the halo exchanges: faces, or full (faces, edges and corners)"},
  {"grid", PS, NULL, SAME, 0, 0, "global grid NXxNYxNZ"},
  {"procs", PS, NULL, SAME, 0, 0, "process grid PXxPYxPZ"},
  {"threads", PI, NULL, SAME, 0, 0, "OpenMP threads per rank the halo engine uses"},
  {"iters", PI, NULL, SAME, 0, 0, "timed sweeps"},
  {"halo_width", PI, NULL, SAME, 0, 0, "ghost layers (sweeps per exchange)"},
  {"boundary", PS, NULL, SAME, 0, 0, "periodic or dirichlet"},
  {"map", PS, NULL, SAME, 0, 0, "rank mapping used"},
  {"reserved", PI, NULL, SAME, 0, 0, "communicating threads asked for (multiple-reserved)"},
  {"temporal", PS, NULL, SAME, 0, 0, "wavefront (temporal blocking) or off"},
  {"wave_rows", PI, NULL, SAME, 0, OPT, "rows per wavefront strip"},
  {"verification", PS, NULL, SAME, 0, 0, "what the run was checked against"},
  {"stores", PS, NULL, SAME, 0, OPT, "3D: how the sweeps write the field"},
  {"x_wrap", PS, NULL, SAME, 0, OPT, "3D: who wraps a periodic x (sweeps or halo)"},
  {"bound", PS, NULL, SAME, 0, OPT,
   "--roofline, 3D: the lower ceiling, memory (roofline x sweeps per pass) or in-core"},
  {"mlups", V, "MLUP/s", SAME, 0, 0,
   "million lattice updates per second: cells x sweeps / time of the slowest rank"},
  {"time_per_iter", ST, "s", RANKS, 0, 0, "wall time of one timed sweep"},
  {"pack", ST, "s", RANKS, 0, 0, "engine counter: packing, per sweep"},
  {"post", ST, "s", RANKS, 0, 0, "engine counter: posting sends and receives, per sweep"},
  {"wait", ST, "s", RANKS, 0, 0, "engine counter: waiting for messages, per sweep"},
  {"unpack", ST, "s", RANKS, 0, 0, "engine counter: unpacking, per sweep"},
  {"comm", ST, "s", RANKS, 0, 0,
   "engine counter: the communicating threads' span (contains post, wait and unpack), per sweep"},
  {"compute", ST, "s", RANKS, 0, 0, "every update (whole region, interior, boundary, extra sweeps)"},
  {"phase_pack", ST, "s", RANKS, HK_PHASE_YES, 0, "packing"},
  {"phase_post", ST, "s", RANKS, HK_PHASE_YES, 0, "posting, the part not hidden behind compute"},
  {"phase_wait", ST, "s", RANKS, HK_PHASE_YES, 0, "waiting, the part not hidden behind compute"},
  {"phase_unpack", ST, "s", RANKS, HK_PHASE_YES, 0, "unpacking, the part not hidden behind compute"},
  {"phase_compute", ST, "s", RANKS, HK_PHASE_YES, 0, "every update"},
  {"phase_other", ST, "s", RANKS, HK_PHASE_REST, 0,
   "the time per sweep minus the other phases (fork/join, imbalance)"},
  {"hidden_comm", ST, "s", RANKS, 0, 0, "communication done while the interior was computed"},
  {"overlap", ST, "fraction", RANKS, 0, OPT, "share of comm hidden behind the interior"},
  {"bytes_intra", VI, "B/exchange", SAME, 0, 0, "bytes sent per exchange to ranks of the same node"},
  {"bytes_inter", VI, "B/exchange", SAME, 0, 0, "bytes sent per exchange to other nodes"},
  {"bytes_self", VI, "B/exchange", SAME, 0, 0, "bytes copied per exchange within a rank"},
  {"msgs_intra", VI, "msgs/exchange", SAME, 0, 0, "messages sent per exchange to ranks of the same node"},
  {"msgs_inter", VI, "msgs/exchange", SAME, 0, 0, "messages sent per exchange to other nodes"},
  {"msgs_self", VI, "msgs/exchange", SAME, 0, 0, "copies per exchange within a rank (self messages)"},
  {"maxrss", ST, "KiB", RANKS, 0, 0, "peak resident memory of a rank"},
  {"check_time", ST, "s", RANKS, 0, 0, "untimed invariant checks"},
  {"reference_diffs", VI, NULL, SAME, 0, 0, "cells that differ from the serial reference (-1: not compared)"},
  {"stream_bw", ST, "B/s", RANKS, 0, OPT, "STREAM-style scale bandwidth (--roofline)"},
  {"stream_nt_bw", ST, "B/s", RANKS, 0, OPT, "the same with non-temporal stores"},
  {"roofline_mlups", V, "MLUP/s", SAME, 0, OPT, "MLUP/s the measured bandwidth allows"},
  {"roofline_efficiency", V, "fraction", SAME, 0, OPT, "mlups / roofline_mlups"},
  {"incore_mlups", V, "MLUP/s", SAME, 0, OPT,
   "the kernel with its data in cache (a 128x16x16 block per thread in L2, cached stores)"},
  {"limit_mlups", V, "MLUP/s", SAME, 0, OPT,
   "the lower of roofline_mlups x sweeps per pass through memory (w with the wavefront) "
   "and incore_mlups"},
  {"limit_efficiency", V, "fraction", SAME, 0, OPT, "mlups / limit_mlups"},
  {"roofline_spread", V, "fraction", SAME, 0, OPT,
   "relative change of the bandwidth before and after the sweeps"},
};

const hk_kind_decl_t jac_kind_run = {
  .kind = "jacobi",
  .caption = "hk-jacobi: one verified run of the Jacobi / heat-equation sweeps in one hybrid mode",
  .metric = "mlups",
  .better = "higher",
  .time = "time_per_iter",
  HK_KIND_FIELDS(run_fields),
};

static const hk_field_decl_t exchange_fields[] = {
  {"mode", PS, NULL, SAME, 0, 0, "hybrid mode of the engine's exchange"},
  {"exchanges", PI, NULL, SAME, 0, 0, "halo exchanges timed"},
  {"engine", ST, "s", RANKS, 0, 0, "one exchange of the halo engine"},
  {"sendrecv_loop", ST, "s", RANKS, 0, 0, "one exchange of the hand-written MPI_Sendrecv loop"},
  {"engine_over_sendrecv", V, "ratio of max", SAME, 0, 0,
   "slowest rank's engine time over its loop time"},
};

const hk_kind_decl_t jac_kind_exchange = {
  .kind = "jacobi.exchange",
  .caption = "hk-jacobi --compare-sendrecv: the halo engine against a hand-written MPI_Sendrecv loop",
  .metric = "engine_over_sendrecv",
  .better = "lower",
  HK_KIND_FIELDS(exchange_fields),
};
