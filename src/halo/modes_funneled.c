/* src/halo/modes_funneled.c: hybrid modes in which only the master thread
 * calls MPI.
 *
 *   masteronly     [parallel: pack] master: post, wait [parallel: unpack | update all]
 *                  (MPI outside parallel regions; the other threads sleep meanwhile)
 *   funneled       parallel { pack | master: post, wait | barrier | unpack | update all }
 *   task           parallel { pack | thread 0: post, wait, unpack  ||  threads 1..n-1:
 *                             interior | barrier | boundary }          (funneled & reserved)
 *   task-balanced  parallel { pack | thread 0: post, wait, unpack, then joins  ||  all:
 *                             interior chunks, dynamic, nowait | barrier | boundary }
 * With one thread, task and task-balanced degrade to: exchange, interior, boundary.
 */
#include <omp.h>
#include "halo/halo_internal.h"

int hk__step_masteronly(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                        const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
#pragma omp parallel num_threads(h->nthreads)
  hk__halo_pack_all(h, field);
  /* MASTERONLY: MPI from the master, outside parallel regions */
  if ((err = hk__halo_post(h, 0, 1)) == HK_SUCCESS)
    err = hk__halo_wait(h, 0, 1);
#pragma omp parallel num_threads(h->nthreads)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    hk__halo_unpack_all(h, field);
    if (work && err == HK_SUCCESS)
      hk__update_timed(work, &r->all, 1, n, t, &h->tt[t].update);
  }
  hk__halo_account(h, 1, h->nthreads);
  return err;
}

int hk__step_funneled(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                      const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
#pragma omp parallel num_threads(h->nthreads)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    hk__halo_pack_all(h, field);
#pragma omp master
    {
      int e = hk__halo_post(h, 0, 1);
      if (e == HK_SUCCESS)
        e = hk__halo_wait(h, 0, 1);
      hk__halo_keep_error(&err, e);
    }
#pragma omp barrier
    hk__halo_unpack_all(h, field);
    if (work && err == HK_SUCCESS)
      hk__update_timed(work, &r->all, 1, n, t, &h->tt[t].update);
  }
  hk__halo_account(h, 1, h->nthreads);
  return err;
}

int hk__step_task(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                  const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
#pragma omp parallel num_threads(h->nthreads)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    hk__halo_pack_all(h, field);
    if (t == 0)
      hk__halo_keep_error(&err, hk__halo_exchange_msgs(h, field, 0, 1));
    if (work && n > 1 && t > 0)
      hk__update_timed(work, &r->interior, 1, n - 1, t - 1, &h->tt[t].interior);
    if (work && n == 1)
      hk__update_timed(work, &r->interior, 1, 1, 0, &h->tt[0].interior);
#pragma omp barrier
    if (work && err == HK_SUCCESS)
      hk__update_timed(work, r->boundary, r->nboundary, n, t, &h->tt[t].boundary);
  }
  hk__halo_account(h, 1, h->nthreads > 1 ? 1 : 0);
  return err;
}

int hk__step_task_balanced(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                           const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
  const int nchunks = 4 * h->nthreads;
#pragma omp parallel num_threads(h->nthreads)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    hk__halo_pack_all(h, field);
    if (t == 0)
      hk__halo_keep_error(&err, hk__halo_exchange_msgs(h, field, 0, 1));
    if (work) {
      /* the others start on the interior at once; thread 0 joins when its exchange is done */
      double t0 = omp_get_wtime();
#pragma omp for schedule(dynamic, 1) nowait
      for (int c = 0; c < nchunks; c++)
        hk__update_boxes(work, &r->interior, 1, nchunks, c);
      h->tt[t].interior += omp_get_wtime() - t0;
    }
#pragma omp barrier
    if (work && err == HK_SUCCESS)
      hk__update_timed(work, r->boundary, r->nboundary, n, t, &h->tt[t].boundary);
  }
  hk__halo_account(h, 1, h->nthreads > 1 ? 1 : 0);
  return err;
}
