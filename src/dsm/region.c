/* src/dsm/region.c: creation and release of a DSM region (same address on every rank),
 * home assignment, statistics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include "dsm_internal.h"
#include "internal/hk_internal.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#define DSM_ADDRESS_TRIES 16

size_t hk_dsm_page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }
size_t hk_dsm_size(const hk_dsm_t *d) { return d ? d->bytes : 0; }

static long block_first(long n, int P, int k) { return (long)((long long)n * k / P); }

int hk__dsm_home(const struct hk_dsm *d, long p, long *index)
{
  if (d->home == HK_DSM_HOME_CYCLIC) {
    *index = p / d->size;
    return (int)(p % d->size);
  }
  int k = (int)((long long)p * d->size / d->npages);
  while (k + 1 < d->size && block_first(d->npages, d->size, k + 1) <= p)
    k++;
  while (k > 0 && block_first(d->npages, d->size, k) > p)
    k--;
  *index = p - block_first(d->npages, d->size, k);
  return k;
}

long hk__dsm_home_pages(const struct hk_dsm *d, int r)
{
  if (d->home == HK_DSM_HOME_CYCLIC)
    return (d->npages - r + d->size - 1) / d->size;
  return block_first(d->npages, d->size, r + 1) - block_first(d->npages, d->size, r);
}

/* the region's bookkeeping arrays and the region itself */
static void free_arrays(struct hk_dsm *d)
{
  free(d->state);
  free((void *)d->written);
  free(d->mark);
  free(d->dirty.page);
  free(d->wrote.page);
  free((void *)d->lwritten);
  free(d->lwrote.page);
  free(d->bar_pages);
  free(d->bar_counts);
  free(d->bar_displs);
  free(d);
}

int hk_dsm_home_of(const hk_dsm_t *d, size_t offset, int *home)
{
  long idx;
  if (!d || !home)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_home_of: NULL argument");
  if (offset >= d->bytes)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_home_of: offset %zu beyond the region's %zu bytes", offset,
                    d->bytes);
  *home = hk__dsm_home(d, (long)(offset / d->page), &idx);
  return HK_SUCCESS;
}

/* the same virtual range on every rank: rank 0 proposes, all map it there, all agree */
static int map_common(struct hk_dsm *d)
{
  int err = HK_SUCCESS;
  void *held[DSM_ADDRESS_TRIES] = {0};
  for (int t = 0; t < DSM_ADDRESS_TRIES; t++) {
    unsigned long long addr = 0;
    if (d->rank == 0) {
      /* first where rank 0's kernel puts it; after a refusal a spread-out hint (a page-aligned
       * spot in [2^40, 2^46), taken when free), not the range next to the refused one: the
       * ranks' libraries and heaps lie near their mmap bases, and 8 neighbouring proposals
       * all fell into one of them (CI, dsm.heat.periodic.np2.t1) */
      void *hint = NULL;
      if (t > 0) {
        unsigned long long r = (unsigned long long)(uintptr_t)d * 0x9E3779B97F4A7C15ULL ^
                               (unsigned long long)t * 0xBF58476D1CE4E5B9ULL; /* no rand(): the
                                                                                 * app's own */
        r ^= r >> 31;
        hint = (void *)(uintptr_t)(((1ULL << 40) + r % ((1ULL << 46) - (1ULL << 40))) & ~0xffffULL);
      }
      void *p = mmap(hint, d->bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      addr = p == MAP_FAILED ? 0 : (unsigned long long)(uintptr_t)p;
      held[t] = p == MAP_FAILED ? NULL : p;
    }
    DSM_MPI(err, PMPI_Bcast(&addr, 1, MPI_UNSIGNED_LONG_LONG, 0, d->comm));
    if (!addr)
      break;
    int ok = 1;
    void *want = (void *)(uintptr_t)addr, *got = NULL;
    if (d->rank == 0) {
      got = mmap(want, d->bytes, PROT_READ, MAP_SHARED | MAP_FIXED, d->memfd, 0);
    } else {
      got = mmap(want, d->bytes, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, d->memfd, 0);
      if (got != MAP_FAILED && got != want) { /* a kernel that ignores NOREPLACE */
        munmap(got, d->bytes);
        got = MAP_FAILED;
      }
    }
    ok = got != MAP_FAILED;
    int all = 0;
    DSM_MPI(err, PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, d->comm));
    if (all) {
      d->base = want;
      held[t] = NULL; /* now the region itself */
      break;
    }
    if (ok && d->rank != 0)
      munmap(got, d->bytes);
    if (ok && d->rank == 0) /* keep the range reserved so the next proposal differs */
      mmap(want, d->bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  }
  if (!d->base)
    err = HK_ERROR(HK_ERR_NOMEM, "no virtual address range of %zu bytes free on every rank "
                   "(%d proposals)", d->bytes, DSM_ADDRESS_TRIES);
cleanup:
  for (int t = 0; t < DSM_ADDRESS_TRIES; t++)
    if (held[t])
      munmap(held[t], d->bytes);
  return err;
}

static int check_desc(MPI_Comm comm, const hk_dsm_desc_t *desc, hk_dsm_t **dsm, void **base)
{
  if (!desc || !dsm || !base || comm == MPI_COMM_NULL)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_create: NULL argument");
  if (desc->size == 0)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_create: size 0");
  if (desc->nlocks < 0 || desc->nlocks > DSM_MAX_LOCKS)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_create: nlocks %d not in 0..%d", desc->nlocks, DSM_MAX_LOCKS);
  if (desc->home != HK_DSM_HOME_BLOCK && desc->home != HK_DSM_HOME_CYCLIC)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_create: unknown home assignment %d", (int)desc->home);
  if (desc->timeout < 0)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_create: timeout %g < 0", desc->timeout);
  struct sysinfo si;
  if (sysinfo(&si) == 0) {
    unsigned long long mem = (unsigned long long)si.totalram * si.mem_unit;
    if (desc->size > mem)
      return HK_ERROR(HK_ERR_NOMEM, "hk_dsm_create: region of %zu bytes is larger than this "
                      "machine's memory (%llu bytes)", desc->size, mem);
  }
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    return HK_ERROR(HK_ERR_THREAD_LEVEL, "hk_dsm_create needs MPI_THREAD_MULTIPLE (its service "
                    "thread fetches pages while the program runs), MPI provides level %d", provided);
  return hk__dsm_env(NULL, NULL);
}

/* HK_DSM_TIMEOUT: seconds a rank waits for the others in a collective (default 300);
 * HK_DSM_PROGRESS_US: microseconds between the idle service thread's MPI progress calls
 * (default 200; 0: none).  A value that is not one is an error naming the variable
 * (hk_init checks them at start too). */
int hk__dsm_env(double *timeout, long *progress_ns)
{
  const char *v = getenv("HK_DSM_TIMEOUT");
  char *end = NULL;
  double t = 300.0;
  if (v && *v) {
    errno = 0;
    t = strtod(v, &end);
    if (errno || end == v || *end || !(t > 0) || t > 1e9)
      return HK_ERROR(HK_ERR_ARG, "HK_DSM_TIMEOUT=%s: expected a positive number of seconds "
                      "(at most 1e9)", v);
  }
  v = getenv("HK_DSM_PROGRESS_US");
  long us = 200;
  if (v && *v) {
    errno = 0;
    us = (*v >= '0' && *v <= '9') ? strtol(v, &end, 10) : -1;
    if (errno || us < 0 || *end || us > 1000000000L)
      return HK_ERROR(HK_ERR_ARG, "HK_DSM_PROGRESS_US=%s: expected microseconds, an integer "
                      ">= 0 (0: no progress calls)", v);
  }
  if (timeout)
    *timeout = t;
  if (progress_ns)
    *progress_ns = us * 1000L;
  return HK_SUCCESS;
}

/* the region's bookkeeping for nranks ranks (*out, also on failure: free it with release),
 * no MPI */
static int dsm_alloc(const hk_dsm_desc_t *desc, int nranks, struct hk_dsm **out)
{
  int err = HK_SUCCESS;
  struct hk_dsm *d = NULL;
  HK_ALLOC_TRY(err, d, 1);
  *out = d;
  d->memfd = -1;
  d->comm = MPI_COMM_NULL;
  d->win = d->lwin = MPI_WIN_NULL;
  d->page = hk_dsm_page_size();
  d->npages = (long)((desc->size + d->page - 1) / d->page);
  d->bytes = (size_t)d->npages * d->page;
  d->home = desc->home;
  d->nlocks = desc->nlocks;
  atomic_flag_clear(&d->lwrote.spin);
  atomic_flag_clear(&d->dirty.spin);
  atomic_flag_clear(&d->wrote.spin);
  atomic_flag_clear(&d->qspin);
  for (int i = 0; i < DSM_MAX_LOCKS; i++)
    pthread_mutex_init(&d->tlock[i], NULL);
  pthread_mutex_init(&d->proto, NULL);
  pthread_mutex_init(&d->lwm, NULL);
  double t = 0.0;
  HK_TRY(err, hk__dsm_env(&t, &d->progress_ns));
  d->timeout = desc->timeout > 0 ? desc->timeout : t;
  HK_ALLOC_TRY(err, d->state, d->npages);
  HK_ALLOC_TRY(err, d->written, d->npages);
  HK_ALLOC_TRY(err, d->mark, d->npages);
  HK_ALLOC_TRY(err, d->dirty.page, d->npages);
  HK_ALLOC_TRY(err, d->wrote.page, d->npages);
  HK_ALLOC_TRY(err, d->lwritten, d->npages);
  HK_ALLOC_TRY(err, d->lwrote.page, d->npages);
  HK_ALLOC_TRY(err, d->bar_pages, d->npages);
  HK_ALLOC_TRY(err, d->bar_counts, nranks);
  HK_ALLOC_TRY(err, d->bar_displs, nranks);
  for (long p = 0; p < d->npages; p++)
    atomic_init(&d->state[p], DSM_RO); /* zero everywhere: every copy starts valid */
cleanup:
  return err;
}

/* the backing file, the local alias of all pages and the twins (no MPI) */
static int dsm_backing(struct hk_dsm *d)
{
  if ((d->memfd = memfd_create("hk_dsm", MFD_CLOEXEC)) < 0)
    return HK_ERROR(HK_ERR_UNSUPPORTED, "memfd_create: %s", strerror(errno));
  if (ftruncate(d->memfd, (off_t)d->bytes) != 0)
    return HK_ERROR(HK_ERR_NOMEM, "ftruncate(%zu): %s", d->bytes, strerror(errno));
  int err = HK_SUCCESS;
  d->alias = mmap(NULL, d->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, d->memfd, 0);
  d->twins = mmap(NULL, d->bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (d->alias == MAP_FAILED || d->twins == MAP_FAILED)
    err = HK_ERROR(HK_ERR_NOMEM, "mmap of %zu bytes: %s", d->bytes, strerror(errno));
  if (d->alias == MAP_FAILED)
    d->alias = NULL;
  if (d->twins == MAP_FAILED)
    d->twins = NULL;
  return err;
}

/* the windows: the master copy of a page is its home's own copy (in the alias), remote
 * ranks get pages from and put diffs into the home's alias at offset page * p; rank 0's
 * small window holds the locks and the notice ring.  One rank: every page is its own,
 * nothing is ever fetched or put: no window, which Open MPI's osc/rdma could not make with
 * only the self BTL anyway.  Collective: d->comm; the result is agreed. */
static int dsm_windows(struct hk_dsm *d)
{
  int err = HK_SUCCESS;
  MPI_Aint lbytes = d->rank == 0 ? (MPI_Aint)(DSM_MAX_LOCKS + 1 + 2 * DSM_RING) * 8 : 0;
  int rc1 = d->size == 1 ? MPI_SUCCESS
                         : PMPI_Win_create(d->alias, (MPI_Aint)d->bytes, 1, MPI_INFO_NULL, d->comm, &d->win);
  int rc2 = rc1 == MPI_SUCCESS ? PMPI_Win_allocate(lbytes, 8, MPI_INFO_NULL, d->comm, &d->lmem, &d->lwin)
                               : MPI_SUCCESS;
  if (rc1 != MPI_SUCCESS || rc2 != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(rc1 != MPI_SUCCESS ? rc1 : rc2, text, &len);
    err = HK_ERROR(HK_ERR_MPI, "MPI_Win_create/allocate failed (%s): this MPI cannot make a "
                   "passive-target window over this network (Open MPI across TCP nodes: "
                   "--mca osc ucx)", text);
    if (rc1 != MPI_SUCCESS)
      d->win = MPI_WIN_NULL;
    d->lwin = MPI_WIN_NULL;
  }
  HK_AGREE(err, d->comm);
  if (lbytes)
    memset(d->lmem, 0, (size_t)lbytes); /* the home copies, zero like the region */
  if (d->win != MPI_WIN_NULL) {
    PMPI_Win_set_errhandler(d->win, MPI_ERRORS_RETURN);
    DSM_MPI(err, PMPI_Win_lock_all(MPI_MODE_NOCHECK, d->win));
    DSM_MPI(err, PMPI_Win_sync(d->win));
  }
  PMPI_Win_set_errhandler(d->lwin, MPI_ERRORS_RETURN);
cleanup:
  return err;
}

/* the service thread and the fault handler (no MPI) */
static int dsm_start(struct hk_dsm *d)
{
  int err = HK_SUCCESS;
  HK_TRY(err, hk__dsm_service_start(d));
  HK_LOCAL(err, hk__dsm_handler_install(d));
  if (err != HK_SUCCESS)
    hk__dsm_service_stop(d);
cleanup:
  return err;
}

/* what create made of d, released (started: the service runs) */
static void release(struct hk_dsm *d, int started)
{
  if (!d)
    return;
  if (started) {
    hk__dsm_handler_remove(d);
    hk__dsm_service_stop(d);
  }
  if (d->win != MPI_WIN_NULL && d->win)
    PMPI_Win_free(&d->win);
  if (d->lwin != MPI_WIN_NULL && d->lwin)
    PMPI_Win_free(&d->lwin);
  if (d->base)
    munmap(d->base, d->bytes);
  if (d->alias)
    munmap(d->alias, d->bytes);
  if (d->twins)
    munmap(d->twins, d->bytes);
  if (d->memfd >= 0)
    close(d->memfd);
  if (d->comm != MPI_COMM_NULL)
    PMPI_Comm_free(&d->comm);
  free_arrays(d);
}

/* Collective steps, each after an agreement on the local ones before it: checks |
 * sizes (Allreduce) | Comm_dup | the common address (map_common) | windows | start. */
int hk_dsm_create(MPI_Comm comm, const hk_dsm_desc_t *desc, hk_dsm_t **dsm, void **base)
{
  int err = check_desc(comm, desc, dsm, base), started = 0;
  struct hk_dsm *d = NULL;
  if (dsm)
    *dsm = NULL;
  if (comm == MPI_COMM_NULL)
    return err;
  HK_AGREE(err, comm);
  unsigned long long sz[2] = {desc->size, ~(unsigned long long)desc->size}, ext[2];
  DSM_MPI(err, PMPI_Allreduce(sz, ext, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm));
  if (ext[0] != desc->size || ~ext[1] != desc->size) /* the same on every rank */
    err = HK_ERROR(HK_ERR_ARG, "hk_dsm_create: sizes differ between ranks (%llu .. %llu bytes)",
                   ~ext[1], ext[0]);
  int nranks = 1;
  PMPI_Comm_size(comm, &nranks);
  HK_LOCAL(err, dsm_alloc(desc, nranks, &d));
  HK_LOCAL(err, dsm_backing(d));
  HK_AGREE(err, comm);
  DSM_MPI(err, PMPI_Comm_dup(comm, &d->comm));
  PMPI_Comm_set_errhandler(d->comm, MPI_ERRORS_RETURN); /* errors come back as codes */
  PMPI_Comm_rank(d->comm, &d->rank);
  PMPI_Comm_size(d->comm, &d->size);
  HK_TRY(err, map_common(d));
  HK_TRY(err, dsm_windows(d));
  HK_LOCAL(err, dsm_start(d));
  started = err == HK_SUCCESS;
  HK_AGREE(err, d->comm);
  *dsm = d;
  *base = d->base;
  return HK_SUCCESS;
cleanup:
  release(d, started);
  return err;
}

/* Every rank of the region calls this at the same point (a completed agreement that failed):
 * stop the service thread, make the region a tomb (an access is reported), then free the
 * windows and the communicator collectively.  hk_dsm_free later only releases memory. */
void hk__dsm_teardown(struct hk_dsm *d)
{
  if (d->torn)
    return;
  hk__dsm_handler_remove(d);
  hk__dsm_service_stop(d);
  mmap(d->base, d->bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  if (d->win != MPI_WIN_NULL) {
    PMPI_Win_unlock_all(d->win);
    PMPI_Win_free(&d->win);
  }
  if (d->lwin != MPI_WIN_NULL)
    PMPI_Win_free(&d->lwin);
  PMPI_Comm_free(&d->comm);
  d->torn = 1;
}

int hk_dsm_free(hk_dsm_t **dsm)
{
  int err = HK_SUCCESS;
  if (!dsm || !*dsm)
    return HK_SUCCESS;
  struct hk_dsm *d = *dsm;
  *dsm = NULL;
  if (!d->broken)
    err = hk__dsm_sync(d, 2, "hk_dsm_free");
  if (!d->torn) {
    hk__dsm_handler_remove(d); /* from here on an access is reported as use after free */
    hk__dsm_service_stop(d);
    /* the program's view becomes an inaccessible reservation (releases the memory) */
    mmap(d->base, d->bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
         -1, 0);
  }
  if (d->broken && !d->torn) {
    /* a rank did not arrive: the windows cannot be freed, and MPI may still touch the memory
     * they expose (MPICH over UCX does in MPI_Finalize): keep it mapped, release the rest */
    munmap(d->twins, d->bytes);
    return err; /* the region's struct too stays: a pending agreement may still write to it */
  }
  if (!d->broken) { /* collectives only when every rank got here */
    if (d->win != MPI_WIN_NULL) {
      PMPI_Win_unlock_all(d->win);
      PMPI_Win_free(&d->win);
    }
    PMPI_Win_free(&d->lwin);
    PMPI_Comm_free(&d->comm);
  }
  munmap(d->alias, d->bytes);
  munmap(d->twins, d->bytes);
  close(d->memfd);
  free_arrays(d);
  return err;
}

int hk_dsm_stats(const hk_dsm_t *d, hk_dsm_stats_t *s)
{
  if (!d || !s)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_stats: NULL argument");
  memset(s, 0, sizeof *s);
  s->read_faults = atomic_load(&d->st_read_faults);
  s->write_faults = atomic_load(&d->st_write_faults);
  s->pages_fetched = atomic_load(&d->st_fetched);
  s->pages_fetched_remote = atomic_load(&d->st_fetched_remote);
  s->bytes_fetched = atomic_load(&d->st_bytes_fetched);
  s->time_fault = 1e-9 * (double)atomic_load(&d->st_fault_ns);
  s->diffs_made = d->st_diffs;
  s->diff_runs = d->st_runs;
  s->notices_sent = d->st_notices;
  s->invalidations = d->st_inval;
  s->bytes_diffs = d->st_bytes_diffs;
  s->bytes_notices = d->st_bytes_notices;
  s->barriers = d->barriers;
  s->lock_acquires = d->st_acquires;
  s->time_barrier = d->st_t_barrier;
  s->time_lock = d->st_t_lock;
  return HK_SUCCESS;
}

int hk_dsm_stats_reset(hk_dsm_t *d)
{
  if (!d)
    return HK_ERROR(HK_ERR_ARG, "hk_dsm_stats_reset: NULL argument");
  atomic_store(&d->st_read_faults, 0);
  atomic_store(&d->st_write_faults, 0);
  atomic_store(&d->st_fetched, 0);
  atomic_store(&d->st_fetched_remote, 0);
  atomic_store(&d->st_bytes_fetched, 0);
  atomic_store(&d->st_fault_ns, 0);
  d->st_diffs = d->st_runs = d->st_notices = d->st_inval = d->st_bytes_diffs = 0;
  d->st_bytes_notices = d->st_acquires = d->barriers = 0;
  d->st_t_barrier = d->st_t_lock = 0.0;
  return HK_SUCCESS;
}
