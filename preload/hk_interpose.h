/* preload/hk_interpose.h: what the two PMPI interposition libraries share,
 * libhybridkit-preload.so (hk_preload.c) and libhybridkit-check.so (hk_check.c):
 * the export attribute, MPI thread-level names, and the look-up of Open MPI's
 * own Fortran bindings for the Fortran wrappers.  Header-only (static inline):
 * each library stays one object with no link dependency on the other. */
#ifndef HK_INTERPOSE_H
#define HK_INTERPOSE_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HK_PUBLIC __attribute__((visibility("default")))

/* an MPI thread level as 0 single, 1 funneled, 2 serialized, 3 multiple (the MPI
 * constants' values are the library's own) */
static inline int hk__mpi_level_index(int l)
{
  return l == MPI_THREAD_SINGLE ? 0 : l == MPI_THREAD_FUNNELED ? 1
         : l == MPI_THREAD_SERIALIZED ? 2 : 3;
}

/* "single", "funneled", "serialized", "multiple" */
static inline const char *hk__mpi_level_short(int l)
{
  static const char *const n[] = {"single", "funneled", "serialized", "multiple"};
  return n[hk__mpi_level_index(l)];
}

/* "MPI_THREAD_SINGLE" ... */
static inline const char *hk__mpi_level_long(int l)
{
  static const char *const n[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                  "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
  return n[hk__mpi_level_index(l)];
}

/* a symbol of MPI's Fortran library (pmpi_init_thread_, ...): a Fortran program
 * that called our Fortran wrapper without that library loaded cannot exist, so
 * a miss aborts with the name */
static inline void *hk__fortran_symbol(const char *lib, const char *name)
{
  void *f = dlsym(RTLD_DEFAULT, name);
  if (!f) {
    fprintf(stderr, "%s: error: %s not found (Open MPI's Fortran library)\n", lib, name);
    abort();
  }
  return f;
}

#endif
