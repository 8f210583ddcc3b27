/* src/dsm/protocol.c: home-based lazy release consistency: diffs of written pages to
 * their homes, write notices and invalidation at hk_dsm_barrier; release (flush +
 * notices at the lock home) and acquire (invalidate what others released) for locks.
 * docs/dsm.md explains the order of the steps and why it is enough. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "dsm_internal.h"
#include "internal/hk_internal.h"

/* diff of page p (twin vs page), one MPI_Put per run of changed bytes to the home copy.
 * Compared in 8-byte words (the page and twin are page-aligned). */
static int put_diff(struct hk_dsm *d, long p)
{
  int err = HK_SUCCESS;
  long idx;
  int home = hk__dsm_home(d, p, &idx);
  const unsigned long long *cur = (const unsigned long long *)(d->alias + (size_t)p * d->page);
  const unsigned long long *twin = (const unsigned long long *)(d->twins + (size_t)p * d->page);
  size_t nw = d->page / 8;
  MPI_Aint disp0 = (MPI_Aint)p * (MPI_Aint)d->page;
  if (home == d->rank) /* written in place in the master copy: nothing to send */
    return HK_SUCCESS;
  d->st_diffs++;
  for (size_t w = 0; w < nw;) {
    if (cur[w] == twin[w]) {
      w++;
      continue;
    }
    size_t e = w + 1;
    while (e < nw && cur[e] != twin[e])
      e++;
    int len = (int)((e - w) * 8);
    DSM_MPI(err, PMPI_Put(cur + w, len, MPI_BYTE, home, disp0 + (MPI_Aint)(w * 8), len, MPI_BYTE,
                          d->win));
    d->st_runs++;
    if (home != d->rank)
      d->st_bytes_diffs += len;
    w = e;
  }
cleanup:
  return err;
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* send the diffs of every written page to its home; the pages become clean (RO).
 * Completed at the homes when this returns.  Caller holds d->proto. */
static int flush_dirty(struct hk_dsm *d, int *scratch, long *nflushed)
{
  int err = HK_SUCCESS;
  long n = hk__dsm_list_take(&d->dirty, scratch), k = 0;
  for (long i = 0; i < n; i++) {
    int p = scratch[i], s;
    /* a listed page is RW, or BUSY while a thread of this rank twins it (it is listed
     * before it opens): wait for RW then, or its writes would never be flushed */
    for (;;) {
      s = DSM_RW;
      if (atomic_compare_exchange_strong(&d->state[p], &s, DSM_BUSY) || s != DSM_BUSY)
        break;
      sched_yield();
    }
    if (s != DSM_RW)
      continue;
    scratch[k++] = p;
  }
  /* writers from other threads fault from now on and wait for RO: runs of consecutive
   * pages in one mprotect each */
  qsort(scratch, (size_t)k, sizeof *scratch, cmp_int);
  for (long i = 0; i < k;) {
    long j = i + 1;
    while (j < k && scratch[j] == scratch[j - 1] + 1)
      j++;
    mprotect(d->base + (size_t)scratch[i] * d->page, (size_t)(j - i) * d->page, PROT_READ);
    i = j;
  }
  for (long i = 0; i < k; i++)
    HK_LOCAL(err, put_diff(d, scratch[i]));
  int rc = d->win == MPI_WIN_NULL ? MPI_SUCCESS : PMPI_Win_flush_all(d->win);
  if (rc == MPI_SUCCESS && d->win != MPI_WIN_NULL)
    rc = PMPI_Win_sync(d->win);
  if (rc != MPI_SUCCESS)
    HK_LOCAL(err, hk__mpi_error(rc, __FILE__, __LINE__, __func__, "MPI_Win_flush_all"));
  for (long i = 0; i < k; i++)
    atomic_store(&d->state[scratch[i]], DSM_RO);
  if (nflushed)
    *nflushed = k;
  return err;
}

/* invalidate the pages marked in d->mark (valid clean copies only), runs at a time.
 * A page is claimed (RO -> BUSY) before its protection changes, so a thread of this
 * rank faulting on it meanwhile waits instead of racing. */
static void invalidate_marked(struct hk_dsm *d)
{
  for (long p = 0; p < d->npages;) {
    if (!d->mark[p]) {
      p++;
      continue;
    }
    long e = p;
    for (; e < d->npages && d->mark[e]; e++) {
      int s = DSM_RO;
      long idx;
      d->mark[e] = 0;
      if (hk__dsm_home(d, e, &idx) == d->rank) /* the master copy stays valid */
        break;
      if (!atomic_compare_exchange_strong(&d->state[e], &s, DSM_BUSY))
        break; /* not a clean valid copy: nothing to invalidate */
    }
    if (e > p) {
      mprotect(d->base + (size_t)p * d->page, (size_t)(e - p) * d->page, PROT_NONE);
      for (long q = p; q < e; q++)
        atomic_store(&d->state[q], DSM_INVALID);
      d->st_inval += e - p;
    }
    p = e; /* a page that broke the run has its mark cleared: skipped next */
  }
}

/* The lock words live at rank 0 in window lwin.  They are read and changed inside short
 * exclusive lock epochs (never held across program code) instead of with MPI atomics:
 * Open MPI 4.1's osc/rdma crashes in the vader btl's emulated compare-and-swap when a
 * rank targets itself (docs/dsm.md).  One epoch per rank at a time (d->lwm). */
static int lw_begin(struct hk_dsm *d)
{
  pthread_mutex_lock(&d->lwm);
  int rc = PMPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, d->lwin);
  if (rc != MPI_SUCCESS) {
    pthread_mutex_unlock(&d->lwm);
    return hk__mpi_error(rc, __FILE__, __LINE__, __func__, "MPI_Win_lock");
  }
  return HK_SUCCESS;
}

static int lw_end(struct hk_dsm *d, int err)
{
  int rc = PMPI_Win_unlock(0, d->lwin);
  pthread_mutex_unlock(&d->lwm);
  if (rc != MPI_SUCCESS)
    HK_LOCAL(err, hk__mpi_error(rc, __FILE__, __LINE__, __func__, "MPI_Win_unlock"));
  return err;
}

/* the lock home's cursor of released write notices */
static int read_cursor(struct hk_dsm *d, long long *c)
{
  int err = HK_SUCCESS;
  HK_TRY(err, lw_begin(d));
  DSM_MPI(err, PMPI_Get(c, 1, MPI_LONG_LONG, 0, DSM_MAX_LOCKS, 1, MPI_LONG_LONG, d->lwin));
cleanup:
  return lw_end(d, err);
}

/* the pages this rank wrote this interval, their written marks cleared */
static int take_notices(struct hk_dsm *d, int *pages, int *n)
{
  *n = (int)hk__dsm_list_take(&d->wrote, pages);
  for (int i = 0; i < *n; i++)
    atomic_store(&d->written[pages[i]], 0);
  d->st_notices += *n;
  return HK_SUCCESS;
}

/* every rank's count of notices into d->bar_counts; a rank that failed before sends its
 * (negative) error code instead, and every rank returns the lowest, with its message */
static int gather_counts(struct hk_dsm *d, int n, int err)
{
  MPI_Request req;
  int mine = err != HK_SUCCESS ? err : n, low = HK_SUCCESS;
  if (PMPI_Iallgather(&mine, 1, MPI_INT, d->bar_counts, 1, MPI_INT, d->comm, &req) !=
      MPI_SUCCESS) {
    d->broken = 1;
    return HK_ERROR(HK_ERR_MPI, "MPI_Iallgather failed");
  }
  int e = hk__dsm_wait(d, &req, "hk_dsm_barrier");
  if (e != HK_SUCCESS)
    return e;
  for (int r = 0; r < d->size; r++)
    if (d->bar_counts[r] < low)
      low = d->bar_counts[r];
  return low == HK_SUCCESS ? low : hk__dsm_agree_message(d, err, low, "hk_dsm_barrier");
}

/* Collective steps: the op agreement (hk__dsm_sync) | the notice counts, carrying a failed
 * flush | an agreement on the notices' buffer | the notices. */
int hk_dsm_barrier(hk_dsm_t *d)
{
  if (!d)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_barrier: NULL region");
  double t0 = hk__dsm_now();
  int err = HK_SUCCESS, *mine = d->bar_pages, *counts = d->bar_counts, *displs = d->bar_displs;
  int *all = NULL, n = 0;
  long long cursor = 0;
  MPI_Request req;
  pthread_mutex_lock(&d->proto);
  HK_TRY(err, hk__dsm_sync(d, 1, "hk_dsm_barrier"));
  /* notices released under locks from here on are handled again at the next acquire */
  if (d->nlocks)
    HK_LOCAL(err, read_cursor(d, &cursor));
  /* 1. diffs to the homes (complete there before this rank's notices go out) */
  HK_LOCAL(err, flush_dirty(d, mine, NULL));
  /* 2. write notices: the pages this rank wrote this interval */
  HK_LOCAL(err, take_notices(d, mine, &n));
  HK_TRY(err, gather_counts(d, n, err));
  long long total = 0;
  for (int r = 0; r < d->size; r++) {
    displs[r] = (int)total;
    total += counts[r];
  }
  HK_ALLOC_LOCAL(err, all, total);
  HK_TRY(err, hk__dsm_agree(d, err, "hk_dsm_barrier"));
  /* every rank's notices arrive only after every rank flushed: from here on the homes
   * hold all diffs of the interval */
  if (PMPI_Iallgatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, d->comm, &req) !=
      MPI_SUCCESS) {
    err = HK_ERROR(HK_ERR_MPI, "MPI_Iallgatherv failed");
    d->broken = 1;
    goto cleanup;
  }
  HK_TRY(err, hk__dsm_wait(d, &req, "hk_dsm_barrier"));
  d->st_bytes_notices += (total - n) * (long long)sizeof(int);
  if (d->win != MPI_WIN_NULL)
    PMPI_Win_sync(d->win); /* others' diffs put into this rank's master copies */
  /* 3. invalidate the copies of pages written by others */
  for (int r = 0; r < d->size; r++)
    if (r != d->rank)
      for (int i = 0; i < counts[r]; i++)
        d->mark[all[displs[r] + i]] = 1;
  invalidate_marked(d);
  if (d->nlocks)
    d->seen = cursor > d->seen ? cursor : d->seen;
  d->barriers++;
cleanup:
  free(all);
  d->st_t_barrier += hk__dsm_now() - t0;
  pthread_mutex_unlock(&d->proto);
  return err;
}

/* ---- locks: owner word id at rank 0, cursor at DSM_MAX_LOCKS, then the ring of
 * (stamp, page * P + rank) notices ---- */
#define RING_AT(i) ((MPI_Aint)(DSM_MAX_LOCKS + 1) + 2 * (MPI_Aint)((i) % DSM_RING))

/* acquire side: invalidate pages others released since this rank last looked */
static int acquire_notices(struct hk_dsm *d)
{
  int err = HK_SUCCESS, *scratch = NULL;
  long long c = 0, *ring = NULL;
  HK_TRY(err, read_cursor(d, &c));
  if (c <= d->seen)
    return HK_SUCCESS;
  HK_ALLOC_TRY(err, scratch, d->npages);
  /* my own unflushed writes must not be lost by an invalidation */
  HK_TRY(err, flush_dirty(d, scratch, NULL));
  long long from = d->seen, n = c - d->seen;
  int all = n > DSM_RING;
  if (!all) {
    HK_ALLOC_TRY(err, ring, 2 * n);
    HK_TRY(err, lw_begin(d));
    for (long long i = 0; i < n; i++)
      if (PMPI_Get(ring + 2 * i, 2, MPI_LONG_LONG, 0, RING_AT(from + i), 2, MPI_LONG_LONG,
                   d->lwin) != MPI_SUCCESS) {
        err = HK_ERROR(HK_ERR_MPI, "MPI_Get of the lock notices failed");
        break;
      }
    HK_TRY(err, lw_end(d, err));
    long long i = 0;
    for (; i < n; i++) {
      if (ring[2 * i] != from + i + 1) /* overwritten by a later round, or not yet filled */
        break;
      long long code = ring[2 * i + 1];
      if (code % d->size != d->rank)
        d->mark[code / d->size] = 1;
    }
    if (i < n && ring[2 * i] > from + i + 1)
      all = 1;
    else
      c = from + i;
  }
  if (all) /* lost track: every clean copy goes */
    memset(d->mark, 1, (size_t)d->npages);
  invalidate_marked(d);
  if (d->win != MPI_WIN_NULL)
    PMPI_Win_sync(d->win);
  d->seen = c;
cleanup:
  free(scratch);
  free(ring);
  return err;
}

/* the notices of the n pages at the ring's positions pos + 1 .. pos + n (e: 2n + 1 scratch),
 * then the new cursor; inside lw_begin / lw_end */
static int put_notices(struct hk_dsm *d, const int *pages, long n, long long pos, long long *e)
{
  e[2 * n] = pos + n;
  for (long i = 0; i < n; i++) {
    e[2 * i] = pos + i + 1;
    e[2 * i + 1] = (long long)pages[i] * d->size + d->rank;
    if (PMPI_Put(e + 2 * i, 2, MPI_LONG_LONG, 0, RING_AT(pos + i), 2, MPI_LONG_LONG, d->lwin) !=
        MPI_SUCCESS)
      return HK_ERROR(HK_ERR_MPI, "MPI_Put of a lock notice failed");
  }
  if (PMPI_Put(e + 2 * n, 1, MPI_LONG_LONG, 0, DSM_MAX_LOCKS, 1, MPI_LONG_LONG, d->lwin) !=
      MPI_SUCCESS)
    return HK_ERROR(HK_ERR_MPI, "MPI_Put of the lock notice cursor failed");
  return HK_SUCCESS;
}

/* release side: diffs to the homes, then the notices of the flushed pages */
static int release_notices(struct hk_dsm *d)
{
  int err = HK_SUCCESS, *pages = NULL;
  HK_ALLOC_TRY(err, pages, d->npages);
  HK_TRY(err, flush_dirty(d, pages, NULL));
  /* the notices: every page this rank wrote since its last release, whether flushed now
   * or earlier (an acquire flushes too, but writes no notices) */
  long n = hk__dsm_list_take(&d->lwrote, pages);
  for (long i = 0; i < n; i++)
    atomic_store(&d->lwritten[pages[i]], 0);
  if (n == 0)
    goto cleanup;
  long long pos = 0, *e = NULL;
  HK_ALLOC_TRY(err, e, 2 * n + 1);
  HK_TRY(err, lw_begin(d));
  if (PMPI_Get(&pos, 1, MPI_LONG_LONG, 0, DSM_MAX_LOCKS, 1, MPI_LONG_LONG, d->lwin) != MPI_SUCCESS ||
      PMPI_Win_flush(0, d->lwin) != MPI_SUCCESS) {
    err = HK_ERROR(HK_ERR_MPI, "MPI_Get of the lock notice cursor failed");
  } else {
    err = put_notices(d, pages, n, pos, e);
  }
  err = lw_end(d, err);
  free(e);
cleanup:
  free(pages);
  return err;
}

int hk_dsm_lock(hk_dsm_t *d, int id)
{
  if (!d || id < 0 || id >= d->nlocks)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_lock: lock %d not in 0..%d", id, d ? d->nlocks - 1 : -1);
  if (d->broken)
    return HK_ERROR(HK_ERR_STATE, "hk_dsm_lock: the region is unusable after an earlier error");
  double t0 = hk__dsm_now();
  int err = HK_SUCCESS;
  pthread_mutex_lock(&d->tlock[id]);
  long long me = d->rank + 1, got = -1;
  for (int i = 0;; i++) { /* test-and-set inside an exclusive epoch */
    HK_TRY(err, lw_begin(d));
    if (PMPI_Get(&got, 1, MPI_LONG_LONG, 0, id, 1, MPI_LONG_LONG, d->lwin) != MPI_SUCCESS ||
        PMPI_Win_flush(0, d->lwin) != MPI_SUCCESS ||
        (got == 0 && PMPI_Put(&me, 1, MPI_LONG_LONG, 0, id, 1, MPI_LONG_LONG, d->lwin) != MPI_SUCCESS))
      err = HK_ERROR(HK_ERR_MPI, "MPI_Get/MPI_Put of lock %d failed", id);
    HK_TRY(err, lw_end(d, err));
    if (got == 0)
      break;
    hk__dsm_nap(i + 64);
  }
  pthread_mutex_lock(&d->proto);
  err = acquire_notices(d);
  d->st_acquires++;
  pthread_mutex_unlock(&d->proto);
cleanup:
  if (err != HK_SUCCESS)
    pthread_mutex_unlock(&d->tlock[id]);
  d->st_t_lock += hk__dsm_now() - t0;
  return err;
}

int hk_dsm_unlock(hk_dsm_t *d, int id)
{
  if (!d || id < 0 || id >= d->nlocks)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_unlock: lock %d not in 0..%d", id, d ? d->nlocks - 1 : -1);
  double t0 = hk__dsm_now();
  int err = HK_SUCCESS;
  pthread_mutex_lock(&d->proto);
  err = release_notices(d);
  pthread_mutex_unlock(&d->proto);
  long long zero = 0;
  int e2 = lw_begin(d);
  if (e2 == HK_SUCCESS) {
    if (PMPI_Put(&zero, 1, MPI_LONG_LONG, 0, id, 1, MPI_LONG_LONG, d->lwin) != MPI_SUCCESS)
      e2 = HK_ERROR(HK_ERR_MPI, "MPI_Put releasing lock %d failed", id);
    e2 = lw_end(d, e2);
  }
  HK_LOCAL(err, e2);
  pthread_mutex_unlock(&d->tlock[id]);
  d->st_t_lock += hk__dsm_now() - t0;
  return err;
}
