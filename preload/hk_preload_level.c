/* preload/hk_preload_level.c: the thread level the preload library asks PMPI for
 * (see hk_preload.c): MULTIPLE when the hybrid allreduce can use idle threads, the
 * program's own level otherwise, or what HK_PRELOAD_THREAD_LEVEL says. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <omp.h>
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
  long local = hk__launcher_local_ranks(), cpus, online;
  long usable = hk__usable_cores(local, &cpus, &online);
  long threads = env_count("HK_ALLREDUCE_THREADS");
  if (!threads)
    threads = omp_get_max_threads();
  const char *alg = getenv("HK_ALLREDUCE_ALGORITHM");
  if (world == 1)
    snprintf(why, nwhy, "one rank");
  else if (alg && !strcmp(alg, "mpi"))
    snprintf(why, nwhy, "HK_ALLREDUCE_ALGORITHM=mpi");
  else if (usable < 2)
    snprintf(why, nwhy, "%ld usable core(s) per rank (%ld in the affinity mask, "
             "%ld online, %ld rank(s) on the node)", usable, cpus, online, local ? local : 1);
  else if (threads < 2)
    snprintf(why, nwhy, "one thread per rank");
  else {
    snprintf(why, nwhy, "%ld usable cores per rank, %ld threads", usable, threads);
    return MPI_THREAD_MULTIPLE;
  }
  return required;
}

