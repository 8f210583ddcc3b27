/* tests/unit/test_launcher_cores.c: the physical cores of a binding (issue 42,
 * src/internal/hk_launcher.h), which the library's allreduce model and the preload's
 * thread level both use: SMT siblings count once, on synthetic machines with 2 PUs per
 * core, given sets first, then this process's own mask read through HWLOC_SYNTHETIC.
 * Serial, no MPI_Init. */
#include <stdlib.h>
#include "hk_test.h"
#include "internal/hk_launcher.h"

static hwloc_topology_t synthetic(const char *desc)
{
  hwloc_topology_t t;
  CHECK_EQ_INT(hwloc_topology_init(&t), 0);
  CHECK_EQ_INT(hwloc_topology_set_synthetic(t, desc), 0);
  CHECK_EQ_INT(hwloc_topology_load(t), 0);
  return t;
}

/* cores with a PU in the set of the listed PUs (-1 ends the list) */
static long cores_of(hwloc_topology_t t, const int *pus)
{
  hwloc_bitmap_t s = hwloc_bitmap_alloc();
  for (int i = 0; pus[i] >= 0; i++)
    hwloc_bitmap_set(s, (unsigned)pus[i]);
  long n = hk__cores_in_set(t, s);
  hwloc_bitmap_free(s);
  return n;
}

static void test_sets(void)
{
  /* PUs 0,1 on core 0; 2,3 on core 1; ... */
  hwloc_topology_t smt = synthetic("pack:1 core:4 pu:2");
  CHECK_EQ_INT(cores_of(smt, (const int[]){0, 1, -1}), 1);
  CHECK_EQ_INT(cores_of(smt, (const int[]){0, 2, -1}), 2);
  CHECK_EQ_INT(cores_of(smt, (const int[]){3, -1}), 1);
  CHECK_EQ_INT(cores_of(smt, (const int[]){0, 1, 2, 3, 4, 5, 6, 7, -1}), 4);
  CHECK_EQ_INT(cores_of(smt, (const int[]){-1}), 0);
  CHECK_EQ_INT(hk__cores_in_set(smt, hwloc_topology_get_topology_cpuset(smt)), 4);
  hwloc_topology_destroy(smt);
  hwloc_topology_t flat = synthetic("pack:2 core:2 pu:1");
  CHECK_EQ_INT(cores_of(flat, (const int[]){0, 1, -1}), 2);
  CHECK_EQ_INT(cores_of(flat, (const int[]){1, 2, 3, -1}), 3);
  hwloc_topology_destroy(flat);
}

/* this process's mask on a machine of 2 PUs per core that holds every CPU of it: CPU c is
 * on core c / 2 */
static void test_own_mask(void)
{
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CHECK_EQ_INT(sched_getaffinity(0, sizeof mask, &mask), 0);
  int last = 0;
  long expect = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &mask)) {
      expect += !(c % 2) || !CPU_ISSET(c - 1, &mask); /* the core's first CPU in the mask */
      last = c;
    }
  long machine = last / 2 + 1;
  char desc[64];
  snprintf(desc, sizeof desc, "core:%ld pu:2", machine);
  setenv("HWLOC_SYNTHETIC", desc, 1);
  long bound, total, cpus, cores, online;
  hk__binding_cores(&bound, &total);
  CHECK_EQ_INT(bound, expect);
  CHECK_EQ_INT(total, machine);
  CHECK_EQ_INT(hk__usable_cores_why(1, &cpus, &cores, &online), expect);
  CHECK_EQ_INT(cpus, CPU_COUNT(&mask));
  CHECK_EQ_INT(cores, expect);
  /* 2 * machine ranks share the machine's cores: none left for any of them */
  CHECK_EQ_INT(hk__usable_cores(2 * machine, &cpus, &online), 0);
  printf("# own mask: %ld CPU(s) on %ld core(s) of a synthetic %s\n", cpus, cores, desc);
  unsetenv("HWLOC_SYNTHETIC");
}

int main(void)
{
  test_sets();
  test_own_mask();
  return hk_test_report("test_launcher_cores");
}
