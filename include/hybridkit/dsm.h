/* hybridkit/dsm.h: page-based distributed shared memory over MPI (issue 21).
 *
 * The tutorial's "OpenMP only on a cluster" model (Intel Cluster OpenMP, TreadMarks,
 * ArgoDSM): a region of memory mapped at the SAME virtual address on every rank of a
 * communicator, kept coherent by the runtime with page protection and a fault handler,
 * twins and run-length diffs, and home-based lazy release consistency:
 *
 *   - every page has a home rank (block or cyclic) whose own copy is the master copy;
 *   - a rank reads a page it has no valid copy of: the access faults, the runtime
 *     fetches the page from its home (MPI_Get, passive target), the access restarts;
 *   - a rank writes a page: the first write faults, the runtime keeps a twin (a copy
 *     of the page before the write; not at the home, which writes in place) and lets
 *     the writes go ahead;
 *   - at hk_dsm_barrier every rank sends the diffs of its written pages (twin vs page)
 *     to their homes and the write notices (which pages it wrote) to everybody; each
 *     rank then invalidates its copies of the pages written by others;
 *   - hk_dsm_lock/unlock: release flushes the diffs, acquire invalidates the pages
 *     written in critical sections since this rank last looked.
 * Writes are visible to other ranks only after a barrier or a lock hand-over (a
 * data-race-free program sees sequential consistency).  docs/dsm.md has the protocol,
 * the reasoning and the rules below in full.
 *
 * What a program must not do with region memory (the fault handler's reach):
 *   - pass region addresses to MPI, to system calls (read(2) into it fails with EFAULT
 *     instead of faulting) or to any code that holds a lock while it touches them;
 *   - touch the region inside its own SIGSEGV/SIGBUS handler, or replace SIGSEGV's
 *     handler after hk_dsm_create (install yours before: ours passes other faults on);
 *   - use it after hk_dsm_free (the access prints "hk_dsm: access to freed region"
 *     and the rank dies with SIGSEGV, so the launcher ends the job);
 *   - rely on plain writes of one rank reaching another without a barrier or a lock.
 * Threads of a rank share its copy of the region (they see each other's writes as in
 * any shared memory); faults may come from any thread.
 */
#ifndef HYBRIDKIT_DSM_H
#define HYBRIDKIT_DSM_H

#include <stddef.h>
#include <mpi.h>
#include "hybridkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hk_dsm hk_dsm_t;

typedef enum hk_dsm_home {
  HK_DSM_HOME_BLOCK = 0,  /* pages [k*n/P, (k+1)*n/P) at rank k */
  HK_DSM_HOME_CYCLIC = 1  /* page i at rank i % P */
} hk_dsm_home_t;

typedef struct hk_dsm_desc {
  size_t size;           /* bytes (rounded up to whole pages); the same on every rank */
  hk_dsm_home_t home;    /* home assignment of pages */
  int nlocks;            /* locks usable with hk_dsm_lock (0..64) */
  double timeout;        /* seconds a rank waits for the others in a collective
                          * (0: HK_DSM_TIMEOUT from the environment, else 300;
                          * a value there that is no positive number: HK_ERR_ARG) */
} hk_dsm_desc_t;

/* per-rank statistics (counted since create or the last hk_dsm_stats_reset) */
typedef struct hk_dsm_stats {
  long long read_faults;     /* faults on invalid pages (each fetches the page) */
  long long write_faults;    /* first writes to a valid page (a twin unless this rank is home) */
  long long pages_fetched;   /* pages fetched from their home (a home never fetches its own) */
  long long pages_fetched_remote;
  long long diffs_made;      /* diffs of written pages (twin vs page) sent to other homes */
  long long diff_runs;       /* runs of changed bytes in them (one MPI_Put each) */
  long long notices_sent;    /* write notices this rank sent (pages it wrote) */
  long long invalidations;   /* copies invalidated because others wrote the page */
  long long bytes_fetched;   /* bytes moved to this rank by fetches from other ranks */
  long long bytes_diffs;     /* bytes of diffs this rank sent to other ranks' homes */
  long long bytes_notices;   /* bytes of write notices this rank received */
  long long barriers;
  long long lock_acquires;
  double time_fault;         /* seconds in the fault handler (summed over threads) */
  double time_barrier;       /* seconds in hk_dsm_barrier */
  double time_lock;          /* seconds in hk_dsm_lock/unlock */
} hk_dsm_stats_t;

/* hk_dsm_create: a shared region of desc->size bytes on comm, mapped at the same
 * address on every rank, zero-filled; *base is that address (page-aligned).
 * Errors (the same on every rank): HK_ERR_ARG (size 0, sizes differ between ranks,
 * nlocks out of range, HK_DSM_TIMEOUT or HK_DSM_PROGRESS_US not a value), HK_ERR_NOMEM (larger than the machine's memory, or no common
 * address range found), HK_ERR_THREAD_LEVEL (MPI must provide MPI_THREAD_MULTIPLE: the
 * runtime's service thread calls MPI while the program runs), HK_ERR_MPI (also when the
 * MPI cannot make a passive-target window over the network: Open MPI across TCP nodes
 * needs --mca osc ucx).  Environment: HK_DSM_TIMEOUT, HK_DSM_PROGRESS_US (README).
 * Collective: comm.  Threads: outside parallel regions.  Errors: as above. */
HK_EXPORT int hk_dsm_create(MPI_Comm comm, const hk_dsm_desc_t *desc, hk_dsm_t **dsm, void **base);

/* hk_dsm_free: release the region (the address range stays reserved and any access to
 * it is reported, see above); *dsm = NULL.  Collective: the region's comm.
 * Threads: outside parallel regions.  Errors: HK_ERR_STATE when the ranks are not all
 * freeing (one of them is in hk_dsm_barrier, say) or do not arrive within the timeout. */
HK_EXPORT int hk_dsm_free(hk_dsm_t **dsm);

/* hk_dsm_barrier: make every write before it visible to every rank after it (diffs to
 * the homes, write notices, invalidation).  Errors (every rank that called it):
 * HK_ERR_STATE when some rank calls another collective of the region instead or does
 * not arrive within the timeout; the region is unusable afterwards (free it).
 * Collective: the region's comm.  Threads: outside parallel regions (one call per rank;
 * an OpenMP barrier of the rank's threads must precede it).  Errors: as above. */
HK_EXPORT int hk_dsm_barrier(hk_dsm_t *dsm);

/* hk_dsm_lock / hk_dsm_unlock: lock `id` (0 <= id < desc.nlocks) of the region across
 * all ranks and threads.  Release consistency: writes made before hk_dsm_unlock are seen
 * by whoever acquires the lock next.  Collective: local.  Threads: any thread
 * (MPI_THREAD_MULTIPLE); a thread must not take a lock it holds.
 * Errors: HK_ERR_ARG (id out of range), HK_ERR_STATE (region unusable after an earlier
 * error), HK_ERR_MPI. */
HK_EXPORT int hk_dsm_lock(hk_dsm_t *dsm, int id);
HK_EXPORT int hk_dsm_unlock(hk_dsm_t *dsm, int id);

/* hk_dsm_size: the region's size in bytes (whole pages; 0 for NULL).
 * Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT size_t hk_dsm_size(const hk_dsm_t *dsm);
/* hk_dsm_page_size: the page size the DSM works in (the system's).
 * Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT size_t hk_dsm_page_size(void);
/* hk_dsm_home_of: the home rank of the page holding byte `offset` into *home.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL or an offset beyond the region. */
HK_EXPORT int hk_dsm_home_of(const hk_dsm_t *dsm, size_t offset, int *home);

/* hk_dsm_stats: the statistics of the calling rank into *stats.
 * Collective: local.  Threads: outside parallel regions.  Errors: HK_ERR_ARG for NULL. */
HK_EXPORT int hk_dsm_stats(const hk_dsm_t *dsm, hk_dsm_stats_t *stats);
/* hk_dsm_stats_reset: zero the statistics of the calling rank.
 * Collective: local.  Threads: outside parallel regions.  Errors: HK_ERR_ARG for NULL. */
HK_EXPORT int hk_dsm_stats_reset(hk_dsm_t *dsm);

#ifdef __cplusplus
}
#endif
#endif
