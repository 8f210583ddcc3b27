/* src/cart/mapping.c: which rank holds every position of the process grid, by the
 * desc's map (sequential, round-robin over the nodes, node-aware blocks), and the halo
 * surface counts the node-aware choice minimises; without MPI (see layout.c's picture). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cart/cart_internal.h"

static void coords_of(const int procs[3], int p, int c[3])
{
  c[0] = p % procs[0];
  c[1] = (p / procs[0]) % procs[1];
  c[2] = p / (procs[0] * procs[1]);
}

/* Surface counts of a layout (node_of_pos over the procs of g); links is
 * scratch of nnodes ints. */
void hk__cart_surface_of(const geom_t *g, const int *node_of_pos, int nnodes, int *links,
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
      hk__cart_surface_of(g, l->node_of_pos, l->nnodes, links, &s);
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

/* the ranks of every node in increasing order: members[first[k] .. first[k] + count[k]) */
typedef struct node_groups {
  int nnodes, equal;  /* equal: every node has count[0] ranks */
  int *count, *first, *members;
} node_groups_t;

static void groups_free(node_groups_t *ng)
{
  free(ng->count);
  free(ng->first);
  free(ng->members);
}

static int group_by_node(int nranks, const int *node_of_rank, node_groups_t *ng)
{
  int err = HK_SUCCESS, *fill = NULL;
  for (int r = 0; r < nranks; r++) {
    if (node_of_rank[r] < 0 || node_of_rank[r] >= nranks)
      return HK_ERROR(HK_ERR_ARG, "node %d of rank %d: must be in 0..%d", node_of_rank[r], r,
                      nranks - 1);
    if (node_of_rank[r] >= ng->nnodes)
      ng->nnodes = node_of_rank[r] + 1;
  }
  HK_ALLOC_TRY(err, ng->count, ng->nnodes);
  HK_ALLOC_TRY(err, ng->first, ng->nnodes + 1);
  HK_ALLOC_TRY(err, fill, ng->nnodes);
  HK_ALLOC_TRY(err, ng->members, nranks);
  for (int r = 0; r < nranks; r++)
    ng->count[node_of_rank[r]]++;
  for (int k = 0; k < ng->nnodes; k++)
    ng->first[k + 1] = ng->first[k] + ng->count[k];
  for (int r = 0; r < nranks; r++) {
    int k = node_of_rank[r];
    ng->members[ng->first[k] + fill[k]++] = r;
  }
  ng->equal = 1;
  for (int k = 1; k < ng->nnodes; k++)
    ng->equal = ng->equal && ng->count[k] == ng->count[0];
cleanup:
  free(fill);
  return err;
}

/* position p on node p mod nnodes (equal node sizes), else a note */
static void map_round_robin(hk_cart_layout_t *l, const node_groups_t *ng, const char *sizes)
{
  if (!ng->equal) {
    snprintf(l->note, sizeof l->note, "round-robin needs equal node sizes %s: using sequential",
             sizes);
    return;
  }
  for (int p = 0; p < l->nranks; p++)
    l->rank_of_pos[p] = ng->members[ng->first[p % ng->nnodes] + p / ng->nnodes];
  l->map_used = HK_CART_MAP_ROUND_ROBIN;
}

/* each node a block of the process grid (the local grid of the least inter-node surface),
 * else a note */
static int map_node_aware(const geom_t *g, hk_cart_layout_t *l, const node_groups_t *ng,
                          const char *sizes)
{
  int err = HK_SUCCESS, L[3] = {0, 0, 0};
  if (!ng->equal) {
    snprintf(l->note, sizeof l->note, "node-aware needs equal node sizes %s: using sequential",
             sizes);
    return HK_SUCCESS;
  }
  HK_TRY(err, choose_local_grid(g, l, ng->count[0], ng->members, ng->first, L));
  /* a guard: with equal node sizes some grid always fits (Lx = gcd(L, Px),
   * Ly = gcd(L / Lx, Py), Lz = the rest divides Pz) */
  if (L[0] == 0) {
    char pr[48];
    hk__cart_fmt_int(pr, sizeof pr, g->dims, g->procs);
    snprintf(l->note, sizeof l->note,
             "node-aware: no grid of %d ranks per node divides the %s process grid: "
             "using sequential",
             ng->count[0], pr);
    return HK_SUCCESS;
  }
  place_node_aware(g, L, ng->members, ng->first, l->rank_of_pos, l->node_of_pos);
  for (int i = 0; i < 3; i++) {
    l->local_procs[i] = L[i];
    l->node_procs[i] = g->procs[i] / L[i];
  }
  l->map_used = HK_CART_MAP_NODE_AWARE;
cleanup:
  return err;
}

/* l->rank_of_pos, l->node_of_pos, l->nnodes and the map used (a note when the map asked
 * for fell back to sequential) */
int hk__cart_map(const geom_t *g, const int *node_of_rank, hk_cart_layout_t *l)
{
  int err = HK_SUCCESS;
  node_groups_t ng = {0};
  HK_TRY(err, group_by_node(l->nranks, node_of_rank, &ng));
  l->nnodes = ng.nnodes;
  l->map_used = HK_CART_MAP_SEQUENTIAL;
  char sizes[96];
  fmt_sizes(sizes, sizeof sizes, ng.count, ng.nnodes);
  if (l->map == HK_CART_MAP_ROUND_ROBIN)
    map_round_robin(l, &ng, sizes);
  else if (l->map == HK_CART_MAP_NODE_AWARE)
    HK_TRY(err, map_node_aware(g, l, &ng, sizes));
  if (l->map_used == HK_CART_MAP_SEQUENTIAL)
    for (int p = 0; p < l->nranks; p++)
      l->rank_of_pos[p] = p;
  for (int p = 0; p < l->nranks; p++)
    l->node_of_pos[p] = node_of_rank[l->rank_of_pos[p]];
cleanup:
  groups_free(&ng);
  return err;
}
