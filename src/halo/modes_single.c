/* src/halo/modes_single.c: pure MPI modes, one thread per rank.
 *
 *   pure:     pack | post | wait | unpack | update all
 *   pure-nb:  pack | post | update interior | wait | unpack | update boundary
 *             (overlaps only if the MPI library progresses messages asynchronously)
 */
#include <omp.h>
#include "halo/halo_internal.h"

int hk__step_pure(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                  const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
  hk__halo_pack_all(h, field);
  if ((err = hk__halo_post(h, 0, 1)) == HK_SUCCESS)
    err = hk__halo_wait(h, 0, 1);
  hk__halo_unpack_all(h, field);
  if (work && err == HK_SUCCESS)
    hk__update_timed(work, &r->all, 1, 1, 0, &h->tt[0].update);
  hk__halo_account(h, 1, 1);
  return err;
}

int hk__step_pure_nb(hk_halo_t *h, double *field, const hk_halo_work_t *work,
                     const hk_halo_regions_t *r)
{
  int err = HK_SUCCESS;
  hk__halo_pack_all(h, field);
  err = hk__halo_post(h, 0, 1);
  if (work && err == HK_SUCCESS)
    hk__update_timed(work, &r->interior, 1, 1, 0, &h->tt[0].interior);
  if (err == HK_SUCCESS)
    err = hk__halo_wait(h, 0, 1);
  hk__halo_unpack_all(h, field);
  if (work && err == HK_SUCCESS)
    hk__update_timed(work, r->boundary, r->nboundary, 1, 0, &h->tt[0].boundary);
  /* one thread does both: its interior time is what could hide the exchange */
  hk__halo_account(h, 1, 0);
  return err;
}
