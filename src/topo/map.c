/* src/topo/map.c: the rank/thread -> PU map a launch would get (dry run).
 *
 * Model of `mpirun --map-by slot:PE=S --bind-to core` plus a thread policy:
 * ranks fill nodes in blocks of ceil(R/N); the node's cores are shared evenly,
 * S = max(T, cores / ranks per node), the k-th rank of a node owns cores
 * [k*S, (k+1)*S); inside those, its T threads are placed by policy (the same
 * code hk_bind_threads uses on the real machine).
 *
 *   machine "pack:2 core:4 pu:2" (8 cores), 1 rank x 4 threads:
 *     compact: threads on cores 0 1 2 3 (all in package 0, sharing its caches)
 *     scatter: threads on cores 0 2 4 6 (both packages: twice the memory bandwidth)
 *   2 ranks x 2 threads: S = 4, rank 0 owns cores 0-3, rank 1 cores 4-7
 */
#include <stdlib.h>
#include <string.h>
#include "internal/hk_internal.h"

static int share_of(int cores, int ranks_per_node, int threads)
{
  int s = ranks_per_node > 0 ? cores / ranks_per_node : cores;
  return s > threads ? s : threads;
}

int hk_launch_map_share(int cores, int ranks_per_node, int threads, int *share)
{
  if (!share || cores < 1 || ranks_per_node < 1 || threads < 1)
    return HK_ERROR(HK_ERR_ARG, "cores %d, ranks per node %d, threads %d: each must be >= 1 "
                    "(and share not NULL)", cores, ranks_per_node, threads);
  *share = share_of(cores, ranks_per_node, threads);
  return HK_SUCCESS;
}

static int check_map_desc(const hk_launch_map_desc_t *d)
{
  if (d->ranks < 1 || d->threads < 1 || d->nodes < 1)
    return HK_ERROR(HK_ERR_ARG, "ranks (%d), threads (%d) and nodes (%d) must be >= 1", d->ranks,
                    d->threads, d->nodes);
  if ((int)d->policy < 0 || (int)d->policy >= HK_BIND_POLICY_COUNT)
    return HK_ERROR(HK_ERR_ARG, "invalid binding policy %d", (int)d->policy);
  if (d->nodes > d->ranks)
    return HK_ERROR(HK_ERR_ARG, "%d nodes but only %d ranks: every node needs a rank", d->nodes,
                    d->ranks);
  return HK_SUCCESS;
}

int hk_launch_map_compute(const hk_machine_t *machine, const hk_launch_map_desc_t *d, hk_binding_t **map)
{
  int err = HK_SUCCESS, ncores = 0;
  hk_binding_t *b = NULL;
  hwloc_obj_t *cores = NULL;
  hwloc_bitmap_t rankset = hwloc_bitmap_alloc(), *sets = NULL;
  if (!machine || !d || !map)
    return HK_ERROR(HK_ERR_ARG, "machine, desc and map must not be NULL");
  *map = NULL;
  HK_TRY(err, check_map_desc(d));
  hwloc_topology_t topo = machine->topo;
  hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo);
  HK_TRY(err, hk__cores_in(topo, all, &cores, &ncores));
  int per_node = (d->ranks + d->nodes - 1) / d->nodes;
  int share = share_of(ncores, per_node, d->threads);
  long long need = (long long)per_node * d->threads;
  int oversubscribed = need > ncores;
  if (oversubscribed && !d->oversubscribe) {
    err = HK_ERROR(HK_ERR_RESOURCES,
                   "%d ranks x %d threads per node need %lld cores, the machine has %d "
                   "(oversubscribe to allow)",
                   per_node, d->threads, need, ncores);
    goto cleanup;
  }
  HK_ALLOC_TRY(err, b, 1);
  b->nentries = d->ranks * d->threads;
  b->set_words = hk__set_words(all);
  HK_ALLOC_TRY(err, b->entries, b->nentries);
  HK_ALLOC_TRY(err, b->sets, (long long)b->nentries * b->set_words);
  for (int r = 0; r < d->ranks; r++) {
    int node = r / per_node, k = r % per_node, wrapped = 0;
    hwloc_bitmap_zero(rankset);
    if (d->policy == HK_BIND_NONE) {
      hwloc_bitmap_copy(rankset, all);
    } else {
      for (int c = 0; c < share; c++)
        hwloc_bitmap_or(rankset, rankset, cores[(k * share + c) % ncores]->cpuset);
    }
    HK_TRY(err, hk__place_threads(topo, rankset, d->policy, d->threads, &sets, &wrapped));
    for (int t = 0; t < d->threads; t++) {
      hk_binding_entry_t *e = &b->entries[r * d->threads + t];
      e->rank = r;
      e->thread = t;
      e->node = node;
      e->cpu = -1;
      snprintf(e->host, sizeof e->host, "node%d", node);
      hk__binding_store_set(b, r * d->threads + t, sets[t]);
      hwloc_bitmap_free(sets[t]);
    }
    free(sets);
    sets = NULL;
  }
  if (oversubscribed)
    HK_TRY(err, hk__binding_add_warning(b, "oversubscribed: %d ranks x %d threads per node on %d cores",
                                        per_node, d->threads, ncores));
  if (d->policy != HK_BIND_NONE && share != d->threads && !oversubscribed)
    HK_TRY(err, hk__binding_add_warning(
                    b, "each rank owns PE=%d cores for %d thread%s (%d ranks per node on %d "
                    "cores): %d core%s per rank stay%s idle%s", share, d->threads,
                    d->threads == 1 ? "" : "s", per_node, ncores, share - d->threads,
                    share - d->threads == 1 ? "" : "s", share - d->threads == 1 ? "s" : "",
                    d->policy == HK_BIND_SCATTER ? " (scatter spreads the threads over them)"
                                                 : "; more threads per rank would use them"));
  HK_TRY(err, hk__binding_warnings(b, topo));
  *map = b;
  b = NULL;
cleanup:
  hk_binding_destroy(&b);
  free(cores);
  hwloc_bitmap_free(rankset);
  return err;
}
