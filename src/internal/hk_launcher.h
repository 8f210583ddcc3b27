/* src/internal/hk_launcher.h: what the launcher tells a process about its node, and the
 * cores a rank can use; one definition for the library's allreduce model (src/coll) and
 * the preload's thread-level decision (preload/), which must not disagree (never
 * installed; static inline because the preload sees only libhybridkit's public symbols).
 */
#ifndef HK_LAUNCHER_H
#define HK_LAUNCHER_H

#include <omp.h>
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

/* cores a rank may use when `sharing` ranks share this node: its affinity mask, at most
 * the online CPUs divided among the ranks (at least 0); *cpus and *online say why */
static inline long hk__usable_cores(long sharing, long *cpus, long *online)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  *cpus = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set)
                                                                        : omp_get_num_procs();
  *online = sysconf(_SC_NPROCESSORS_ONLN);
  if (*online < 1)
    *online = 1;
  long share = *online / (sharing > 0 ? sharing : 1);
  return *cpus < share ? *cpus : share;
}

#endif
