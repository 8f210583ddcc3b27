/* src/dsm/dsm_internal.h: the DSM region's state, shared by region.c (create/free),
 * fault.c (the SIGSEGV handler and the service thread) and protocol.c (barrier,
 * locks).  docs/dsm.md describes the protocol. */
#ifndef HK_DSM_INTERNAL_H
#define HK_DSM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <mpi.h>
#include "hybridkit/dsm.h"
#include "internal/hk_internal.h" /* HK_ERRMSG_MAX */

/* page states (the protection of the page in the program's view follows the state) */
enum {
  DSM_INVALID = 0,  /* PROT_NONE: no valid copy; an access fetches the page */
  DSM_FETCHING = 1, /* the service thread is fetching it; faulting threads wait */
  DSM_RO = 2,       /* PROT_READ: valid, clean; a write makes a twin */
  DSM_RW = 3,       /* PROT_READ|PROT_WRITE: valid, written since the twin */
  DSM_BUSY = 4,     /* the runtime is changing it (twin, flush); faulting threads wait */
  DSM_FAILED = 5    /* the fetch failed: the access cannot complete */
};

#define DSM_MAX_LOCKS 64
#define DSM_RING 4096 /* write notices of lock releases kept at the lock home (rank 0) */
#define DSM_QUEUE 1024

/* an atomic list of page indices (appended from the fault handler under a spin lock) */
typedef struct dsm_list {
  int *page;
  long n;
  atomic_flag spin;
} dsm_list_t;

struct hk_dsm {
  MPI_Comm comm;
  int rank, size;
  char *base;        /* the program's view: same address on every rank */
  char *alias;       /* the runtime's view of the same memory, always writable */
  char *twins;       /* twin of page p at twins + p*page */
  int memfd;
  size_t bytes, page;
  long npages;
  hk_dsm_home_t home;
  _Atomic int *state;              /* per page */
  _Atomic unsigned char *written;  /* per page: written by this rank this interval */
  unsigned char *mark;             /* scratch per page (barrier) */
  dsm_list_t dirty;                /* pages in state RW (to flush) */
  dsm_list_t wrote;                /* pages written this interval (write notices) */
  _Atomic unsigned char *lwritten; /* per page: written since this rank's last lock release */
  dsm_list_t lwrote;               /* those pages (the notices of the next release) */
  /* window `win` over the alias (passive target, lock_all): a page's master copy is
   * its home's copy; the home never invalidates it and makes no twin */
  MPI_Win win;
  /* locks: at rank 0, per lock an owner word, then a cursor and DSM_RING notices */
  MPI_Win lwin;
  long long *lmem;
  int nlocks;
  long long seen;                  /* ring entries before this were processed */
  pthread_mutex_t tlock[DSM_MAX_LOCKS];
  pthread_mutex_t proto;           /* one flush/invalidation at a time in this rank */
  pthread_mutex_t lwm;             /* one epoch on lwin at a time in this rank */
  /* service thread: fetch requests from the fault handler */
  pthread_t svc;
  int svc_started;
  _Atomic int svc_stop;
  _Atomic int work;                /* futex word: bumped per request */
  int queue[DSM_QUEUE];
  unsigned qhead, qtail;
  atomic_flag qspin;
  double timeout;
  long progress_ns;                /* idle service thread polls MPI this often (0: never) */
  int broken;                      /* a collective failed: only local cleanup is possible */
  int sync_buf[4];                 /* agreement in/out: an abandoned request may still write */
  char agree_msg[HK_ERRMSG_MAX];   /* the message of an agreed error (dsm_agree_message) */
  int *bar_pages, *bar_counts, *bar_displs; /* hk_dsm_barrier's buffers (npages, size, size):
                                      made with the region, so a barrier allocates only the
                                      notices it receives */
  int torn;                        /* broken, but every rank knew it at once: the windows,
                                      the communicator and the service thread are gone */
  long long barriers;
  int slot;
  /* statistics */
  _Atomic long long st_read_faults, st_write_faults, st_fetched, st_fetched_remote,
      st_bytes_fetched, st_fault_ns;
  long long st_diffs, st_runs, st_notices, st_inval, st_bytes_diffs, st_bytes_notices, st_acquires;
  double st_t_barrier, st_t_lock;
};

/* home rank and the page's index in the home's store */
int hk__dsm_home(const struct hk_dsm *d, long p, long *index);
long hk__dsm_home_pages(const struct hk_dsm *d, int rank);

/* fault.c */
int hk__dsm_handler_install(struct hk_dsm *d);  /* registers d; installs SIGSEGV handler */
void hk__dsm_handler_remove(struct hk_dsm *d);  /* unregisters d, leaves a tombstone */
int hk__dsm_service_start(struct hk_dsm *d);
void hk__dsm_service_stop(struct hk_dsm *d);
void hk__dsm_list_add(dsm_list_t *l, int p);
long hk__dsm_list_take(dsm_list_t *l, int *out); /* moves the entries to out, returns n */
double hk__dsm_now(void);

/* protocol.c */
int hk__dsm_sync(struct hk_dsm *d, int op, const char *what); /* collective agreement on op */
void hk__dsm_teardown(struct hk_dsm *d); /* all ranks at once, after an agreed failure */
int hk__dsm_wait(struct hk_dsm *d, MPI_Request *req, const char *what);
/* agree.c: the lowest error code over the region, with the lowest failing rank's message;
 * hk__dsm_agree_message: the same once every rank knows the agreed `code` (timed) */
int hk__dsm_agree(struct hk_dsm *d, int err, const char *what);
/* agree.c: a pause in a wait loop, longer as i grows (yield, then 20 us, then 200 us) */
void hk__dsm_nap(int i);
int hk__dsm_agree_message(struct hk_dsm *d, int err, int code, const char *what);

/* an MPI call of the protocol: on failure the error (MPI_ERRORS_RETURN on the region's
 * communicator and windows) goes to errvar and control to the caller's cleanup label */
#define DSM_MPI(errvar, expr)                                                    \
  do {                                                                          \
    int hk__rc = (expr);                                                        \
    if (hk__rc != MPI_SUCCESS) {                                                \
      (errvar) = hk__mpi_error(hk__rc, __FILE__, __LINE__, __func__, #expr);    \
      goto cleanup;                                                             \
    }                                                                           \
  } while (0)

#endif
