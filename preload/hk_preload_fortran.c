/* preload/hk_preload_fortran.c: the preload library's Fortran entry points (mpif.h and
 * `use mpi`, gfortran's symbol names), Open MPI only (see hk_preload.c).
 * Open MPI's Fortran bindings call PMPI_* directly, so the C wrappers never
 * see a Fortran program.  These take the Fortran symbols: init and finalize run
 * Open MPI's own Fortran binding (pmpi_*_, found at run time) around the same
 * logic as the C wrappers; MPI_Allreduce converts the handles and Open MPI's
 * Fortran MPI_IN_PLACE / MPI_BOTTOM (addresses of its common blocks) and calls
 * the C wrapper.  MPICH's Fortran bindings call the C MPI_* functions, so that
 * build needs none of this; `use mpi_f08` is not intercepted by either. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "preload_internal.h"

#ifdef OPEN_MPI
void mpi_init_(MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_query_thread_(MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);
void mpi_allreduce_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                    MPI_Fint *comm, MPI_Fint *ierr);

typedef void (*f_init_thread_t)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_ierr_t)(MPI_Fint *);

static void *fortran_symbol(const char *name)
{
  return hk__fortran_symbol("hybridkit-preload", name);
}

static void f_init(MPI_Fint required, MPI_Fint *provided, MPI_Fint *ierr)
{
  f_init_thread_t init = (f_init_thread_t)(uintptr_t)fortran_symbol("pmpi_init_thread_");
  MPI_Fint ask = hk__preload_ask((int)required), got = MPI_THREAD_SINGLE;
  init(&ask, &got, ierr);
  int told = MPI_THREAD_SINGLE;
  hk__preload_init_common((int)*ierr, (int)required, &told, (int)got);
  if (provided)
    *provided = told;
}

HK_PUBLIC void mpi_init_(MPI_Fint *ierr) { f_init(MPI_THREAD_SINGLE, NULL, ierr); }

HK_PUBLIC void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
  f_init(*required, provided, ierr);
}

HK_PUBLIC void mpi_query_thread_(MPI_Fint *provided, MPI_Fint *ierr)
{
  int p = MPI_THREAD_SINGLE;
  *ierr = MPI_Query_thread(&p);
  *provided = p;
}

HK_PUBLIC void mpi_finalize_(MPI_Fint *ierr)
{
  f_ierr_t fin = (f_ierr_t)(uintptr_t)fortran_symbol("pmpi_finalize_");
  hk__preload_finalize();
  fin(ierr);
}

HK_PUBLIC void mpi_allreduce_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                              MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
  static void *in_place, *bottom;
  static int looked;
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
    bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  const void *s = sbuf;
  if (in_place && sbuf == in_place)
    s = MPI_IN_PLACE;
  else if (bottom && sbuf == bottom)
    s = MPI_BOTTOM;
  void *r = bottom && rbuf == bottom ? MPI_BOTTOM : rbuf;
  *ierr = MPI_Allreduce(s, r, (int)*count, PMPI_Type_f2c(*type), PMPI_Op_f2c(*op),
                        PMPI_Comm_f2c(*comm));
}
#endif /* OPEN_MPI */
