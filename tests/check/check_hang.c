/* tests/check/check_hang.c: a program that breaks MPI_THREAD_FUNNELED in a way that
 * hangs, for HK_CHECK_ABORT (libhybridkit-check.so) and `hybridkit check --abort`.
 * It asks for MPI_THREAD_FUNNELED; then two OpenMP threads of every rank each wait in a
 * blocking MPI_Recv from the next rank (itself with one rank) with a tag nobody sends:
 *
 *   rank r  thread 0: MPI_Recv(from r+1, tag 7)   never matched
 *           thread 1: MPI_Recv(from r+1, tag 7)   never matched, and not the main thread
 *
 * Without the checker's HK_CHECK_ABORT it never ends (the test's timeout stops it); with
 * it, thread 1's call is stopped before it reaches MPI and the job ends at once. */
#include <mpi.h>
#include <omp.h>

__attribute__((noinline)) static void wait_forever(int from)
{
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
  int provided = MPI_THREAD_SINGLE, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#pragma omp parallel num_threads(2)
  wait_forever((rank + 1) % size);
  MPI_Finalize();
  return 0;
}
