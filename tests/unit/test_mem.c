/* tests/unit/test_mem.c: locations and page placement (issue 23), serial, no MPI_Init.
 *
 * The maps (locations of synthetic machines, thread -> location blocks, nested
 * inheritance, page -> location of every policy) are checked against hand-computed
 * values and brute-force counts; the real calls (binding, allocation, page queries,
 * migration) on this machine, whose pages must be where the map says. */
#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "hk_test.h"
#include "hybridkit.h"

static hk_locations_t *locs_of(const char *desc, hk_loc_kind_t kind, int nlocs)
{
  hk_machine_t *m = NULL;
  hk_locations_t *l = NULL;
  CHECK_EQ_INT(hk_machine_load(desc, &m), HK_SUCCESS);
  hk_locations_desc_t d = {.kind = kind, .nlocs = nlocs};
  CHECK_EQ_INT(hk_locations_create(m, &d, &l), HK_SUCCESS);
  hk_machine_destroy(&m);   /* the locations keep what they need */
  return l;
}

static void check_loc(const hk_locations_t *l, int loc, const char *cpus, const char *nodes)
{
  hk_location_info_t info;
  CHECK_EQ_INT(hk_locations_info(l, loc, &info), HK_SUCCESS);
  CHECK_STR(info.cpuset, cpus);
  CHECK_STR(info.nodeset, nodes);
}

static void test_locations(const char *xml)
{
  int n = -1;
  hk_locations_t *l = locs_of("pack:2 numa:2 core:4 pu:1", HK_LOC_NUMA, 0);
  CHECK_EQ_INT(hk_locations_count(l, &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 4);
  check_loc(l, 0, "0-3", "0");
  check_loc(l, 3, "12-15", "3");
  hk_location_info_t info;
  CHECK_EQ_INT(hk_locations_info(l, 4, &info), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "location 4 out of range (4 location(s): 0..3)");
  hk_locations_destroy(&l);
  CHECK(l == NULL);
  /* packages: two NUMA nodes each */
  l = locs_of("pack:2 numa:2 core:4 pu:1", HK_LOC_PACKAGE, 0);
  CHECK_EQ_INT(hk_locations_count(l, &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 2);
  check_loc(l, 1, "8-15", "2-3");
  CHECK_EQ_INT(hk_locations_info(l, 1, &info), HK_SUCCESS);
  CHECK_EQ_INT(info.nnuma, 2);
  CHECK_EQ_INT(info.numa_first, 2);
  CHECK_EQ_INT(info.npus, 8);
  hk_locations_destroy(&l);
  /* L3 domains: two per NUMA node share its memory */
  l = locs_of("pack:1 numa:2 l3:2 core:2 pu:2", HK_LOC_L3, 0);
  CHECK_EQ_INT(hk_locations_count(l, &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 4);
  check_loc(l, 2, "8-11", "1");
  hk_locations_destroy(&l);
  /* fewer locations than NUMA nodes: blocks of them; more: shared */
  l = locs_of("pack:2 numa:2 core:4 pu:1", HK_LOC_NUMA, 2);
  check_loc(l, 0, "0-7", "0-1");
  check_loc(l, 1, "8-15", "2-3");
  hk_locations_destroy(&l);
  l = locs_of("pack:2 numa:2 core:4 pu:1", HK_LOC_NUMA, 8);
  check_loc(l, 0, "0-3", "0");
  check_loc(l, 1, "0-3", "0");
  check_loc(l, 7, "12-15", "3");
  hk_locations_destroy(&l);
  /* HK_NUM_LOCS, and HK_TOPOLOGY for a NULL machine */
  setenv("HK_NUM_LOCS", "2", 1);
  setenv("HK_TOPOLOGY", "pack:2 numa:2 core:4 pu:1", 1);
  CHECK_EQ_INT(hk_locations_create(NULL, NULL, &l), HK_SUCCESS);
  CHECK_EQ_INT(hk_locations_count(l, &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 2);
  check_loc(l, 1, "8-15", "2-3");
  hk_locations_destroy(&l);
  setenv("HK_NUM_LOCS", "two", 1);
  CHECK_EQ_INT(hk_locations_create(NULL, NULL, &l), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "HK_NUM_LOCS=two is not a positive integer");
  CHECK(l == NULL);
  unsetenv("HK_NUM_LOCS");
  unsetenv("HK_TOPOLOGY");
  /* the XML fixture: two sockets, one NUMA node each */
  l = locs_of(xml, HK_LOC_NUMA, 0);
  CHECK_EQ_INT(hk_locations_count(l, &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 2);
  check_loc(l, 1, "8-15", "1");
  hk_locations_destroy(&l);
  hk_loc_kind_t k;
  CHECK_EQ_INT(hk_loc_kind_parse("l3", &k), HK_SUCCESS);
  CHECK_EQ_INT(k, HK_LOC_L3);
  CHECK_EQ_INT(hk_loc_kind_parse("socket", &k), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "unknown location kind 'socket' (numa, package, l3)");
  CHECK_STR(hk_loc_kind_name(HK_LOC_PACKAGE), "package");
}

static void test_threads(void)
{
  hk_locations_t *l = locs_of("pack:2 numa:4 core:2 pu:1", HK_LOC_NUMA, 0);   /* 8 locations */
  /* Jin et al.: location(0:3) num_threads(16): threads 0-3 on 0, 4-7 on 1, ... */
  hk_loc_range_t r03 = {0, 4};
  int loc = -1;
  for (int t = 0; t < 16; t++) {
    CHECK_EQ_INT(hk_locations_thread(l, &r03, 16, t, &loc), HK_SUCCESS);
    CHECK_EQ_INT(loc, t / 4);
  }
  /* every team size on every range: blocks of sizes differing by at most one, in order,
   * each location used when there are enough threads, threads_on the inverse */
  for (int first = 0; first < 8; first++)
    for (int cnt = 1; first + cnt <= 8; cnt++)
      for (int T = 1; T <= 20; T++) {
        hk_loc_range_t r = {first, cnt};
        int per[8] = {0}, prev = first, ok = 1;
        for (int t = 0; t < T; t++) {
          ok &= hk_locations_thread(l, &r, T, t, &loc) == HK_SUCCESS;
          ok &= loc >= prev && loc < first + cnt;
          prev = loc;
          per[loc]++;
        }
        int lo = T, hi = 0, sum = 0;
        for (int k = first; k < first + cnt; k++) {
          int ft = -1, c = -1;
          ok &= hk_locations_threads_on(l, &r, T, k, &ft, &c) == HK_SUCCESS;
          ok &= c == per[k];
          for (int t = ft; t < ft + c; t++)
            ok &= hk_locations_thread(l, &r, T, t, &loc) == HK_SUCCESS && loc == k;
          lo = per[k] < lo ? per[k] : lo;
          hi = per[k] > hi ? per[k] : hi;
          sum += c;
        }
        ok &= sum == T && hi - lo <= 1;
        if (!ok)
          fprintf(stderr, "range %d..%d, %d threads\n", first, first + cnt - 1, T);
        CHECK(ok);
      }
  /* {first, 0}: first .. the last location */
  hk_loc_range_t tail = {5, 0};
  CHECK_EQ_INT(hk_locations_thread(l, &tail, 3, 2, &loc), HK_SUCCESS);
  CHECK_EQ_INT(loc, 7);
  /* impossible requests */
  hk_loc_range_t bad = {6, 3};
  CHECK_EQ_INT(hk_locations_thread(l, &bad, 4, 0, &loc), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "locations 6..8 out of range (8 location(s): 0..7)");
  hk_loc_range_t neg = {-1, 1};
  CHECK_EQ_INT(hk_locations_thread(l, &neg, 4, 0, &loc), HK_ERR_ARG);
  CHECK_EQ_INT(hk_locations_thread(l, NULL, 4, 4, &loc), HK_ERR_ARG);
  int ft, c;
  CHECK_EQ_INT(hk_locations_threads_on(l, &r03, 4, 5, &ft, &c), HK_ERR_ARG);
  /* nested: without a clause the parent thread's location, with one the clause */
  hk_loc_range_t child;
  CHECK_EQ_INT(hk_locations_nested(l, NULL, 16, 5, NULL, &child), HK_SUCCESS);
  CHECK_EQ_INT(child.first, 2);   /* 16 threads on 8 locations: thread 5 on location 2 */
  CHECK_EQ_INT(child.count, 1);
  hk_loc_range_t clause = {6, 0};
  CHECK_EQ_INT(hk_locations_nested(l, &r03, 16, 5, &clause, &child), HK_SUCCESS);
  CHECK_EQ_INT(child.first, 6);
  CHECK_EQ_INT(child.count, 2);
  CHECK_EQ_INT(hk_locations_nested(l, &r03, 16, 5, &bad, &child), HK_ERR_ARG);
  hk_locations_destroy(&l);
}

/* hk_locations_parallel on a synthetic machine (maps only, nothing bound): each thread of
 * a nested region without a range reports its parent's location */
typedef struct seen {
  int outer[4], inner[4][2], inner_count[4];
  const hk_locations_t *l;
} seen_t;

static void inner_body(void *arg, const hk_loc_thread_t *me)
{
  seen_t *s = arg;
  int parent = omp_get_ancestor_thread_num(1);
#pragma omp atomic write
  s->inner[parent][me->thread] = me->location;
#pragma omp atomic write
  s->inner_count[parent] = me->range.count;
}

static void outer_body(void *arg, const hk_loc_thread_t *me)
{
  seen_t *s = arg;
  s->outer[me->thread] = me->location;
  CHECK_EQ_INT(hk_locations_parallel(s->l, NULL, 2, inner_body, s), HK_SUCCESS);
}

static void test_parallel(void)
{
  seen_t s;
  memset(&s, 0xff, sizeof s);
  s.l = locs_of("pack:2 numa:4 core:2 pu:1", HK_LOC_NUMA, 0);
  omp_set_max_active_levels(2);
  hk_loc_range_t r = {2, 4};   /* location(2:5), 4 threads: one per location */
  CHECK_EQ_INT(hk_locations_parallel(s.l, &r, 4, outer_body, &s), HK_SUCCESS);
  for (int t = 0; t < 4; t++) {
    CHECK_EQ_INT(s.outer[t], 2 + t);
    CHECK_EQ_INT(s.inner[t][0], 2 + t);
    CHECK_EQ_INT(s.inner[t][1], 2 + t);
    CHECK_EQ_INT(s.inner_count[t], 1);
  }
  hk_loc_range_t bad = {8, 1};
  CHECK_EQ_INT(hk_locations_parallel(s.l, &bad, 4, outer_body, &s), HK_ERR_ARG);
  /* binding needs this machine */
  CHECK_EQ_INT(hk_locations_bind(s.l, NULL), HK_ERR_UNSUPPORTED);
  hk_locations_destroy((hk_locations_t **)&s.l);
}

/* the plan of desc on l, pages of `page` bytes, compared with want[0..n-1] */
static void check_plan(const hk_locations_t *l, const hk_mem_desc_t *d, size_t page, const int *want,
                       int n)
{
  int got[64];
  CHECK(n <= 64);
  CHECK_EQ_INT(hk_mem_plan(l, d, page, got, 64), HK_SUCCESS);
  int same = 1;
  for (int p = 0; p < n; p++)
    same &= got[p] == want[p];
  if (!same)
    for (int p = 0; p < n; p++)
      fprintf(stderr, "  page %d: location %d, expected %d\n", p, got[p], want[p]);
  CHECK(same);
}

static void test_plans(void)
{
  hk_locations_t *l = locs_of("pack:2 numa:2 core:4 pu:1", HK_LOC_NUMA, 0);   /* 4 locations */
  /* block, dim 0 of double A[10][512] (one 4 KiB page per row) on 3 locations: rows
   * r*3/10 -> 0 0 0 0 1 1 1 2 2 2 */
  hk_mem_desc_t d = {.size = 10 * 4096, .policy = HK_MEM_BLOCK, .range = {0, 3}, .ndims = 2,
                     .dims = {10, 512}, .elem_size = 8, .dim = 0};
  static const int rows[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
  check_plan(l, &d, 4096, rows, 10);
  /* the same on locations 1..3 */
  d.range = (hk_loc_range_t){1, 0};
  static const int rows1[] = {1, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  check_plan(l, &d, 4096, rows1, 10);
  /* block of dim 1 of char B[4][8192] on 2 locations: each row's halves alternate */
  d = (hk_mem_desc_t){.size = 4 * 8192, .policy = HK_MEM_BLOCK, .range = {0, 2}, .ndims = 2,
                      .dims = {4, 8192}, .elem_size = 1, .dim = 1};
  static const int cols[] = {0, 1, 0, 1, 0, 1, 0, 1};
  check_plan(l, &d, 4096, cols, 8);
  /* first touch, 8 threads on 4 locations, 32 pages of bytes: thread t touches pages
   * 4t..4t+3 and runs on location t/2 */
  d = (hk_mem_desc_t){.size = 32 * 4096, .policy = HK_MEM_FIRST_TOUCH, .nthreads = 8};
  int ft[32], one[32], il[32];
  for (int p = 0; p < 32; p++) {
    ft[p] = p / 8;
    one[p] = 3;
    il[p] = p % 4;
  }
  check_plan(l, &d, 4096, ft, 32);
  /* the serial-initialisation pitfall: one thread touches everything */
  d.nthreads = 1;
  d.range = (hk_loc_range_t){3, 1};
  check_plan(l, &d, 4096, one, 32);
  d = (hk_mem_desc_t){.size = 32 * 4096 - 100, .policy = HK_MEM_ONE_LOCATION, .range = {3, 1}};
  check_plan(l, &d, 4096, one, 32);
  d.policy = HK_MEM_INTERLEAVE;
  d.range = (hk_loc_range_t){0, 0};
  check_plan(l, &d, 4096, il, 32);
  /* access: pages 0-3 on 2, bytes from the middle of page 5 to page 6 on 1 (page 5 goes
   * by its first byte: not in the range), the last range wins where two name a byte */
  hk_mem_range_t ranges[] = {{0, 4 * 4096, 2}, {5 * 4096 + 100, 2 * 4096 - 100, 1},
                             {3 * 4096, 4096, 3}};
  d = (hk_mem_desc_t){.size = 8 * 4096, .policy = HK_MEM_ACCESS, .ranges = ranges, .nranges = 3};
  static const int acc[] = {2, 2, 2, 3, 0, 0, 1, 0};
  check_plan(l, &d, 4096, acc, 8);
  /* random: reproducible from its seed, every location, about a quarter each */
  static int r1[4000], r2[4000], r3[4000];
  d = (hk_mem_desc_t){.size = 4000 * 64, .policy = HK_MEM_RANDOM, .seed = 42};
  CHECK_EQ_INT(hk_mem_plan(l, &d, 64, r1, 4000), HK_SUCCESS);
  CHECK_EQ_INT(hk_mem_plan(l, &d, 64, r2, 4000), HK_SUCCESS);
  d.seed = 43;
  CHECK_EQ_INT(hk_mem_plan(l, &d, 64, r3, 4000), HK_SUCCESS);
  int count[4] = {0}, same = 0, differ = 0;
  for (int p = 0; p < 4000; p++) {
    CHECK(r1[p] >= 0 && r1[p] < 4);
    count[r1[p] & 3]++;
    same += r1[p] == r2[p];
    differ += r1[p] != r3[p];
  }
  CHECK_EQ_INT(same, 4000);
  CHECK(differ > 2000);   /* 3000 expected for independent draws */
  for (int k = 0; k < 4; k++)
    CHECK(count[k] > 850 && count[k] < 1150);   /* 1000 +- 5 sigma (27) */
  /* impossible requests name what is wrong */
  int map[64];
  d = (hk_mem_desc_t){.size = 8 * 4096, .policy = HK_MEM_ONE_LOCATION, .range = {4, 1}};
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 64), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "locations 4..4 out of range (4 location(s): 0..3)");
  hk_mem_range_t far[] = {{0, 4096, 7}};
  d = (hk_mem_desc_t){.size = 8 * 4096, .policy = HK_MEM_ACCESS, .ranges = far, .nranges = 1};
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 64), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "desc.ranges[0].location 7 out of range");
  hk_mem_range_t past[] = {{4096, 8 * 4096, 1}};
  d.ranges = past;
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 64), HK_ERR_ARG);
  d = (hk_mem_desc_t){.size = 4096, .policy = HK_MEM_BLOCK, .ndims = 2, .dims = {64, 64},
                      .elem_size = 8};
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 64), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "is larger than desc.size 4096");
  d.elem_size = 1;
  d.dim = 2;
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 64), HK_ERR_ARG);
  d.dim = 0;
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 0), HK_ERR_ARG);
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4000, map, 64), HK_ERR_ARG);
  d.policy = (hk_mem_policy_t)99;
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 64), HK_ERR_ARG);
  d = (hk_mem_desc_t){.size = 0};
  CHECK_EQ_INT(hk_mem_plan(l, &d, 4096, map, 64), HK_ERR_ARG);
  /* synthetic locations compute maps but place nothing */
  hk_mem_t *mem = NULL;
  void *ptr = NULL;
  d = (hk_mem_desc_t){.size = 4096};
  CHECK_EQ_INT(hk_mem_alloc(l, &d, &mem, &ptr), HK_ERR_UNSUPPORTED);
  CHECK_CONTAINS(hk_error_message(), "synthetic or XML machine");
  CHECK(mem == NULL && ptr == NULL);
  hk_mem_policy_t pol;
  CHECK_EQ_INT(hk_mem_policy_parse("access", &pol), HK_SUCCESS);
  CHECK_EQ_INT(pol, HK_MEM_ACCESS);
  CHECK_EQ_INT(hk_mem_policy_parse("scattered", &pol), HK_ERR_ARG);
  CHECK_STR(hk_mem_policy_name(HK_MEM_FIRST_TOUCH), "first-touch");
  hk_locations_destroy(&l);
}

/* this machine: every policy allocates, the pages are where the map says, data survive */
static void test_real(int nlocs)
{
  const hk_machine_t *m = NULL;
  hk_locations_t *l = NULL;
  hk_machine_info_t mi;
  CHECK_EQ_INT(hk_machine_this(&m), HK_SUCCESS);
  CHECK_EQ_INT(hk_machine_info(m, &mi), HK_SUCCESS);
  hk_locations_desc_t ld = {.nlocs = nlocs};
  CHECK_EQ_INT(hk_locations_create(m, &ld, &l), HK_SUCCESS);
  int n = 0;
  CHECK_EQ_INT(hk_locations_count(l, &n), HK_SUCCESS);
  CHECK_EQ_INT(n, nlocs ? nlocs : mi.numa_nodes);
  CHECK_EQ_INT(hk_locations_bind(l, NULL), HK_SUCCESS);
  size_t page = hk_mem_page_size();
  enum { NP = 48 };
  hk_mem_range_t ranges[] = {{0, 8 * page, n - 1}, {20 * page, 3 * page, 0}};
  for (int pol = 0; pol < HK_MEM_POLICY_COUNT; pol++) {
    hk_mem_desc_t d = {.size = NP * page - 8, .policy = (hk_mem_policy_t)pol, .ndims = 2,
                       .dims = {NP / 2, (long long)(2 * page / 8) - 1}, .elem_size = 8,
                       .seed = 7, .ranges = ranges, .nranges = 2};
    hk_mem_t *mem = NULL;
    double *a = NULL;
    CHECK_EQ_INT(hk_mem_alloc(l, &d, &mem, (void **)&a), HK_SUCCESS);
    if (!a)
      continue;
    /* where the pages are before the program touches them (the allocation placed every
     * one): the first NUMA node of the planned location */
    int node[NP], plan[NP];
    long long per[64] = {0}, unknown = -1;
    CHECK_EQ_INT(hk_mem_plan(l, &d, 0, plan, NP), HK_SUCCESS);
    CHECK_EQ_INT(hk_mem_where(a, d.size, node, per, 64, &unknown), HK_SUCCESS);
    CHECK_EQ_INT(unknown, 0);
    int ok = 1;
    size_t nel = d.size / 8;
    for (size_t i = 0; i < nel; i++)
      ok &= a[i] == 0.0;
    for (size_t i = 0; i < nel; i++)
      a[i] = (double)i;
    for (size_t i = 0; i < nel; i++)
      ok &= a[i] == (double)i;
    long long sum = 0;
    for (int p = 0; p < NP; p++) {
      hk_location_info_t info;
      int loc = -1;
      CHECK_EQ_INT(hk_mem_location_of(mem, (char *)a + p * page + 5, &loc), HK_SUCCESS);
      ok &= loc == plan[p];
      ok &= hk_locations_info(l, loc, &info) == HK_SUCCESS;
      /* first touch goes where the thread ran; the others are bound */
      ok &= pol == HK_MEM_FIRST_TOUCH || info.nnuma > 1 || node[p] == info.numa_first;
      if (mi.numa_nodes == 1)
        ok &= node[p] == 0;
    }
    for (int k = 0; k < mi.numa_nodes && k < 64; k++)
      sum += per[k];
    CHECK_EQ_INT(sum, NP);
    if (!ok)
      fprintf(stderr, "policy %s on %d locations\n", hk_mem_policy_name(d.policy), n);
    CHECK(ok);
    /* migration: the map follows, the data stay */
    CHECK_EQ_INT(hk_mem_move(mem, 3 * page, 2 * page + 1, n - 1), HK_SUCCESS);
    int loc = -1;
    CHECK_EQ_INT(hk_mem_location_of(mem, (char *)a + 5 * page, &loc), HK_SUCCESS);
    CHECK_EQ_INT(loc, n - 1);
    CHECK_EQ_INT(hk_mem_where(a, d.size, node, NULL, 0, NULL), HK_SUCCESS);
    hk_location_info_t last;
    CHECK_EQ_INT(hk_locations_info(l, n - 1, &last), HK_SUCCESS);
    CHECK_EQ_INT(node[4], last.numa_first);
    ok = 1;
    for (size_t i = 0; i < nel; i++)
      ok &= a[i] == (double)i;
    CHECK(ok);
    CHECK_EQ_INT(hk_mem_move(mem, 0, page, n), HK_ERR_ARG);
    CHECK_CONTAINS(hk_error_message(), "out of range");
    CHECK_EQ_INT(hk_mem_move(mem, d.size, 1, 0), HK_ERR_ARG);
    CHECK_EQ_INT(hk_mem_location_of(mem, (char *)a + d.size, &loc), HK_ERR_ARG);
    hk_mem_free(&mem);
    CHECK(mem == NULL);
  }
  /* pages never touched are in no NUMA node yet: the query asks the kernel */
  char *raw = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(raw != MAP_FAILED);
  long long per[64], unknown = -1;
  raw[2 * page] = 1;
  CHECK_EQ_INT(hk_mem_where(raw, 8 * page, NULL, per, 64, &unknown), HK_SUCCESS);
  CHECK_EQ_INT(unknown, 7);
  CHECK_EQ_INT(hk_mem_where(raw, 8 * page, NULL, per, 0, &unknown), HK_ERR_ARG);
  munmap(raw, 8 * page);
  /* a range past the last location */
  hk_mem_desc_t d = {.size = page, .policy = HK_MEM_ONE_LOCATION, .range = {n, 1}};
  hk_mem_t *mem = NULL;
  void *ptr = NULL;
  CHECK_EQ_INT(hk_mem_alloc(l, &d, &mem, &ptr), HK_ERR_ARG);
  hk_loc_range_t past = {n, 1};
  CHECK_EQ_INT(hk_locations_bind(l, &past), HK_ERR_ARG);
  CHECK_EQ_INT(hk_locations_bind(l, NULL), HK_SUCCESS);   /* leave every thread on all locations */
  hk_locations_destroy(&l);
}

/* hk_mem_where by move_pages(2) batches (4096 pages a call) gives the same answers as one
 * hwloc query per page (HK_MEM_QUERY=hwloc), and both the independent truth: a touched
 * page is on a node (node 0 with one NUMA node), an untouched one on none (-1; the kernel
 * says -ENOENT for it) */
static void test_where_batches(void)
{
  size_t page = hk_mem_page_size(), np = 4096 + 904;   /* two batches, the second partial */
  char *raw = mmap(NULL, np * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(raw != MAP_FAILED);
  for (size_t p = 0; p < np; p++)
    if (p % 3 == 0 || p == 4096 || p == np - 1)
      raw[p * page + 7] = 1;
  hk_machine_info_t mi;
  hk_machine_t *m = NULL;
  CHECK_EQ_INT(hk_machine_load(NULL, &m), HK_SUCCESS);   /* HK_TOPOLOGY is not set here */
  CHECK_EQ_INT(hk_machine_info(m, &mi), HK_SUCCESS);
  hk_machine_destroy(&m);
  int *fast = malloc(np * sizeof *fast), *slow = malloc(np * sizeof *slow);
  long long perf[64] = {0}, pers[64] = {0}, unf = -1, uns = -1;
  CHECK(fast && slow);
  CHECK_EQ_INT(hk_mem_where(raw + 5, np * page - 5, fast, perf, 64, &unf), HK_SUCCESS);
  setenv("HK_MEM_QUERY", "hwloc", 1);
  CHECK_EQ_INT(hk_mem_where(raw + 5, np * page - 5, slow, pers, 64, &uns), HK_SUCCESS);
  setenv("HK_MEM_QUERY", "everywhere", 1);
  CHECK_EQ_INT(hk_mem_where(raw, page, NULL, NULL, 0, NULL), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "HK_MEM_QUERY=everywhere: move_pages or hwloc");
  unsetenv("HK_MEM_QUERY");
  int same = 1, truth = 1;
  long long touched = 0;
  for (size_t p = 0; p < np; p++) {
    int t = p % 3 == 0 || p == 4096 || p == np - 1;
    touched += t;
    same &= fast[p] == slow[p];
    truth &= t ? fast[p] >= 0 && fast[p] < mi.numa_nodes && (mi.numa_nodes > 1 || fast[p] == 0)
               : fast[p] == -1;
  }
  CHECK(same);
  CHECK(truth);
  CHECK_EQ_INT(unf, (long long)np - touched);
  CHECK_EQ_INT(uns, unf);
  for (int k = 0; k < 64; k++)
    same &= perf[k] == pers[k];
  CHECK(same);
  if (mi.numa_nodes == 1)
    CHECK_EQ_INT(perf[0], touched);
#ifdef SYS_move_pages
  void *pg[2] = {raw, raw + page};   /* page 0 touched, page 1 not */
  int st[2] = {99, 99};
  if (syscall(SYS_move_pages, 0, 2UL, pg, NULL, st, 0) == 0) {
    CHECK(st[0] >= 0);
    CHECK_EQ_INT(st[1], -ENOENT);
  }
#endif
  free(fast);
  free(slow);
  munmap(raw, np * page);
}

static void limit_body(void *arg, const hk_loc_thread_t *me)
{
  int *seen = arg;   /* seen[thread] = location; seen[8] = the team size */
  if (me->thread < 8)
    seen[me->thread] = me->location;
#pragma omp atomic write
  seen[8] = me->nthreads;
}

/* run with OMP_THREAD_LIMIT=2: teams of 4 asked, 2 obtained.  The block maps must follow the
 * team obtained (by hand, 4 locations: thread 0 on location 0, thread 1 on location 2; with
 * the asked 4 the map would say 0, 1, 2, 3) */
static void test_thread_limit(void)
{
  hk_locations_desc_t ld = {.nlocs = 4};   /* four locations sharing this machine's nodes */
  hk_locations_t *l = NULL;
  CHECK_EQ_INT(hk_locations_create(NULL, &ld, &l), HK_SUCCESS);
  int seen[9];
  memset(seen, 0xff, sizeof seen);
  CHECK_EQ_INT(hk_locations_parallel(l, NULL, 4, limit_body, seen), HK_SUCCESS);
  CHECK_EQ_INT(seen[8], 2);
  CHECK_EQ_INT(seen[0], 0);
  CHECK_EQ_INT(seen[1], 2);
  CHECK_EQ_INT(seen[2], -1);
  /* first touch of 8 pages by a team of 4 asked: thread 0 touched pages 0-3, thread 1
   * pages 4-7, so the map is 0 0 0 0 2 2 2 2 (not the asked team's 0 0 1 1 2 2 3 3) */
  size_t page = hk_mem_page_size();
  hk_mem_desc_t d = {.size = 8 * page, .policy = HK_MEM_FIRST_TOUCH, .nthreads = 4};
  hk_mem_t *mem = NULL;
  char *a = NULL;
  CHECK_EQ_INT(hk_mem_alloc(l, &d, &mem, (void **)&a), HK_SUCCESS);
  const int want[8] = {0, 0, 0, 0, 2, 2, 2, 2};
  for (int p = 0; p < 8; p++) {
    int loc = -1;
    CHECK_EQ_INT(hk_mem_location_of(mem, a + p * page + 3, &loc), HK_SUCCESS);
    CHECK_EQ_INT(loc, want[p]);
  }
  long long unknown = -1;
  CHECK_EQ_INT(hk_mem_where(a, d.size, NULL, NULL, 0, &unknown), HK_SUCCESS);
  CHECK_EQ_INT(unknown, 0);   /* every page touched by the smaller team */
  hk_mem_free(&mem);
  hk_locations_destroy(&l);
}

int main(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "thread-limit") == 0) {   /* OMP_THREAD_LIMIT=2 */
    test_thread_limit();
    return hk_test_report("test_mem thread-limit");
  }
  if (argc != 2) {
    fprintf(stderr, "usage: test_mem FIXTURE.xml | thread-limit\n");
    return 2;
  }
  test_locations(argv[1]);
  test_threads();
  test_parallel();
  test_plans();
  test_real(0);
  test_real(3);   /* three locations sharing this machine's NUMA nodes */
  test_where_batches();
  return hk_test_report("test_mem");
}
