/* apps/dsm/hk-dsm-heat.c: the tutorial's heat example in shared-memory style on the
 * page-based DSM (issue 21): "OpenMP only" on a cluster, as with Intel Cluster OpenMP.
 *
 * The whole 2D grid (two arrays u and v with a one-cell frame, (NX+2) x (NY+2) doubles
 * each) lives in one DSM region, row y of u followed by row y of v (so that the block
 * home assignment of pages follows the rows), no padding: rows of different workers
 * share pages, as in the original.  Rows 1..NY are dealt to the P x T workers
 * (rank-major: worker g = rank * T + thread) like OpenMP's schedule(static) over all
 * of them, or in chunks of N rows round-robin (the tutorial's static(1:N) runs,
 * --schedule static,N).  One time step: every worker updates its rows from u into v,
 * then hk_dsm_barrier (the OpenMP barrier of Cluster OpenMP), then u and v swap.
 *
 * The problem is hk-jacobi --dims 2's (apps/common/kernel.h): initial values
 * jac_initial, Dirichlet frame jac_boundary (or periodic wrap), the 5-point update
 * v = (c + xm + xp + ym + yp) * (1/5) summed in that order.  So the result is
 * bit-identical to hk-jacobi --dims 2 for the same grid, sweeps and boundary; it is
 * checked against the same frozen serial reference (apps/common/jacobi_ref.c) that
 * hk-jacobi is checked against.  Exit code 1 when not identical.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dsm_kinds.h"
#include "hk_app.h"
#include "hybridkit.h"
#include "jacobi_ref.h"
#include "kernel.h"

static struct {
  int size, iters, warmup;
  const char *grid, *boundary, *schedule, *home, *verify, *output;
} opt = {.size = 256, .iters = 20, .warmup = 2, .boundary = "periodic", .schedule = "static",
         .home = "block", .verify = "auto"};

static const hk_opt_t options[] = {
  {"size", HK_OPT_INT, &opt.size, "N", "global grid N x N", 0},
  {"grid", HK_OPT_STR, &opt.grid, "NXxNY", "global grid (overrides --size)", 0},
  {"iters", HK_OPT_INT, &opt.iters, "K", "timed time steps", 0},
  {"warmup", HK_OPT_INT, &opt.warmup, "W", "untimed time steps first (part of the solution)", 0},
  {"boundary", HK_OPT_STR, &opt.boundary, "B", "periodic|dirichlet (as hk-jacobi --boundary)", 0},
  {"schedule", HK_OPT_STR, &opt.schedule, "S",
   "static (one block of rows per worker) | static,N (chunks of N rows round-robin)", 0},
  {"home", HK_OPT_STR, &opt.home, "H", "home of the region's pages: block|cyclic", 0},
  {"verify", HK_OPT_STR, &opt.verify, "V",
   "auto|on|off: compare with the serial reference bit for bit (auto: grids <= 2^21 cells)", 0},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record (kind dsm.heat) to FILE", 0},
};

static const hk_app_t app = {
  .program = "hk-dsm-heat",
  .summary = "2D heat (5-point Jacobi) in shared-memory style on the page-based DSM",
  .usage = "[--size N | --grid NXxNY] [--iters K] [--schedule static|static,N] [--boundary B]\n"
           "       [--output FILE.jsonl]",
  .description =
      "The grid lives in one hk_dsm region, mapped at the same address on every rank; the\n"
      "rows are dealt to all threads of all ranks; a DSM barrier ends every step.  Same\n"
      "problem and bit-identical result as hk-jacobi --dims 2.  Prints time per step and\n"
      "the bytes the DSM moved (fetched pages, diffs, write notices) per step, and\n"
      "writes them as one record of kind dsm.heat (--output).  Needs MPI_THREAD_MULTIPLE.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

typedef struct heat {
  long long NX, NY, X; /* X = NX + 2: row length */
  long long S;          /* row stride: the rows of u and v alternate (2 X) */
  int periodic, chunk;  /* chunk 0: one block per worker */
  int rank, size, threads;
} heat_t;

/* the rows [lo, hi) of worker g's k-th piece (1-based rows); 0 when it has no k-th */
static int piece(const heat_t *h, long long g, long long k, long long *lo, long long *hi)
{
  long long W = (long long)h->size * h->threads;
  if (!h->chunk) {
    if (k > 0)
      return 0;
    *lo = 1 + g * h->NY / W;
    *hi = 1 + (g + 1) * h->NY / W;
    return 1;
  }
  long long c = g + k * W;
  if (c * h->chunk >= h->NY)
    return 0;
  *lo = 1 + c * h->chunk;
  *hi = *lo + h->chunk > h->NY + 1 ? h->NY + 1 : *lo + h->chunk;
  return 1;
}

/* initial values and frame of rows [lo, hi), plus the frame rows 0 / NY+1 when adjacent */
static void init_rows(const heat_t *h, double *u, double *v, long long lo, long long hi)
{
  long long ylo = lo == 1 ? 0 : lo, yhi = hi == h->NY + 1 ? h->NY + 2 : hi;
  for (long long y = ylo; y < yhi; y++)
    for (long long x = 0; x < h->X; x++) {
      long long gx = x - 1, gy = y - 1;
      int inside = gx >= 0 && gx < h->NX && gy >= 0 && gy < h->NY;
      double val = inside ? jac_initial(gx, gy, 0) : h->periodic ? 0.0 : jac_boundary(gx, gy, 0);
      u[y * h->S + x] = val;
      v[y * h->S + x] = val;
    }
}

/* one cell: the order of hk-jacobi's 2D kernel and reference */
#define HEAT_CELL(out, c, ym, yp, x, xm, xp) \
  (out)[x] = ((c)[x] + (c)[xm] + (c)[xp] + (ym)[x] + (yp)[x]) * (1.0 / 5.0)

/* v = stencil(u) on rows [lo, hi); the two edge columns apart (periodic wrap), the
 * interior in a plain loop the compiler vectorises */
static void sweep_rows(const heat_t *h, const double *u, double *v, long long lo, long long hi)
{
  const long long X = h->S, NX = h->NX, NY = h->NY;
  for (long long y = lo; y < hi; y++) {
    const double *restrict c = u + y * X;
    const double *restrict ym = u + (h->periodic && y == 1 ? NY : y - 1) * X;
    const double *restrict yp = u + (h->periodic && y == NY ? 1 : y + 1) * X;
    double *restrict out = v + y * X;
    HEAT_CELL(out, c, ym, yp, 1, h->periodic ? NX : 0, NX == 1 ? (h->periodic ? 1 : 2) : 2);
    for (long long x = 2; x < NX; x++)
      HEAT_CELL(out, c, ym, yp, x, x - 1, x + 1);
    if (NX > 1)
      HEAT_CELL(out, c, ym, yp, NX, NX - 1, h->periodic ? 1 : NX + 1);
  }
}

static void step(const heat_t *h, const double *u, double *v)
{
#pragma omp parallel num_threads(h->threads)
  {
    long long g = (long long)h->rank * h->threads + omp_get_thread_num(), lo, hi;
    for (long long k = 0; piece(h, g, k, &lo, &hi); k++)
      sweep_rows(h, u, v, lo, hi);
  }
}

/* what one run measured, per timed step: DSM counters summed over the ranks */
typedef struct heat_result {
  double t_step;   /* this rank's */
  double sum[8];   /* bytes, fetched, diffs, notices, faults, fetches, barrier s, fault s */
  long long ndiff; /* -1: not compared */
} heat_result_t;

/* the record (kind "dsm.heat", dsm_kinds.c); no error tests: the record keeps its first
 * error, every rank still takes part in each reduction, and the emit agrees on it */
static int heat_record(MPI_Comm comm, const heat_t *h, const hk_dsm_stats_t *st,
                       const heat_result_t *r)
{
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  hk_reporter_desc_t rd = {.program = app.program, .output = opt.output,
                           .table_style = HK_TABLE_LIST};
  int err = HK_SUCCESS;
  HK_TRY(err, hk_reporter_create(comm, &rd, &rep)); /* agreed */
  double n = opt.iters, tmax = 0.0;
  MPI_Allreduce(&r->t_step, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  char grid[48];
  snprintf(grid, sizeof grid, "%lldx%lld", h->NX, h->NY);
  hk_record_create_declared(rep, &dsm_heat_kind, &rec);
  hk_record_param_str(rec, "grid", grid);
  hk_record_param_int(rec, "dims", 2);
  hk_record_param_str(rec, "boundary", opt.boundary);
  hk_record_param_int(rec, "ranks", h->size);
  hk_record_param_int(rec, "threads", h->threads);
  hk_record_param_str(rec, "schedule", opt.schedule);
  hk_record_param_str(rec, "home", opt.home);
  hk_record_param_int(rec, "iters", opt.iters);
  hk_record_param_int(rec, "page_size", (long long)hk_dsm_page_size());
  hk_record_param_str(rec, "verification", r->ndiff >= 0 ? "reference" : "none");
  hk_record_stats(rec, "time_per_step", r->t_step, "s");
  hk_record_stats(rec, "barrier", st->time_barrier / n, "s");
  hk_record_stats(rec, "fault", st->time_fault / n, "s");
  hk_record_value(rec, "mlups", (double)h->NX * (double)h->NY / tmax / 1e6, "MLUP/s");
  hk_record_value(rec, "bytes_per_step", r->sum[0] / n, "B/step");
  hk_record_value(rec, "bytes_fetched", r->sum[1] / n, "B/step");
  hk_record_value(rec, "bytes_diffs", r->sum[2] / n, "B/step");
  hk_record_value(rec, "bytes_notices", r->sum[3] / n, "B/step");
  hk_record_value(rec, "faults", r->sum[4] / n, "faults/step");
  hk_record_value(rec, "fetches", r->sum[5] / n, "pages/step");
  hk_record_value_int(rec, "reference_diffs", r->ndiff, NULL);
  err = hk_record_emit(&rec);
  int e2 = hk_reporter_destroy(&rep);
  return err != HK_SUCCESS ? err : e2;
cleanup:
  return err;
}

/* n time steps, each ended by a DSM barrier; *u holds the newest values after them.
 * Stops at the first failed barrier and returns its error. */
static int steps(const heat_t *h, hk_dsm_t *dsm, int n, double **u, double **v)
{
  int err = HK_SUCCESS;
  for (int s = 0; s < n && err == HK_SUCCESS; s++) {
    step(h, *u, *v);
    err = hk_dsm_barrier(dsm);
    double *t = *u;
    *u = *v;
    *v = t;
  }
  return err;
}

/* the options hk_app_parse cannot check itself into h and G (local: every rank sees the
 * same) */
static int check_options(heat_t *h, long long G[3])
{
  int err = HK_SUCCESS;
  if (opt.grid)
    HK_TRY(err, hk_app_parse_extents("grid", opt.grid, 2, G));
  if (G[0] < 1 || G[1] < 1)
    return hk_error_set(HK_ERR_ARG, "--size %d: the grid needs at least 1 x 1 cells", opt.size);
  if (opt.iters < 1 || opt.warmup < 0)
    return hk_error_set(HK_ERR_ARG, "--iters must be >= 1 and --warmup >= 0");
  if (strcmp(opt.boundary, "periodic") && strcmp(opt.boundary, "dirichlet"))
    return hk_error_set(HK_ERR_ARG, "--boundary %s: periodic or dirichlet", opt.boundary);
  if (strcmp(opt.home, "block") && strcmp(opt.home, "cyclic"))
    return hk_error_set(HK_ERR_ARG, "--home %s: block or cyclic", opt.home);
  if (strcmp(opt.verify, "auto") && strcmp(opt.verify, "on") && strcmp(opt.verify, "off"))
    return hk_error_set(HK_ERR_ARG, "--verify %s: auto, on or off", opt.verify);
  if (!strcmp(opt.schedule, "static")) {
    h->chunk = 0;
  } else {
    char *end = NULL;
    long n = strncmp(opt.schedule, "static,", 7) ? 0 : strtol(opt.schedule + 7, &end, 10);
    if (n < 1 || !end || *end)
      return hk_error_set(HK_ERR_ARG, "--schedule %s: static or static,N with N >= 1", opt.schedule);
    h->chunk = (int)n;
  }
  h->NX = G[0];
  h->NY = G[1];
  h->X = G[0] + 2;
  h->S = 2 * h->X;
  h->periodic = !strcmp(opt.boundary, "periodic");
cleanup:
  return err;
}

/* initial values, the warm-up and the timed steps; *u holds the newest values after them,
 * *t_step this rank's time per timed step.  Collective.  Errors: agreed. */
static int time_steps(const heat_t *h, hk_dsm_t *dsm, double **u, double **v, double *t_step)
{
  MPI_Comm comm = MPI_COMM_WORLD;
  int err = HK_SUCCESS;
#pragma omp parallel num_threads(h->threads)
  {
    long long g = (long long)h->rank * h->threads + omp_get_thread_num(), lo, hi;
    for (long long k = 0; piece(h, g, k, &lo, &hi); k++)
      init_rows(h, *u, *v, lo, hi);
  }
  HK_LOCAL(err, hk_dsm_barrier(dsm));
  HK_AGREE(err, comm);
  HK_LOCAL(err, steps(h, dsm, opt.warmup, u, v));
  HK_AGREE(err, comm);
  hk_dsm_stats_reset(dsm);
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  HK_LOCAL(err, steps(h, dsm, opt.iters, u, v));
  *t_step = (MPI_Wtime() - t0) / opt.iters;
  HK_AGREE(err, comm);
cleanup:
  return err;
}

/* rank 0, after the timing: the checksum of the grid it reads through the DSM and, with
 * verify, the cells that differ from the serial reference.  Local. */
static int check_grid(const heat_t *h, const double *u, const long long G[3], int verify,
                      long long *ndiff, double *checksum)
{
  int err = HK_SUCCESS;
  double *ref = NULL, cells = (double)G[0] * (double)G[1];
  for (long long y = 1; y <= h->NY; y++)
    for (long long x = 1; x <= h->NX; x++)
      *checksum += u[y * h->S + x];
  if (!verify)
    return HK_SUCCESS;
  if (!(ref = malloc((size_t)cells * sizeof *ref)) ||
      jacobi_ref(2, G, h->periodic, opt.warmup + opt.iters, ref) != 0) {
    err = hk_error_set(HK_ERR_NOMEM, "no memory for the serial reference");
    goto cleanup;
  }
  for (long long y = 1; y <= h->NY; y++)
    for (long long x = 1; x <= h->NX; x++)
      *ndiff += memcmp(&u[y * h->S + x], &ref[(x - 1) + h->NX * (y - 1)], sizeof(double)) != 0;
  if (*ndiff)
    err = hk_error_set(HK_ERR_STATE, "%lld of %.0f cells differ from the serial reference "
                       "(apps/common/jacobi_ref.c)", *ndiff, cells);
cleanup:
  free(ref);
  return err;
}

/* rank 0: the table on stdout */
static void print_table(const heat_t *h, double tmax, double tmin, const double *sum,
                        double checksum, int verify)
{
  double n = opt.iters;
  printf("# hk-dsm-heat: grid %lldx%lld, %s boundaries, %d ranks x %d threads, schedule %s, "
         "home %s, page %zu B\n", h->NX, h->NY, opt.boundary, h->size, h->threads, opt.schedule,
         opt.home, hk_dsm_page_size());
  printf("# steps %d (+%d warm-up); per step: DSM bytes summed over ranks, time the slowest rank's\n",
         opt.iters, opt.warmup);
  printf("# %12s %12s %12s %12s %12s %10s %10s %12s %12s\n", "time_s", "time_min_s", "bytes",
         "fetched_B", "diffs_B", "notices_B", "faults", "barrier_s", "fault_s");
  printf("  %12.6f %12.6f %12.0f %12.0f %12.0f %10.0f %10.0f %12.6f %12.6f\n", tmax, tmin,
         sum[0] / n, sum[1] / n, sum[2] / n, sum[3] / n, sum[4] / n, sum[6] / n / h->size,
         sum[7] / n / h->size);
  printf("# checksum %.17g\n", checksum);
  printf("# Verification = SUCCESSFUL (%s)\n",
         verify ? "bit-identical to the serial reference of hk-jacobi --dims 2" : "not checked");
  fflush(stdout);
}

static int run(void *arg)
{
  (void)arg;
  MPI_Comm comm = MPI_COMM_WORLD;
  heat_t h = {0};
  int err = HK_SUCCESS;
  hk_dsm_t *dsm = NULL;
  double *mem = NULL;
  MPI_Comm_rank(comm, &h.rank);
  MPI_Comm_size(comm, &h.size);
  h.threads = omp_get_max_threads();
  long long G[3] = {opt.size, opt.size, 1};
  HK_TRY(err, check_options(&h, G)); /* local, before the first collective */
  double cells = (double)G[0] * (double)G[1];
  int verify = !strcmp(opt.verify, "on") || (!strcmp(opt.verify, "auto") && cells <= (1LL << 21));
  size_t field = (size_t)(h.X * (h.NY + 2));
  char what[96];
  snprintf(what, sizeof what, "a DSM region of 2 fields of %lldx%lld cells", G[0] + 2, G[1] + 2);
  /* the region, its twins and this rank's home copies */
  HK_TRY(err, hk_app_mem_check(comm, 2.0 * 8.0 * (double)field * (2.0 + 1.0 / h.size), what));
  hk_dsm_desc_t desc = {.size = 2 * field * sizeof(double),
                        .home = !strcmp(opt.home, "block") ? HK_DSM_HOME_BLOCK : HK_DSM_HOME_CYCLIC};
  HK_TRY(err, hk_dsm_create(comm, &desc, &dsm, (void **)&mem)); /* agreed */
  double *u = mem, *v = mem + h.X; /* row y of u at u + y S, of v right after it */
  heat_result_t res = {.ndiff = -1};
  HK_TRY(err, time_steps(&h, dsm, &u, &v, &res.t_step));
  hk_dsm_stats_t st;
  hk_dsm_stats(dsm, &st);
  double mine[8] = {(double)(st.bytes_fetched + st.bytes_diffs + st.bytes_notices),
                    (double)st.bytes_fetched, (double)st.bytes_diffs, (double)st.bytes_notices,
                    (double)(st.read_faults + st.write_faults), (double)st.pages_fetched_remote,
                    st.time_barrier, st.time_fault};
  double tmax = 0.0, tmin = 0.0, checksum = 0.0;
  MPI_Allreduce(mine, res.sum, 8, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Reduce(&res.t_step, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(&res.t_step, &tmin, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
  /* the result: rank 0 reads the whole grid through the DSM (after the timing) */
  long long ndiff = 0;
  if (h.rank == 0)
    HK_LOCAL(err, check_grid(&h, u, G, verify, &ndiff, &checksum));
  HK_AGREE(err, comm);
  if (h.rank == 0)
    print_table(&h, tmax, tmin, res.sum, checksum, verify);
  /* every rank's record says whether the result was compared (rank 0 compared it) */
  res.ndiff = verify ? ndiff : -1;
  MPI_Bcast(&res.ndiff, 1, MPI_LONG_LONG, 0, comm);
  err = heat_record(comm, &h, &st, &res);
cleanup:;
  int e2 = hk_dsm_free(&dsm);
  return err != HK_SUCCESS ? err : e2;
}

int main(int argc, char **argv)
{
  int done = 0;
  int err = hk_app_parse(&app, argc, argv, &done);
  if (done)
    return HK_EXIT_OK;
  return hk_app_run(&app, &argc, &argv, HK_THREAD_MULTIPLE, HK_THREAD_MULTIPLE, err, run, NULL);
}
