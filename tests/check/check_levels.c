/* tests/check/check_levels.c: a program per thread level for libhybridkit-check.so.
 *   check_levels --level single|funneled|serialized|multiple [--violate]
 * single initialises with MPI_Init, the others with MPI_Init_thread.  Without
 * --violate it keeps its level's rule while using threads as far as the rule
 * allows (the checker must stay quiet); with --violate it breaks the rule with
 * one call name, made in a function named <level>_<call> so that the
 * reported call site can be checked:
 *   single      MPI_Allreduce from the master thread inside a parallel region
 *   funneled    MPI_Iprobe (3 times) from OpenMP thread 1
 *   serialized  MPI_Comm_rank from two threads at once (repeated until the
 *               checker has seen the two overlap, at most 60 s)
 *   multiple    nothing breaks MULTIPLE: --violate is refused
 * Prints "check_levels: done" on rank 0 and exits 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include "hk_check.h"

static hk_check_query_fn query;

static long long violations(void)
{
  hk_check_state_t s = {0, 0, 0, 0};
  if (query)
    query(&s);
  return s.violations;
}

void funneled_probe(void);
void single_allreduce(int *sum);
void serialized_rank(void);

/* the MPI calls that break a rule are made in exported functions (the test
 * links with -rdynamic), not tail calls, so that dladdr names them */
static volatile int ncalls;

static void probe(void)
{
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

__attribute__((noinline, visibility("default"))) void funneled_probe(void)
{
  int flag = 0;
  ncalls += MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
}

__attribute__((noinline, visibility("default"))) void single_allreduce(int *sum)
{
  int one = 1;
  ncalls += MPI_Allreduce(&one, sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
}

/* MPI_Comm_rank reads the communicator only: two at once break the SERIALIZED
 * rule without harm (two MPI_Iprobe at once crash MPICH over UCX, as they may) */
__attribute__((noinline, visibility("default"))) void serialized_rank(void)
{
  int rank = 0;
  ncalls += MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS;
}

static void violate_single(int *sum)
{
#pragma omp parallel num_threads(2)
#pragma omp master
  single_allreduce(sum);
}

static void violate_funneled(void)
{
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1)
    for (int i = 0; i < 3; i++)
      funneled_probe();
}

/* two threads ask their rank until the checker has counted an overlap (or 60 s) */
static void violate_serialized(void)
{
  int done = 0;
  double t0 = MPI_Wtime();
#pragma omp parallel num_threads(2) shared(done)
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    serialized_rank();
    if (omp_get_thread_num() == 0 && (violations() > 0 || MPI_Wtime() - t0 > 60))
      __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  }
}

/* what each level allows, with threads */
static void clean(int level, int *sum)
{
  int one = 1;
  double x = 0;
#pragma omp parallel num_threads(2) reduction(+ : x)
  x += omp_get_thread_num();
  MPI_Allreduce(&one, sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* outside: every level */
  if (level >= MPI_THREAD_FUNNELED) {
#pragma omp parallel num_threads(2)
    {
#pragma omp master
      MPI_Barrier(MPI_COMM_WORLD);
#pragma omp barrier
    }
  }
  if (level >= MPI_THREAD_SERIALIZED) {
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 200; i++) {
#pragma omp critical
      probe();
    }
  }
  if (level >= MPI_THREAD_MULTIPLE) {
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 2000; i++)
      probe();
  }
  (void)x;
}

int main(int argc, char **argv)
{
  const char *name = "single";
  int violate = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--level") && i + 1 < argc)
      name = argv[++i];
    else if (!strcmp(argv[i], "--violate"))
      violate = 1;
  }
  int level = !strcmp(name, "single") ? MPI_THREAD_SINGLE
              : !strcmp(name, "funneled") ? MPI_THREAD_FUNNELED
              : !strcmp(name, "serialized") ? MPI_THREAD_SERIALIZED
              : !strcmp(name, "multiple") ? MPI_THREAD_MULTIPLE : -1;
  if (level < 0 || (violate && level == MPI_THREAD_MULTIPLE)) {
    fprintf(stderr, "check_levels: --level single|funneled|serialized|multiple [--violate] "
            "(nothing violates multiple)\n");
    return 2;
  }
  int provided = MPI_THREAD_SINGLE;
  if (level == MPI_THREAD_SINGLE)
    MPI_Init(&argc, &argv);
  else
    MPI_Init_thread(&argc, &argv, level, &provided);
  query = (hk_check_query_fn)dlsym(RTLD_DEFAULT, "hk_check_query");
  int rank = 0, size = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (level > MPI_THREAD_SINGLE && provided < level) {
    if (rank == 0)
      printf("check_levels: MPI provides %d < %d: skipped\n", provided, level);
    MPI_Finalize();
    return 0;
  }
  clean(level, &sum);
  if (violate && level == MPI_THREAD_SINGLE)
    violate_single(&sum);
  else if (violate && level == MPI_THREAD_FUNNELED)
    violate_funneled();
  else if (violate)
    violate_serialized();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("check_levels: done (%d ranks, sum %d)\n", size, sum);
  MPI_Finalize();
  return 0;
}
