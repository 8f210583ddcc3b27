/* preload/hk_profile.h: what hk_profile.c (the wrappers, the counting) shares with
 * hk_profile_out.c (at MPI_Finalize: gathering, symbolising, the records and the
 * summary).  Hidden: libhybridkit-profile.so exports only the MPI_ wrappers. */
#ifndef HK_PROFILE_H
#define HK_PROFILE_H

#include <mpi.h>
#include <stdint.h>
#include "hk_interpose.h"

#define HK_HIDDEN __attribute__((visibility("hidden")))
#define PROF_NSITES 1024 /* call sites per thread (power of two) */
#define PROF_NBIN 48     /* log2 size bins: bin b holds [2^(b-1), 2^b), bin 0 holds 0 */

enum { CLS_P2P, CLS_COLL, CLS_ALLREDUCE, PROF_NCLS }; /* the histograms */
/* what a call moves (hk_profile_shapes.h) */
enum { S_NONE, S_SEND, S_RECV, S_COLL, S_ALLRED, S_BYTES };

/* one (MPI function, return address) on one thread */
typedef struct prof_site {
  const void *ret;            /* NULL: slot unused */
  int call;                   /* index in hk_check_calls.h */
  int shape;                  /* S_* of the call */
  long long calls, calls_parallel, calls_off_main, bytes;
  long long calls_intra, calls_inter, bytes_intra, bytes_inter;
  double time, time_outside;
  unsigned long long threads; /* bit t: OpenMP thread t (63: t >= 63) made it */
} prof_site_t;

typedef struct prof_thread {
  prof_site_t site[PROF_NSITES];
  long long hist[PROF_NCLS][PROF_NBIN][2]; /* calls, bytes */
  double mpi, mpi_outside, mpi_parallel, sleeping;
  long long dropped;          /* calls of sites that did not fit */
  struct prof_thread *next;
} prof_thread_t;

typedef struct prof_state {
  int active, rank, size, required, provided, node, nnodes, virtual_nodes;
  int *node_of;               /* node of every world rank */
  double t_init;              /* monotonic seconds at MPI_Init's return */
  double cpu_init;            /* CPU seconds of the process's tasks then */
  MPI_Group world_group;
  prof_thread_t *threads;     /* every thread's table (never freed) */
} prof_state_t;

HK_HIDDEN extern prof_state_t hk__prof;
HK_HIDDEN extern const char *const hk__prof_call_names[];
HK_HIDDEN double hk__prof_now(void);
/* CPU seconds of the process's tasks (/proc/self/task/N/schedstat); *busy: those on a
 * CPU for a tenth of `wall` or more */
HK_HIDDEN double hk__prof_task_cpu(int *tasks, int *busy, double wall);
/* hk_profile_out.c: everything MPI_Finalize does before PMPI_Finalize (collective
 * over MPI_COMM_WORLD, PMPI only), and rank 0's output after it */
HK_HIDDEN void hk__prof_gather(void);
HK_HIDDEN void hk__prof_write(void);

#endif
