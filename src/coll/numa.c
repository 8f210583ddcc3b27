/* src/coll/numa.c: NUMA-aware chunk order of chunked-shifted (issue 39).
 *
 *   chunk c of the buffer lies (mostly) on NUMA domain chunk_dom[c];
 *   thread t of the team runs on a core of domain thread_dom[t]
 *   -> thread t takes chunk of[t]: one on its own domain where there is one
 *
 * The chunk still goes to communicator c with the same arguments, whichever thread
 * runs it, so results are bitwise the same (also for non-commutative ops: only
 * which thread makes the call changes, never the order of the operands).
 *
 * hk__numa_assign is pure (tested with injected maps, tests/unit/test_coll_numa.c);
 * the domains come from hwloc through hk_mem_where (pages: move_pages or hwloc) and
 * hwloc_get_last_cpu_location (threads).  On a machine with one NUMA domain nothing
 * is queried and the order is the identity.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include "coll/coll_internal.h"
#include "hybridkit/mem.h"

void hk__numa_assign(int n, const int *chunk_dom, const int *thread_dom, int *of)
{
  unsigned char used[HK_COLL_MAX_THREADS] = {0};
  if (n > HK_COLL_MAX_THREADS)
    n = HK_COLL_MAX_THREADS;
  /* pass 1: every thread in order the lowest free chunk of its own domain (greedy is
   * a maximum matching here: a thread matches exactly the chunks of one domain) */
  for (int t = 0; t < n; t++) {
    of[t] = -1;
    for (int c = 0; c < n && thread_dom[t] >= 0; c++)
      if (!used[c] && chunk_dom[c] == thread_dom[t]) {
        of[t] = c;
        used[c] = 1;
        break;
      }
  }
  /* pass 2: the threads left over take the chunks left over, in increasing order */
  for (int t = 0, c = 0; t < n; t++) {
    if (of[t] >= 0)
      continue;
    while (used[c])
      c++;
    of[t] = c;
    used[c] = 1;
  }
}

int hk__numa_nodes(void)
{
  static atomic_int nodes; /* 0: not known yet */
  int n = atomic_load(&nodes);
  if (n == 0) {
    hk_machine_t *m = NULL;
    n = 1;
#pragma omp critical(hk_numa_machine)
    if (hk__real_machine(&m) == HK_SUCCESS) {
      int k = hwloc_get_nbobjs_by_type(m->topo, HWLOC_OBJ_NUMANODE);
      n = k > 1 ? k : 1;
    }
    atomic_store(&nodes, n);
  }
  return n;
}

void hk__numa_chunk_domains(const char *buf, long long count, MPI_Aint extent, int nchunks,
                            int *dom)
{
  int nodes = hk__numa_nodes();
  long long pages[HK_COLL_MAX_THREADS], gran = hk__chunk_granularity(extent);
  for (int c = 0; c < nchunks; c++) {
    long long lo, n, unknown = 0;
    dom[c] = -1;
    hk__chunk_range(count, gran, nchunks, c, &lo, &n);
    if (n <= 0 || nodes > HK_COLL_MAX_THREADS ||
        hk_mem_where(buf + lo * extent, (size_t)(n * extent), NULL, pages, nodes, &unknown) !=
            HK_SUCCESS)
      continue;
    for (int d = 0; d < nodes; d++)
      if (pages[d] > 0 && (dom[c] < 0 || pages[d] > pages[dom[c]]))
        dom[c] = d;
  }
}

int hk__numa_thread_domain(void)
{
  hk_machine_t *m = NULL;
  int dom = -1;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set)
    return -1;
#pragma omp critical(hk_numa_machine)
  if (hk__real_machine(&m) != HK_SUCCESS)
    m = NULL;
  if (m && hwloc_get_last_cpu_location(m->topo, set, HWLOC_CPUBIND_THREAD) == 0) {
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(m->topo, (unsigned)hwloc_bitmap_first(set));
    int os = pu && pu->nodeset ? hwloc_bitmap_first(pu->nodeset) : -1;
    hwloc_obj_t node = os >= 0 ? hwloc_get_numanode_obj_by_os_index(m->topo, (unsigned)os) : NULL;
    dom = node ? (int)node->logical_index : -1;
  }
  hwloc_bitmap_free(set);
  return dom;
}
