/* src/cart/layout.c: Cartesian decomposition, rank mappings and halo surface
 * counts, without MPI (planning, tests, the advisor).
 *
 * Positions are row-major, x fastest: p = x + Px*(y + Py*z).  A layout says
 * which rank (and node) holds every position.  Node-aware mapping factors the
 * process grid into a node grid N and an intra-node grid L (N*L = P per
 * dimension); the position with coords c goes to node row-major(c / L), to the
 * rank of that node with index row-major(c % L):
 *
 *   procs 8x10, 10 nodes of 8 ranks, local grid 4x2, node grid 2x5:
 *     y=9  8 8 8 8 9 9 9 9       (the digit is the node)
 *     y=8  8 8 8 8 9 9 9 9
 *      ...
 *     y=1  0 0 0 0 1 1 1 1
 *     y=0  0 0 0 0 1 1 1 1
 *          x=0 ...       x=7
 *
 * Choices, all deterministic:
 *   procs all 0   the factorisation Px*Py*Pz = ranks whose blocks have >= w cells
 *                 in every decomposed dimension and whose total face surface
 *                 (periodic faces counted) is least; ties: larger Px, then larger Py
 *                 (desc outer_first: smaller Px, then smaller Py, so z is split first)
 *   node-aware    the local grid with the least inter-node bytes; ties: fewer
 *                 max node links, then smaller Lx, then smaller Ly
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cart/cart_internal.h"

static const char *const hk_map_names[] = {"sequential", "round-robin", "node-aware"};

const char *hk_cart_map_name(hk_cart_map_t map)
{
  if ((int)map < 0 || (int)map >= HK_CART_MAP_COUNT)
    return "invalid";
  return hk_map_names[map];
}

int hk_cart_map_parse(const char *name, hk_cart_map_t *map)
{
  if (!map)
    return HK_ERROR(HK_ERR_ARG, "map is NULL");
  for (int m = 0; name && m < HK_CART_MAP_COUNT; m++)
    if (strcmp(name, hk_map_names[m]) == 0) {
      *map = (hk_cart_map_t)m;
      return HK_SUCCESS;
    }
  return HK_ERROR(HK_ERR_ARG, "unknown map policy '%s' (sequential, round-robin, node-aware)",
                  name ? name : "(null)");
}

void hk_cart_block_range(long long cells, int procs, int index, long long *lo, int *n)
{
  long long first = 0, count = 0;
  if (cells >= 0 && procs >= 1 && index >= 0 && index < procs) {
    long long q = cells / procs, r = cells % procs;
    first = index * q + (index < r ? index : r);
    count = q + (index < r);
  }
  if (lo)
    *lo = first;
  if (n)
    *n = count > INT_MAX ? INT_MAX : (int)count;
}

/* "8x8" / "8x8x8" */
static void fmt_ll(char *buf, size_t len, int dims, const long long v[3])
{
  if (dims == 3)
    snprintf(buf, len, "%lldx%lldx%lld", v[0], v[1], v[2]);
  else
    snprintf(buf, len, "%lldx%lld", v[0], v[1]);
}

void hk__cart_fmt_int(char *buf, size_t len, int dims, const int v[3])
{
  const long long w[3] = {v[0], v[1], v[2]};
  fmt_ll(buf, len, dims, w);
}

int hk__cart_geom_from_desc(const hk_cart_desc_t *d, geom_t *g)
{
  memset(g, 0, sizeof *g);
  if (d->dims != 2 && d->dims != 3)
    return HK_ERROR(HK_ERR_ARG, "dims is %d: must be 2 or 3", d->dims);
  g->dims = d->dims;
  for (int i = 0; i < d->dims; i++)
    if (d->global[i] < 1)
      return HK_ERROR(HK_ERR_ARG, "global extent %lld in %c: must be >= 1", d->global[i],
                      "xyz"[i]);
  if (d->dims == 2 && d->global[2] != 0 && d->global[2] != 1)
    return HK_ERROR(HK_ERR_ARG, "global extent %lld in z: must be 1 in 2D", d->global[2]);
  if (d->halo_width < 0)
    return HK_ERROR(HK_ERR_ARG, "halo width %d: must be >= 0", d->halo_width);
  if ((int)d->map < 0 || (int)d->map >= HK_CART_MAP_COUNT)
    return HK_ERROR(HK_ERR_ARG, "invalid map policy %d", (int)d->map);
  if ((int)d->stencil < 0 || (int)d->stencil >= HK_STENCIL_COUNT)
    return HK_ERROR(HK_ERR_ARG, "invalid stencil %d", (int)d->stencil);
  if (d->dims == 2 && d->procs[2] != 0 && d->procs[2] != 1)
    return HK_ERROR(HK_ERR_ARG, "procs %dx%dx%d: procs[2] must be 1 in 2D", d->procs[0],
                    d->procs[1], d->procs[2]);
  int given = 0, zero = 0;
  for (int i = 0; i < d->dims; i++) {
    if (d->procs[i] < 0)
      return HK_ERROR(HK_ERR_ARG, "procs %d in %c: must be >= 0", d->procs[i], "xyz"[i]);
    given += d->procs[i] > 0;
    zero += d->procs[i] == 0;
  }
  if (given && zero) {
    char p[48];
    hk__cart_fmt_int(p, sizeof p, d->dims, d->procs);
    return HK_ERROR(HK_ERR_ARG, "procs %s: procs must be all 0 or all given", p);
  }
  for (int i = 0; i < 3; i++) {
    g->global[i] = i < d->dims ? d->global[i] : 1;
    g->periodic[i] = i < d->dims ? d->periodic[i] != 0 : 0;
    g->procs[i] = i < d->dims ? d->procs[i] : (given ? 1 : 0);
  }
  g->w = d->halo_width > 0 ? d->halo_width : 1;
  g->stencil = d->stencil;
  g->outer_first = d->outer_first != 0;
  return HK_SUCCESS;
}

/* 1 when every decomposed dimension of procs has blocks of >= w cells (and no
 * block exceeds INT_MAX cells). */
static int grid_fits(const geom_t *g, const int procs[3])
{
  for (int i = 0; i < g->dims; i++) {
    long long smallest = g->global[i] / procs[i], largest = smallest + (g->global[i] % procs[i] != 0);
    if (largest > INT_MAX || (procs[i] > 1 && smallest < g->w))
      return 0;
  }
  return 1;
}

/* Total face surface of all blocks (cells, not bytes; periodic faces counted):
 * in dimension i every line of blocks has 2(P-1) faces, or 2P when periodic,
 * each as large as the cross-section of the grid normal to i. */
static double face_surface(const geom_t *g, const int procs[3])
{
  double total = 0;
  for (int i = 0; i < g->dims; i++) {
    double cross = 1;
    for (int j = 0; j < g->dims; j++)
      if (j != i)
        cross *= (double)g->global[j];
    int faces = g->periodic[i] ? 2 * procs[i] : 2 * (procs[i] - 1);
    total += cross * faces;
  }
  return total;
}

static int choose_procs(geom_t *g, int nranks)
{
  int best[3] = {0, 0, 0};
  double best_cost = 0;
  for (int px = nranks; px >= 1; px--) {
    if (nranks % px)
      continue;
    int rest = nranks / px;
    for (int py = rest; py >= 1; py--) {
      if (rest % py || (g->dims == 2 && py != rest))
        continue;
      int procs[3] = {px, py, rest / py};
      if (!grid_fits(g, procs))
        continue;
      double cost = face_surface(g, procs);
      /* px and py fall: with outer_first a later grid of equal cost splits outer dims more */
      if (best[0] == 0 || cost < best_cost || (g->outer_first && cost == best_cost)) {
        memcpy(best, procs, sizeof best);
        best_cost = cost;
      }
    }
  }
  if (best[0] == 0) {
    char gl[80];
    fmt_ll(gl, sizeof gl, g->dims, g->global);
    return HK_ERROR(HK_ERR_ARG, "no process grid of %d ranks fits grid %s with halo width %d",
                    nranks, gl, g->w);
  }
  memcpy(g->procs, best, sizeof best);
  return HK_SUCCESS;
}

static int check_procs(const geom_t *g, int nranks)
{
  char gl[80], pr[48];
  fmt_ll(gl, sizeof gl, g->dims, g->global);
  hk__cart_fmt_int(pr, sizeof pr, g->dims, g->procs);
  long long product = (long long)g->procs[0] * g->procs[1] * g->procs[2];
  if (product != nranks)
    return HK_ERROR(HK_ERR_ARG, "procs %s make %lld ranks, not %d", pr, product, nranks);
  if (!grid_fits(g, g->procs)) {
    long long smallest[3];
    char bl[80];
    for (int i = 0; i < 3; i++)
      smallest[i] = g->global[i] / g->procs[i];
    fmt_ll(bl, sizeof bl, g->dims, smallest);
    return HK_ERROR(HK_ERR_ARG, "grid %s is too small for %s ranks with halo width %d "
                                "(blocks of %s cells)",
                    gl, pr, g->w, bl);
  }
  return HK_SUCCESS;
}

int hk_cart_plan(const hk_cart_desc_t *desc, int nranks, const int *node_of_rank,
                 hk_cart_layout_t **layout)
{
  int err = HK_SUCCESS;
  hk_cart_layout_t *l = NULL;
  geom_t g;
  if (!layout)
    return HK_ERROR(HK_ERR_ARG, "layout is NULL");
  *layout = NULL;
  if (!desc || !node_of_rank)
    return HK_ERROR(HK_ERR_ARG, "desc and node_of_rank must not be NULL");
  if (nranks < 1)
    return HK_ERROR(HK_ERR_ARG, "%d ranks: must be >= 1", nranks);
  HK_TRY(err, hk__cart_geom_from_desc(desc, &g));
  if (g.procs[0] == 0)
    HK_TRY(err, choose_procs(&g, nranks));
  else
    HK_TRY(err, check_procs(&g, nranks));
  HK_ALLOC_TRY(err, l, 1);
  HK_ALLOC_TRY(err, l->rank_of_pos, nranks);
  HK_ALLOC_TRY(err, l->node_of_pos, nranks);
  l->dims = g.dims;
  l->nranks = nranks;
  memcpy(l->procs, g.procs, sizeof l->procs);
  l->map = desc->map;
  HK_TRY(err, hk__cart_map(&g, node_of_rank, l));
  *layout = l;
  l = NULL;
cleanup:
  hk_cart_layout_destroy(&l);
  return err;
}

void hk_cart_layout_destroy(hk_cart_layout_t **layout)
{
  if (!layout || !*layout)
    return;
  free((*layout)->rank_of_pos);
  free((*layout)->node_of_pos);
  free(*layout);
  *layout = NULL;
}

int hk_cart_surface(const hk_cart_desc_t *desc, const hk_cart_layout_t *layout,
                    hk_cart_surface_t *surface)
{
  int err = HK_SUCCESS, *links = NULL;
  geom_t g;
  if (!desc || !layout || !surface)
    return HK_ERROR(HK_ERR_ARG, "desc, layout and surface must not be NULL");
  HK_TRY(err, hk__cart_geom_from_desc(desc, &g));
  if (layout->dims != g.dims) {
    err = HK_ERROR(HK_ERR_ARG, "layout has %d dims, desc %d", layout->dims, g.dims);
    goto cleanup;
  }
  if (g.procs[0] != 0 && memcmp(g.procs, layout->procs, sizeof g.procs) != 0) {
    char a[48], b[48];
    hk__cart_fmt_int(a, sizeof a, g.dims, g.procs);
    hk__cart_fmt_int(b, sizeof b, g.dims, layout->procs);
    err = HK_ERROR(HK_ERR_ARG, "desc procs %s differ from the layout's %s", a, b);
    goto cleanup;
  }
  memcpy(g.procs, layout->procs, sizeof g.procs);
  if (g.procs[0] < 1 || g.procs[1] < 1 || g.procs[2] < 1 || layout->nnodes < 1 ||
      (long long)g.procs[0] * g.procs[1] * g.procs[2] != layout->nranks) {
    err = HK_ERROR(HK_ERR_ARG, "layout is inconsistent (procs vs %d ranks)", layout->nranks);
    goto cleanup;
  }
  HK_ALLOC_TRY(err, links, layout->nnodes);
  hk__cart_surface_of(&g, layout->node_of_pos, layout->nnodes, links, surface);
cleanup:
  free(links);
  return err;
}
