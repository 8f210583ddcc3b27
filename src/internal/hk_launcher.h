/* src/internal/hk_launcher.h: what the launcher tells a process about its node, and the
 * physical cores a rank can use; one definition for the library's allreduce model (src/coll) and
 * the preload's thread-level decision (preload/), which must not disagree (never
 * installed; static inline because the preload sees only libhybridkit's public symbols).
 */
#ifndef HK_LAUNCHER_H
#define HK_LAUNCHER_H

#include <hwloc.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* ranks the launcher put on this node: Open MPI (mpirun / prterun), MPICH's Hydra,
 * PMI-2 based launchers, Slurm; 0 when none says */
static inline int hk__launcher_local_ranks(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                     "PMI_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : 0;
    if (v && *v && !*end && n > 0 && n < 1 << 24)
      return (int)n;
  }
  return 0;
}

/* this process's rank in the job as the launcher tells it (Open MPI, PMI, PMIx, Slurm); -1
 * when none says (before or without MPI: who prints a line once) */
static inline int hk__launcher_rank(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                     "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    char *end = NULL;
    long r = v ? strtol(v, &end, 10) : -1;
    if (v && *v && !*end && r >= 0 && r < 1L << 30)
      return (int)r;
  }
  return -1;
}

/* the physical cores (hwloc's Core objects: SMT siblings once) with at least one PU in set;
 * 0 when the topology has no cores */
static inline long hk__cores_in_set(hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
  int depth = hwloc_get_type_depth(topo, HWLOC_OBJ_CORE);
  long n = 0;
  for (hwloc_obj_t core = depth < 0 ? NULL : hwloc_get_next_obj_by_depth(topo, depth, NULL);
       core; core = hwloc_get_next_obj_by_depth(topo, depth, core))
    n += hwloc_bitmap_intersects(core->cpuset, set) != 0;
  return n;
}

/* this process's topology of cores and PUs, loaded once (hwloc's init loads its plugins and
 * reads sysfs: milliseconds); NULL when it cannot be.  Never freed. */
static inline hwloc_topology_t *hk__cores_topo(void)
{
  static hwloc_topology_t topo;
  return &topo;
}
static inline void hk__cores_topo_load(void)
{
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0)
    return;
  /* only cores and PUs: no caches, memory or I/O to discover, and Linux's sysfs says them
   * (the x86 backend's cpuid on every PU would bind this thread to each in turn: ~0.5 s on a
   * loaded machine) */
  hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
  hwloc_topology_set_all_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_type_filter(topo, HWLOC_OBJ_CORE, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PU, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_load(topo) == 0)
    *hk__cores_topo() = topo;
  else
    hwloc_topology_destroy(topo);
}

/* the physical cores of this thread's binding (sched_getaffinity; hwloc's topology, which
 * HWLOC_XMLFILE or HWLOC_SYNTHETIC may replace) in *bound, and the machine's in *total; both
 * 0 when the mask or the topology cannot be read */
static inline void hk__binding_cores(long *bound, long *total)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  *bound = *total = 0;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  hwloc_bitmap_t set;
  if (pthread_once(&once, hk__cores_topo_load) != 0 || !*hk__cores_topo() ||
      sched_getaffinity(0, sizeof mask, &mask) != 0 || !(set = hwloc_bitmap_alloc()))
    return;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
    if (CPU_ISSET(cpu, &mask))
      hwloc_bitmap_set(set, (unsigned)cpu);
  hwloc_topology_t topo = *hk__cores_topo();
  *bound = hk__cores_in_set(topo, set);
  *total = hk__cores_in_set(topo, hwloc_topology_get_topology_cpuset(topo));
  hwloc_bitmap_free(set);
}

/* cores a rank may use when `sharing` ranks share this node: the physical cores of its
 * binding, at most the machine's cores divided among the ranks (at least 0); *cpus (the
 * hardware threads of the affinity mask), *cores (its physical cores) and *online (the
 * online CPUs) say why.  Without a topology, hardware threads stand for cores. */
static inline long hk__usable_cores_why(long sharing, long *cpus, long *cores, long *online)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  *cpus = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set)
                                                                        : omp_get_num_procs();
  *online = sysconf(_SC_NPROCESSORS_ONLN);
  if (*online < 1)
    *online = 1;
  long total;
  hk__binding_cores(cores, &total);
  if (*cores < 1 || total < 1) {
    *cores = *cpus;
    total = *online;
  }
  long share = total / (sharing > 0 ? sharing : 1);
  return *cores < share ? *cores : share;
}

/* hk__usable_cores_why without the cores */
static inline long hk__usable_cores(long sharing, long *cpus, long *online)
{
  long cores;
  return hk__usable_cores_why(sharing, cpus, &cores, online);
}

#endif
