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
#include "internal/hk_internal.h"

static const char *const hk_map_names[] = {"sequential", "round-robin", "node-aware"};

/* The desc, checked and normalised (2D: z extent 1, procs[2] 1; w >= 1). */
typedef struct geom {
  int dims;
  long long global[3];
  int periodic[3];
  int procs[3];  /* all 0 when to be chosen */
  int w;
  hk_stencil_t stencil;
  int outer_first; /* ties: z split before y before x (else the larger Px) */
} geom_t;

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

static void coords_of(const int procs[3], int p, int c[3])
{
  c[0] = p % procs[0];
  c[1] = (p / procs[0]) % procs[1];
  c[2] = p / (procs[0] * procs[1]);
}

/* "8x8" / "8x8x8" */
static void fmt_ll(char *buf, size_t len, int dims, const long long v[3])
{
  if (dims == 3)
    snprintf(buf, len, "%lldx%lldx%lld", v[0], v[1], v[2]);
  else
    snprintf(buf, len, "%lldx%lld", v[0], v[1]);
}

static void fmt_int(char *buf, size_t len, int dims, const int v[3])
{
  const long long w[3] = {v[0], v[1], v[2]};
  fmt_ll(buf, len, dims, w);
}

static int geom_from_desc(const hk_cart_desc_t *d, geom_t *g)
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
    fmt_int(p, sizeof p, d->dims, d->procs);
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
  fmt_int(pr, sizeof pr, g->dims, g->procs);
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

/* Surface counts of a layout (node_of_pos over the procs of g); links is
 * scratch of nnodes ints. */
static void surface_of(const geom_t *g, const int *node_of_pos, int nnodes, int *links,
                       hk_cart_surface_t *s)
{
  const int *P = g->procs;
  int npos = P[0] * P[1] * P[2], noffsets = g->dims == 3 ? 27 : 9;
  memset(s, 0, sizeof *s);
  memset(links, 0, (size_t)nnodes * sizeof *links);
  for (int p = 0; p < npos; p++) {
    int c[3], n[3] = {1, 1, 1};
    coords_of(P, p, c);
    for (int i = 0; i < g->dims; i++)
      hk_cart_block_range(g->global[i], P[i], c[i], NULL, &n[i]);
    for (int o = 0; o < noffsets; o++) {
      int d[3] = {o % 3 - 1, o / 3 % 3 - 1, g->dims == 3 ? o / 9 - 1 : 0}, q[3], nonzero = 0;
      int exists = 1;
      long long bytes = 8;
      for (int i = 0; i < 3; i++) {
        nonzero += d[i] != 0;
        q[i] = c[i] + d[i];
        if (q[i] < 0 || q[i] >= P[i]) {
          if (!g->periodic[i])
            exists = 0;
          q[i] = (q[i] + P[i]) % P[i];
        }
        if (i < g->dims)
          bytes *= d[i] == 0 ? n[i] : g->w;
      }
      if (nonzero == 0 || !exists || (g->stencil == HK_STENCIL_FACES && nonzero != 1))
        continue;
      int qp = q[0] + P[0] * (q[1] + P[1] * q[2]);
      if (qp == p) {
        s->self_bytes += bytes;
        s->self_msgs++;
      } else if (node_of_pos[qp] == node_of_pos[p]) {
        s->intra_bytes += bytes;
        s->intra_msgs++;
      } else {
        s->inter_bytes += bytes;
        s->inter_msgs++;
        links[node_of_pos[p]]++;
      }
    }
  }
  s->max_node_links = s->min_node_links = links[0];
  for (int k = 1; k < nnodes; k++) {
    if (links[k] > s->max_node_links)
      s->max_node_links = links[k];
    if (links[k] < s->min_node_links)
      s->min_node_links = links[k];
  }
}

/* Node-aware placement for local grid L: node of each position and its rank
 * (members[first[k] + i] is the i-th rank of node k). */
static void place_node_aware(const geom_t *g, const int L[3], const int *members, const int *first,
                             int *rank_of_pos, int *node_of_pos)
{
  const int *P = g->procs;
  int N[3] = {P[0] / L[0], P[1] / L[1], P[2] / L[2]};
  for (int p = 0; p < P[0] * P[1] * P[2]; p++) {
    int c[3];
    coords_of(P, p, c);
    int node = c[0] / L[0] + N[0] * (c[1] / L[1] + N[1] * (c[2] / L[2]));
    int local = c[0] % L[0] + L[0] * (c[1] % L[1] + L[1] * (c[2] % L[2]));
    node_of_pos[p] = node;
    rank_of_pos[p] = members[first[node] + local];
  }
}

/* The best local grid of `per_node` ranks (L[0] = 0 when none divides procs). */
static int choose_local_grid(const geom_t *g, hk_cart_layout_t *l, int per_node, const int *members,
                             const int *first, int L[3])
{
  int err = HK_SUCCESS, *links = NULL;
  hk_cart_surface_t best = {0}, s;
  HK_ALLOC_TRY(err, links, l->nnodes);
  L[0] = L[1] = L[2] = 0;
  for (int lx = 1; lx <= per_node; lx++) {
    if (per_node % lx || g->procs[0] % lx)
      continue;
    int rest = per_node / lx;
    for (int ly = 1; ly <= rest; ly++) {
      if (rest % ly || g->procs[1] % ly || (g->dims == 2 && ly != rest))
        continue;
      int cand[3] = {lx, ly, rest / ly};
      if (g->procs[2] % cand[2])
        continue;
      place_node_aware(g, cand, members, first, l->rank_of_pos, l->node_of_pos);
      surface_of(g, l->node_of_pos, l->nnodes, links, &s);
      if (L[0] == 0 || s.inter_bytes < best.inter_bytes ||
          (s.inter_bytes == best.inter_bytes && s.max_node_links < best.max_node_links)) {
        memcpy(L, cand, sizeof cand);
        best = s;
      }
    }
  }
cleanup:
  free(links);
  return err;
}

/* "(3, 1)": the node sizes, the first few of them. */
static void fmt_sizes(char *buf, size_t len, const int *count, int nnodes)
{
  size_t used = (size_t)snprintf(buf, len, "(");
  for (int k = 0; k < nnodes && used < len; k++) {
    if (k == 8) {
      used += (size_t)snprintf(buf + used, len - used, ", ...");
      break;
    }
    used += (size_t)snprintf(buf + used, len - used, k ? ", %d" : "%d", count[k]);
  }
  if (used < len)
    snprintf(buf + used, len - used, ")");
}

int hk_cart_plan(const hk_cart_desc_t *desc, int nranks, const int *node_of_rank,
                 hk_cart_layout_t **layout)
{
  int err = HK_SUCCESS, *count = NULL, *first = NULL, *members = NULL, *fill = NULL;
  hk_cart_layout_t *l = NULL;
  geom_t g;
  if (!layout)
    return HK_ERROR(HK_ERR_ARG, "layout is NULL");
  *layout = NULL;
  if (!desc || !node_of_rank)
    return HK_ERROR(HK_ERR_ARG, "desc and node_of_rank must not be NULL");
  if (nranks < 1)
    return HK_ERROR(HK_ERR_ARG, "%d ranks: must be >= 1", nranks);
  HK_TRY(err, geom_from_desc(desc, &g));
  if (g.procs[0] == 0)
    HK_TRY(err, choose_procs(&g, nranks));
  else
    HK_TRY(err, check_procs(&g, nranks));

  int nnodes = 0;
  for (int r = 0; r < nranks; r++) {
    if (node_of_rank[r] < 0 || node_of_rank[r] >= nranks) {
      err = HK_ERROR(HK_ERR_ARG, "node %d of rank %d: must be in 0..%d", node_of_rank[r], r,
                     nranks - 1);
      goto cleanup;
    }
    if (node_of_rank[r] >= nnodes)
      nnodes = node_of_rank[r] + 1;
  }
  HK_ALLOC_TRY(err, l, 1);
  HK_ALLOC_TRY(err, l->rank_of_pos, nranks);
  HK_ALLOC_TRY(err, l->node_of_pos, nranks);
  l->dims = g.dims;
  l->nranks = nranks;
  l->nnodes = nnodes;
  memcpy(l->procs, g.procs, sizeof l->procs);
  l->map = desc->map;
  l->map_used = HK_CART_MAP_SEQUENTIAL;

  /* ranks of every node in increasing order: members[first[k] .. first[k] + count[k]) */
  HK_ALLOC_TRY(err, count, nnodes);
  HK_ALLOC_TRY(err, first, nnodes + 1);
  HK_ALLOC_TRY(err, fill, nnodes);
  HK_ALLOC_TRY(err, members, nranks);
  for (int r = 0; r < nranks; r++)
    count[node_of_rank[r]]++;
  for (int k = 0; k < nnodes; k++)
    first[k + 1] = first[k] + count[k];
  for (int r = 0; r < nranks; r++) {
    int k = node_of_rank[r];
    members[first[k] + fill[k]++] = r;
  }
  int equal = 1;
  for (int k = 1; k < nnodes; k++)
    equal = equal && count[k] == count[0];

  char sizes[96];
  fmt_sizes(sizes, sizeof sizes, count, nnodes);
  if (desc->map == HK_CART_MAP_ROUND_ROBIN) {
    if (equal) {
      for (int p = 0; p < nranks; p++)
        l->rank_of_pos[p] = members[first[p % nnodes] + p / nnodes];
      l->map_used = HK_CART_MAP_ROUND_ROBIN;
    } else {
      snprintf(l->note, sizeof l->note, "round-robin needs equal node sizes %s: using sequential",
               sizes);
    }
  } else if (desc->map == HK_CART_MAP_NODE_AWARE) {
    int L[3] = {0, 0, 0};
    if (!equal) {
      snprintf(l->note, sizeof l->note, "node-aware needs equal node sizes %s: using sequential",
               sizes);
    } else {
      HK_TRY(err, choose_local_grid(&g, l, count[0], members, first, L));
      /* a guard: with equal node sizes some grid always fits (Lx = gcd(L, Px),
       * Ly = gcd(L / Lx, Py), Lz = the rest divides Pz) */
      if (L[0] == 0) {
        char pr[48];
        fmt_int(pr, sizeof pr, g.dims, g.procs);
        snprintf(l->note, sizeof l->note,
                 "node-aware: no grid of %d ranks per node divides the %s process grid: "
                 "using sequential",
                 count[0], pr);
      }
    }
    if (L[0] > 0) {
      place_node_aware(&g, L, members, first, l->rank_of_pos, l->node_of_pos);
      for (int i = 0; i < 3; i++) {
        l->local_procs[i] = L[i];
        l->node_procs[i] = g.procs[i] / L[i];
      }
      l->map_used = HK_CART_MAP_NODE_AWARE;
    }
  }
  if (l->map_used == HK_CART_MAP_SEQUENTIAL)
    for (int p = 0; p < nranks; p++)
      l->rank_of_pos[p] = p;
  for (int p = 0; p < nranks; p++)
    l->node_of_pos[p] = node_of_rank[l->rank_of_pos[p]];
  *layout = l;
  l = NULL;
cleanup:
  hk_cart_layout_destroy(&l);
  free(count);
  free(first);
  free(fill);
  free(members);
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
  HK_TRY(err, geom_from_desc(desc, &g));
  if (layout->dims != g.dims) {
    err = HK_ERROR(HK_ERR_ARG, "layout has %d dims, desc %d", layout->dims, g.dims);
    goto cleanup;
  }
  if (g.procs[0] != 0 && memcmp(g.procs, layout->procs, sizeof g.procs) != 0) {
    char a[48], b[48];
    fmt_int(a, sizeof a, g.dims, g.procs);
    fmt_int(b, sizeof b, g.dims, layout->procs);
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
  surface_of(&g, layout->node_of_pos, layout->nnodes, links, surface);
cleanup:
  free(links);
  return err;
}
