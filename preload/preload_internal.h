/* preload/preload_internal.h: what hk_preload.c shares with hk_preload_fortran.c
 * (hidden: not exported by libhybridkit-preload.so). */
#ifndef HK_PRELOAD_INTERNAL_H
#define HK_PRELOAD_INTERNAL_H

#include "hk_interpose.h" /* HK_PUBLIC, level names, Fortran symbol look-up */
#define HK_HIDDEN __attribute__((visibility("hidden")))

#include <stddef.h>

/* HK_PRELOAD_THREAD_LEVEL: auto (default), program, multiple, anything else */
enum { LEVEL_AUTO, LEVEL_PROGRAM, LEVEL_MULTIPLE, LEVEL_BOGUS };

/* hk_preload_level.c: the level to ask PMPI for (before MPI_Init: only the environment
 * and the process's own affinity are known); *mode: HK_PRELOAD_THREAD_LEVEL's, why:
 * the reason, for the summary */
HK_HIDDEN int hk__preload_level(int required, int *mode, char *why, size_t nwhy);
/* the same, kept as the state's asked level */
HK_HIDDEN int hk__preload_ask(int required);
/* after PMPI's init returned rc with mpi_level: the state set up, *provided (may be
 * NULL) the level the program is told */
HK_HIDDEN int hk__preload_init_common(int rc, int required, int *provided, int mpi_level);
/* what MPI_Finalize does before MPI's own: the summary, the keyval */
HK_HIDDEN void hk__preload_finalize(void);

#endif
