/* src/spmv/modes.c: y = A x in every hybrid mode.  The mode engine (src/modes) runs the
 * schedule; this file gives it the operations of a distributed matrix:
 *
 *   pack          gather the x entries the peers need into the send buffer (static split)
 *   post, wait    messages first, first+stride, ... of both directions (receives first);
 *                 received straight into x's halo entries, so nothing is unpacked
 *   local         y_i = local part, piece k of the rows (or SELL chunks)
 *   boundary      y_i += halo part, piece k
 *
 * Rows are split statically into pieces of the parts; local writes y_i, halo adds to it,
 * a barrier between: the result does not depend on the mode or the thread count.  With
 * one thread the overlap modes communicate first.
 */
#include <omp.h>
#include "spmv/spmv_internal.h"
#include "modes/modes_internal.h"

typedef struct spmv_run {
  hk_spmv_t *s;
  double *x, *y;
} spmv_run_t;

static void op_pack(void *arg, int piece, int pieces)
{
  const spmv_run_t *r = arg;
  const hk_spmv_t *s = r->s;
  const long long n = s->nsend > 0 ? s->send_off[s->nsend - 1] + s->send_cnt[s->nsend - 1] : 0;
  long long lo, hi;
  hk__mode_split(n, pieces, piece, &lo, &hi);
  for (long long k = lo; k < hi; k++)
    s->sendbuf[k] = r->x[s->send_idx[k]];
}

static int op_post(void *arg, int first, int stride)
{
  const spmv_run_t *r = arg;
  hk_spmv_t *s = r->s;
  int err = HK_SUCCESS;
  for (int i = first; i < s->nrecv; i += stride)
    HK_MPI_TRY(err, MPI_Irecv(r->x + s->nrows + s->recv_off[i], s->recv_cnt[i], MPI_DOUBLE,
                              s->recv_peer[i], 0, s->comm, &s->rreq[i]));
  for (int i = first; i < s->nsend; i += stride)
    HK_MPI_TRY(err, MPI_Isend(s->sendbuf + s->send_off[i], s->send_cnt[i], MPI_DOUBLE,
                              s->send_peer[i], 0, s->comm, &s->sreq[i]));
cleanup:
  return err;
}

static int op_wait(void *arg, int first, int stride)
{
  hk_spmv_t *s = ((const spmv_run_t *)arg)->s;
  int err = HK_SUCCESS;
  if (first == 0 && stride == 1) {
    HK_MPI_TRY(err, MPI_Waitall(s->nrecv, s->rreq, MPI_STATUSES_IGNORE));
    HK_MPI_TRY(err, MPI_Waitall(s->nsend, s->sreq, MPI_STATUSES_IGNORE));
  } else {
    for (int i = first; i < s->nrecv; i += stride)
      HK_MPI_TRY(err, MPI_Wait(&s->rreq[i], MPI_STATUS_IGNORE));
    for (int i = first; i < s->nsend; i += stride)
      HK_MPI_TRY(err, MPI_Wait(&s->sreq[i], MPI_STATUS_IGNORE));
  }
cleanup:
  return err;
}

static void op_local(void *arg, int piece, int pieces)
{
  const spmv_run_t *r = arg;
  hk__spmv_part_apply(&r->s->local, r->x, r->y, 0, pieces, piece);
}

static void op_halo(void *arg, int piece, int pieces)
{
  const spmv_run_t *r = arg;
  hk__spmv_part_apply(&r->s->halo, r->x, r->y, 1, pieces, piece);
}

int hk__spmv_step(hk_spmv_t *s, double *x, double *y)
{
  spmv_run_t r = {s, x, y};
  const hk_mode_ops_t ops = {.arg = &r, .pack = op_pack, .post = op_post, .wait = op_wait,
                             .local = op_local, .boundary = op_halo};
  hk_mode_times_t t;
  int err = hk_mode_run(s->desc.mode, s->nthreads, s->reserved, &ops, &t);
  s->stats.multiplies++;
  s->stats.pack += t.pack;
  s->stats.comm += t.comm;
  s->stats.wait += t.wait;
  s->stats.local += t.local;
  s->stats.halo += t.boundary;
  s->stats.exposed += t.exposed;
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
