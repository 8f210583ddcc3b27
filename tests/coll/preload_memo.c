/* tests/coll/preload_memo.c: the preload's memo of the calls the library hands back to MPI
 * (issue 42; preload/hk_preload_colls.h, "The memo").  A plain MPI program (no hybridkit
 * header) run at 2 ranks under libhybridkit-preload.so with tests/coll/memo_tuning.json:
 * MPI_Reduce is mpi up to 20000 bytes and hierarchical above.  16384 and 24576 bytes are
 * in the same power-of-two size class, so a memo keyed on less than the bytes would give
 * the 24576-byte calls the 16384-byte answer (mpi): each phase counts the calls the
 * preload accelerated (hk_preload_query) against what the table says, on MPI_COMM_WORLD
 * (hit, then a size of another answer, then back, then alternating) and on duplicates
 * made and freed in turn (a new communicator starts without a memo, and a freed one's
 * state is never reached again).  Every result is checked.  Not preloaded, only the
 * results count.  Prints "preload-memo: N ranks, K checks, F failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "hybridkit/preload.h"

static int P, R;
static long long checks, failed;
static hk_preload_query_fn query;

static void check(int ok, const char *what, long long got, long long want)
{
  checks++;
  if (!ok) {
    if (failed < 10)
      fprintf(stderr, "preload-memo: rank %d: %s: %lld, expected %lld\n", R, what, got, want);
    failed++;
  }
}

static long long accelerated(void)
{
  hk_preload_state_t s = {0};
  if (query)
    query(&s);
  return s.accelerated;
}

/* `calls` MPI_Reduce of n floats on comm (n2 > 0: every other call n2 floats); the
 * accelerated calls in [lo, hi] */
static void phase(const char *what, MPI_Comm comm, int n, int n2, int calls, long long lo,
                  long long hi)
{
  int max = n > n2 ? n : n2, p = 0;
  float *a = malloc(sizeof(float) * (size_t)max), *b = malloc(sizeof(float) * (size_t)max);
  MPI_Comm_size(comm, &p);
  long long before = accelerated();
  for (int k = 0; k < calls; k++) {
    int m = n2 > 0 && k % 2 ? n2 : n, bad = 0;
    for (int i = 0; i < m; i++) {
      a[i] = (float)(R + i % 7 + k);
      b[i] = -1.0f;
    }
    MPI_Reduce(a, b, m, MPI_FLOAT, MPI_SUM, 0, comm);
    int me = 0;
    MPI_Comm_rank(comm, &me);
    for (int i = 0; me == 0 && i < m && !bad; i++) /* sum over r of r + i % 7 + k: exact */
      bad = b[i] != (float)(p * (p - 1) / 2 + p * (i % 7 + k));
    check(!bad, what, bad, 0);
  }
  long long got = accelerated() - before;
  if (query)
    check(got >= lo && got <= hi, what, got, lo);
  free(a);
  free(b);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  query = (hk_preload_query_fn)dlsym(RTLD_DEFAULT, "hk_preload_query");
  /* 4096 floats: 16384 B, the table's mpi (the memo's after the first decision);
   * 6144 floats: 24576 B, hierarchical.  Each communicator's first call of a size class and
   * every 32nd after it are sampled (MPI): at most 2 of 40, 1 of 10 */
  int hier = P > 1 ? 1 : 0;
  phase("world 16384 B (mpi)", MPI_COMM_WORLD, 4096, 0, 40, 0, 0);
  phase("world 24576 B (hierarchical)", MPI_COMM_WORLD, 6144, 0, 40, 38 * hier, 40 * hier);
  phase("world 16384 B again (mpi)", MPI_COMM_WORLD, 4096, 0, 40, 0, 0);
  phase("world alternating", MPI_COMM_WORLD, 4096, 6144, 40, 18 * hier, 20 * hier);
  for (int d = 0; d < 3; d++) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    phase("duplicate 16384 B (mpi)", dup, 4096, 0, 10, 0, 0);
    phase("duplicate 24576 B (hierarchical)", dup, 6144, 0, 10, 9 * hier, 10 * hier);
    phase("duplicate alternating", dup, 6144, 4096, 20, 9 * hier, 10 * hier);
    MPI_Comm_free(&dup);
  }
  long long all = 0;
  MPI_Allreduce(&failed, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (R == 0)
    printf("preload-memo: %d ranks, %lld checks, %lld failed%s\n", P, checks, all,
           query ? "" : " (not preloaded: results only)");
  MPI_Finalize();
  return all ? 1 : 0;
}
