/* src/dsm/fault.c: access detection of the DSM: the SIGSEGV handler and the service
 * thread that fetches pages for it.
 *
 * The handler runs on whichever thread touched a protected page, in the middle of the
 * program's code.  It calls only async-signal-safe things: atomics, memcpy, mprotect,
 * clock_gettime, write and the futex system call.  It never calls MPI: a fetch is
 * handed to the region's service thread (a request queue and a futex), which does the
 * MPI_Get into the runtime's own writable view of the page (`alias`), opens the page
 * for reading and wakes the waiting threads.  See docs/dsm.md for why. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "dsm_internal.h"
#include "internal/hk_internal.h"

#define DSM_MAX_REGIONS 32
#define DSM_MAX_TOMBS 64

static struct hk_dsm *_Atomic regions[DSM_MAX_REGIONS];
static struct {
  _Atomic(char *) lo;
  _Atomic size_t len;
} tombs[DSM_MAX_TOMBS];
static _Atomic unsigned ntombs;
static struct sigaction old_action;
static int handler_users;
static pthread_mutex_t install_mutex = PTHREAD_MUTEX_INITIALIZER;

double hk__dsm_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long long now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void futex_wait(_Atomic int *addr, int val)
{
  syscall(SYS_futex, (int *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wait_for(_Atomic int *addr, int val, long ns)
{
  struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
  syscall(SYS_futex, (int *)addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake(_Atomic int *addr)
{
  syscall(SYS_futex, (int *)addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void spin_lock(atomic_flag *f)
{
  while (atomic_flag_test_and_set_explicit(f, memory_order_acquire))
    sched_yield();
}

static void spin_unlock(atomic_flag *f) { atomic_flag_clear_explicit(f, memory_order_release); }

void hk__dsm_list_add(dsm_list_t *l, int p)
{
  spin_lock(&l->spin);
  l->page[l->n++] = p;
  spin_unlock(&l->spin);
}

long hk__dsm_list_take(dsm_list_t *l, int *out)
{
  spin_lock(&l->spin);
  long n = l->n;
  memcpy(out, l->page, (size_t)n * sizeof *out);
  l->n = 0;
  spin_unlock(&l->spin);
  return n;
}

/* write(2) a message and let the access crash with the default action */
static void die(const char *msg)
{
  ssize_t r = write(2, msg, strlen(msg));
  (void)r;
  signal(SIGSEGV, SIG_DFL); /* the faulting instruction runs again and ends the rank */
}

static const char fetch_failed[] =
    "hk_dsm: fetching a page from its home failed; the access cannot complete\n";

/* the fault of region d on page p: returns when the access can be retried.
 * is_write: 1 write, 0 read, -1 unknown (then a fault on a readable page is taken for a
 * write; a read that raced with another thread's fetch may then make a needless twin) */
static void handle(struct hk_dsm *d, long p, int is_write)
{
  long long t0 = now_ns();
  for (;;) {
    int s = atomic_load(&d->state[p]);
    if (s == DSM_INVALID || s == DSM_FETCHING) {
      if (s == DSM_INVALID) { /* ask the communication thread to fetch it */
        if (!atomic_compare_exchange_strong(&d->state[p], &s, DSM_FETCHING))
          continue;
        atomic_fetch_add(&d->st_read_faults, 1);
        spin_lock(&d->qspin);
        d->queue[d->qtail++ % DSM_QUEUE] = (int)p;
        spin_unlock(&d->qspin);
        atomic_fetch_add(&d->work, 1);
        futex_wake(&d->work);
      }
      /* wait for the fetch (ours or another thread's) */
      while ((s = atomic_load(&d->state[p])) == DSM_FETCHING)
        futex_wait(&d->state[p], DSM_FETCHING);
      if (s == DSM_FAILED) {
        die(fetch_failed);
        break;
      }
      /* a known write goes on to RO -> RW without faulting again; a read is done, and a
       * write of unknown kind faults once more (never on to the RO case for it: the fault
       * may have been a read) */
      if (is_write == 1)
        continue;
      break;
    } else if (s == DSM_RO) {
      if (is_write == 0) /* a read that faulted before another thread's fetch finished */
        break;
      /* a write to a valid page: twin it, note it, open it for writing */
      if (!atomic_compare_exchange_strong(&d->state[p], &s, DSM_BUSY))
        continue;
      atomic_fetch_add(&d->st_write_faults, 1);
      long idx;
      if (hk__dsm_home(d, p, &idx) != d->rank) /* the home writes its master copy in place */
        memcpy(d->twins + (size_t)p * d->page, d->alias + (size_t)p * d->page, d->page);
      hk__dsm_list_add(&d->dirty, (int)p);
      if (!atomic_exchange(&d->written[p], 1))
        hk__dsm_list_add(&d->wrote, (int)p);
      if (!atomic_exchange(&d->lwritten[p], 1))
        hk__dsm_list_add(&d->lwrote, (int)p);
      if (mprotect(d->base + (size_t)p * d->page, d->page, PROT_READ | PROT_WRITE) != 0) {
        /* ENOMEM: the process has too many mappings (pages of alternating protection
         * each count; vm.max_map_count) */
        atomic_store(&d->state[p], DSM_FAILED);
        die("hk_dsm: mprotect failed (too many mappings? see vm.max_map_count); the write "
            "cannot complete\n");
        break;
      }
      atomic_store(&d->state[p], DSM_RW);
      break;
    } else if (s == DSM_BUSY) {
      sched_yield();
    } else if (s == DSM_FAILED) {
      die(fetch_failed);
      break;
    } else { /* RW: another thread opened it meanwhile */
      break;
    }
  }
  atomic_fetch_add(&d->st_fault_ns, now_ns() - t0);
}

static void dsm_segv(int sig, siginfo_t *si, void *uc)
{
  int saved = errno;
  char *a = si->si_addr;
  for (int i = 0; i < DSM_MAX_REGIONS; i++) {
    struct hk_dsm *d = atomic_load(&regions[i]);
    if (d && a >= d->base && a < d->base + d->bytes) {
      int is_write = -1;
#if defined(__x86_64__) && defined(REG_ERR)
      /* the page-fault error code: bit 1 set for a write */
      is_write = (((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#endif
      handle(d, (long)((size_t)(a - d->base) / d->page), is_write);
      errno = saved;
      return;
    }
  }
  unsigned nt = atomic_load(&ntombs);
  for (unsigned i = 0; i < nt && i < DSM_MAX_TOMBS; i++) {
    char *lo = atomic_load(&tombs[i].lo);
    if (lo && a >= lo && a < lo + atomic_load(&tombs[i].len)) {
      die("hk_dsm: access to freed region (after hk_dsm_free); the rank ends with SIGSEGV\n");
      errno = saved;
      return;
    }
  }
  /* not ours: pass it on to the handler installed before us, or crash as usual */
  if ((old_action.sa_flags & SA_SIGINFO) && old_action.sa_sigaction) {
    old_action.sa_sigaction(sig, si, uc);
  } else if (old_action.sa_handler != SIG_DFL && old_action.sa_handler != SIG_IGN) {
    old_action.sa_handler(sig);
  } else {
    signal(SIGSEGV, SIG_DFL);
  }
  errno = saved;
}

int hk__dsm_handler_install(struct hk_dsm *d)
{
  int err = HK_SUCCESS;
  pthread_mutex_lock(&install_mutex);
  int slot = -1;
  for (int i = 0; i < DSM_MAX_REGIONS && slot < 0; i++)
    if (!atomic_load(&regions[i]))
      slot = i;
  if (slot < 0) {
    err = HK_ERROR(HK_ERR_RESOURCES, "at most %d DSM regions at a time", DSM_MAX_REGIONS);
    goto cleanup;
  }
  if (!handler_users) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = dsm_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &old_action) != 0) {
      err = HK_ERROR(HK_ERR_UNSUPPORTED, "sigaction(SIGSEGV): %s", strerror(errno));
      goto cleanup;
    }
  }
  handler_users = 1;
  d->slot = slot;
  atomic_store(&regions[slot], d);
cleanup:
  pthread_mutex_unlock(&install_mutex);
  return err;
}

void hk__dsm_handler_remove(struct hk_dsm *d)
{
  pthread_mutex_lock(&install_mutex);
  atomic_store(&regions[d->slot], NULL);
  /* the range stays reserved (PROT_NONE) so that a late access is reported, not
   * silently served by whatever gets mapped there next */
  unsigned i = atomic_load(&ntombs);
  if (i < DSM_MAX_TOMBS) {
    atomic_store(&tombs[i].len, d->bytes);
    atomic_store(&tombs[i].lo, d->base);
    atomic_store(&ntombs, i + 1);
  } else {
    munmap(d->base, d->bytes); /* no room to remember it: give the range back */
  }
  /* the handler stays installed (handler_users never drops to 0) so that an access to a
   * freed region is still reported; other faults go on to the previous handler */
  pthread_mutex_unlock(&install_mutex);
}

/* ---- the service thread ---- */

static void fetch(struct hk_dsm *d, long p)
{
  long idx;
  int home = hk__dsm_home(d, p, &idx);
  char *dst = d->alias + (size_t)p * d->page;
  (void)idx;
  /* a home never invalidates its own pages, so home != rank here */
  int ok = PMPI_Get(dst, (int)d->page, MPI_BYTE, home, (MPI_Aint)p * (MPI_Aint)d->page,
                    (int)d->page, MPI_BYTE, d->win) == MPI_SUCCESS &&
           PMPI_Win_flush(home, d->win) == MPI_SUCCESS;
  if (ok && mprotect(d->base + (size_t)p * d->page, d->page, PROT_READ) != 0)
    ok = 0;
  atomic_fetch_add(&d->st_fetched, 1);
  if (home != d->rank) {
    atomic_fetch_add(&d->st_fetched_remote, 1);
    atomic_fetch_add(&d->st_bytes_fetched, (long long)d->page);
  }
  atomic_store(&d->state[p], ok ? DSM_RO : DSM_FAILED);
  futex_wake(&d->state[p]);
}

static void *service(void *arg)
{
  struct hk_dsm *d = arg;
  for (;;) {
    int w = atomic_load(&d->work);
    spin_lock(&d->qspin);
    int have = d->qhead != d->qtail, p = have ? d->queue[d->qhead++ % DSM_QUEUE] : -1;
    spin_unlock(&d->qspin);
    if (have) {
      fetch(d, p);
      continue;
    }
    if (atomic_load(&d->svc_stop))
      return NULL;
    if (d->progress_ns > 0 && d->size > 1) {
      /* idle: drive MPI's progress now and then, so that other ranks' one-sided
       * operations on this rank complete while its threads compute (MPI libraries
       * without hardware RMA, e.g. Open MPI's osc/ucx over TCP, serve them only inside
       * MPI calls of the target) */
      futex_wait_for(&d->work, w, d->progress_ns);
      int flag = 0;
      PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d->comm, &flag, MPI_STATUS_IGNORE);
    } else {
      futex_wait(&d->work, w);
    }
  }
}

int hk__dsm_service_start(struct hk_dsm *d)
{
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  /* the service thread takes no asynchronous signals meant for the program */
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&d->svc, NULL, service, d);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0)
    return HK_ERROR(HK_ERR_RESOURCES, "cannot start the DSM service thread: %s", strerror(rc));
  d->svc_started = 1;
  return HK_SUCCESS;
}

void hk__dsm_service_stop(struct hk_dsm *d)
{
  if (!d->svc_started)
    return;
  atomic_store(&d->svc_stop, 1);
  atomic_fetch_add(&d->work, 1);
  futex_wake(&d->work);
  pthread_join(d->svc, NULL);
  d->svc_started = 0;
}
