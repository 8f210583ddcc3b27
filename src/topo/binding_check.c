/* src/topo/binding_check.c: what a binding deserves to be warned about, as
 * likwid-pin users expect (issue 17), for reports of any size (issue 18):
 * cpusets are bitmaps (hk_binding_t.sets), hosts are told apart by hashing,
 * every check is linear in the entries (times PUs per entry).
 *
 * Per rank: threads sharing PUs (they time-slice), threads not pinned to one
 * core, threads spanning packages or NUMA domains, more cores than threads
 * (PE != threads).  Per host: two threads pinned inside one core (SMT
 * siblings, or the same PUs), more
 * threads than PUs (oversubscribed).  PUs are placed in cores, NUMA domains and
 * packages by the machine given (the report: rank 0's machine, the nodes are
 * assumed alike; a PU it does not know is in no core). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal/hk_internal.h"

#define BITS_PER_LONG ((int)(8 * sizeof(unsigned long)))

int hk__set_words(hwloc_const_bitmap_t set)
{
  int last = hwloc_bitmap_last(set);
  return last < 0 ? 1 : last / BITS_PER_LONG + 1;
}

void hk__binding_entry_set(const hk_binding_t *b, int i, hwloc_bitmap_t set)
{
  hwloc_bitmap_zero(set);
  for (int w = 0; w < b->set_words; w++)
    hwloc_bitmap_set_ith_ulong(set, (unsigned)w, b->sets[(size_t)i * b->set_words + w]);
}

void hk__binding_store_set(hk_binding_t *b, int i, hwloc_const_bitmap_t set)
{
  for (int w = 0; w < b->set_words; w++)
    b->sets[(size_t)i * b->set_words + w] = hwloc_bitmap_to_ith_ulong(set, (unsigned)w);
  char *s = b->entries[i].cpuset;
  size_t n = sizeof b->entries[i].cpuset;
  if (hwloc_bitmap_list_snprintf(s, n, set) >= (int)n)
    memcpy(s + n - 4, "...", 4);
}

static uint64_t fnv1a(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

int hk__binding_host_ids(const hk_binding_t *b, int *ids, int *nhosts)
{
  int err = HK_SUCCESS, cap = 16;
  int *slot = NULL; /* open addressing: entry index of the host's first entry, -1 empty */
  while (cap < 2 * b->nentries)
    cap *= 2;
  HK_ALLOC_TRY(err, slot, cap);
  memset(slot, -1, (size_t)cap * sizeof *slot);
  int *first_id = ids; /* ids of first entries are read back through ids[] */
  *nhosts = 0;
  for (int i = 0; i < b->nentries; i++) {
    const char *h = b->entries[i].host;
    size_t k = (size_t)(fnv1a(h) & (uint64_t)(cap - 1));
    while (slot[k] >= 0 && strcmp(b->entries[slot[k]].host, h) != 0)
      k = (k + 1) & (size_t)(cap - 1);
    if (slot[k] < 0) {
      slot[k] = i;
      ids[i] = (*nhosts)++;
    } else {
      ids[i] = first_id[slot[k]];
    }
  }
cleanup:
  free(slot);
  return err;
}

/* PU (OS index) -> core, NUMA domain, package (logical indexes, -1 none) */
typedef struct {
  int npu, ncore, nnuma, npack;
  int *core, *numa, *pack;
} pu_map_t;

static void fill(int *of, int npu, hwloc_const_bitmap_t set, int value)
{
  int p;
  hwloc_bitmap_foreach_begin(p, set)
  if (p < npu)
    of[p] = value;
  hwloc_bitmap_foreach_end();
}

static int pu_map(hwloc_topology_t topo, int npu, pu_map_t *m)
{
  int err = HK_SUCCESS;
  m->npu = npu;
  HK_ALLOC_TRY(err, m->core, npu);
  HK_ALLOC_TRY(err, m->numa, npu);
  HK_ALLOC_TRY(err, m->pack, npu);
  for (int p = 0; p < npu; p++)
    m->core[p] = m->numa[p] = m->pack[p] = -1;
  static const hwloc_obj_type_t types[3] = {HWLOC_OBJ_CORE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_PACKAGE};
  int *const of[3] = {m->core, m->numa, m->pack};
  int *const count[3] = {&m->ncore, &m->nnuma, &m->npack};
  for (int k = 0; k < 3; k++) {
    *count[k] = hwloc_get_nbobjs_by_type(topo, types[k]);
    for (int i = 0; i < *count[k]; i++)
      fill(of[k], npu, hwloc_get_obj_by_type(topo, types[k], (unsigned)i)->cpuset, i);
  }
cleanup:
  return err;
}

static void pu_map_free(pu_map_t *m)
{
  free(m->core);
  free(m->numa);
  free(m->pack);
}

/* distinct values of of[] over the PUs of set (-1 ignored); `mark` has room
 * for every value and is left zero; *first gets the first value */
static int distinct(const int *of, int npu, hwloc_const_bitmap_t set, char *mark, int *first)
{
  int n = 0, p;
  *first = -1;
  hwloc_bitmap_foreach_begin(p, set)
  if (p < npu && of[p] >= 0 && !mark[of[p]]) {
    mark[of[p]] = 1;
    if (n++ == 0)
      *first = of[p];
  }
  hwloc_bitmap_foreach_end();
  hwloc_bitmap_foreach_begin(p, set)
  if (p < npu && of[p] >= 0)
    mark[of[p]] = 0;
  hwloc_bitmap_foreach_end();
  return n;
}

static int warn_rank(hk_binding_t *b, const pu_map_t *pm, char *mark, int i, int j,
                     hwloc_bitmap_t u, hwloc_bitmap_t one)
{
  int err = HK_SUCCESS, unpinned = 0, first_unpinned = -1, loose_cores = 0, dummy;
  char list[128];
  const hk_binding_entry_t *e = &b->entries[i];
  hwloc_bitmap_zero(u);
  for (int k = i; k < j; k++) {
    hk__binding_entry_set(b, k, one);
    hwloc_bitmap_or(u, u, one);
    int nc = distinct(pm->core, pm->npu, one, mark, &dummy);
    if (nc > 1 && unpinned++ == 0) {
      first_unpinned = k;
      loose_cores = nc;
    }
  }
  int nthreads = j - i, npus = hwloc_bitmap_weight(u);
  hwloc_bitmap_list_snprintf(list, sizeof list, u);
  if (npus < nthreads)
    HK_TRY(err, hk__binding_add_warning(
                    b,
                    "rank %d on %s: %d threads share %d PU%s (%s) and time-slice; give each "
                    "thread its own core (mpirun --map-by slot:PE=%d --bind-to core, "
                    "OMP_PLACES=cores OMP_PROC_BIND=close)",
                    e->rank, e->host, nthreads, npus, npus == 1 ? "" : "s", list, nthreads));
  if (unpinned && pm->ncore > 1)
    HK_TRY(err, hk__binding_add_warning(
                    b,
                    "rank %d on %s: %d of %d thread%s not pinned (thread %d may run on %d cores, "
                    "PUs %s): the OS moves them between cores and caches; pin one thread per core "
                    "(OMP_PLACES=cores OMP_PROC_BIND=close, or --policy compact)",
                    e->rank, e->host, unpinned, nthreads, nthreads == 1 ? " is" : "s are",
                    b->entries[first_unpinned].thread, loose_cores,
                    b->entries[first_unpinned].cpuset));
  int first = -1, npack = distinct(pm->pack, pm->npu, u, mark + pm->npu, &first);
  int nnuma = distinct(pm->numa, pm->npu, u, mark + 2 * pm->npu, &first);
  if (npack > 1 || nnuma > 1)
    HK_TRY(err, hk__binding_add_warning(
                    b,
                    "rank %d on %s: its threads span %d %s (PUs %s): memory one thread "
                    "first-touches is remote for the others; place each rank inside one NUMA "
                    "domain (fewer threads per rank, or mpirun --map-by numa)",
                    e->rank, e->host, npack > 1 ? npack : nnuma,
                    npack > 1 ? "packages" : "NUMA domains", list));
  /* the cores the rank's threads may use, when the launcher bound the rank to
   * part of the machine: with threads pinned inside it this is only visible
   * to the dry run (hk_launch_map_compute warns there) */
  int ncores = distinct(pm->core, pm->npu, u, mark, &first);
  if (ncores > nthreads && ncores < pm->ncore)
    HK_TRY(err, hk__binding_add_warning(
                    b,
                    "rank %d on %s: %d thread%s on %d cores (PE=%d, PUs %s): %d core%s of the "
                    "rank stay idle; PE=%d (mpirun --map-by slot:PE=%d) gives one core per "
                    "thread",
                    e->rank, e->host, nthreads, nthreads == 1 ? "" : "s", ncores, ncores, list,
                    ncores - nthreads, ncores - nthreads == 1 ? "" : "s", nthreads, nthreads));
cleanup:
  return err;
}

/* per host: SMT siblings used by two threads, more threads than PUs */
static int warn_hosts(hk_binding_t *b, const pu_map_t *pm, const int *host, int nhosts,
                      hwloc_bitmap_t u, hwloc_bitmap_t one)
{
  int err = HK_SUCCESS;
  int *start = NULL, *order = NULL, *owner = NULL, *touched = NULL, ntouched = 0;
  char list[128];
  HK_ALLOC_TRY(err, start, nhosts + 1);
  HK_ALLOC_TRY(err, order, b->nentries);
  HK_ALLOC_TRY(err, owner, pm->ncore > 0 ? pm->ncore : 1);
  HK_ALLOC_TRY(err, touched, pm->ncore > 0 ? pm->ncore : 1);
  for (int i = 0; i < b->nentries; i++) /* counting sort of the entries by host */
    start[host[i] + 1]++;
  for (int h = 0; h < nhosts; h++)
    start[h + 1] += start[h];
  for (int i = 0; i < b->nentries; i++)
    order[start[host[i]]++] = i;
  for (int h = nhosts; h > 0; h--)
    start[h] = start[h - 1];
  start[0] = 0;
  for (int c = 0; c < pm->ncore; c++)
    owner[c] = -1;
  for (int h = 0; h < nhosts; h++) {
    int nthreads = start[h + 1] - start[h], smt = 0, a = -1, z = -1;
    hwloc_bitmap_zero(u);
    for (int k = start[h]; k < start[h + 1]; k++) {
      int i = order[k], c = -1, p;
      hk__binding_entry_set(b, i, one);
      hwloc_bitmap_or(u, u, one);
      /* a thread pinned inside one core, not to all of it */
      int inside = 1;
      hwloc_bitmap_foreach_begin(p, one)
      if (p >= pm->npu || pm->core[p] < 0 || (c >= 0 && pm->core[p] != c))
        inside = 0;
      else
        c = pm->core[p];
      hwloc_bitmap_foreach_end();
      if (!inside || c < 0)
        continue;
      if (owner[c] >= 0) {
        if (smt++ == 0) {
          a = owner[c];
          z = i;
        }
      } else if (owner[c] < 0) {
        owner[c] = i;
        touched[ntouched++] = c;
      }
    }
    while (ntouched > 0) /* reset the owners this host set */
      owner[touched[--ntouched]] = -1;
    const hk_binding_entry_t *eh = &b->entries[order[start[h]]];
    if (smt)
      HK_TRY(err, hk__binding_add_warning(
                      b,
                      "host %s: %d more thread%s on a core another thread is pinned to (rank %d "
                      "thread %d on PUs %s, rank %d thread %d on PUs %s): SMT siblings or the "
                      "same PUs share the core's execution units; one thread per core "
                      "(OMP_PLACES=cores)",
                      eh->host, smt, smt == 1 ? "" : "s", b->entries[a].rank, b->entries[a].thread,
                      b->entries[a].cpuset, b->entries[z].rank, b->entries[z].thread,
                      b->entries[z].cpuset));
    int npus = hwloc_bitmap_weight(u);
    if (npus < nthreads) {
      hwloc_bitmap_list_snprintf(list, sizeof list, u);
      HK_TRY(err, hk__binding_add_warning(b, "host %s: %d threads on %d PU%s (%s): oversubscribed",
                                          eh->host, nthreads, npus, npus == 1 ? "" : "s", list));
    }
  }
cleanup:
  free(start);
  free(order);
  free(owner);
  free(touched);
  return err;
}

int hk__binding_warnings(hk_binding_t *b, hwloc_topology_t topo)
{
  /* under SimGrid's SMPI every simulated rank is a thread of one process on this machine:
   * its binding is the host's, not the simulated node's, and warning about it (one "not
   * pinned" per rank) says nothing about the simulated run (issue 43) */
  if (HK_UNDER_SMPI)
    return HK_SUCCESS;
  int err = HK_SUCCESS, nhosts = 0;
  int *host = NULL;
  char *mark = NULL;
  pu_map_t pm = {0};
  hwloc_bitmap_t u = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc();
  if (!u || !one) {
    err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
    goto cleanup;
  }
  int npu = b->set_words * BITS_PER_LONG;
  int last = hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(topo));
  if (last + 1 > npu)
    npu = last + 1;
  HK_TRY(err, pu_map(topo, npu, &pm));
  HK_ALLOC_TRY(err, mark, 3 * (size_t)npu); /* cores, packages, NUMA domains < npu each */
  for (int i = 0; i < b->nentries;) {
    int j = i;
    while (j < b->nentries && b->entries[j].rank == b->entries[i].rank)
      j++;
    HK_TRY(err, warn_rank(b, &pm, mark, i, j, u, one));
    i = j;
  }
  HK_ALLOC_TRY(err, host, b->nentries);
  HK_TRY(err, hk__binding_host_ids(b, host, &nhosts));
  HK_TRY(err, warn_hosts(b, &pm, host, nhosts, u, one));
cleanup:
  pu_map_free(&pm);
  free(mark);
  free(host);
  hwloc_bitmap_free(u);
  hwloc_bitmap_free(one);
  return err;
}
