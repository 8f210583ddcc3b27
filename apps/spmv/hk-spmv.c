/* apps/spmv/hk-spmv.c: distributed sparse matrix-vector multiply (hybridkit/spmv.h)
 * in every hybrid mode and format, and a conjugate-gradient solver on top of it.
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
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_app.h"
#include "hybridkit.h"
#include "stream.h"

static struct {
  const char *matrix, *format, *mode, *solver, *output, *verify;
  int chunk, sigma, iters, warmup, blocks, reserved, max_iters, roofline;
  double tol;
} opt = {.matrix = "laplace3d:32", .format = "crs", .mode = "masteronly", .solver = "none",
         .verify = "on", .chunk = 8, .sigma = 1, .iters = 50, .warmup = 2, .blocks = 0,
         .max_iters = 1000,
         .tol = 1e-8};

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

/* x_j of the timed multiplies: a function of the global index, so every rank (and the
 * reference) knows any entry without communication */
static double xval(long long j, void *unused)
{
  (void)unused;
  return 1.0 + 1.0 / (double)(j + 2);
}

/* a Matrix Market file: a path (has a '/'), a name ending in .mtx, or a file that
 * exists; anything else is a generator spec (and its errors name the known ones) */
static int is_file(const char *m)
{
  size_t n = strlen(m);
  return strchr(m, '/') || (n > 4 && !strcmp(m + n - 4, ".mtx")) || access(m, F_OK) == 0;
}

static int load(hk_spmv_crs_t *crs)
{
  int size, rank, err;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (is_file(opt.matrix))
    return hk_spmv_read_mm(opt.matrix, MPI_COMM_WORLD, 0, -1, crs);
  long long n, b;
  int c;
  if ((err = hk_spmv_generate_size(opt.matrix, &n)) != HK_SUCCESS)
    return err;
  /* the library indexes a rank's rows and the whole matrix's with int */
  if (n >= INT_MAX / 2)
    return hk_error_set(HK_ERR_ARG, "%s has %lld rows: at most %d", opt.matrix, n, INT_MAX / 2 - 1);
  hk_spmv_block(n, size, rank, &b, &c);
  /* the memory, estimated before generating (in double: no overflow): the CRS input (16 B
   * per entry), both parts in the format (12 B per entry, SELL padding up to half again),
   * the index lists of the plan, and five vectors of the rows */
  int per;
  if ((err = hk_spmv_generate_row_max(opt.matrix, &per)) != HK_SUCCESS)
    return err;
  double need = (double)c * (per * (16.0 + 18.0) + 5 * 8.0 + 16.0);
  char what[160];
  snprintf(what, sizeof what, "%d rows of %s", c, opt.matrix);
  if ((err = hk_app_mem_check(MPI_COMM_WORLD, need, what)) != HK_SUCCESS)
    return err;
  return hk_spmv_generate(opt.matrix, b, c, crs);
}

static double dot(const double *a, const double *b, int n, MPI_Comm comm)
{
  double s = 0.0, g = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

typedef struct cg_result {
  int iterations, converged;
  double relres, true_relres, error, time;
} cg_result_t;

/* CG on A x = b, b = A 1, x0 = 0 (the solution is 1: its error is measurable) */
static int cg(hk_spmv_t *A, const hk_spmv_info_t *in, cg_result_t *res)
{
  const int n = in->nrows, ext = in->nrows + in->nhalo;
  int err = HK_SUCCESS;
  double *x = calloc((size_t)ext + 1, sizeof *x), *p = calloc((size_t)ext + 1, sizeof *p);
  double *r = calloc((size_t)n + 1, sizeof *r), *q = calloc((size_t)n + 1, sizeof *q);
  double *b = calloc((size_t)n + 1, sizeof *b);
  if (!x || !p || !r || !q || !b)
    err = hk_error_set(HK_ERR_NOMEM, "no memory for CG vectors of %d rows", n);
  if ((err = hk_agree(MPI_COMM_WORLD, err)) != HK_SUCCESS)
    goto done;
  memset(res, 0, sizeof *res);
  for (int i = 0; i < n; i++)
    p[i] = 1.0;
  if ((err = hk_spmv_multiply(A, p, b)) != HK_SUCCESS)
    goto done;
  double bb = dot(b, b, n, MPI_COMM_WORLD), rr;
  for (int i = 0; i < n; i++) {
    x[i] = 0.0;
    r[i] = p[i] = b[i];
  }
  rr = bb;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  while (res->iterations < opt.max_iters && sqrt(rr / bb) >= opt.tol) {
    if ((err = hk_spmv_multiply(A, p, q)) != HK_SUCCESS)
      goto done;
    double alpha = rr / dot(p, q, n, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    double rr_new = dot(r, r, n, MPI_COMM_WORLD), beta = rr_new / rr;
    rr = rr_new;
    for (int i = 0; i < n; i++)
      p[i] = r[i] + beta * p[i];
    res->iterations++;
  }
  res->time = MPI_Wtime() - t0;
  res->relres = sqrt(rr / bb);
  res->converged = res->relres < opt.tol;
  /* the true residual |b - A x| / |b| and the error max |x - 1| */
  if ((err = hk_spmv_multiply(A, x, q)) != HK_SUCCESS)
    goto done;
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    q[i] = b[i] - q[i];
    e = fmax(e, fabs(x[i] - 1.0));
  }
  res->true_relres = sqrt(dot(q, q, n, MPI_COMM_WORLD) / bb);
  MPI_Allreduce(&e, &res->error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
done:
  free(x);
  free(p);
  free(r);
  free(q);
  free(b);
  return err;
}

#define SPMV_STREAM_REPS 3 /* repetitions of each STREAM measurement between the blocks */
#define SPMV_BLOCKS 5      /* timed blocks of the multiplies by default (best one: gflops_best) */
/* the default with --roofline: each block's share pairs it with the bandwidth measured just
 * before and after it; on a host whose memory speed drifts within a second the pairs must be
 * close (laplace3d:200 1x1, 4 interleaved runs of 100 multiplies each: medians of the block
 * shares 0.91-1.11 with 5 blocks, 0.92-0.97 with 20, 0.96-1.01 with 50) */
#define SPMV_ROOFLINE_BLOCKS 25

typedef struct measured {
  double t_mult;            /* this rank's time per multiply */
  hk_spmv_stats_t st;       /* per multiply */
  long long ndiff;          /* over all ranks, -1: not verified */
  double t_best;            /* the best block's time per multiply, slowest rank */
  double bw;                /* STREAM-like bandwidth summed over ranks, 0: not measured
                             * (the best of the measurements around the blocks) */
  double bw_spread;         /* (best - worst) / best of those measurements */
  double stream_bytes;      /* bytes of each STREAM array of this rank */
  int nblk;                 /* timed blocks (--blocks) */
  double *t_blk;            /* [nblk] each block's time per multiply, slowest rank */
  double *share;            /* [nblk] --roofline: the blocks' shares (report fills it) */
  double *bw_blk;           /* [nblk + 1] --roofline: the bandwidth before block b (b = nblk:
                             * after the last) */
} measured_t;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the STREAM-like bandwidth of all ranks together (B/s), the best of SPMV_STREAM_REPS on
 * the arrays of buf; collective */
static double stream_bw(MPI_Comm comm, jac_stream_buf_t *buf)
{
  jac_stream_t sbw;
  double bw = 0.0;
  jac_stream_run(comm, buf, SPMV_STREAM_REPS, &sbw);
  MPI_Allreduce(&sbw.bw_stream, &bw, 1, MPI_DOUBLE, MPI_SUM, comm);
  return bw;
}

static int report(const hk_spmv_info_t *in, measured_t *ms,
                  const cg_result_t *cgr)
{
  int err;
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  hk_reporter_desc_t rd = {.program = app.program, .output = opt.output,
                           .table_style = HK_TABLE_LIST};
  if ((err = hk_reporter_create(comm, &rd, &rep)) != HK_SUCCESS)
    return err;
  long long nnz_l = in->nnz_local + in->nnz_halo, nnz = 0, stored = 0, st_l = in->stored;
  double bytes_l[2] = {in->bytes_per_nnz * (double)nnz_l, in->min_bytes_per_nnz * (double)nnz_l};
  double sum[2] = {0.0, 0.0};
  MPI_Allreduce(&nnz_l, &nnz, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&st_l, &stored, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(bytes_l, sum, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double bytes = sum[0], min_bpn = sum[1] / (double)nnz;
  hk_stats_t tt;
  hk_stats_reduce(comm, ms->t_mult, &tt);
  const double gflops = 2.0 * (double)nnz / tt.max / 1e9, bpn = bytes / (double)nnz;
  const double gflops_best = 2.0 * (double)nnz / ms->t_best / 1e9;
  const hk_spmv_stats_t *s = &ms->st;
  double busy = s->comm + s->pack + s->local + s->halo;
  hk_mode_t mode = HK_MODE_MASTERONLY;
  hk_mode_parse(opt.mode, &mode);
  hk_reporter_config(rep, "problem", "%s: %lld rows, %lld non-zeros, %s%s", opt.matrix, in->nglobal,
                     nnz, opt.format,
                     strcmp(opt.format, "sell") ? "" : " (chunk and sigma below)");
  /* no error tests: a record keeps its first error, every rank still takes part in each
   * reduction (hk_record_stats), and the emit returns the first error of any rank, agreed */
  hk_record_create(rep, "spmv", &rec);
  const struct { const char *name; const char *v; } sp[] = {
    {"matrix", opt.matrix}, {"format", opt.format}, {"mode", hk_mode_name(mode)},
    {"verification", ms->ndiff < 0 ? "off" : "serial-product"}};
  for (size_t i = 0; i < sizeof sp / sizeof *sp; i++)
    hk_record_param_str(rec, sp[i].name, sp[i].v);
  const struct { const char *name; long long v; } ip[] = {
    {"rows", in->nglobal}, {"nnz", nnz}, {"stored", stored}, {"chunk", opt.chunk},
    {"sigma", opt.sigma}, {"threads", in->nthreads}, {"iters", opt.iters},
    {"blocks", ms->nblk},
    {"reserved", opt.reserved}};
  for (size_t i = 0; i < sizeof ip / sizeof *ip; i++)
    hk_record_param_int(rec, ip[i].name, ip[i].v);
  hk_record_value(rec, "gflops", gflops, "GFlop/s");
  hk_record_value(rec, "bytes_per_nnz", bpn, "B");
  hk_record_value(rec, "min_bytes_per_nnz", min_bpn, "B");
  const struct { const char *name; double v; const char *unit; } st[] = {
    {"time_per_mult", ms->t_mult, "s"}, {"pack", s->pack, "s"},
    {"local", s->local, "s"},           {"halo", s->halo, "s"},
    {"comm", s->comm, "s"},             {"wait", s->wait, "s"},
    {"exposed_wait", s->exposed, "s"},  {"f_comm", busy > 0 ? s->comm / busy : 0.0, "fraction"},
    {"halo_entries", (double)in->nhalo, NULL}, {"messages", (double)in->npeers_send, NULL}};
  for (size_t i = 0; i < sizeof st / sizeof *st; i++)
    hk_record_stats(rec, st[i].name, st[i].v, st[i].unit);
  if (ms->ndiff >= 0)
    hk_record_value_int(rec, "reference_diffs", ms->ndiff, NULL);
  hk_record_value(rec, "gflops_best", gflops_best, "GFlop/s");
  if (ms->bw > 0) {
    /* each block against the better of the bandwidths measured just before and after it
     * (the limit that block saw); the median of the blocks' shares */
    double *share = ms->share;
    for (int b = 0; b < ms->nblk; b++) {
      double lim = 2.0 * fmax(ms->bw_blk[b], ms->bw_blk[b + 1]) / min_bpn / 1e9;
      share[b] = 2.0 * (double)nnz / ms->t_blk[b] / 1e9 / lim;
      if (rank == 0)
        printf("# --roofline block %d: %.4f GFlop/s, bandwidth before %.4f GB/s, after %.4f GB/s, "
               "share %.4f\n", b, 2.0 * (double)nnz / ms->t_blk[b] / 1e9, ms->bw_blk[b] / 1e9,
               ms->bw_blk[b + 1] / 1e9, share[b]);
    }
    qsort(share, (size_t)ms->nblk, sizeof *share, cmp_double);
    const double median = ms->nblk % 2 ? share[ms->nblk / 2]
                                       : 0.5 * (share[ms->nblk / 2 - 1] + share[ms->nblk / 2]);
    double limit = 2.0 * ms->bw / bpn / 1e9;
    hk_record_value(rec, "stream_bw", ms->bw, "B/s");
    hk_record_value(rec, "stream_spread", ms->bw_spread, "fraction");
    hk_record_stats(rec, "stream_array_bytes", ms->stream_bytes, "B");
    hk_record_value(rec, "roofline_gflops", limit, "GFlop/s");
    hk_record_value(rec, "roofline_efficiency", gflops / limit, "fraction");
    /* the goal: GFlop/s over 2 bw / (the format's least bytes per entry), block by
     * block against the bandwidth around it; and both sides the best of their repetitions,
     * as STREAM reports itself (on a machine whose memory speed drifts the best multiply
     * and the best bandwidth may come from different minutes) */
    hk_record_value(rec, "memory_bound_gflops", 2.0 * ms->bw / min_bpn / 1e9, "GFlop/s");
    hk_record_value(rec, "memory_bound_share", median, "fraction");
    hk_record_value(rec, "memory_bound_share_min", share[0], "fraction");
    hk_record_value(rec, "memory_bound_share_max", share[ms->nblk - 1], "fraction");
    hk_record_value(rec, "memory_bound_share_best", gflops_best / (2.0 * ms->bw / min_bpn / 1e9),
                    "fraction");
  }
  if (mode <= HK_MODE_PURE_NB && omp_get_max_threads() > 1)
    hk_record_warning(rec, "%s mode runs 1 thread per rank; %d OpenMP threads were available",
                      hk_mode_name(mode), omp_get_max_threads());
  if ((err = hk_record_emit(&rec)) != HK_SUCCESS || !cgr)
    goto done;
  hk_record_create(rep, "spmv.cg", &rec);
  hk_record_param_str(rec, "matrix", opt.matrix);
  hk_record_param_str(rec, "format", opt.format);
  hk_record_param_str(rec, "mode", hk_mode_name(mode));
  hk_record_param_double(rec, "tol", opt.tol);
  hk_record_value_int(rec, "iterations", cgr->iterations, NULL);
  hk_record_value(rec, "relative_residual", cgr->relres, NULL);
  hk_record_value(rec, "true_relative_residual", cgr->true_relres, NULL);
  hk_record_value(rec, "max_error", cgr->error, NULL);
  hk_record_value(rec, "time", cgr->time, "s");
  err = hk_record_emit(&rec);
done:
  hk_reporter_destroy(&rep);
  return hk_agree(comm, err);
}

/* the options hk_app_parse cannot check itself (local: every rank sees the same) */
static int check_options(int cg_on, hk_mode_t *mode, hk_spmv_format_t *format)
{
  int err;
  if ((err = hk_mode_parse(opt.mode, mode)) != HK_SUCCESS ||
      (err = hk_spmv_format_parse(opt.format, format)) != HK_SUCCESS)
    return err;
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
  return HK_SUCCESS;
}

static int run(void *unused)
{
  (void)unused;
  int err, local, rank;
  hk_spmv_crs_t crs = {0};
  hk_spmv_t *A = NULL;
  double *x = NULL, *y = NULL, *ref = NULL, *tblk = NULL;
  measured_t ms = {.ndiff = -1};
  jac_stream_buf_t sbuf = {0};
  hk_mode_t mode;
  hk_spmv_format_t format;
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_rank(comm, &rank);
  int cg_on = !strcmp(opt.solver, "cg");
  if ((err = hk_agree(comm, check_options(cg_on, &mode, &format))) != HK_SUCCESS)
    return err;
  if ((err = hk_agree(comm, load(&crs))) != HK_SUCCESS)
    return err;
  if (cg_on && !crs.symmetric) {
    err = hk_agree(comm, hk_error_set(HK_ERR_ARG, "--solver cg needs a symmetric positive definite "
                                      "matrix; %s is not symmetric", opt.matrix));
    goto done;
  }
  hk_spmv_desc_t d = {.comm = comm, .crs = &crs, .format = format, .chunk = opt.chunk,
                      .sigma = opt.sigma, .mode = mode, .reserved = opt.reserved};
  if ((err = hk_spmv_create(&d, &A)) != HK_SUCCESS)
    goto done;
  hk_spmv_info_t in;
  hk_spmv_info(A, &in);
  x = malloc(((size_t)in.nrows + in.nhalo + 1) * sizeof *x);
  y = malloc(((size_t)in.nrows + 1) * sizeof *y);
  ref = malloc(((size_t)in.nrows + 1) * sizeof *ref);
  local = x && y && ref ? HK_SUCCESS : hk_error_set(HK_ERR_NOMEM, "no memory for the vectors");
  if ((err = hk_agree(comm, local)) != HK_SUCCESS)
    goto done;
  /* first touch like the multiply's static split */
#pragma omp parallel for schedule(static) num_threads(in.nthreads)
  for (int i = 0; i < in.nrows; i++) {
    x[i] = xval(in.row_begin + i, NULL);
    y[i] = 0.0;
  }
  /* the multiplies in nblk blocks, each started together (a barrier) and timed: t_mult is
   * the mean over all, t_best the best block's time per multiply on the slowest rank (how
   * STREAM counts its own repetitions: --roofline compares like with like); --roofline: a
   * STREAM measurement before each block and after the last (untimed), on arrays allocated
   * and first-touched once, before the warm-up */
  const int nblk = opt.iters < opt.blocks ? opt.iters : opt.blocks;
  ms.nblk = nblk;
  tblk = calloc((size_t)nblk, sizeof *tblk);
  ms.t_blk = calloc((size_t)nblk, sizeof *ms.t_blk);
  ms.share = calloc((size_t)nblk, sizeof *ms.share);
  ms.bw_blk = calloc((size_t)nblk + 1, sizeof *ms.bw_blk);
  local = tblk && ms.t_blk && ms.share && ms.bw_blk ? HK_SUCCESS
                                        : hk_error_set(HK_ERR_NOMEM, "no memory for %d blocks", nblk);
  if ((err = hk_agree(comm, local)) != HK_SUCCESS)
    goto done;
  if (opt.roofline) {
    const long long stream_elems = jac_stream_elems(comm);
    ms.stream_bytes = 8.0 * (double)stream_elems;
    local = jac_stream_open(comm, stream_elems, in.nthreads, &sbuf) == 0
                ? HK_SUCCESS
                : hk_error_set(HK_ERR_NOMEM, "no memory for the bandwidth arrays");
    if ((err = hk_agree(comm, local)) != HK_SUCCESS)
      goto done;
  }
  for (int k = 0; k < opt.warmup; k++)
    if ((err = hk_spmv_multiply(A, x, y)) != HK_SUCCESS)
      break;
  if ((err = hk_agree(comm, err)) != HK_SUCCESS)
    goto done;
  hk_spmv_stats_reset(A);
  double total = 0.0;
  for (int b = 0, done_k = 0; b < nblk && err == HK_SUCCESS; b++) {
    int upto = (int)((long long)opt.iters * (b + 1) / nblk), cnt = upto - done_k;
    if (opt.roofline)
      ms.bw_blk[b] = stream_bw(comm, &sbuf);
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (; done_k < upto; done_k++)
      if ((err = hk_spmv_multiply(A, x, y)) != HK_SUCCESS)
        break;
    tblk[b] = (MPI_Wtime() - t0);
    total += tblk[b];
    tblk[b] /= cnt;
    err = hk_agree(comm, err); /* every rank takes part in the next STREAM or none */
  }
  if (err == HK_SUCCESS && opt.roofline)
    ms.bw_blk[nblk] = stream_bw(comm, &sbuf);
  jac_stream_close(&sbuf);
  ms.t_mult = total / opt.iters;
  if ((err = hk_agree(comm, err)) != HK_SUCCESS)
    goto done;
  MPI_Allreduce(tblk, ms.t_blk, nblk, MPI_DOUBLE, MPI_MAX, comm);
  ms.t_best = ms.t_blk[0];
  for (int b = 1; b < nblk; b++)
    ms.t_best = ms.t_blk[b] < ms.t_best ? ms.t_blk[b] : ms.t_best;
  if (opt.roofline) {
    /* the best bandwidth of all (the limit for gflops_best, as STREAM reports itself) and how
     * far the measurements spread (a busy or drifting machine) */
    double worst = ms.bw_blk[0];
    for (int b = 0; b <= nblk; b++) {
      ms.bw = fmax(ms.bw, ms.bw_blk[b]);
      worst = fmin(worst, ms.bw_blk[b]);
    }
    ms.bw_spread = (ms.bw - worst) / ms.bw;
  }
  hk_spmv_stats(A, &ms.st);
  double per = 1.0 / (double)ms.st.multiplies;
  ms.st.pack *= per;
  ms.st.comm *= per;
  ms.st.wait *= per;
  ms.st.local *= per;
  ms.st.halo *= per;
  ms.st.exposed *= per;
  if (!strcmp(opt.verify, "on")) {
    long long nd = 0;
    hk_spmv_reference(&crs, xval, NULL, ref);
    for (int i = 0; i < in.nrows; i++)
      nd += memcmp(&y[i], &ref[i], sizeof(double)) != 0;
    MPI_Allreduce(&nd, &ms.ndiff, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (ms.ndiff > 0) {
      err = hk_agree(comm, hk_error_set(HK_ERR_STATE, "verification FAILED: %lld of %lld entries "
                                        "of y differ from the serial product", ms.ndiff, in.nglobal));
      goto done;
    }
  }
  cg_result_t cgr, *cgp = NULL;
  if (cg_on) {
    if ((err = cg(A, &in, &cgr)) != HK_SUCCESS)
      goto done;
    cgp = &cgr;
  }
  if ((err = report(&in, &ms, cgp)) != HK_SUCCESS)
    goto done;
  if (rank == 0 && cg_on)
    printf("# cg iterations: %d, |r|/|b| = %.3e, true %.3e, max |x - 1| = %.3e\n", cgr.iterations,
           cgr.relres, cgr.true_relres, cgr.error);
  if (cg_on && !cgr.converged) {
    err = hk_agree(comm, hk_error_set(HK_ERR_STATE, "CG did not converge to %g in %d iterations "
                                      "(|r|/|b| = %.3e)", opt.tol, opt.max_iters, cgr.relres));
    goto done;
  }
  if (rank == 0)
    printf("# Verification = SUCCESSFUL (%s)\n",
           ms.ndiff == 0 ? "bit-identical to the serial product" : "not checked (--verify off)");
done:
  jac_stream_close(&sbuf);
  free(tblk);
  free(ms.t_blk);
  free(ms.share);
  free(ms.bw_blk);
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
  if (err == HK_SUCCESS)
    err = hk_mode_parse(opt.mode, &mode);
  hk_thread_level_t level = hk_mode_thread_level(err == HK_SUCCESS ? mode : HK_MODE_PURE);
  return hk_app_run(&app, &argc, &argv, level, level, err, run, NULL);
}
