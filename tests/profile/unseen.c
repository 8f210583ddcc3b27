/* tests/profile/unseen.c: a C program that starts and ends MPI behind the tools' back
 * (PMPI_Init, PMPI_Barrier, PMPI_Finalize: as a binding that calls PMPI_ directly, or
 * a static MPI, would), for the tools' "not intercepted" line (tests/profile.cmake):
 * the profiler sees no MPI_Init, so it writes no profile, and must say so in one
 * line at exit instead of nothing. */
#include <mpi.h>

int main(int argc, char **argv)
{
  PMPI_Init(&argc, &argv);
  PMPI_Barrier(MPI_COMM_WORLD);
  PMPI_Finalize();
  return 0;
}
