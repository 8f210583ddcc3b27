/* src/halo/field.c: what a built plan gives its user: the field layout, fields
 * (aligned for huge pages, first-touched as the updates split them), the regions
 * for overlapping communication with the interior update, threads, mode and
 * statistics.  Building and freeing the plan is in plan.c.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "halo/halo_internal.h"

#define HK_HUGE_PAGE ((size_t)2 << 20)

int hk_halo_layout(const hk_halo_t *h, hk_field_layout_t *layout)
{
  if (!h || !layout)
    return HK_ERROR(HK_ERR_ARG, "halo and layout must not be NULL");
  *layout = h->L;
  return HK_SUCCESS;
}

int hk_halo_threads(const hk_halo_t *h, int *threads)
{
  if (!h || !threads)
    return HK_ERROR(HK_ERR_ARG, "halo and threads must not be NULL");
  *threads = h->nthreads;
  return HK_SUCCESS;
}
hk_mode_t hk_halo_mode(const hk_halo_t *h) { return h ? h->desc.mode : HK_MODE_COUNT; }

int hk_halo_field_alloc(const hk_halo_t *h, double **field)
{
  if (!h || !field)
    return HK_ERROR(HK_ERR_ARG, "halo and field must not be NULL");
  void *p = NULL;
  size_t bytes = h->L.count * sizeof(double);
  /* fields of several huge pages go on 2 MiB boundaries and ask for transparent
   * huge pages (a no-op where THP is off): sweeps and wavefronts jump a plane apart
   * at every step, which with 4 KiB pages costs a TLB miss and a restart of the
   * hardware prefetchers every 4 KiB */
  size_t align = bytes >= HK_HUGE_PAGE * 4 ? HK_HUGE_PAGE : 64;
  if (posix_memalign(&p, align, bytes ? bytes : 64) != 0)
    return HK_ERROR(HK_ERR_NOMEM, "cannot allocate a field of %zu bytes", bytes);
#ifdef MADV_HUGEPAGE
  if (align == HK_HUGE_PAGE)
    (void)madvise(p, bytes / HK_HUGE_PAGE * HK_HUGE_PAGE, MADV_HUGEPAGE);
#endif
  double *f = p;
  /* first touch: the planes (z in 3D, y in 2D) split statically as the updates are */
  const hk_field_layout_t *L = &h->L;
  long long planes = L->dims == 3 ? (long long)(L->n[2] + 2 * L->width)
                                  : (long long)(L->n[1] + 2 * L->width);
  long long plane = L->dims == 3 ? L->sz : L->sy;
#pragma omp parallel for schedule(static) num_threads(h->nthreads)
  for (long long q = 0; q < planes; q++)
    memset(f + q * plane, 0, (size_t)plane * sizeof(double));
  *field = f;
  return HK_SUCCESS;
}

void hk_halo_field_free(double **field)
{
  if (field) {
    free(*field);
    *field = NULL;
  }
}

int hk_halo_regions(const hk_halo_t *h, int extend, hk_halo_regions_t *regions)
{
  if (!h || !regions)
    return HK_ERROR(HK_ERR_ARG, "halo and regions must not be NULL");
  if (extend < 0 || extend >= h->L.width)
    return HK_ERROR(HK_ERR_ARG, "extend %d must be between 0 and the halo width - 1 (%d)", extend,
                    h->L.width - 1);
  const hk_field_layout_t *L = &h->L;
  const int r = h->radius;
  hk_box_t U, I;
  for (int d = 0; d < 3; d++) {
    if (d >= L->dims) {
      U.lo[d] = I.lo[d] = 0;
      U.hi[d] = I.hi[d] = 1;
      continue;
    }
    U.lo[d] = h->has_nb[d][0] ? -extend : 0;
    U.hi[d] = L->n[d] + (h->has_nb[d][1] ? extend : 0);
    /* interior: cells whose stencil reads no received ghost */
    I.lo[d] = h->has_nb[d][0] ? r : U.lo[d];
    I.hi[d] = h->has_nb[d][1] ? L->n[d] - r : U.hi[d];
    if (I.lo[d] < U.lo[d]) I.lo[d] = U.lo[d];
    if (I.hi[d] > U.hi[d]) I.hi[d] = U.hi[d];
    if (I.hi[d] < I.lo[d]) I.hi[d] = I.lo[d];
  }
  regions->all = U;
  regions->interior = I;
  /* boundary = U \ I as slabs: along x first (full y, z), then y (x inside I), then z */
  int nb = 0;
  if (hk__box_empty(&I)) {
    regions->boundary[nb++] = U;
  } else {
    hk_box_t rest = U;
    for (int d = 0; d < L->dims; d++) {
      hk_box_t lo = rest, hi = rest;
      lo.hi[d] = I.lo[d];
      hi.lo[d] = I.hi[d];
      if (!hk__box_empty(&lo)) regions->boundary[nb++] = lo;
      if (!hk__box_empty(&hi)) regions->boundary[nb++] = hi;
      rest.lo[d] = I.lo[d];
      rest.hi[d] = I.hi[d];
    }
  }
  regions->nboundary = nb;
  return HK_SUCCESS;
}

int hk_halo_stats(const hk_halo_t *h, hk_halo_stats_t *stats)
{
  if (!h || !stats)
    return HK_ERROR(HK_ERR_ARG, "halo and stats must not be NULL");
  *stats = h->stats;
  return HK_SUCCESS;
}

void hk_halo_stats_reset(hk_halo_t *h)
{
  if (!h)
    return;
  hk_halo_stats_t *s = &h->stats;
  s->exchanges = 0;
  s->pack = s->post = s->wait = s->unpack = s->comm = 0.0;
  s->interior = s->boundary = s->update = 0.0;
}
