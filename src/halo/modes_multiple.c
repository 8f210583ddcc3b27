/* src/halo/modes_multiple.c: hybrid modes in which several threads call MPI
 * (MPI_THREAD_MULTIPLE).  Message i belongs to communicating thread i mod m.
 *
 *   multiple           parallel { pack | each thread: post, wait, unpack its messages |
 *                                 barrier | update all }
 *   multiple-reserved  parallel { pack | threads 0..m-1: post, wait, unpack their messages
 *                                 || threads m..n-1: interior | barrier | boundary }
 * With one thread (m defaults to 1) multiple-reserved degrades to: exchange,
 * interior, boundary.
 */
#include <omp.h>
#include "halo/halo_internal.h"

int hk__step_multiple(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                      const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
#pragma omp parallel num_threads(h->nthreads)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    hk__halo_pack_all(h, field);
    hk__halo_keep_error(&err, hk__halo_exchange_msgs(h, field, t, n));
#pragma omp barrier
    if (work && err == HK_SUCCESS)
      hk__update_timed(work, &r->all, 1, n, t, &h->tt[t].update);
  }
  hk__halo_account(h, h->nthreads, h->nthreads);
  return err;
}

int hk__step_multiple_reserved(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                               const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
  const int m = h->reserved < h->nthreads ? h->reserved : h->nthreads;
#pragma omp parallel num_threads(h->nthreads)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    hk__halo_pack_all(h, field);
    if (t < m)
      hk__halo_keep_error(&err, hk__halo_exchange_msgs(h, field, t, m));
    if (work && n > m && t >= m)
      hk__update_timed(work, &r->interior, 1, n - m, t - m, &h->tt[t].interior);
    else if (work && n == m) /* nobody left to overlap with: the communicators compute after */
      hk__update_timed(work, &r->interior, 1, n, t, &h->tt[t].interior);
#pragma omp barrier
    if (work && err == HK_SUCCESS)
      hk__update_timed(work, r->boundary, r->nboundary, n, t, &h->tt[t].boundary);
  }
  hk__halo_account(h, m, h->nthreads > m ? m : 0);
  return err;
}
