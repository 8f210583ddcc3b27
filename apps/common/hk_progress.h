/* apps/common/hk_progress.h: per-thread progress counters for wavefront (pipelined) loops.
 *
 * Each thread of a team owns one counter and posts how many steps (planes, time levels, ...)
 * it has finished; a thread that needs its neighbour's step s waits until that counter is
 * >= s.  A bounded-distance wait (the leader must not run more than d steps ahead of its
 * follower, e.g. when both share a buffer of d planes) is the same wait on the follower's
 * counter with s = mine - d.
 *
 *   thread 0:  post(0,1) post(0,2) post(0,3) ...
 *   thread 1:  wait(0,1) .. post(1,1) wait(0,2) .. post(1,2) ...   (a wavefront)
 *
 * Used by hk-mz's LU-MZ SSOR sweeps (apps/mz/lu_ssor.c) and hk-jacobi's pipelined temporal
 * blocking (apps/jacobi/pipeline.c, hk_progress_wait_stage: a minimal distance to the
 * predecessor, a maximal one to the successor).  Counters are C11 atomics, one cache line
 * each; post is a release store, wait an acquire load, so data written before a post is
 * visible after the matching wait.  Waiting spins briefly, then yields the core (hybrid
 * runs are often oversubscribed: a spinning waiter must not starve the thread it waits
 * for).
 *
 * Threads: reset by every thread for its own counter followed by a barrier of the team
 * (hk_progress_reset_mine + #pragma omp barrier) before use; post only one's own counter.
 */
#ifndef HK_PROGRESS_H
#define HK_PROGRESS_H

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct hk_progress_slot {
  _Atomic long value;
  char pad[64 - sizeof(long)];
} hk_progress_slot_t;

typedef struct hk_progress {
  int nthreads;
  hk_progress_slot_t *slot;
} hk_progress_t;

/* hk_progress_init: counters for up to nthreads threads, all 0.  Returns 0 or -1 (memory). */
static inline int hk_progress_init(hk_progress_t *p, int nthreads)
{
  p->nthreads = nthreads < 1 ? 1 : nthreads;
  p->slot = aligned_alloc(64, (size_t)p->nthreads * sizeof *p->slot);
  if (!p->slot)
    return -1;
  for (int t = 0; t < p->nthreads; t++)
    atomic_init(&p->slot[t].value, 0);
  return 0;
}

static inline void hk_progress_free(hk_progress_t *p)
{
  free(p->slot);
  p->slot = NULL;
  p->nthreads = 0;
}

/* set my counter to 0 (then a team barrier before anyone waits on it) */
static inline void hk_progress_reset_mine(hk_progress_t *p, int me)
{
  atomic_store_explicit(&p->slot[me].value, 0, memory_order_relaxed);
}

/* I have finished step `step` (counters only grow) */
static inline void hk_progress_post(hk_progress_t *p, int me, long step)
{
  atomic_store_explicit(&p->slot[me].value, step, memory_order_release);
}

/* wait until thread `who` has finished step `step` (returns at once when step <= 0) */
static inline void hk_progress_wait(hk_progress_t *p, int who, long step)
{
  for (int spin = 0; atomic_load_explicit(&p->slot[who].value, memory_order_acquire) < step;
       spin++)
    if (spin >= 200)
      sched_yield();
#if defined(__x86_64__) || defined(__i386__)
    else
      __builtin_ia32_pause(); /* be gentle with a hyper-thread sibling while spinning */
#endif
}

/* bounded distance: I (at my step `mine`) may run at most `distance` steps ahead of `who` */
static inline void hk_progress_wait_within(hk_progress_t *p, int who, long mine, long distance)
{
  hk_progress_wait(p, who, mine - distance);
}

/* a pipeline stage with relaxed synchronisation (Wellein et al., COMPSAC 2009; Wittmann et
 * al., PPL 2010): before its item k (it has finished k items), stage `me` waits until its
 * predecessor `pred` has finished at least min(k + dl, total) items (a minimal distance dl
 * ahead; the predecessor is done after `total`) and its successor `succ` at least k - du
 * (I am at most du items ahead of it).  pred or succ < 0: none (the first and the last
 * stage).  Deadlock-free along a chain of stages when du >= dl - 1 for every pair. */
static inline void hk_progress_wait_stage(hk_progress_t *p, int pred, int succ, long k, long dl,
                                          long du, long total)
{
  if (pred >= 0)
    hk_progress_wait(p, pred, k + dl < total ? k + dl : total);
  if (succ >= 0)
    hk_progress_wait_within(p, succ, k, du);
}

#endif
