/* tests/unit/test_topo.c: machines from synthetic descriptions and XML, and the
 * rank/thread -> PU maps of compact and scatter (serial, no MPI_Init). */
#include <stdlib.h>
#include "hk_test.h"
#include "hybridkit.h"

static hk_binding_t *map_of(hk_machine_t *m, int ranks, int threads, int nodes, hk_bind_policy_t p,
                            int over, int expect)
{
  hk_binding_t *b = NULL;
  hk_launch_map_desc_t d = {.ranks = ranks, .threads = threads, .nodes = nodes, .policy = p,
                     .oversubscribe = over};
  CHECK_EQ_INT(hk_launch_map_compute(m, &d, &b), expect);
  return b;
}

/* expected cpusets of all entries, in rank-major order */
static void check_sets(const hk_binding_t *b, int n, const char *const *sets)
{
  CHECK(b != NULL);
  if (!b)
    return;
  CHECK_EQ_INT(b->nentries, n);
  for (int i = 0; i < n && i < b->nentries; i++)
    CHECK_STR(b->entries[i].cpuset, sets[i]);
}

static void test_info(void)
{
  hk_machine_t *m = NULL;
  hk_machine_info_t info;
  CHECK_EQ_INT(hk_machine_load("pack:2 numa:2 l3:1 core:4 pu:2", &m), HK_SUCCESS);
  CHECK_EQ_INT(hk_machine_info(m, &info), HK_SUCCESS);
  CHECK_EQ_INT(info.packages, 2);
  CHECK_EQ_INT(info.numa_nodes, 4);
  CHECK_EQ_INT(info.cores, 16);
  CHECK_EQ_INT(info.pus, 32);
  CHECK_EQ_INT(info.cache_levels, 1);
  CHECK_EQ_INT(info.cache[0].level, 3);
  CHECK_EQ_INT(info.cache[0].count, 4);
  CHECK_STR(info.source, "synthetic:pack:2 numa:2 l3:1 core:4 pu:2");
  int here = -1;
  CHECK_EQ_INT(hk_machine_is_this_system(m, &here), HK_SUCCESS);
  CHECK_EQ_INT(here, 0);
  CHECK_EQ_INT(hk_machine_is_this_system(NULL, &here), HK_ERR_ARG);
  FILE *f = tmpfile();
  CHECK_EQ_INT(hk_machine_print(m, f), HK_SUCCESS);
  char buf[8192] = "";
  rewind(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  CHECK_CONTAINS(buf, "2 package(s), 4 NUMA node(s), 16 core(s), 32 PU(s)");
  CHECK_CONTAINS(buf, "Package L#1");
  CHECK_CONTAINS(buf, "Core L#15 (P#15)  PUs P#30-31");
  hk_machine_destroy(&m);
  CHECK(m == NULL);
}

static void test_sources(const char *xml)
{
  hk_machine_t *m = NULL;
  hk_machine_info_t info;
  /* XML fixture: 2 packages x 4 cores x 2 PUs, exported by lstopo */
  CHECK_EQ_INT(hk_machine_load(xml, &m), HK_SUCCESS);
  CHECK_EQ_INT(hk_machine_info(m, &info), HK_SUCCESS);
  CHECK_EQ_INT(info.packages, 2);
  CHECK_EQ_INT(info.cores, 8);
  CHECK_EQ_INT(info.pus, 16);
  CHECK(strncmp(info.source, "xml:", 4) == 0);
  hk_machine_destroy(&m);
  /* HK_TOPOLOGY is used when no description is given */
  setenv("HK_TOPOLOGY", "pack:1 core:3 pu:1", 1);
  CHECK_EQ_INT(hk_machine_load(NULL, &m), HK_SUCCESS);
  CHECK_EQ_INT(hk_machine_info(m, &info), HK_SUCCESS);
  CHECK_EQ_INT(info.cores, 3);
  hk_machine_destroy(&m);
  unsetenv("HK_TOPOLOGY");
  /* the real machine */
  int here = -1;
  CHECK_EQ_INT(hk_machine_load(NULL, &m), HK_SUCCESS);
  CHECK_EQ_INT(hk_machine_info(m, &info), HK_SUCCESS);
  CHECK(info.cores >= 1 && info.pus >= info.cores);
  CHECK_EQ_INT(hk_machine_is_this_system(m, &here), HK_SUCCESS);
  CHECK_EQ_INT(here, 1);
  CHECK_STR(info.source, "this machine");
  hk_machine_info_t mine;
  hk_machine_destroy(&m);
  /* the process's own copy: the real machine even under HK_TOPOLOGY, loaded once */
  const hk_machine_t *t1 = NULL, *t2 = NULL;
  setenv("HK_TOPOLOGY", "pack:1 core:3 pu:1", 1);
  CHECK_EQ_INT(hk_machine_this(&t1), HK_SUCCESS);
  CHECK_EQ_INT(hk_machine_this(&t2), HK_SUCCESS);
  unsetenv("HK_TOPOLOGY");
  CHECK(t1 != NULL && t1 == t2);
  CHECK_EQ_INT(hk_machine_info(t1, &mine), HK_SUCCESS);
  CHECK_EQ_INT(mine.cores, info.cores);
  CHECK_EQ_INT(hk_machine_is_this_system(t1, &here), HK_SUCCESS);
  CHECK_EQ_INT(here, 1);
  CHECK_EQ_INT(hk_machine_this(NULL), HK_ERR_ARG);
  /* bad descriptions */
  CHECK_EQ_INT(hk_machine_load("pack:2 bogus:3", &m), HK_ERR_TOPOLOGY);
  CHECK_CONTAINS(hk_error_message(), "synthetic topology 'pack:2 bogus:3' does not parse");
  CHECK(m == NULL);
  CHECK_EQ_INT(hk_machine_load("pack:1 core:4", &m), HK_ERR_TOPOLOGY); /* last level must be pu */
  CHECK_EQ_INT(hk_machine_load("/nonexistent/machine.xml", &m), HK_ERR_TOPOLOGY);
  CHECK_CONTAINS(hk_error_message(), "/nonexistent/machine.xml");
}

static void test_maps(void)
{
  hk_machine_t *m = NULL;
  hk_binding_t *b;
  CHECK_EQ_INT(hk_machine_load("pack:2 core:4 pu:2", &m), HK_SUCCESS);

  /* 1 rank x 4 threads: compact fills package 0, scatter spreads over both */
  static const char *c14[] = {"0-1", "2-3", "4-5", "6-7"};
  b = map_of(m, 1, 4, 1, HK_BIND_COMPACT, 0, HK_SUCCESS);
  check_sets(b, 4, c14);
  /* the rank owns the node's 8 cores (PE=8): 4 stay idle (test_binding_warn.c has the rest) */
  CHECK_EQ_INT(b ? b->nwarnings : -1, 1);
  if (b && b->nwarnings == 1)
    CHECK_CONTAINS(b->warnings[0], "each rank owns PE=8 cores for 4 threads");
  hk_binding_destroy(&b);
  static const char *s14[] = {"0-1", "4-5", "8-9", "12-13"};
  b = map_of(m, 1, 4, 1, HK_BIND_SCATTER, 0, HK_SUCCESS);
  check_sets(b, 4, s14);
  hk_binding_destroy(&b);

  /* 2 ranks x 2 threads: each rank owns a package (4 cores) */
  static const char *c22[] = {"0-1", "2-3", "8-9", "10-11"};
  b = map_of(m, 2, 2, 1, HK_BIND_COMPACT, 0, HK_SUCCESS);
  check_sets(b, 4, c22);
  hk_binding_destroy(&b);
  static const char *s22[] = {"0-1", "4-5", "8-9", "12-13"};
  b = map_of(m, 2, 2, 1, HK_BIND_SCATTER, 0, HK_SUCCESS);
  check_sets(b, 4, s22);
  hk_binding_destroy(&b);

  /* 8 ranks x 1 thread: one core each, identical for both policies */
  static const char *c81[] = {"0-1", "2-3", "4-5", "6-7", "8-9", "10-11", "12-13", "14-15"};
  b = map_of(m, 8, 1, 1, HK_BIND_SCATTER, 0, HK_SUCCESS);
  check_sets(b, 8, c81);
  hk_binding_destroy(&b);

  /* none: every thread may run on the whole node */
  static const char *n12[] = {"0-15", "0-15"};
  b = map_of(m, 1, 2, 1, HK_BIND_NONE, 0, HK_SUCCESS);
  check_sets(b, 2, n12);
  hk_binding_destroy(&b);

  /* 2 nodes, 4 ranks x 4 threads: ranks 0,1 on node0, ranks 2,3 on node1 */
  b = map_of(m, 4, 4, 2, HK_BIND_COMPACT, 0, HK_SUCCESS);
  CHECK(b != NULL);
  if (b) {
    CHECK_EQ_INT(b->nentries, 16);
    CHECK_EQ_INT(b->entries[8].rank, 2);
    CHECK_EQ_INT(b->entries[8].node, 1);
    CHECK_STR(b->entries[8].host, "node1");
    CHECK_STR(b->entries[8].cpuset, "0-1");
    CHECK_STR(b->entries[15].cpuset, "14-15");
  }
  hk_binding_destroy(&b);

  /* too many threads for the cores: an error naming the numbers, or wrap-around + warnings */
  b = map_of(m, 3, 4, 1, HK_BIND_COMPACT, 0, HK_ERR_RESOURCES);
  CHECK(b == NULL);
  CHECK_CONTAINS(hk_error_message(), "3 ranks x 4 threads per node need 12 cores, the machine has 8");
  b = map_of(m, 3, 4, 1, HK_BIND_COMPACT, 1, HK_SUCCESS);
  CHECK(b != NULL);
  if (b) {
    CHECK_EQ_INT(b->nentries, 12);
    CHECK_STR(b->entries[8].cpuset, "0-1"); /* rank 2 wraps onto core 0 */
    CHECK(b->nwarnings >= 1);
    CHECK_CONTAINS(b->warnings[0], "oversubscribed: 3 ranks x 4 threads per node on 8 cores");
  }
  hk_binding_destroy(&b);

  /* more threads than PUs in one rank: the shared-PU warning */
  hk_machine_t *small = NULL;
  CHECK_EQ_INT(hk_machine_load("pack:1 core:2 pu:1", &small), HK_SUCCESS);
  b = map_of(small, 1, 3, 1, HK_BIND_COMPACT, 1, HK_SUCCESS);
  CHECK(b != NULL);
  if (b) {
    int found = 0;
    for (int i = 0; i < b->nwarnings; i++)
      found |= strstr(b->warnings[i], "rank 0 on node0: 3 threads share 2 PUs (0-1)") != NULL;
    CHECK(found);
  }
  hk_binding_destroy(&b);
  hk_machine_destroy(&small);

  /* bad input */
  b = map_of(m, 0, 1, 1, HK_BIND_COMPACT, 0, HK_ERR_ARG);
  b = map_of(m, 2, 0, 1, HK_BIND_COMPACT, 0, HK_ERR_ARG);
  b = map_of(m, 1, 1, 2, HK_BIND_COMPACT, 0, HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "2 nodes but only 1 ranks");
  hk_machine_destroy(&m);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_topo FIXTURE.xml\n");
    return 2;
  }
  test_info();
  test_sources(argv[1]);
  test_maps();
  return hk_test_report("test_topo");
}
