/* src/spmv/modes.c: y = A x in every hybrid mode.  The modes are the halo engine's
 * (hk_mode_t, names and thread levels from src/halo/modes.c); here each is a row of
 * a table saying who communicates and whether the local part overlaps it, and one
 * step function runs any row:
 *
 *   pure           pack | post, wait | local | halo                   (1 thread)
 *   pure-nb        pack | post | local | wait | halo                  (1 thread)
 *   masteronly     [parallel: pack] master: post, wait [parallel: local | halo]
 *   funneled       parallel { pack | master: post, wait | barrier | local | halo }
 *   task           parallel { pack | thread 0: post, wait || 1..n-1: local | barrier | halo }
 *   task-balanced  parallel { pack | thread 0: post, wait, then joins || all: local
 *                             chunks, dynamic | barrier | halo }
 *   multiple       parallel { pack | each thread: its messages | barrier | local | halo }
 *   multiple-reserved  parallel { pack | 0..m-1: their messages || m..n-1: local | barrier
 *                             | halo }
 * Rows are split statically into pieces of the parts (rows, or SELL chunks); local
 * writes y_i, halo adds to it, a barrier between: the result does not depend on the
 * mode or the thread count.  With one thread the overlap modes communicate first.
 */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "spmv/spmv_internal.h"

enum { COMM_NONE, COMM_MASTER, COMM_ALL, COMM_RESERVED };

static const struct {
  int outside;   /* MPI from the caller outside parallel regions (pure, pure-nb, masteronly) */
  int nb;        /* the local part between post and wait (pure-nb) */
  int comm;      /* inside one parallel region: who communicates */
  int overlap;   /* the local part runs while the communicators communicate */
  int balanced;  /* local part in dynamic chunks the communicator joins */
} spmv_modes[HK_MODE_COUNT] = {
  [HK_MODE_PURE] = {1, 0, COMM_NONE, 0, 0},
  [HK_MODE_PURE_NB] = {1, 1, COMM_NONE, 1, 0},
  [HK_MODE_MASTERONLY] = {1, 0, COMM_NONE, 0, 0},
  [HK_MODE_FUNNELED] = {0, 0, COMM_MASTER, 0, 0},
  [HK_MODE_TASK] = {0, 0, COMM_MASTER, 1, 0},
  [HK_MODE_TASK_BALANCED] = {0, 0, COMM_MASTER, 1, 1},
  [HK_MODE_MULTIPLE] = {0, 0, COMM_ALL, 0, 0},
  [HK_MODE_MULTIPLE_RESERVED] = {0, 0, COMM_RESERVED, 1, 0},
};

static void keep_error(int *shared, int err)
{
  if (err == HK_SUCCESS)
    return;
#pragma omp critical(hk_spmv_error)
  if (*shared == HK_SUCCESS)
    *shared = err;
}

/* every thread of the team packs its share (orphaned omp for, implicit barrier) */
static void pack(hk_spmv_t *s, const double *x)
{
  const long long n = s->nsend > 0 ? s->send_off[s->nsend - 1] + s->send_cnt[s->nsend - 1] : 0;
  double t0 = omp_get_wtime();
#pragma omp for schedule(static)
  for (long long k = 0; k < n; k++)
    s->sendbuf[k] = x[s->send_idx[k]];
  s->tt[omp_get_thread_num()].pack += omp_get_wtime() - t0;
}

/* post messages first, first+stride, ... of both directions (receives first) */
static int post(hk_spmv_t *s, double *x, int first, int stride)
{
  int mpierr = MPI_SUCCESS;
  for (int i = first; i < s->nrecv && mpierr == MPI_SUCCESS; i += stride)
    mpierr = MPI_Irecv(x + s->nrows + s->recv_off[i], s->recv_cnt[i], MPI_DOUBLE, s->recv_peer[i],
                       0, s->comm, &s->rreq[i]);
  for (int i = first; i < s->nsend && mpierr == MPI_SUCCESS; i += stride)
    mpierr = MPI_Isend(s->sendbuf + s->send_off[i], s->send_cnt[i], MPI_DOUBLE, s->send_peer[i], 0,
                       s->comm, &s->sreq[i]);
  return mpierr == MPI_SUCCESS ? HK_SUCCESS
                               : hk__mpi_error(mpierr, __FILE__, __LINE__, __func__, "MPI_Isend/Irecv");
}

static int wait(hk_spmv_t *s, int first, int stride)
{
  int mpierr = MPI_SUCCESS;
  if (stride == 1) {
    mpierr = MPI_Waitall(s->nrecv, s->rreq, MPI_STATUSES_IGNORE);
    if (mpierr == MPI_SUCCESS)
      mpierr = MPI_Waitall(s->nsend, s->sreq, MPI_STATUSES_IGNORE);
  } else {
    for (int i = first; i < s->nrecv && mpierr == MPI_SUCCESS; i += stride)
      mpierr = MPI_Wait(&s->rreq[i], MPI_STATUS_IGNORE);
    for (int i = first; i < s->nsend && mpierr == MPI_SUCCESS; i += stride)
      mpierr = MPI_Wait(&s->sreq[i], MPI_STATUS_IGNORE);
  }
  return mpierr == MPI_SUCCESS ? HK_SUCCESS
                               : hk__mpi_error(mpierr, __FILE__, __LINE__, __func__, "MPI_Wait");
}

/* post + wait by the calling thread, timed into its slots */
static int exchange(hk_spmv_t *s, double *x, int first, int stride, int t)
{
  double t0 = omp_get_wtime();
  int err = post(s, x, first, stride);
  double t1 = omp_get_wtime();
  if (err == HK_SUCCESS)
    err = wait(s, first, stride);
  double t2 = omp_get_wtime();
  s->tt[t].comm += t2 - t0;
  s->tt[t].wait += t2 - t1;
  s->tt[t].comm_end = t2;
  return err;
}

static void part_timed(hk_spmv_t *s, int halo, const double *x, double *y, int pieces, int k, int t)
{
  double t0 = omp_get_wtime();
  hk__spmv_part_apply(halo ? &s->halo : &s->local, x, y, halo, pieces, k);
  double t1 = omp_get_wtime();
  if (halo)
    s->tt[t].halo += t1 - t0;
  else {
    s->tt[t].local += t1 - t0;
    s->tt[t].local_end = t1;
  }
}

/* fold one multiply's per-thread times into the statistics: comm threads [0, ncomm),
 * the threads that computed the local part during the exchange [cfirst, n) */
static void account(hk_spmv_t *s, int ncomm, int cfirst, int overlapped)
{
  double pack = 0, comm = 0, wt = 0, loc = 0, halo = 0, comm_end = 0, local_end = 0;
  for (int t = 0; t < s->nthreads; t++) {
    hk_spmv_tt_t *tt = &s->tt[t];
    pack = fmax(pack, tt->pack);
    loc = fmax(loc, tt->local);
    halo = fmax(halo, tt->halo);
    if (t < ncomm) {
      comm = fmax(comm, tt->comm);
      wt = fmax(wt, tt->wait);
      comm_end = fmax(comm_end, tt->comm_end);
    }
    if (t >= cfirst)
      local_end = fmax(local_end, tt->local_end);
  }
  s->stats.multiplies++;
  s->stats.pack += pack;
  s->stats.comm += comm;
  s->stats.wait += wt;
  s->stats.local += loc;
  s->stats.halo += halo;
  s->stats.exposed += overlapped ? fmax(0.0, comm_end - local_end) : comm;
  memset(s->tt, 0, (size_t)s->nthreads * sizeof *s->tt);
}

int hk__spmv_step(hk_spmv_t *s, double *x, double *y)
{
  const int n = s->nthreads;
  const __typeof__(spmv_modes[0]) *m = &spmv_modes[s->desc.mode];
  int err = HK_SUCCESS;
  if (m->outside) {
#pragma omp parallel num_threads(n)
    pack(s, x);
    if (m->nb) { /* pure-nb (one thread): post, local, wait, halo */
      double t0 = omp_get_wtime();
      err = post(s, x, 0, 1);
      s->tt[0].comm = omp_get_wtime() - t0;
      if (err == HK_SUCCESS)
        part_timed(s, 0, x, y, 1, 0, 0);
      double t2 = omp_get_wtime();
      if (err == HK_SUCCESS)
        err = wait(s, 0, 1);
      double t3 = omp_get_wtime();
      s->tt[0].comm += t3 - t2;
      s->tt[0].wait = t3 - t2;
      s->tt[0].comm_end = t3;
      if (err == HK_SUCCESS)
        part_timed(s, 1, x, y, 1, 0, 0);
      account(s, 1, 0, 1); /* exposed: the wait after the local part */
      return err;
    }
    err = exchange(s, x, 0, 1, 0);
    if (err == HK_SUCCESS) {
#pragma omp parallel num_threads(n)
      {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        part_timed(s, 0, x, y, nt, t, t);
#pragma omp barrier
        part_timed(s, 1, x, y, nt, t, t);
      }
    }
    account(s, 1, n, 0);
    return err;
  }
  const int ncomm = m->comm == COMM_ALL ? n
                    : m->comm == COMM_RESERVED ? (s->reserved < n ? s->reserved : n)
                                               : 1;
  const int nchunks = 4 * n;
#pragma omp parallel num_threads(n)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    pack(s, x);
    if (t < ncomm)
      keep_error(&err, exchange(s, x, t, ncomm, t));
    if (m->overlap && m->balanced) {
      double t0 = omp_get_wtime();
#pragma omp for schedule(dynamic, 1) nowait
      for (int c = 0; c < nchunks; c++)
        hk__spmv_part_apply(&s->local, x, y, 0, nchunks, c);
      s->tt[t].local += omp_get_wtime() - t0;
      s->tt[t].local_end = omp_get_wtime();
    } else if (m->overlap && nt > ncomm) {
      if (t >= ncomm)
        part_timed(s, 0, x, y, nt - ncomm, t - ncomm, t);
    } else if (m->overlap) { /* nobody left to overlap with: the communicators compute after */
      part_timed(s, 0, x, y, nt, t, t);
    }
#pragma omp barrier
    if (!m->overlap && err == HK_SUCCESS) {
      part_timed(s, 0, x, y, nt, t, t);
#pragma omp barrier
    }
    if (err == HK_SUCCESS)
      part_timed(s, 1, x, y, nt, t, t);
  }
  /* exposed: in overlap modes with threads to spare, from the end of the local part of
   * the threads that did not communicate to the end of the exchange; else all of it */
  int spare = m->overlap && n > ncomm;
  account(s, ncomm, ncomm, spare);
  return err;
}

int hk_spmv_multiply(hk_spmv_t *s, double *x, double *y)
{
  if (!s || !x || !y)
    return HK_ERROR(HK_ERR_ARG, "spmv, x and y must not be NULL");
  if (omp_in_parallel())
    return HK_ERROR(HK_ERR_STATE, "hk_spmv_multiply is called outside parallel regions");
  return hk__spmv_step(s, x, y);
}
