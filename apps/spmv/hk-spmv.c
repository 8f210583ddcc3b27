/* apps/spmv/hk-spmv.c: distributed sparse matrix-vector multiply (hybridkit/spmv.h)
 * in every hybrid mode and format, and a conjugate-gradient solver on top of it: the
 * options and the order of the steps (the steps themselves: spmv.h).
 *
 *   matrix (generator or Matrix Market file, rows in blocks over the ranks)
 *   -> plan + format (hk_spmv_create) -> warm-up, K timed multiplies y = A x
 *   -> self-verification: y equals the serial product of the same rows bit for bit
 *      (hk_spmv_reference, straight from the CRS input, summation order of spmv.h)
 *   -> [--solver cg: A x = b with b = A 1, from x = 0, until |r| / |b| < tol]
 *   -> record (table + JSON Lines): GFlop/s, bytes per non-zero of the traffic model,
 *      time split local / halo / communication / exposed wait, f_comm
 * Exit code 1 when the product is wrong or CG does not converge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_app.h"
#include "spmv.h"

static spmv_opt_t opt = {.matrix = "laplace3d:32", .format = "crs", .mode = "masteronly",
                         .solver = "none", .verify = "on", .chunk = 8, .sigma = 1, .iters = 50,
                         .warmup = 2, .blocks = 0, .max_iters = 1000, .tol = 1e-8};

static const hk_opt_t options[] = {
  {"matrix", HK_OPT_STR, &opt.matrix, "M",
   "laplace3d:N (7-point, N^3 rows) | laplace27:N | random:ROWS,NNZ,BW | hh:L,NUP,NDN,M "
   "| FILE.mtx", 0},
  {"format", HK_OPT_STR, &opt.format, "F", "crs|jds|sell", 0},
  {"chunk", HK_OPT_INT, &opt.chunk, "C", "SELL: rows per chunk", 0},
  {"sigma", HK_OPT_INT, &opt.sigma, "S", "SELL: sorting window in rows (1: no sorting)", 0},
  {"mode", HK_OPT_STR, &opt.mode, "M", "hybrid mode, one of --list-modes", 0},
  {"reserved", HK_OPT_INT, &opt.reserved, "m", "communicating threads (multiple-reserved; 0: one)", 0},
  {"iters", HK_OPT_INT, &opt.iters, "K", "timed multiplies", 0},
  {"warmup", HK_OPT_INT, &opt.warmup, "W", "untimed multiplies first", 0},
  {"blocks", HK_OPT_INT, &opt.blocks, "B",
   "time the K multiplies in B blocks (K when fewer; 0: 5, or 25 with --roofline)", 0},
  {"solver", HK_OPT_STR, &opt.solver, "S", "none|cg (conjugate gradients on A x = A 1; SPD matrices)", 0},
  {"tol", HK_OPT_DOUBLE, &opt.tol, "T", "CG: stop when |r| / |b| < T", 0},
  {"max-iters", HK_OPT_INT, &opt.max_iters, "N", "CG: at most N iterations (more: failure)", 0},
  {"verify", HK_OPT_STR, &opt.verify, "on|off", "compare y with the serial product of the same rows", 0},
  {"roofline", HK_OPT_FLAG, &opt.roofline, "",
   "measure a STREAM-like bandwidth and report GFlop/s as a share of the memory-bound limit", 0},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines records to FILE", 0},
};

static const hk_app_t app = {
  .program = "hk-spmv",
  .list_modes = 1,
  .summary = "distributed sparse matrix-vector multiply (CRS, JDS, SELL-C-sigma) in every hybrid mode",
  .usage = "[--matrix M] [--format crs|jds|sell] [--chunk C] [--sigma S] [--mode M] [--iters K]\n"
           "       [--blocks B] [--solver cg --tol T] [--roofline] [--output FILE.jsonl]",
  .description =
      "Rows in contiguous blocks over the ranks (n/p each, the first n mod p one more); the\n"
      "halo of x is exchanged with one message per peer.  The local part of each row (columns\n"
      "the rank owns) and the halo part are summed separately, each in ascending column\n"
      "order, then added: y is bit-identical across formats, modes and thread counts, and\n"
      "is checked against the serial product of the same rows (exit 1 when different).\n"
      "GFlop/s = 2 nnz K / time of the slowest rank; gflops_best: the same in the best of the\n"
      "B blocks (--blocks: 5, 25 with --roofline) of the K multiplies.  bytes/nnz: the\n"
      "traffic model of one multiply (matrix values and indices with SELL's padding, row or\n"
      "chunk pointers, x, halo, packing and y with write-allocate) per non-zero;\n"
      "min_bytes_per_nnz: the least the format must move (STREAM's counting).  --roofline:\n"
      "a STREAM scale (best of 3) before each block and after the last; each block's GFlop/s\n"
      "over 2 x the better of the two bandwidths around it / min_bytes_per_nnz is its share;\n"
      "memory_bound_share: the median share of the blocks (the two measurements see the same\n"
      "memory speed, which drifts on shared machines); memory_bound_share_best: gflops_best\n"
      "over the limit from the best bandwidth of all.  f_comm = communication time /\n"
      "(communication + packing + local + halo compute).  --solver cg: conjugate gradients\n"
      "(dot products summed per rank in row order, then MPI_Allreduce): the same iteration\n"
      "count in every mode and thread count; across rank counts the rounding of the sums\n"
      "differs.  Random matrices are not symmetric: CG refuses them; hh:L,NUP,NDN,M is the\n"
      "Holstein-Hubbard model matrix shifted to be positive definite (docs/spmv.md).",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

/* the options hk_app_parse cannot check itself (local: every rank sees the same) */
static int check_options(int cg_on, hk_mode_t *mode, hk_spmv_format_t *format)
{
  int err = HK_SUCCESS;
  HK_TRY(err, hk_mode_parse(opt.mode, mode));
  HK_TRY(err, hk_spmv_format_parse(opt.format, format));
  if (!cg_on && strcmp(opt.solver, "none"))
    return hk_error_set(HK_ERR_ARG, "unknown solver '%s' (none or cg)", opt.solver);
  if (strcmp(opt.verify, "on") && strcmp(opt.verify, "off"))
    return hk_error_set(HK_ERR_ARG, "--verify must be on or off (got '%s')", opt.verify);
  if (opt.iters < 1 || opt.warmup < 0 || opt.chunk < 1 || opt.sigma < 1 || opt.max_iters < 1 ||
      !(opt.tol > 0))
    return hk_error_set(HK_ERR_ARG, "--iters, --chunk, --sigma, --max-iters and --tol must be "
                        "positive, --warmup >= 0");
  if (opt.blocks < 0)
    return hk_error_set(HK_ERR_ARG, "--blocks must be >= 1, or 0 for the default (got %d)",
                        opt.blocks);
  if (opt.blocks == 0) /* not given */
    opt.blocks = opt.roofline ? SPMV_ROOFLINE_BLOCKS : SPMV_BLOCKS;
cleanup:
  return err;
}

/* the steps in order; each callee returns an agreed error (or is agreed here), so every
 * rank jumps to cleanup alike */
static int run(void *unused)
{
  (void)unused;
  int err = HK_SUCCESS, rank;
  hk_spmv_crs_t crs = {0};
  hk_spmv_t *A = NULL;
  double *x = NULL, *y = NULL, *ref = NULL;
  spmv_measured_t ms = {.ndiff = -1};
  spmv_cg_t cgr = {0}, *cgp = NULL;
  hk_mode_t mode;
  hk_spmv_format_t format;
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_rank(comm, &rank);
  const int cg_on = !strcmp(opt.solver, "cg");
  HK_LOCAL(err, check_options(cg_on, &mode, &format));
  HK_AGREE(err, comm);
  HK_LOCAL(err, spmv_load(&opt, &crs));
  HK_AGREE(err, comm);
  if (cg_on && !crs.symmetric) {
    err = hk_error_set(HK_ERR_ARG, "--solver cg needs a symmetric positive definite matrix; %s is "
                       "not symmetric", opt.matrix);
    HK_AGREE(err, comm);
  }
  hk_spmv_desc_t d = {.comm = comm, .crs = &crs, .format = format, .chunk = opt.chunk,
                      .sigma = opt.sigma, .mode = mode, .reserved = opt.reserved};
  HK_TRY(err, hk_spmv_create(&d, &A)); /* agreed */
  hk_spmv_info_t in;
  hk_spmv_info(A, &in);
  HK_ALLOC_LOCAL(err, x, (long long)in.nrows + in.nhalo + 1);
  HK_ALLOC_LOCAL(err, y, in.nrows + 1LL);
  HK_ALLOC_LOCAL(err, ref, in.nrows + 1LL);
  HK_AGREE(err, comm);
  /* first touch like the multiply's static split */
#pragma omp parallel for schedule(static) num_threads(in.nthreads)
  for (int i = 0; i < in.nrows; i++) {
    x[i] = spmv_xval(in.row_begin + i, NULL);
    y[i] = 0.0;
  }
  HK_TRY(err, spmv_measure(&opt, A, &in, x, y, &ms));
  if (!strcmp(opt.verify, "on"))
    HK_TRY(err, spmv_verify(&crs, &in, y, ref, &ms));
  if (cg_on) {
    HK_TRY(err, spmv_cg(&opt, A, &in, &cgr));
    cgp = &cgr;
  }
  HK_TRY(err, spmv_report(app.program, &opt, &in, &ms, cgp));
  if (rank == 0 && cg_on)
    printf("# cg iterations: %d, |r|/|b| = %.3e, true %.3e, max |x - 1| = %.3e\n", cgr.iterations,
           cgr.relres, cgr.true_relres, cgr.error);
  if (cg_on && !cgr.converged) {
    err = hk_error_set(HK_ERR_STATE, "CG did not converge to %g in %d iterations (|r|/|b| = %.3e)",
                       opt.tol, opt.max_iters, cgr.relres);
    HK_AGREE(err, comm);
  }
  if (rank == 0)
    printf("# Verification = SUCCESSFUL (%s)\n",
           ms.ndiff == 0 ? "bit-identical to the serial product" : "not checked (--verify off)");
cleanup:
  spmv_measured_free(&ms);
  free(x);
  free(y);
  free(ref);
  hk_spmv_destroy(&A);
  hk_spmv_crs_free(&crs);
  return err;
}

int main(int argc, char **argv)
{
  int done = 0;
  int err = hk_app_parse(&app, argc, argv, &done);
  if (done)
    return HK_EXIT_OK;
  hk_mode_t mode = HK_MODE_MASTERONLY;
  HK_LOCAL(err, hk_mode_parse(opt.mode, &mode));
  hk_thread_level_t level = hk_mode_thread_level(err == HK_SUCCESS ? mode : HK_MODE_PURE);
  return hk_app_run(&app, &argc, &argv, level, level, err, run, NULL);
}
