/* preload/hk_preload_fortran.c: the preload library's Fortran entry points (gfortran's
 * symbol names; see hk_preload.c).
 *
 *                  mpif.h / use mpi              use mpi_f08
 *   Open MPI 4.1   PMPI_* (libmpi_mpifh)         PMPI_* (libmpi_usempif08 -> ompi_*_f)
 *   MPICH 4.0      C MPI_* (libmpichfort)        init, finalize, query: PMPI_*;
 *                                                allreduce (_f08ts_): C MPI_Allreduce
 *
 * Open MPI: these take mpi_init_, mpi_init_thread_, mpi_query_thread_, mpi_finalize_,
 * mpi_allreduce_, mpi_reduce_, mpi_reduce_scatter_block_, mpi_bcast_, mpi_allgather_,
 * mpi_alltoall_, mpi_scan_, mpi_exscan_, mpi_allgatherv_, mpi_reduce_scatter_,
 * mpi_alltoallv_ and their
 * _f08_ names (counts and displacements: MPI_Fint arrays, int here) (mpi_f08 passes its one-INTEGER handles and its
 * buffers by address, the same common blocks for MPI_IN_PLACE / MPI_BOTTOM, and an
 * ierror that is NULL when the caller leaves it out): init and finalize run Open MPI's
 * own Fortran binding (pmpi_*_, found at run time) around the same logic as the C
 * wrappers; the collectives convert the handles and the sentinels (one helper:
 * MPI_IN_PLACE and MPI_BOTTOM are Open MPI's common blocks) and call the C wrappers.
 * MPICH 4.0: only mpi_f08's init, finalize and query need taking; its mpif.h / use mpi
 * collectives (mpi_reduce_ = pmpi_reduce_, ...) call the C MPI_Reduce, MPI_Bcast, ...
 * through the PLT, and mpi_f08's buffer routines (mpi_reduce_f08ts_, ...) reach the C
 * MPI_* too (objdump of libmpichfort.so.12; tests/coll_preload_more.cmake runs both). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "preload_internal.h"
#include "hk_fortran_init.h"

#ifdef OPEN_MPI
void mpi_init_(MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_query_thread_(MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);
void mpi_allreduce_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                    MPI_Fint *comm, MPI_Fint *ierr);
void mpi_reduce_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                 MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_reduce_scatter_block_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                               MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
                MPI_Fint *ierr);
void mpi_allgather_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                    MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoall_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                   MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_scan_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
               MPI_Fint *comm, MPI_Fint *ierr);
void mpi_exscan_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                 MPI_Fint *comm, MPI_Fint *ierr);
void mpi_allgatherv_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                     MPI_Fint *rcounts, MPI_Fint *displs, MPI_Fint *rtype, MPI_Fint *comm,
                     MPI_Fint *ierr);
void mpi_reduce_scatter_(void *sbuf, void *rbuf, MPI_Fint *rcounts, MPI_Fint *type,
                         MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoallv_(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stype, void *rbuf,
                    MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtype, MPI_Fint *comm,
                    MPI_Fint *ierr);
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran count arrays passed as int arrays");

typedef void (*f_init_thread_t)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_ierr_t)(MPI_Fint *);

static void *fortran_symbol(const char *name)
{
  return hk__fortran_symbol("hybridkit-preload", name);
}

static void f_init(MPI_Fint required, MPI_Fint *provided, MPI_Fint *ierr)
{
  f_init_thread_t init = (f_init_thread_t)(uintptr_t)fortran_symbol("pmpi_init_thread_");
  MPI_Fint ask = hk__preload_ask((int)required), got = MPI_THREAD_SINGLE, rc = MPI_SUCCESS;
  init(&ask, &got, &rc);
  int told = MPI_THREAD_SINGLE;
  rc = hk__preload_init_common((int)rc, (int)required, &told, (int)got);
  if (provided)
    *provided = told;
  if (ierr) /* mpi_f08: NULL when the caller leaves ierror out */
    *ierr = rc;
}

HK_PUBLIC void mpi_init_(MPI_Fint *ierr) { f_init(MPI_THREAD_SINGLE, NULL, ierr); }

HK_PUBLIC void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
  f_init(*required, provided, ierr);
}

HK_PUBLIC void mpi_query_thread_(MPI_Fint *provided, MPI_Fint *ierr)
{
  hk__f_query_thread(provided, ierr);
}

HK_PUBLIC void mpi_finalize_(MPI_Fint *ierr)
{
  f_ierr_t fin = (f_ierr_t)(uintptr_t)fortran_symbol("pmpi_finalize_");
  MPI_Fint rc = MPI_SUCCESS;
  hk__preload_finalize();
  fin(&rc);
  if (ierr)
    *ierr = rc;
}

/* a Fortran buffer argument as C sees it: Open MPI's MPI_IN_PLACE and MPI_BOTTOM are
 * common blocks (their addresses, looked up once), the C constants otherwise */
static void *f_buf(void *buf)
{
  static void *in_place, *bottom;
  static int looked;
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
    bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  if (in_place && buf == in_place)
    return MPI_IN_PLACE;
  if (bottom && buf == bottom)
    return MPI_BOTTOM;
  return buf;
}

static void f_ret(MPI_Fint *ierr, int rc)
{
  if (ierr) /* mpi_f08: NULL when the caller leaves ierror out */
    *ierr = rc;
}

HK_PUBLIC void mpi_allreduce_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                              MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Allreduce(f_buf(sbuf), f_buf(rbuf), (int)*count, PMPI_Type_f2c(*type),
                            PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_reduce_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                           MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Reduce(f_buf(sbuf), f_buf(rbuf), (int)*count, PMPI_Type_f2c(*type),
                         PMPI_Op_f2c(*op), (int)*root, PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_reduce_scatter_block_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                                         MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Reduce_scatter_block(f_buf(sbuf), f_buf(rbuf), (int)*count,
                                       PMPI_Type_f2c(*type), PMPI_Op_f2c(*op),
                                       PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root,
                          MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Bcast(f_buf(buf), (int)*count, PMPI_Type_f2c(*type), (int)*root,
                        PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_allgather_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                              MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Allgather(f_buf(sbuf), (int)*scount, PMPI_Type_f2c(*stype), f_buf(rbuf),
                            (int)*rcount, PMPI_Type_f2c(*rtype), PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_alltoall_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                             MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Alltoall(f_buf(sbuf), (int)*scount, PMPI_Type_f2c(*stype), f_buf(rbuf),
                           (int)*rcount, PMPI_Type_f2c(*rtype), PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_scan_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                         MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Scan(f_buf(sbuf), f_buf(rbuf), (int)*count, PMPI_Type_f2c(*type),
                       PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_exscan_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                           MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Exscan(f_buf(sbuf), f_buf(rbuf), (int)*count, PMPI_Type_f2c(*type),
                         PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_allgatherv_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                               MPI_Fint *rcounts, MPI_Fint *displs, MPI_Fint *rtype,
                               MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Allgatherv(f_buf(sbuf), (int)*scount, PMPI_Type_f2c(*stype), f_buf(rbuf),
                             (const int *)rcounts, (const int *)displs, PMPI_Type_f2c(*rtype),
                             PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_reduce_scatter_(void *sbuf, void *rbuf, MPI_Fint *rcounts, MPI_Fint *type,
                                   MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Reduce_scatter(f_buf(sbuf), f_buf(rbuf), (const int *)rcounts,
                                 PMPI_Type_f2c(*type), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

HK_PUBLIC void mpi_alltoallv_(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stype,
                              void *rbuf, MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtype,
                              MPI_Fint *comm, MPI_Fint *ierr)
{
  f_ret(ierr, MPI_Alltoallv(f_buf(sbuf), (const int *)scounts, (const int *)sdispls,
                            PMPI_Type_f2c(*stype), f_buf(rbuf), (const int *)rcounts,
                            (const int *)rdispls, PMPI_Type_f2c(*rtype), PMPI_Comm_f2c(*comm)));
}

/* use mpi_f08: the same entry points */
HK_PUBLIC void mpi_init_f08_(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
HK_PUBLIC void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
    __attribute__((alias("mpi_init_thread_")));
HK_PUBLIC void mpi_query_thread_f08_(MPI_Fint *provided, MPI_Fint *ierr)
    __attribute__((alias("mpi_query_thread_")));
HK_PUBLIC void mpi_finalize_f08_(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
HK_PUBLIC void mpi_allreduce_f08_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                                  MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
    __attribute__((alias("mpi_allreduce_")));
HK_PUBLIC void mpi_reduce_f08_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                               MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
    __attribute__((alias("mpi_reduce_")));
HK_PUBLIC void mpi_reduce_scatter_block_f08_(void *sbuf, void *rbuf, MPI_Fint *count,
                                             MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                                             MPI_Fint *ierr)
    __attribute__((alias("mpi_reduce_scatter_block_")));
HK_PUBLIC void mpi_bcast_f08_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root,
                              MPI_Fint *comm, MPI_Fint *ierr) __attribute__((alias("mpi_bcast_")));
HK_PUBLIC void mpi_allgather_f08_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                                  MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *comm,
                                  MPI_Fint *ierr) __attribute__((alias("mpi_allgather_")));
HK_PUBLIC void mpi_alltoall_f08_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                                 MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *comm,
                                 MPI_Fint *ierr) __attribute__((alias("mpi_alltoall_")));
HK_PUBLIC void mpi_scan_f08_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                             MPI_Fint *comm, MPI_Fint *ierr) __attribute__((alias("mpi_scan_")));
HK_PUBLIC void mpi_exscan_f08_(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                               MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
    __attribute__((alias("mpi_exscan_")));
HK_PUBLIC void mpi_allgatherv_f08_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                                   MPI_Fint *rcounts, MPI_Fint *displs, MPI_Fint *rtype,
                                   MPI_Fint *comm, MPI_Fint *ierr)
    __attribute__((alias("mpi_allgatherv_")));
HK_PUBLIC void mpi_reduce_scatter_f08_(void *sbuf, void *rbuf, MPI_Fint *rcounts, MPI_Fint *type,
                                       MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
    __attribute__((alias("mpi_reduce_scatter_")));
HK_PUBLIC void mpi_alltoallv_f08_(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls,
                                  MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts,
                                  MPI_Fint *rdispls, MPI_Fint *rtype, MPI_Fint *comm,
                                  MPI_Fint *ierr) __attribute__((alias("mpi_alltoallv_")));

#elif defined(MPICH_VERSION)
/* MPICH's mpi_f08: init, finalize and query call PMPI_* directly; here they go through
 * the C wrappers (the thread level asked for and told, the summary at finalize) */
HK_PUBLIC void mpi_init_f08_(MPI_Fint *ierr);
HK_PUBLIC void mpi_init_thread_f08_(const MPI_Fint *required, MPI_Fint *provided,
                                    MPI_Fint *ierr);
HK_PUBLIC void mpi_query_thread_f08_(MPI_Fint *provided, MPI_Fint *ierr);
HK_PUBLIC void mpi_finalize_f08_(MPI_Fint *ierr);

void mpi_init_f08_(MPI_Fint *ierr) { hk__f_init(ierr); }

void mpi_init_thread_f08_(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
  hk__f_init_thread(required, provided, ierr);
}

void mpi_query_thread_f08_(MPI_Fint *provided, MPI_Fint *ierr)
{
  hk__f_query_thread(provided, ierr);
}

void mpi_finalize_f08_(MPI_Fint *ierr) { hk__f_finalize(ierr); }
#endif
