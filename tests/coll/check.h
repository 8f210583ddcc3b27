/* tests/coll/check.h: what the conformance programs of the hybrid collectives
 * (reduce_conformance.c, bcast_conformance.c, gather_conformance.c) share, included once
 * by each:
 *   - the tally: check() counts every check and prints the first 30 failures, seen[]
 *     counts the fallbacks the library reported;
 *   - ck_start(): --level funneled|serialized|multiple, MPI_Init_thread, wrank, wsize,
 *     nthreads (OMP_NUM_THREADS), node_size (HK_NODE_SIZE, 0 when unset);
 *   - ck_finish(): the tally summed over ranks, "<prog>: N ranks, level L, M checks,
 *     F failed" and the fallbacks seen on rank 0, MPI_Finalize; the exit code (1 when
 *     a check failed anywhere);
 *   - cells: a datatype described as elements of `stride` cells of one base type
 *     (i int, d double, c char), cells first..first+used-1 carrying data (bcast, gather);
 *   - ck_sum_ints, ck_matmul: the user ops of the reductions (reduce_conformance.c,
 *     vcoll_conformance.c);
 *   - gran_of(): elements per 64-byte chunk granule of an extent (the library's chunk
 *     granularity, hk__chunk_granularity, computed independently).
 */
#ifndef HK_TESTS_COLL_CHECK_H
#define HK_TESTS_COLL_CHECK_H
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hybridkit/coll.h"

static const char *ck_prog = "conformance";
static int wrank, wsize, level, nthreads, node_size;
static long long checks, failed, seen[HK_FALLBACK_COUNT];

static void check(int ok, const char *what, const char *alg, long long detail)
{
#pragma omp critical(tally)
  {
    checks++;
    if (!ok && ++failed <= 30)
      fprintf(stderr, "%s: rank %d: FAILED %s [%s] (%lld)\n", ck_prog, wrank, what, alg, detail);
  }
}

static void ck_start(int *argc, char ***argv, const char *prog)
{
  int want = MPI_THREAD_MULTIPLE;
  ck_prog = prog;
  for (int i = 1; i < *argc; i++)
    if (!strcmp((*argv)[i], "--level") && i + 1 < *argc) {
      const char *l = (*argv)[++i];
      want = !strcmp(l, "funneled") ? MPI_THREAD_FUNNELED
             : !strcmp(l, "serialized") ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
    }
  MPI_Init_thread(argc, argv, want, &level);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  nthreads = omp_get_max_threads();
  node_size = getenv("HK_NODE_SIZE") ? atoi(getenv("HK_NODE_SIZE")) : 0;
}

static int ck_finish(void)
{
  long long mine[2 + HK_FALLBACK_COUNT] = {checks, failed}, all[2 + HK_FALLBACK_COUNT];
  memcpy(mine + 2, seen, sizeof seen);
  MPI_Allreduce(mine, all, 2 + HK_FALLBACK_COUNT, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) {
    printf("%s: %d ranks, level %d, %lld checks, %lld failed\nfallbacks:", ck_prog, wsize, level,
           all[0], all[1]);
    for (int f = 0; f < HK_FALLBACK_COUNT; f++)
      if (all[2 + f])
        printf(" %s %lld", hk_allreduce_fallback_name((hk_allreduce_fallback_t)f), all[2 + f]);
    printf("\n");
  }
  MPI_Finalize();
  return all[1] != 0;
}

/* a layout: elements of `stride` cells of `base`, cells first..first+used-1 carry data */
typedef struct tdesc {
  MPI_Datatype t;
  char base; /* i int, d double, c char */
  int stride, first, used, contiguous;
  const char *name;
} tdesc_t;

static inline size_t cell_size(char base) { return base == 'i' ? 4 : base == 'd' ? 8 : 1; }

static inline void set_cell(void *buf, char base, long long idx, long v)
{
  if (base == 'i')
    ((int *)buf)[idx] = (int)v;
  else if (base == 'd')
    ((double *)buf)[idx] = (double)v;
  else
    ((signed char *)buf)[idx] = (signed char)v;
}

static inline long get_cell(const void *buf, char base, long long idx)
{
  if (base == 'i')
    return ((const int *)buf)[idx];
  if (base == 'd')
    return (long)((const double *)buf)[idx];
  return ((const signed char *)buf)[idx];
}

#define SENTINEL (-7)

static inline long long gran_of(long long ext)
{
  long long a = 64, e = ext;
  while (e) {
    long long r = a % e;
    a = e;
    e = r;
  }
  return 64 / a;
}

/* commutative: the ints of a derived type (at tlb + 4 j, j < size / 4) summed mod 1000003 */
static inline void ck_sum_ints(void *in, void *inout, int *len, MPI_Datatype *type)
{
  int sz = 0;
  MPI_Aint lb, ext, tlb, text;
  MPI_Type_size(*type, &sz);
  MPI_Type_get_extent(*type, &lb, &ext);
  MPI_Type_get_true_extent(*type, &tlb, &text);
  for (long long e = 0; e < *len; e++)
    for (int j = 0; j < sz / 4; j++) {
      size_t at = (size_t)(e * ext + tlb) + 4 * (size_t)j;
      int a, b;
      memcpy(&a, (char *)in + at, 4);
      memcpy(&b, (char *)inout + at, 4);
      b = (a + b) % 1000003;
      memcpy((char *)inout + at, &b, 4);
    }
}

/* non-commutative: 2x2 int matrices mod 1009, inout = in x inout (in comes from the lower
 * ranks) */
static inline void ck_matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
  (void)type;
  for (int e = 0; e < *len; e++) {
    const int *a = (const int *)in + 4 * e;
    int *b = (int *)inout + 4 * e;
    int c[4] = {(a[0] * b[0] + a[1] * b[2]) % 1009, (a[0] * b[1] + a[1] * b[3]) % 1009,
                (a[2] * b[0] + a[3] * b[2]) % 1009, (a[2] * b[1] + a[3] * b[3]) % 1009};
    memcpy(b, c, sizeof c);
  }
}

#endif
