/* apps/jacobi/layout.c: where the pages of the two fields go (--layout, issue 23).
 *
 *   first-touch   the halo engine's allocation: each thread first touches the planes it
 *                 updates (the default, and what a NUMA node wants)
 *   serial        the classic pitfall: one thread initialises everything, so every page
 *                 sits on the master's NUMA node and the other threads read remotely
 *   one-location  every page on location 0;  block: planes in blocks over the locations
 *   interleave    page i on location i % NLOCS;  random: seeded random locations
 * The sweeps, and so the results, are the same for every layout (bit-identical). */
#include "jacobi.h"

const char *const jac_layout_names[] = {"first-touch", "serial", "one-location", "block",
                                        "interleave", "random", NULL};
static const hk_mem_policy_t policies[] = {HK_MEM_FIRST_TOUCH, HK_MEM_FIRST_TOUCH,
                                           HK_MEM_ONE_LOCATION, HK_MEM_BLOCK, HK_MEM_INTERLEAVE,
                                           HK_MEM_RANDOM};

/* pages of [p, p+bytes) per NUMA node, added to per[] */
static int count_pages(const void *p, size_t bytes, long long *per, int nnodes)
{
  long long mine[64] = {0};
  int err = HK_SUCCESS;
  HK_TRY(err, hk_mem_where(p, bytes, NULL, mine, 64, NULL));
  for (int k = 0; k < nnodes && k < 64; k++)
    per[k] += mine[k];
cleanup:
  return err;
}

static int placed(jac_run_t *r, hk_mem_t **mem, double **f)
{
  const hk_field_layout_t *L = &r->L;
  long long planes = L->dims == 3 ? L->n[2] + 2LL * L->width : L->n[1] + 2LL * L->width;
  long long plane = L->dims == 3 ? L->sz : L->sy;
  int serial = r->cfg->layout == 1;
  hk_mem_desc_t d = {.size = L->count * sizeof(double), .policy = policies[r->cfg->layout],
                     .ndims = 2, .dims = {planes, plane}, .elem_size = sizeof(double),
                     .nthreads = serial ? 1 : jac_halo_threads(r->halo), .seed = 1};
  return hk_mem_alloc(r->locs, &d, mem, (void **)f);
}

int jac_layout_alloc(jac_run_t *r)
{
  int err = HK_SUCCESS;
  const hk_machine_t *m = NULL;
  long long per[64] = {0};
  hk_machine_info_t mi = {0};
  if (r->cfg->layout == 0) {
    HK_TRY(err, hk_halo_field_alloc(r->halo, &r->u));
    HK_TRY(err, hk_halo_field_alloc(r->halo, &r->v));
  } else {
    HK_TRY(err, hk_machine_this(&m));
    HK_TRY(err, hk_locations_create(m, NULL, &r->locs));
    HK_TRY(err, placed(r, &r->umem, &r->u));
    HK_TRY(err, placed(r, &r->vmem, &r->v));
  }
  HK_TRY(err, hk_machine_this(&m));
  HK_TRY(err, hk_machine_info(m, &mi));
  HK_TRY(err, count_pages(r->u, r->L.count * sizeof(double), per, mi.numa_nodes));
  HK_TRY(err, count_pages(r->v, r->L.count * sizeof(double), per, mi.numa_nodes));
  long long all = 0, most = 0;
  for (int k = 0; k < mi.numa_nodes && k < 64; k++) {
    all += per[k];
    most = per[k] > most ? per[k] : most;
  }
  r->pages_max_node = all ? (double)most / (double)all : 0.0;
cleanup:
  return err;
}

void jac_layout_free(jac_run_t *r)
{
  if (r->umem || r->vmem) {
    hk_mem_free(&r->umem);
    hk_mem_free(&r->vmem);
    r->u = r->v = NULL;
  } else {
    hk_halo_field_free(&r->u);
    hk_halo_field_free(&r->v);
  }
  hk_locations_destroy(&r->locs);
}
