/* tests/profile/prof_known.c: a plain MPI+OpenMP program (no hybridkit) whose MPI
 * calls are known in advance, for libhybridkit-profile.so's known-answer tests
 * (tests/profile.cmake, check_profile.py holds the expected numbers):
 *
 *   every rank, to its right neighbour in a ring (from its left one):
 *     NSENDRECV x MPI_Sendrecv of 125 doubles (1000 bytes)
 *     NISEND x MPI_Isend of 3 bytes + MPI_Irecv + one MPI_Waitall each
 *   NALLRED x MPI_Allreduce of 1024 doubles (8192 bytes), outside parallel regions
 *   rank 0 sleeps SLEEP_S, then every rank enters MPI_Barrier outside parallel
 *     regions: the others wait there about SLEEP_S (their threads "sleep")
 *   NPARALLEL x MPI_Comm_rank by the master thread inside a parallel region:
 *     inside an active parallel region when OMP_NUM_THREADS > 1
 *   NWORKER x MPI_Comm_size by every other thread of that region, when MPI provides
 *     MPI_THREAD_MULTIPLE (asked for): calls off the main thread
 *
 *   prof_known [--sleep S]
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NSENDRECV = 10, NISEND = 7, NALLRED = 5, NPARALLEL = 3, NWORKER = 2 };

static void sleep_s(double s)
{
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

int main(int argc, char **argv)
{
  int provided = 0, rank = 0, size = 1;
  double sleep = 0.3;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--sleep"))
      sleep = atof(argv[i + 1]);
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double out[125], in[125];
  for (int i = 0; i < 125; i++)
    out[i] = rank + i;
  for (int k = 0; k < NSENDRECV; k++)
    MPI_Sendrecv(out, 125, MPI_DOUBLE, right, 1, in, 125, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  char small[3] = {1, 2, 3}, got[3];
  for (int k = 0; k < NISEND; k++) {
    MPI_Request req[2];
    MPI_Irecv(got, 3, MPI_CHAR, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(small, 3, MPI_CHAR, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  }
  double *v = calloc(1024, sizeof *v), *sum = calloc(1024, sizeof *sum);
  for (int k = 0; k < NALLRED; k++)
    MPI_Allreduce(v, sum, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    sleep_s(sleep);
  MPI_Barrier(MPI_COMM_WORLD);
  int ok = 1;
#pragma omp parallel
  {
#pragma omp master
    for (int k = 0; k < NPARALLEL; k++) {
      int r = -1;
      MPI_Comm_rank(MPI_COMM_WORLD, &r);
      ok &= r == rank;
    }
    if (provided == MPI_THREAD_MULTIPLE && omp_get_thread_num() > 0)
      for (int k = 0; k < NWORKER; k++) {
        int n = -1;
        MPI_Comm_size(MPI_COMM_WORLD, &n);
#pragma omp atomic
        ok &= n == size;
      }
  }
  free(v);
  free(sum);
  if (rank == 0)
    printf("prof_known: %d rank(s) x %d thread(s): %s\n", size, omp_get_max_threads(),
           ok && in[0] == left ? "done" : "wrong");
  MPI_Finalize();
  return ok && in[0] == left ? 0 : 1;
}
