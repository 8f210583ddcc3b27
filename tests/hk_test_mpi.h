/* tests/hk_test_mpi.h: the collective end of an MPI test: failures summed over
 * ranks, one summary line from rank 0, the same exit code on every rank. */
#ifndef HK_TEST_MPI_H
#define HK_TEST_MPI_H

#include <mpi.h>
#include "hk_test.h"

static inline int hk_test_mpi_report(const char *name)
{
  int f = hk_test_failures, total = 0, checks = 0, size = 1;
  MPI_Allreduce(&f, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&hk_test_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (hk_test_rank == 0)
    printf("%s: %d ranks, %d checks, %d failed\n", name, size, checks, total);
  return total ? 1 : 0;
}

#endif
