/* tests/unit/test_binding_warn.c: the binding warnings likwid-pin users expect
 * (issue 17), on synthetic machines, from dry-run maps (hk_launch_map_compute) and
 * from hand-made reports (hk__binding_warnings, what rank 0 of
 * hk_binding_report runs), and the aggregation at scale (issue 18): 2048
 * entries of 1024 ranks on 128 virtual hosts.  Serial, no MPI_Init. */
#include <stdlib.h>
#include "hk_test.h"
#include "hybridkit.h"
#include "internal/hk_internal.h"

static int count_warnings(const hk_binding_t *b, const char *text)
{
  int n = 0;
  for (int i = 0; b && i < b->nwarnings; i++)
    n += strstr(b->warnings[i], text) != NULL;
  return n;
}

static void dump(const char *what, const hk_binding_t *b)
{
  for (int i = 0; b && i < b->nwarnings; i++)
    printf("# %s: %s\n", what, b->warnings[i]);
}

static hk_binding_t *dry(hk_machine_t *m, int ranks, int threads, hk_bind_policy_t p)
{
  hk_binding_t *b = NULL;
  hk_launch_map_desc_t d = {.ranks = ranks, .threads = threads, .nodes = 1, .policy = p};
  CHECK_EQ_INT(hk_launch_map_compute(m, &d, &b), HK_SUCCESS);
  return b;
}

/* a report by hand: entry k = {rank of[k], thread, host, PUs list[k]} */
static hk_binding_t *report(hwloc_topology_t topo, int n, const int *rank, const char *const *host,
                            const char *const *pus)
{
  hk_binding_t *b = calloc(1, sizeof *b);
  hwloc_bitmap_t s = hwloc_bitmap_alloc();
  b->nentries = n;
  b->set_words = hk__set_words(hwloc_topology_get_topology_cpuset(topo));
  b->entries = calloc((size_t)n, sizeof *b->entries);
  b->sets = calloc((size_t)n * (size_t)b->set_words, sizeof *b->sets);
  for (int k = 0; k < n; k++) {
    b->entries[k].rank = rank[k];
    b->entries[k].thread = k > 0 && rank[k - 1] == rank[k] ? b->entries[k - 1].thread + 1 : 0;
    snprintf(b->entries[k].host, sizeof b->entries[k].host, "%s", host[k]);
    hwloc_bitmap_list_sscanf(s, pus[k]);
    hk__binding_store_set(b, k, s);
  }
  hwloc_bitmap_free(s);
  CHECK_EQ_INT(hk__binding_warnings(b, topo), HK_SUCCESS);
  return b;
}

static hwloc_topology_t topo_of(const hk_machine_t *m) { return m->topo; }

static void test_dry_runs(void)
{
  hk_machine_t *m = NULL;
  hk_binding_t *b = NULL;
  CHECK_EQ_INT(hk_machine_load("pack:2 numa:2 core:4 pu:2", &m), HK_SUCCESS);

  /* a good layout: one rank per NUMA domain, one thread per core, PE = threads */
  b = dry(m, 4, 4, HK_BIND_COMPACT);
  dump("4x4 compact", b);
  CHECK_EQ_INT(b ? b->nwarnings : -1, 0);
  hk_binding_destroy(&b);
  b = dry(m, 16, 1, HK_BIND_COMPACT);
  CHECK_EQ_INT(b ? b->nwarnings : -1, 0);
  hk_binding_destroy(&b);

  /* the case: 2 x 6 puts rank 0 on cores 0-5 across NUMA 0 and 1,
   * rank 1 on cores 8-13 across NUMA 2 and 3; each rank owns PE=8 cores */
  b = dry(m, 2, 6, HK_BIND_COMPACT);
  dump("2x6 compact", b);
  CHECK_EQ_INT(count_warnings(b, "rank 0 on node0: its threads span 2 NUMA domains (PUs 0-11)"), 1);
  CHECK_EQ_INT(count_warnings(b, "rank 1 on node0: its threads span 2 NUMA domains (PUs 16-27)"), 1);
  CHECK_EQ_INT(count_warnings(b, "each rank owns PE=8 cores for 6 threads (2 ranks per node on 16 "
                                 "cores): 2 cores per rank stay idle"), 1);
  CHECK_EQ_INT(b ? b->nwarnings : -1, 3);
  hk_binding_destroy(&b);

  /* a rank across both packages: 1 x 12 compact (cores 0-11) */
  b = dry(m, 1, 12, HK_BIND_COMPACT);
  CHECK_EQ_INT(count_warnings(b, "rank 0 on node0: its threads span 2 packages (PUs 0-23)"), 1);
  hk_binding_destroy(&b);

  /* not pinned: 1 x 2 without a policy, each thread may run anywhere */
  b = dry(m, 1, 2, HK_BIND_NONE);
  dump("1x2 none", b);
  CHECK_EQ_INT(count_warnings(b, "rank 0 on node0: 2 of 2 threads are not pinned (thread 0 may run "
                                 "on 16 cores, PUs 0-31)"), 1);
  hk_binding_destroy(&b);
  hk_machine_destroy(&m);
}

static void test_reports(void)
{
  hk_machine_t *m = NULL;
  CHECK_EQ_INT(hk_machine_load("pack:2 numa:2 core:4 pu:2", &m), HK_SUCCESS);
  hwloc_topology_t t = topo_of(m);
  hk_binding_t *b;
  const char *h2[] = {"a", "a", "a", "a"};

  /* a good report: 2 ranks x 2 threads, a core each, inside NUMA domain 0 */
  const int r22[] = {0, 0, 1, 1};
  const char *good[] = {"0-1", "2-3", "4-5", "6-7"};
  b = report(t, 4, r22, h2, good);
  dump("good", b);
  CHECK_EQ_INT(b->nwarnings, 0);
  hk_binding_destroy(&b);

  /* SMT siblings: OMP_PLACES=threads puts threads 0 and 1 on PUs 0 and 1 of core 0 */
  const char *smt[] = {"0", "1", "4", "6"};
  b = report(t, 4, r22, h2, smt);
  dump("smt", b);
  CHECK_EQ_INT(count_warnings(b, "host a: 1 more thread on a core another thread is pinned to "
                                 "(rank 0 thread 0 on PUs 0, rank 0 thread 1 on PUs 1): SMT "
                                 "siblings"), 1);
  CHECK_EQ_INT(b->nwarnings, 1);
  hk_binding_destroy(&b);
  /* siblings used by two ranks count too */
  const char *smt2[] = {"2", "4", "3", "6"};
  b = report(t, 4, r22, h2, smt2);
  CHECK_EQ_INT(count_warnings(b, "(rank 0 thread 0 on PUs 2, rank 1 thread 0 on PUs 3)"), 1);
  hk_binding_destroy(&b);
  /* ... but not on different hosts */
  const char *hosts[] = {"a", "a", "b", "b"};
  b = report(t, 4, r22, hosts, smt2);
  CHECK_EQ_INT(b->nwarnings, 0);
  hk_binding_destroy(&b);

  /* a launcher's PE=4 for 2 threads that float inside it: unpinned, and 2 cores idle */
  const char *pe[] = {"0-7", "0-7", "8-15", "8-15"};
  b = report(t, 4, r22, h2, pe);
  dump("pe", b);
  CHECK_EQ_INT(count_warnings(b, "rank 0 on a: 2 of 2 threads are not pinned"), 1);
  CHECK_EQ_INT(count_warnings(b, "rank 1 on a: 2 threads on 4 cores (PE=4, PUs 8-15): 2 cores of "
                                 "the rank stay idle; PE=2"), 1);
  hk_binding_destroy(&b);

  /* threads sharing one PU, and a host oversubscribed */
  const int r13[] = {0, 0, 0};
  const char *one[] = {"5", "5", "5"};
  b = report(t, 3, r13, h2, one);
  CHECK_EQ_INT(count_warnings(b, "rank 0 on a: 3 threads share 1 PU (5)"), 1);
  CHECK_EQ_INT(count_warnings(b, "host a: 3 threads on 1 PU (5): oversubscribed"), 1);
  hk_binding_destroy(&b);
  hk_machine_destroy(&m);
}

/* 1024 ranks x 2 threads on 128 hosts (8 ranks each, one core per thread): no
 * warning; then one thread moved onto another's core: exactly that warning */
static void test_scale(void)
{
  enum { RANKS = 1024, THREADS = 2, PER_HOST = 8, N = RANKS * THREADS };
  hk_machine_t *m = NULL;
  CHECK_EQ_INT(hk_machine_load("pack:2 numa:2 core:4 pu:2", &m), HK_SUCCESS);
  int *rank = malloc(N * sizeof *rank);
  char **host = malloc(N * sizeof *host), **pus = malloc(N * sizeof *pus);
  for (int k = 0; k < N; k++) {
    int r = k / THREADS, t = k % THREADS, local = r % PER_HOST, core = local * THREADS + t;
    rank[k] = r;
    host[k] = malloc(32);
    pus[k] = malloc(32);
    snprintf(host[k], 32, "host%04d", r / PER_HOST);
    snprintf(pus[k], 32, "%d-%d", 2 * core, 2 * core + 1);
  }
  hk_binding_t *b = report(m->topo, N, rank, (const char *const *)host, (const char *const *)pus);
  CHECK_EQ_INT(b->nentries, N);
  dump("scale", b);
  CHECK_EQ_INT(b->nwarnings, 0);
  int *ids = malloc(N * sizeof *ids), nhosts = 0;
  CHECK_EQ_INT(hk__binding_host_ids(b, ids, &nhosts), HK_SUCCESS);
  CHECK_EQ_INT(nhosts, RANKS / PER_HOST);
  int bad = 0;
  for (int k = 0; k < N; k++)
    bad += ids[k] != k / (THREADS * PER_HOST);
  CHECK_EQ_INT(bad, 0);
  free(ids);
  hk_binding_destroy(&b);
  /* rank 1000 (host 125, local rank 0) thread 1 onto thread 0's core */
  snprintf(pus[2001], 32, "0-1");
  b = report(m->topo, N, rank, (const char *const *)host, (const char *const *)pus);
  dump("scale, one bad", b);
  CHECK_EQ_INT(count_warnings(b, "host host0125: 1 more thread on a core another thread is pinned "
                                 "to (rank 1000 thread 0 on PUs 0-1, rank 1000 thread 1 on PUs 0-1)"),
               1);
  CHECK_EQ_INT(b->nwarnings, 1);
  hk_binding_destroy(&b);
  for (int k = 0; k < N; k++) {
    free(host[k]);
    free(pus[k]);
  }
  free(rank);
  free(host);
  free(pus);
  hk_machine_destroy(&m);
}

int main(void)
{
  test_dry_runs();
  test_reports();
  test_scale();
  return hk_test_report("test_binding_warn");
}
