/* hybridkit/timer.h: timing helpers (warm-up excluded, barrier before the
 * timed region, per-rank values reduced to min/avg/max; the headline is max). */
#ifndef HYBRIDKIT_TIMER_H
#define HYBRIDKIT_TIMER_H

#include <mpi.h>
#include "hybridkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hk_stats {
  double min;
  double avg;
  double max;
} hk_stats_t;

/* hk_wtime: wall-clock seconds (MPI_Wtime: a simulator such as SimGrid SMPI virtualises
 * it).  Collective: local.  Threads: an MPI call: the thread that may call MPI at the
 * provided level (the master thread at FUNNELED; any thread at MULTIPLE).  Errors: none. */
HK_EXPORT double hk_wtime(void);

/* hk_clock: seconds on a monotonic clock (CLOCK_MONOTONIC; only differences mean anything)
 * that any thread may read, also inside parallel regions, for timers MPI_Wtime cannot serve
 * there; under SimGrid SMPI the simulated clock outside parallel regions (inside them the
 * host's: threads are not simulated, docs/simulate.md).  Collective: local.  Threads: any
 * thread.  Errors: none. */
HK_EXPORT double hk_clock(void);

/* hk_stats_reduce: min/avg/max of `local` over the ranks of comm, on every rank.
 * HK_ERR_ARG on every rank when any rank's value is NaN or infinite.
 * Collective: comm.  Threads: outside parallel regions (masteronly).
 * Errors: HK_ERR_ARG (NaN or infinite value on a rank, agreed), HK_ERR_MPI. */
HK_EXPORT int hk_stats_reduce(MPI_Comm comm, double local, hk_stats_t *stats);

/* The work a timed loop repeats; returns HK_SUCCESS or an error code. */
typedef int (*hk_timed_fn)(void *arg);

typedef struct hk_timing_desc {
  MPI_Comm comm;  /* ranks that time together */
  int warmup;     /* untimed calls first (>= 0) */
  int iters;      /* timed calls (>= 1) */
} hk_timing_desc_t;

/* hk_time_loop: calls fn(arg) warmup times, barrier, then iters times under the
 * clock; *per_call receives min/avg/max over ranks of the time per call.
 * An error of fn on any rank is agreed (hk_agree) and returned on all ranks.
 * Collective: desc->comm.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG (bad desc), fn's error (agreed), HK_ERR_MPI. */
HK_EXPORT int hk_time_loop(const hk_timing_desc_t *desc, hk_timed_fn fn, void *arg,
                           hk_stats_t *per_call);

#ifdef __cplusplus
}
#endif
#endif
