/* preload/hk_preload.h: what libhybridkit-preload.so tells a program that asks.
 * A program finds out whether it runs under the preload library with
 *   hk_preload_query_fn q = (hk_preload_query_fn)dlsym(RTLD_DEFAULT, "hk_preload_query");
 * (NULL: not preloaded), so it needs no link dependency on the preload library. */
#ifndef HK_PRELOAD_H
#define HK_PRELOAD_H

typedef struct hk_preload_state {
  int active;               /* the preload library's MPI_Init(_thread) ran */
  int program_level;        /* MPI_THREAD_* the program asked for (and is told) */
  int mpi_level;            /* MPI_THREAD_* MPI really provides */
  long long calls;          /* MPI_Allreduce calls intercepted by this rank */
  long long accelerated;    /* ... run by a hybrid algorithm */
  long long passed;         /* ... passed through to PMPI_Allreduce */
  double hybrid_time;       /* s spent in the accelerated calls */
} hk_preload_state_t;

typedef int (*hk_preload_query_fn)(hk_preload_state_t *state);
int hk_preload_query(hk_preload_state_t *state); /* exported by the preload library */

#endif
