/* preload/hk_fortran.c: the Fortran entry points of a PMPI tool library
 * (libhybridkit-check.so, libhybridkit-profile.so; hk_tool.h).
 *
 * Which Fortran calls reach the C MPI_* wrappers (measured, gfortran 12, Debian 12):
 *
 *                    mpif.h / use mpi          use mpi_f08
 *   Open MPI 4.1     PMPI_* (libmpi_mpifh)     PMPI_* (libmpi_usempif08 -> ompi_*_f)
 *   MPICH 4.0        MPI_*  (libmpichfort)     buffer calls (mpi_<name>_f08ts_): MPI_*;
 *                                              the others (mpi_<name>_f08_, init,
 *                                              finalize): PMPI_*
 *
 * So the calls that go to PMPI_* are taken here by their gfortran names: under Open
 * MPI mpi_<name>_ and mpi_<name>_f08_ for every row of hk_fortran_calls.h (=
 * hk_check_calls.h; one function, the second name an alias: every argument is
 * passed by reference in both, mpi_f08's handles are one-INTEGER derived types and
 * its buffers addresses, its ierror is optional, NULL when absent); under MPICH
 * mpi_<name>_f08_ for the rows without a choice buffer (H).  Each converts the
 * arguments (handles f2c; the MPI's Fortran MPI_IN_PLACE / MPI_BOTTOM /
 * MPI_STATUS(ES)_IGNORE: Open MPI's common blocks found with dlsym, MPICH's
 * MPI_F08_STATUS(ES)_IGNORE), calls the tool's hk__tool_<name> with its own return
 * address (the user's Fortran line) as the call site, writes the outputs back
 * (statuses c2f, handles c2f, 1-based indices, LOGICALs) and sets ierror.  Fortran
 * init and finalize call the tool's C MPI_Init / MPI_Init_thread / MPI_Finalize,
 * so the tool starts and writes its report as for C (both MPIs' own Fortran init
 * only calls PMPI_Init(_thread) with no arguments).  The calls that reach the C
 * MPI_* from inside libmpichfort are seen by the C wrappers; hk_tool.c finds the
 * user's call site through the binding's frames. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include "hk_check_ids.h"
#include "hk_tool.h"
#include "hk_fortran_init.h"

#if defined(OPEN_MPI) || defined(MPICH_VERSION)
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "INTEGER and int differ");
#define NSMALL 16 /* arrays up to this length need no malloc */

/* the Fortran sentinels; NULL in a C program */
static struct {
  void *in_place, *bottom, *status_ignore, *statuses_ignore;
} sentinel;

#ifdef OPEN_MPI
/* Open MPI's MPI_STATUS_SIZE (mpif-config.h) is sizeof(MPI_Status) in INTEGERs, and
 * mpi_f08's TYPE(MPI_Status) has that layout (its bindings pass it to ompi_*_f) */
#define F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* the addresses of libmpi_mpifh's common blocks, which mpi_f08 shares */
__attribute__((constructor)) static void find_sentinels(void)
{
  sentinel.in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
  sentinel.bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
  sentinel.status_ignore = dlsym(RTLD_DEFAULT, "mpi_fortran_status_ignore_");
  sentinel.statuses_ignore = dlsym(RTLD_DEFAULT, "mpi_fortran_statuses_ignore_");
}
#else
/* MPICH's mpi_f08 TYPE(MPI_Status) (MPI_F08_status) is its C MPI_Status field for
 * field, the layout PMPI_Status_c2f writes */
#define F_STATUS_SIZE MPI_F_STATUS_SIZE
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status) &&
               F_STATUS_SIZE * sizeof(MPI_Fint) == sizeof(MPI_Status) &&
               offsetof(MPI_F08_status, MPI_SOURCE) == offsetof(MPI_Status, MPI_SOURCE) &&
               offsetof(MPI_F08_status, MPI_TAG) == offsetof(MPI_Status, MPI_TAG) &&
               offsetof(MPI_F08_status, MPI_ERROR) == offsetof(MPI_Status, MPI_ERROR),
               "MPICH's mpi_f08 status is not its C status");

/* the rows taken under MPICH have no buffer: no MPI_IN_PLACE / MPI_BOTTOM */
__attribute__((constructor)) static void find_sentinels(void)
{
  sentinel.status_ignore = MPI_F08_STATUS_IGNORE;
  sentinel.statuses_ignore = MPI_F08_STATUSES_IGNORE;
}
#endif

/* ------------------------------------------- one call's write-backs */

enum { W_STATUS, W_STATUSES, W_REQUEST, W_REQUESTS, W_COMM, W_MESSAGE, W_FLAG, W_INDEX,
       W_INDICES };

typedef struct fwrite {
  int kind;
  MPI_Fint *f;       /* the Fortran argument */
  void *c;           /* the C value(s) */
  const MPI_Fint *k; /* arrays: how many to write back (read after the call) */
} fwrite_t;

typedef struct fcall {
  fwrite_t w[6];
  int nw, nheap;
  void *heap[3];
  MPI_Status st;
  MPI_Request rq;
  MPI_Comm cm;
  MPI_Message msg;
  int flag, idx;
  MPI_Status sts[NSMALL];
  MPI_Request rqs[NSMALL];
  int ints[NSMALL];
} fcall_t;

static inline void *later(fcall_t *x, int kind, MPI_Fint *f, void *c, const MPI_Fint *k)
{
  x->w[x->nw++] = (fwrite_t){kind, f, c, k};
  return c;
}

/* room for n elements: the record's own array, or the heap (NULL: MPI fails the call) */
static inline void *room(fcall_t *x, void *small, MPI_Fint n, size_t size)
{
  if (n <= NSMALL)
    return small;
  void *p = malloc((size_t)n * size);
  if (p)
    x->heap[x->nheap++] = p;
  return p;
}

static inline void *fb(void *b)
{
  if (b && b == sentinel.in_place)
    return MPI_IN_PLACE;
  if (b && b == sentinel.bottom)
    return MPI_BOTTOM;
  return b;
}

static inline MPI_Datatype fty(const MPI_Fint *h) { return PMPI_Type_f2c(*h); }
static inline MPI_Comm fcm(const MPI_Fint *h) { return PMPI_Comm_f2c(*h); }
static inline MPI_Op fop(const MPI_Fint *h) { return PMPI_Op_f2c(*h); }
static inline MPI_Info finf(const MPI_Fint *h) { return PMPI_Info_f2c(*h); }
static inline MPI_Win fwin(const MPI_Fint *h) { return PMPI_Win_f2c(*h); }
static inline int flog(const MPI_Fint *l) { return *l != 0; }

static inline int *flogs(fcall_t *x, const MPI_Fint *n, const MPI_Fint *l)
{
  int *c = room(x, x->ints, *n, sizeof *c);
  for (MPI_Fint i = 0; c && i < *n; i++)
    c[i] = l[i] != 0;
  return c;
}

static inline MPI_Status *fst(fcall_t *x, MPI_Fint *s)
{
  if (s == sentinel.status_ignore)
    return MPI_STATUS_IGNORE;
  return later(x, W_STATUS, s, &x->st, NULL);
}

static inline MPI_Status *fsti(fcall_t *x, const MPI_Fint *s)
{
  PMPI_Status_f2c(s, &x->st);
  return &x->st;
}

static inline MPI_Status *fsts(fcall_t *x, const MPI_Fint *n, const MPI_Fint *k, MPI_Fint *s)
{
  if (s == sentinel.statuses_ignore)
    return MPI_STATUSES_IGNORE;
  return later(x, W_STATUSES, s, room(x, x->sts, *n, sizeof(MPI_Status)), k);
}

static inline MPI_Request *freq(fcall_t *x, MPI_Fint *r)
{
  x->rq = PMPI_Request_f2c(*r);
  return later(x, W_REQUEST, r, &x->rq, NULL);
}

static inline MPI_Request *freqs(fcall_t *x, const MPI_Fint *n, MPI_Fint *r)
{
  MPI_Request *c = room(x, x->rqs, *n, sizeof *c);
  for (MPI_Fint i = 0; c && i < *n; i++)
    c[i] = PMPI_Request_f2c(r[i]);
  return later(x, W_REQUESTS, r, c, n);
}

static inline MPI_Comm *fcmo(fcall_t *x, MPI_Fint *c)
{
  x->cm = PMPI_Comm_f2c(*c);
  return later(x, W_COMM, c, &x->cm, NULL);
}

static inline MPI_Message *fmsg(fcall_t *x, MPI_Fint *m)
{
  x->msg = PMPI_Message_f2c(*m);
  return later(x, W_MESSAGE, m, &x->msg, NULL);
}

static inline int *fflag(fcall_t *x, MPI_Fint *f)
{
  x->flag = 0;
  return later(x, W_FLAG, f, &x->flag, NULL);
}

static inline int *fidx(fcall_t *x, MPI_Fint *i)
{
  x->idx = MPI_UNDEFINED;
  return later(x, W_INDEX, i, &x->idx, NULL);
}

static inline int *fidxs(fcall_t *x, const MPI_Fint *k, MPI_Fint *i)
{
  return later(x, W_INDICES, i, i, k);
}

/* after the call: the outputs into the Fortran arguments */
static void finish(fcall_t *x)
{
  for (int j = 0; j < x->nw; j++) {
    const fwrite_t *w = &x->w[j];
    MPI_Fint k = w->k ? *w->k : 1;
    if (!w->c || k == MPI_UNDEFINED)
      continue;
    switch (w->kind) {
    case W_STATUS:
      PMPI_Status_c2f(w->c, w->f);
      break;
    case W_STATUSES:
      for (MPI_Fint i = 0; i < k; i++)
        PMPI_Status_c2f((MPI_Status *)w->c + i, w->f + (size_t)i * F_STATUS_SIZE);
      break;
    case W_REQUEST:
      *w->f = PMPI_Request_c2f(*(MPI_Request *)w->c);
      break;
    case W_REQUESTS:
      for (MPI_Fint i = 0; i < k; i++)
        w->f[i] = PMPI_Request_c2f(((MPI_Request *)w->c)[i]);
      break;
    case W_COMM:
      *w->f = PMPI_Comm_c2f(*(MPI_Comm *)w->c);
      break;
    case W_MESSAGE:
      *w->f = PMPI_Message_c2f(*(MPI_Message *)w->c);
      break;
    case W_FLAG: /* gfortran's .TRUE. is 1 */
      *w->f = *(int *)w->c != 0;
      break;
    case W_INDEX: {
      int v = *(int *)w->c;
      *w->f = v == MPI_UNDEFINED ? v : v + 1;
      break;
    }
    case W_INDICES:
      for (MPI_Fint i = 0; i < k; i++)
        w->f[i] += 1;
      break;
    default:
      break;
    }
  }
  for (int j = 0; j < x->nheap; j++)
    free(x->heap[j]);
}

/* ------------------------------------------- the generated entry points */

/* hk_fortran_calls.h has the rows of hk_check_calls.h, in its order */
enum {
#define HK_FORTRAN_CALL(Name, name, kind, params, args) F_##Name,
#include "hk_fortran_calls.h"
#undef HK_FORTRAN_CALL
  NFCALLS
};
#define HK_CHECK_CALL(name, params, args)                                                       \
  _Static_assert((int)F_##name == (int)CALL_##name, "hk_fortran_calls.h: MPI_" #name " out of order");
#include "hk_check_calls.h"
#undef HK_CHECK_CALL
_Static_assert((int)NFCALLS == (int)NCALLS, "hk_fortran_calls.h and hk_check_calls.h differ");

#define FB void *
#define FI MPI_Fint *
#define FA MPI_Aint *
#define FX (&x_)
#define HK_F_PARAMS(...) (__VA_ARGS__, MPI_Fint *ierr)

/* one entry point named fname for a row */
#define HK_F_DEFINE(Name, fname, params, args)                                                  \
  HK_PUBLIC void fname HK_F_PARAMS params;                                                      \
  void fname HK_F_PARAMS params                                                                 \
  {                                                                                             \
    const void *site_ = __builtin_return_address(0);                                            \
    fcall_t x_;                                                                                 \
    x_.nw = x_.nheap = 0;                                                                       \
    int rc_ = hk__tool_##Name HK_SITE_ARGS args;                                                \
    finish(&x_);                                                                                \
    if (ierr)                                                                                   \
      *ierr = rc_;                                                                              \
  }

#ifdef OPEN_MPI /* every row: mpi_<name>_, and mpi_<name>_f08_ as its alias */
#define HK_F_ROW(Name, name, params, args)                                                      \
  HK_F_DEFINE(Name, mpi_##name##_, params, args)                                                \
  HK_PUBLIC void mpi_##name##_f08_ HK_F_PARAMS params __attribute__((alias("mpi_" #name "_")));
#define HK_F_ROW_B HK_F_ROW
#define HK_F_ROW_H HK_F_ROW
#else /* MPICH: mpi_<name>_f08_ of the rows without a buffer */
#define HK_F_ROW_B(Name, name, params, args)
#define HK_F_ROW_H(Name, name, params, args) HK_F_DEFINE(Name, mpi_##name##_f08_, params, args)
#endif
#define HK_FORTRAN_CALL(Name, name, kind, params, args) HK_F_ROW_##kind(Name, name, params, args)
#include "hk_fortran_calls.h"
#undef HK_FORTRAN_CALL

/* init and finalize: the tool's own C wrappers (Open MPI: mpi_init_ ... and the
 * _f08_ aliases; MPICH: the _f08_ ones, its others call the C MPI_Init ...) */
#ifdef OPEN_MPI
#define F_INIT mpi_init_
#define F_INIT_THREAD mpi_init_thread_
#define F_FINALIZE mpi_finalize_
#else
#define F_INIT mpi_init_f08_
#define F_INIT_THREAD mpi_init_thread_f08_
#define F_FINALIZE mpi_finalize_f08_
#endif
HK_PUBLIC void F_INIT(MPI_Fint *ierr);
HK_PUBLIC void F_INIT_THREAD(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
HK_PUBLIC void F_FINALIZE(MPI_Fint *ierr);

void F_INIT(MPI_Fint *ierr) { hk__f_init(ierr); }

void F_INIT_THREAD(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
  hk__f_init_thread(required, provided, ierr);
}

void F_FINALIZE(MPI_Fint *ierr) { hk__f_finalize(ierr); }

#ifdef OPEN_MPI
HK_PUBLIC void mpi_init_f08_(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
HK_PUBLIC void mpi_init_thread_f08_(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
    __attribute__((alias("mpi_init_thread_")));
HK_PUBLIC void mpi_finalize_f08_(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
#endif

#else
typedef int hk_fortran_not_needed; /* another MPI: its bindings are not known here */
#endif /* OPEN_MPI || MPICH_VERSION */
