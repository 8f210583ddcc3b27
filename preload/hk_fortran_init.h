/* preload/hk_fortran_init.h: the bodies of Fortran MPI_Init / MPI_Init_thread /
 * MPI_Query_thread / MPI_Finalize entry points that go through the library's own C
 * wrappers, so that its start-up and finish run for a Fortran program too.  gfortran
 * passes every argument by address; mpi_f08's optional ierror is NULL when left out.
 * The libraries that need them define their exported entry points with these: the tools
 * (hk_fortran.c) and the allreduce preload (hk_preload_fortran.c).  Never installed. */
#ifndef HK_FORTRAN_INIT_H
#define HK_FORTRAN_INIT_H

#include <mpi.h>
#include <stddef.h>

static inline void hk__f_init(MPI_Fint *ierr)
{
  int rc = MPI_Init(NULL, NULL);
  if (ierr)
    *ierr = rc;
}

static inline void hk__f_init_thread(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
  int got = MPI_THREAD_SINGLE;
  int rc = MPI_Init_thread(NULL, NULL, (int)*required, &got);
  *provided = got;
  if (ierr)
    *ierr = rc;
}

static inline void hk__f_query_thread(MPI_Fint *provided, MPI_Fint *ierr)
{
  int p = MPI_THREAD_SINGLE;
  int rc = MPI_Query_thread(&p);
  *provided = p;
  if (ierr)
    *ierr = rc;
}

static inline void hk__f_finalize(MPI_Fint *ierr)
{
  int rc = MPI_Finalize();
  if (ierr)
    *ierr = rc;
}

#endif
