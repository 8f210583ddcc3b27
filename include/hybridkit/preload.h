/* hybridkit/preload.h: what libhybridkit-preload.so tells a program that asks.
 * A program finds out whether it runs under the preload library with
 *   hk_preload_query_fn q = (hk_preload_query_fn)dlsym(RTLD_DEFAULT, "hk_preload_query");
 * (NULL: not preloaded), so it needs no link dependency on the preload library.
 * Not part of libhybridkit (hybridkit.h does not include it). */
#ifndef HYBRIDKIT_PRELOAD_H
#define HYBRIDKIT_PRELOAD_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hk_preload_state {
  int active;               /* the preload library's MPI_Init(_thread) ran */
  int program_level;        /* MPI_THREAD_* the program asked for (and is told) */
  int mpi_level;            /* MPI_THREAD_* MPI really provides */
  long long calls;          /* collective calls intercepted by this rank (MPI_Allreduce,
                               MPI_Reduce, MPI_Reduce_scatter_block, MPI_Bcast,
                               MPI_Allgather, MPI_Alltoall; C and Fortran) */
  long long accelerated;    /* ... run by a hybrid algorithm */
  long long passed;         /* ... passed through to PMPI_* */
  double hybrid_time;       /* s spent in the accelerated calls */
} hk_preload_state_t;

typedef int (*hk_preload_query_fn)(hk_preload_state_t *state);
/* hk_preload_query: the state of this rank.  Exported by libhybridkit-preload.so only.
 * Collective: local.  Threads: any thread.  Errors: none (returns 0). */
int hk_preload_query(hk_preload_state_t *state);

#ifdef __cplusplus
}
#endif
#endif
