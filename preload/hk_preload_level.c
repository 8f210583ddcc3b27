/* preload/hk_preload_level.c: the thread level the preload library asks PMPI for
 * (see hk_preload.c): MULTIPLE when the hybrid collectives can use idle threads, the
 * program's own level otherwise, or what HK_PRELOAD_THREAD_LEVEL says.
 *
 * MULTIPLE is not free: Open MPI 4.1 then waits for every blocking request through
 * ompi_sync_wait_mt and takes a mutex in its progress loop, on every MPI call of the
 * program, accelerated or not (callgrind, 2 ranks, 8-byte MPI_Allreduce: 1.5-2x the
 * instructions per call and ~10 lock/unlock pairs; docs/performance.md, "Preload
 * pass-through and the hierarchical crossover").  So auto counts cores, not hardware
 * threads: a rank bound to one core with two SMT siblings (the usual --bind-to core on
 * an EPYC) has one core, its second thread would only share it, and it keeps the
 * program's level (hk__usable_cores_why, src/internal/hk_launcher.h, counts them with
 * hwloc, as the library's model does). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal/hk_launcher.h"
#include "preload_internal.h"

/* a positive integer from the environment, 0 when unset or not one */
static long env_count(const char *name)
{
  const char *v = getenv(name);
  char *end = NULL;
  long n = v && *v ? strtol(v, &end, 10) : 0;
  return v && *v && !*end && n > 0 && n < 1L << 24 ? n : 0;
}

/* every collective the preload accelerates is named `mpi` by the environment
 * (HK_<KIND>_ALGORITHM, else HK_COLL_ALGORITHM: src/coll/config.c's precedence) */
static int all_mpi(void)
{
  static const char *const kinds[] = {"ALLREDUCE", "REDUCE", "REDUCE_SCATTER",
                                      "BCAST", "ALLGATHER", "ALLTOALL", "SCAN", "EXSCAN",
                                      "ALLTOALLV"};
  const char *coll = getenv("HK_COLL_ALGORITHM");
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    char name[64];
    snprintf(name, sizeof name, "HK_%s_ALGORITHM", kinds[k]);
    const char *v = getenv(name);
    if (!v || !*v)
      v = coll;
    if (!v || strcmp(v, "mpi"))
      return 0;
  }
  return 1;
}

static int mode_of_env(void)
{
  const char *v = getenv("HK_PRELOAD_THREAD_LEVEL");
  if (!v || !*v || !strcmp(v, "auto"))
    return LEVEL_AUTO;
  if (!strcmp(v, "program"))
    return LEVEL_PROGRAM;
  if (!strcmp(v, "multiple"))
    return LEVEL_MULTIPLE;
  return LEVEL_BOGUS;
}

int hk__preload_level(int required, int *mode, char *why, size_t nwhy)
{
  *mode = mode_of_env();
  if (*mode == LEVEL_PROGRAM) {
    snprintf(why, nwhy, "HK_PRELOAD_THREAD_LEVEL=program");
    return required;
  }
  if (*mode == LEVEL_MULTIPLE) {
    snprintf(why, nwhy, "HK_PRELOAD_THREAD_LEVEL=multiple");
    return MPI_THREAD_MULTIPLE;
  }
  if (required >= MPI_THREAD_MULTIPLE) {
    snprintf(why, nwhy, "the program's own request");
    return required;
  }
  long world = env_count("OMPI_COMM_WORLD_SIZE");
  if (!world)
    world = env_count("PMI_SIZE");
  long local = hk__launcher_local_ranks(), cpus, cores, online;
  /* physical cores: SMT siblings share one (see the file comment) */
  long usable = hk__usable_cores_why(local, &cpus, &cores, &online);
  long threads = env_count("HK_ALLREDUCE_THREADS");
  if (!threads)
    threads = env_count("HK_COLL_THREADS");
  if (!threads)
    threads = omp_get_max_threads();
  if (world == 1)
    snprintf(why, nwhy, "one rank");
  else if (all_mpi())
    snprintf(why, nwhy, "every collective's algorithm is mpi (HK_*_ALGORITHM)");
  else if (usable < 2)
    snprintf(why, nwhy, "%ld usable core(s) per rank (%ld CPU(s) on %ld core(s) in the "
             "affinity mask, %ld online, %ld rank(s) on the node)", usable, cpus, cores, online,
             local ? local : 1);
  else if (threads < 2)
    snprintf(why, nwhy, "one thread per rank");
  else {
    snprintf(why, nwhy, "%ld usable cores per rank, %ld threads", usable, threads);
    return MPI_THREAD_MULTIPLE;
  }
  return required;
}

