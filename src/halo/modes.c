/* src/halo/modes.c: the halo's operations table for the mode engine (src/modes) and the
 * entry points that run it.  The engine decides which thread packs, posts, waits,
 * unpacks and updates which part, and when; this file only says what those operations
 * are for a halo plan and a field:
 *
 *   pack/unpack       rows of the message boxes (static split over the threads)
 *   post/wait         messages first, first+stride, ... (hk__halo_post/wait)
 *   unpack_msgs       the rows of the messages a thread waited for itself
 *   local/boundary    the application's update on the interior / the boundary slabs
 *   whole             the update on the whole region (modes without overlap)
 */
#include <math.h>
#include <omp.h>
#include "halo/halo_internal.h"

typedef struct halo_run {
  hk_halo_t *h;
  double *field;
  const hk_halo_work_t *work;
  const hk_halo_regions_t *r;
} halo_run_t;

static void op_pack(void *arg, int piece, int pieces)
{
  const halo_run_t *x = arg;
  long long lo, hi;
  hk__mode_split(x->h->nsend_rows, pieces, piece, &lo, &hi);
  hk__halo_pack_rows(x->h, x->field, (int)lo, (int)hi);
}

static void op_unpack(void *arg, int piece, int pieces)
{
  const halo_run_t *x = arg;
  long long lo, hi;
  hk__mode_split(x->h->nrecv_rows, pieces, piece, &lo, &hi);
  hk__halo_unpack_rows(x->h, x->field, (int)lo, (int)hi);
}

static void op_unpack_msgs(void *arg, int first, int stride)
{
  const halo_run_t *x = arg;
  for (int i = first; i < x->h->nmsg; i += stride)
    hk__halo_unpack_rows(x->h, x->field, x->h->recv[i].row_begin, x->h->recv[i].row_end);
}

static int op_post(void *arg, int first, int stride)
{
  return hk__halo_post(((const halo_run_t *)arg)->h, first, stride);
}

static int op_wait(void *arg, int first, int stride)
{
  return hk__halo_wait(((const halo_run_t *)arg)->h, first, stride);
}

static void op_local(void *arg, int piece, int pieces)
{
  const halo_run_t *x = arg;
  hk__update_boxes(x->work, &x->r->interior, 1, pieces, piece);
}

static void op_boundary(void *arg, int piece, int pieces)
{
  const halo_run_t *x = arg;
  hk__update_boxes(x->work, x->r->boundary, x->r->nboundary, pieces, piece);
}

static void op_whole(void *arg, int piece, int pieces)
{
  const halo_run_t *x = arg;
  hk__update_boxes(x->work, &x->r->all, 1, pieces, piece);
}

/* exchange only (work NULL): no update operations */
static int run(hk_halo_t *h, double *field, const hk_halo_work_t *work, const hk_halo_regions_t *r)
{
  halo_run_t x = {h, field, work, r};
  const hk_mode_ops_t ops = {
    .arg = &x, .pack = op_pack, .post = op_post, .wait = op_wait, .unpack = op_unpack,
    .unpack_msgs = op_unpack_msgs, .local = work ? op_local : NULL,
    .boundary = work ? op_boundary : NULL, .whole = work ? op_whole : NULL};
  hk_mode_times_t t;
  int err = hk_mode_run(h->desc.mode, h->nthreads, h->reserved, &ops, &t);
  hk__halo_account(h, &t);
  return err;
}

static int check_call(const hk_halo_t *h, const double *field)
{
  if (!h || !field)
    return HK_ERROR(HK_ERR_ARG, "halo and field must not be NULL");
  if (omp_in_parallel())
    return HK_ERROR(HK_ERR_STATE, "halo exchanges are called outside parallel regions");
  return HK_SUCCESS;
}

int hk_halo_step(hk_halo_t *h, double *field, const hk_halo_work_t *work)
{
  int err = HK_SUCCESS;
  hk_halo_regions_t r;
  HK_TRY(err, check_call(h, field));
  if (!work || !work->update) {
    err = work ? HK_ERROR(HK_ERR_ARG, "work->update must not be NULL")
               : HK_ERROR(HK_ERR_ARG, "work must not be NULL (hk_halo_exchange exchanges only)");
    goto cleanup;
  }
  HK_TRY(err, hk_halo_regions(h, work->extend, &r));
  HK_TRY(err, run(h, field, work, &r));
cleanup:
  return err;
}

int hk_halo_exchange(hk_halo_t *h, double *field)
{
  int err = check_call(h, field);
  return err == HK_SUCCESS ? run(h, field, NULL, NULL) : err;
}

/* the split phase: every thread its share of pack (unpack), the slowest thread's time */
static double share_timed(hk_halo_t *h, double *field, void (*op)(void *, int, int))
{
  halo_run_t x = {h, field, NULL, NULL};
  double slowest = 0;
#pragma omp parallel num_threads(h->nthreads) reduction(max : slowest)
  {
    double t0 = hk__clock();
    op(&x, omp_get_thread_num(), omp_get_num_threads());
    slowest = hk__clock() - t0;
  }
  return slowest;
}

int hk_halo_begin(hk_halo_t *h, double *field)
{
  int err = check_call(h, field);
  if (err != HK_SUCCESS)
    return err;
  h->split = (hk_mode_times_t){.pack = share_timed(h, field, op_pack)};
  double t0 = hk__clock();
  err = hk__halo_post(h, 0, 1);
  h->split.post = hk__clock() - t0;
  return err;
}

int hk_halo_end(hk_halo_t *h, double *field)
{
  int err = check_call(h, field);
  double t0 = hk__clock();
  if (err == HK_SUCCESS)
    err = hk__halo_wait(h, 0, 1);
  if (err != HK_SUCCESS)
    return err;
  h->split.wait = hk__clock() - t0;
  h->split.unpack = share_timed(h, field, op_unpack);
  h->split.comm = h->split.post + h->split.wait + h->split.unpack;
  hk__halo_account(h, &h->split);
  h->split = (hk_mode_times_t){0};
  return HK_SUCCESS;
}
