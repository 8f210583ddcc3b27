/* tests/coll/plain_mpi.c: a tiny plain MPI+OpenMP program (no hybridkit) for the
 * preload tests.  It asks for MPI_THREAD_FUNNELED, checks that MPI_Init_thread
 * and MPI_Query_thread tell it what a library giving exactly the requested
 * level would (with the preload: min(FUNNELED, real level)), then allreduces
 * 128 KiB of int sums, 128 KiB of double maxima and a few 8-byte values
 * outside parallel regions and prints one checksum line: the same with and
 * without the preload library, for any rank and thread count.
 * usage: plain_mpi [steps]   exit 1 on a wrong result */
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  int provided = -1, queried = -1, rank, size, bad = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Query_thread(&queried);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  enum { N = 32768 };
  int *iv = malloc(N * sizeof *iv), *isum = malloc(N * sizeof *isum);
  double *dv = malloc(N / 2 * sizeof *dv), *dmax = malloc(N / 2 * sizeof *dmax);
  uint64_t h = 1469598103934665603ULL;
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for
    for (int i = 0; i < N; i++)
      iv[i] = (rank + 1) * (i % 97) + s;
#pragma omp parallel for
    for (int i = 0; i < N / 2; i++)
      dv[i] = (double)((rank * 7919 + i * 31 + s) % 1009);
    MPI_Allreduce(iv, isum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(dv, dmax, N / 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long long small[1] = {rank + s}, ssum[1];
    MPI_Allreduce(small, ssum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
      bad += isum[i] != (size * (size + 1) / 2) * (i % 97) + size * s;
      h = (h ^ (uint64_t)(uint32_t)isum[i]) * 1099511628211ULL;
    }
    for (int i = 0; i < N / 2; i++) {
      double want = 0.0;
      for (int r = 0; r < size; r++) {
        double x = (double)((r * 7919 + i * 31 + s) % 1009);
        want = x > want ? x : want;
      }
      bad += dmax[i] != want;
      h = (h ^ (uint64_t)dmax[i]) * 1099511628211ULL;
    }
    bad += ssum[0] != (long long)size * (size - 1) / 2 + (long long)size * s;
  }
  int allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("plain_mpi: thread level provided %d, queried %d (asked %d)\n", provided, queried,
           MPI_THREAD_FUNNELED);
    printf("plain_mpi: checksum %016llx, %d wrong\n", (unsigned long long)h, allbad);
  }
  int rc = allbad || provided != MPI_THREAD_FUNNELED || queried != MPI_THREAD_FUNNELED;
  free(iv);
  free(isum);
  free(dv);
  free(dmax);
  MPI_Finalize();
  return rc;
}
