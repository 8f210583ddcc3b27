/* apps/spmv/spmv_kinds.c: the fields of hk-spmv's records (kinds "spmv" and "spmv.cg"),
 * declared once; the schemas python/src/hybridkit/schemas/spmv*.schema.json are generated
 * from it, and the report's metric, unit, time and breakdown come from here. */
#include "hybridkit/kind_fields.h"
#include "spmv_kinds.h"

static const hk_field_decl_t run_fields[] = {
  {"matrix", PS, NULL, SAME, 0, 0, "the matrix: a generator spec (laplace3d:N, ...) or a Matrix Market file"},
  {"format", PS, NULL, SAME, 0, 0, "storage format: crs, jds or sell"},
  {"mode", PS, NULL, SAME, 0, 0, "hybrid mode of the halo exchange of x"},
  {"verification", PS, NULL, SAME, 0, 0, "what y was checked against: serial-product or off"},
  {"rows", PI, NULL, SAME, 0, 0, "rows of the matrix"},
  {"nnz", PI, NULL, SAME, 0, 0, "non-zeros of the matrix"},
  {"stored", PI, NULL, SAME, 0, 0, "entries the format stores (SELL: with its padding)"},
  {"chunk", PI, NULL, SAME, 0, 0, "SELL: rows per chunk"},
  {"sigma", PI, NULL, SAME, 0, 0, "SELL: sorting window in rows (1: no sorting)"},
  {"threads", PI, NULL, SAME, 0, 0, "OpenMP threads per rank the multiply uses"},
  {"iters", PI, NULL, SAME, 0, 0, "timed multiplies"},
  {"blocks", PI, NULL, SAME, 0, 0, "blocks the timed multiplies ran in"},
  {"reserved", PI, NULL, SAME, 0, 0, "communicating threads asked for (multiple-reserved)"},
  {"gflops", V, "GFlop/s", SAME, 0, 0, "2 nnz x multiplies / time of the slowest rank"},
  {"bytes_per_nnz", V, "B", SAME, 0, 0, "the traffic model of one multiply per non-zero"},
  {"min_bytes_per_nnz", V, "B", SAME, 0, 0, "the least the format must move per non-zero"},
  {"time_per_mult", ST, "s", RANKS, 0, 0, "wall time of one timed multiply"},
  {"pack", ST, "s", RANKS, HK_PHASE_YES, 0, "packing the halo of x, per multiply"},
  {"local", ST, "s", RANKS, HK_PHASE_YES, 0, "the local part of the rows (owned columns), per multiply"},
  {"halo", ST, "s", RANKS, HK_PHASE_YES, 0, "the halo part of the rows, per multiply"},
  {"comm", ST, "s", RANKS, 0, 0, "the communicating threads' span, per multiply"},
  {"wait", ST, "s", RANKS, 0, 0, "waiting for the halo messages, per multiply"},
  {"exposed_wait", ST, "s", RANKS, HK_PHASE_YES, 0,
   "time the computing threads stood idle for the halo (the whole exchange in modes without "
   "overlap), per multiply"},
  {"f_comm", ST, "fraction", RANKS, 0, 0, "comm / (comm + pack + local + halo)"},
  {"halo_entries", ST, NULL, RANKS, 0, 0, "entries of x a rank receives"},
  {"messages", ST, NULL, RANKS, 0, 0, "messages a rank sends per multiply"},
  {"reference_diffs", VI, NULL, SAME, 0, OPT, "entries of y that differ from the serial product"},
  {"gflops_best", V, "GFlop/s", SAME, 0, 0, "the same as gflops in the best block"},
  {"stream_bw", V, "B/s", SAME, 0, OPT,
   "--roofline: STREAM-like scale bandwidth of all ranks, the best of the measurements"},
  {"stream_spread", V, "fraction", SAME, 0, OPT,
   "--roofline: (best - worst) / best of the bandwidth measurements"},
  {"stream_array_bytes", ST, "B", RANKS, 0, OPT, "--roofline: bytes of each STREAM array of a rank"},
  {"roofline_gflops", V, "GFlop/s", SAME, 0, OPT, "--roofline: 2 x stream_bw / bytes_per_nnz"},
  {"roofline_efficiency", V, "fraction", SAME, 0, OPT, "--roofline: gflops / roofline_gflops"},
  {"memory_bound_gflops", V, "GFlop/s", SAME, 0, OPT,
   "--roofline: 2 x stream_bw / min_bytes_per_nnz"},
  {"memory_bound_share", V, "fraction", SAME, 0, OPT,
   "--roofline: the median of the blocks' GFlop/s over the limit from the bandwidths around each"},
  {"memory_bound_share_min", V, "fraction", SAME, 0, OPT, "--roofline: the lowest block share"},
  {"memory_bound_share_max", V, "fraction", SAME, 0, OPT, "--roofline: the highest block share"},
  {"memory_bound_share_best", V, "fraction", SAME, 0, OPT,
   "--roofline: gflops_best / memory_bound_gflops"},
};

const hk_kind_decl_t spmv_kind = {
  .kind = "spmv",
  .caption = "hk-spmv: verified sparse matrix-vector multiplies in one format and hybrid mode",
  .metric = "gflops",
  .better = "higher",
  .time = "time_per_mult",
  HK_KIND_FIELDS(run_fields),
};

static const hk_field_decl_t cg_fields[] = {
  {"matrix", PS, NULL, SAME, 0, 0, "the matrix (symmetric positive definite)"},
  {"format", PS, NULL, SAME, 0, 0, "storage format: crs, jds or sell"},
  {"mode", PS, NULL, SAME, 0, 0, "hybrid mode of the halo exchange of x"},
  {"tol", PD, NULL, SAME, 0, 0, "stop when |r| / |b| < tol"},
  {"iterations", VI, NULL, SAME, 0, 0, "CG iterations done"},
  {"relative_residual", V, NULL, SAME, 0, 0, "|r| / |b| of the recurrence at the end"},
  {"true_relative_residual", V, NULL, SAME, 0, 0, "|b - A x| / |b| at the end"},
  {"max_error", V, NULL, SAME, 0, 0, "max |x - 1| (the exact solution is 1)"},
  {"time", V, "s", SAME, 0, 0, "wall time of the CG iterations"},
};

const hk_kind_decl_t spmv_kind_cg = {
  .kind = "spmv.cg",
  .caption = "hk-spmv --solver cg: conjugate gradients on A x = A 1 from x = 0",
  .metric = "time",
  .better = "lower",
  HK_KIND_FIELDS(cg_fields),
};
