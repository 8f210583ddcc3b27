/* apps/mz/mz_layout.c: where the pages of the zone data go (--layout; Jin et al.'s BT
 * data-layout experiment, Parallel Computing 37 (2011) Fig. 9; hybridkit/mem.h).
 *
 *   first-touch   each array of a zone allocated alone and zeroed by the threads with the
 *                 static schedule over k the kernels use (the default)
 *   one-location  all arrays of the zone in one block, every page on location 0
 *   block         distribute(BLOCK) of k of every array over the locations
 *   interleave    page i of the block on location i % NLOCS
 *   random        every page on a location drawn from a seed (the zone's number)
 *   access        by access pattern: planes k of every array on the location of the thread
 *                 whose static-schedule chunk holds k (libgomp's split: the first nz % T
 *                 threads take one plane more)
 * The data and the arithmetic are the same for every layout: results are bit-identical. */
#include <stdlib.h>
#include "mz.h"

const char *const mz_layout_names[] = {"first-touch", "one-location", "block", "interleave",
                                       "random", "access", NULL};

/* the first plane of thread t's chunk of nz planes over T threads (schedule(static)) */
static int chunk_start(int t, int nz, int T)
{
  int q = nz / T, rem = nz % T;
  return t * q + (t < rem ? t : rem);
}

int mz_layout_zone_alloc(mz_run_t *r, int zone, mz_adi_zone_t *z, int nx, int ny, int nz)
{
  int layout = r->cfg->layout, with_speed = r->solver->with_speed, err = HK_SUCCESS;
  if (layout == 0)
    return mz_adi_zone_alloc(z, nx, ny, nz, with_speed) == 0
               ? HK_SUCCESS
               : hk_error_set(HK_ERR_NOMEM, "no memory for zone %d (%dx%dx%d)", zone, nx, ny, nz);
  size_t off[MZ_ADI_NARR];
  int comps[MZ_ADI_NARR], narr = 0, nlocs = 0, T = r->inner > 0 ? r->inner : 1;
  size_t bytes = mz_adi_zone_offsets(nx, ny, nz, with_speed, off, comps, &narr);
  if (!bytes)
    return hk_error_set(HK_ERR_ARG, "zone %d (%dx%dx%d) cannot be allocated", zone, nx, ny, nz);
  if (!r->locs) {
    const hk_machine_t *m = NULL;
    HK_TRY(err, hk_machine_this(&m));
    HK_TRY(err, hk_locations_create(m, NULL, &r->locs));
  }
  hk_locations_count(r->locs, &nlocs);
  static const hk_mem_policy_t policies[] = {HK_MEM_FIRST_TOUCH, HK_MEM_ONE_LOCATION,
                                             HK_MEM_ACCESS, HK_MEM_INTERLEAVE, HK_MEM_RANDOM,
                                             HK_MEM_ACCESS};
  hk_mem_desc_t d = {.size = bytes, .policy = policies[layout], .seed = (unsigned long long)zone};
  hk_mem_range_t *ranges = NULL;
  if (d.policy == HK_MEM_ACCESS) {
    /* block: nlocs parts of k per array; access: the T threads' chunks */
    int parts = layout == 2 ? nlocs : T;
    ranges = calloc((size_t)narr * (size_t)parts, sizeof *ranges);
    if (!ranges)
      return hk_error_set(HK_ERR_NOMEM, "no memory for the ranges of zone %d", zone);
    size_t plane = (size_t)nx * ny * sizeof(double);
    for (int n = 0; n < narr; n++)
      for (int p = 0; p < parts; p++) {
        int k0 = layout == 2 ? (int)((long long)p * nz / parts) : chunk_start(p, nz, T);
        int k1 = layout == 2 ? (int)((long long)(p + 1) * nz / parts) : chunk_start(p + 1, nz, T);
        int loc = p;
        if (layout != 2)
          hk_locations_thread(r->locs, NULL, T, p, &loc);
        ranges[n * parts + p] = (hk_mem_range_t){off[n] + (size_t)k0 * plane * comps[n],
                                                 (size_t)(k1 - k0) * plane * comps[n], loc};
      }
    d.ranges = ranges;
    d.nranges = narr * parts;
  }
  hk_mem_t *mem = NULL;
  void *base = NULL;
  HK_LOCAL(err, hk_mem_alloc(r->locs, &d, &mem, &base));
  free(ranges);
  if (err == HK_SUCCESS)
    mz_adi_zone_attach(z, nx, ny, nz, with_speed, base, mem);
cleanup:
  return err;
}

void mz_layout_zone_free(mz_adi_zone_t *z)
{
  hk_mem_t *mem = z->placed;
  mz_adi_zone_free(z);
  hk_mem_free(&mem);
}

/* the share of my zones' pages on the NUMA node holding most of them (1 on one node) */
double mz_layout_pages_max_node(const mz_run_t *r)
{
  long long per[64] = {0};
  for (int i = 0; i < r->nlocal; i++) {
    const mz_adi_zone_t *z = &r->zone[i];
    const double *arr[] = {z->u, z->rhs, z->forcing, z->ut, z->us, z->vs, z->ws, z->qs,
                           z->rho_i, z->square, z->speed};
    size_t points = (size_t)z->nx * z->ny * z->nz;
    for (int n = 0; n < MZ_ADI_NARR; n++) {
      long long mine[64] = {0};
      if (arr[n] && hk_mem_where(arr[n], points * (n < 4 ? 5 : 1) * sizeof(double), NULL, mine,
                                 64, NULL) == HK_SUCCESS)
        for (int k = 0; k < 64; k++)
          per[k] += mine[k];
    }
  }
  long long all = 0, most = 0;
  for (int k = 0; k < 64; k++) {
    all += per[k];
    most = per[k] > most ? per[k] : most;
  }
  return all ? (double)most / (double)all : 1.0;
}
