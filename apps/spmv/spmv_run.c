/* apps/spmv/spmv_run.c: hk-spmv's measurement (spmv.h): the matrix, the timed multiplies
 * in blocks with --roofline's bandwidths around them, and the check against the serial
 * product. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_app.h"
#include "spmv.h"

double spmv_xval(long long j, void *unused)
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

int spmv_load(const spmv_opt_t *o, hk_spmv_crs_t *crs)
{
  int size, rank, err = HK_SUCCESS;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (is_file(o->matrix))
    return hk_spmv_read_mm(o->matrix, MPI_COMM_WORLD, 0, -1, crs);
  long long n, b;
  int c, per;
  HK_TRY(err, hk_spmv_generate_size(o->matrix, &n));
  /* the library indexes a rank's rows and the whole matrix's with int */
  if (n >= INT_MAX / 2)
    return hk_error_set(HK_ERR_ARG, "%s has %lld rows: at most %d", o->matrix, n, INT_MAX / 2 - 1);
  hk_spmv_block(n, size, rank, &b, &c);
  /* the memory, estimated before generating (in double: no overflow): the CRS input (16 B
   * per entry), both parts in the format (12 B per entry, SELL padding up to half again),
   * the index lists of the plan, and five vectors of the rows */
  HK_TRY(err, hk_spmv_generate_row_max(o->matrix, &per));
  double need = (double)c * (per * (16.0 + 18.0) + 5 * 8.0 + 16.0);
  char what[160];
  snprintf(what, sizeof what, "%d rows of %s", c, o->matrix);
  HK_TRY(err, hk_app_mem_check(MPI_COMM_WORLD, need, what));
  return hk_spmv_generate(o->matrix, b, c, crs);
cleanup:
  return err;
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

/* the timed blocks: each started together (a barrier) and timed; tblk[b] this rank's time
 * per multiply of block b, *total the sum of the blocks; --roofline: a STREAM measurement
 * before each block and after the last (untimed).  Collective.  Errors: agreed. */
static int timed_blocks(const spmv_opt_t *o, hk_spmv_t *A, double *x, double *y,
                        jac_stream_buf_t *sbuf, spmv_measured_t *ms, double *tblk, double *total)
{
  MPI_Comm comm = MPI_COMM_WORLD;
  const int nblk = ms->nblk;
  int err = HK_SUCCESS;
  *total = 0.0;
  for (int b = 0, done_k = 0; b < nblk; b++) {
    int upto = (int)((long long)o->iters * (b + 1) / nblk), cnt = upto - done_k;
    if (o->roofline)
      ms->bw_blk[b] = stream_bw(comm, sbuf);
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (; done_k < upto; done_k++)
      HK_LOCAL(err, hk_spmv_multiply(A, x, y));
    tblk[b] = (MPI_Wtime() - t0);
    *total += tblk[b];
    tblk[b] /= cnt;
    HK_AGREE(err, comm); /* every rank takes part in the next STREAM or none */
  }
  if (o->roofline)
    ms->bw_blk[nblk] = stream_bw(comm, sbuf);
cleanup:
  return err;
}

/* from the blocks' times: the slowest rank's per block, the best block; --roofline: the
 * best bandwidth of all (the limit for gflops_best, as STREAM reports itself) and how far
 * the measurements spread (a busy or drifting machine); the statistics per multiply */
static void summarise(const spmv_opt_t *o, hk_spmv_t *A, const double *tblk, spmv_measured_t *ms)
{
  const int nblk = ms->nblk;
  MPI_Allreduce(tblk, ms->t_blk, nblk, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  ms->t_best = ms->t_blk[0];
  for (int b = 1; b < nblk; b++)
    ms->t_best = ms->t_blk[b] < ms->t_best ? ms->t_blk[b] : ms->t_best;
  if (o->roofline) {
    double worst = ms->bw_blk[0];
    for (int b = 0; b <= nblk; b++) {
      ms->bw = fmax(ms->bw, ms->bw_blk[b]);
      worst = fmin(worst, ms->bw_blk[b]);
    }
    ms->bw_spread = (ms->bw - worst) / ms->bw;
  }
  hk_spmv_stats(A, &ms->st);
  double per = 1.0 / (double)ms->st.multiplies;
  ms->st.pack *= per;
  ms->st.comm *= per;
  ms->st.wait *= per;
  ms->st.local *= per;
  ms->st.halo *= per;
  ms->st.exposed *= per;
}

/* the multiplies in nblk blocks: t_mult is the mean over all, t_best the best block's time
 * per multiply on the slowest rank (how STREAM counts its own repetitions: --roofline
 * compares like with like); --roofline's arrays are allocated and first-touched once,
 * before the warm-up */
int spmv_measure(const spmv_opt_t *o, hk_spmv_t *A, const hk_spmv_info_t *in, double *x,
                 double *y, spmv_measured_t *ms)
{
  MPI_Comm comm = MPI_COMM_WORLD;
  int err = HK_SUCCESS;
  double *tblk = NULL, total = 0.0;
  jac_stream_buf_t sbuf = {0};
  const int nblk = o->iters < o->blocks ? o->iters : o->blocks;
  ms->nblk = nblk;
  HK_ALLOC_LOCAL(err, tblk, nblk);
  HK_ALLOC_LOCAL(err, ms->t_blk, nblk);
  HK_ALLOC_LOCAL(err, ms->share, nblk);
  HK_ALLOC_LOCAL(err, ms->bw_blk, nblk + 1);
  HK_AGREE(err, comm);
  if (o->roofline) {
    const long long stream_elems = jac_stream_elems(comm);
    ms->stream_bytes = 8.0 * (double)stream_elems;
    if (jac_stream_open(comm, stream_elems, in->nthreads, &sbuf) != 0)
      err = hk_error_set(HK_ERR_NOMEM, "no memory for the bandwidth arrays");
    HK_AGREE(err, comm);
  }
  for (int k = 0; k < o->warmup; k++)
    HK_LOCAL(err, hk_spmv_multiply(A, x, y));
  HK_AGREE(err, comm);
  hk_spmv_stats_reset(A);
  HK_TRY(err, timed_blocks(o, A, x, y, &sbuf, ms, tblk, &total)); /* agreed */
  ms->t_mult = total / o->iters;
  summarise(o, A, tblk, ms);
cleanup:
  jac_stream_close(&sbuf);
  free(tblk);
  return err;
}

void spmv_measured_free(spmv_measured_t *ms)
{
  free(ms->t_blk);
  free(ms->share);
  free(ms->bw_blk);
  ms->t_blk = ms->share = ms->bw_blk = NULL;
}

int spmv_verify(const hk_spmv_crs_t *crs, const hk_spmv_info_t *in, const double *y,
                double *ref, spmv_measured_t *ms)
{
  long long nd = 0;
  hk_spmv_reference(crs, spmv_xval, NULL, ref);
  for (int i = 0; i < in->nrows; i++)
    nd += memcmp(&y[i], &ref[i], sizeof(double)) != 0;
  MPI_Allreduce(&nd, &ms->ndiff, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (ms->ndiff > 0) /* the same on every rank */
    return hk_agree(MPI_COMM_WORLD,
                    hk_error_set(HK_ERR_STATE, "verification FAILED: %lld of %lld entries of y "
                                 "differ from the serial product", ms->ndiff, in->nglobal));
  return HK_SUCCESS;
}
