/* preload/hk_check.c: libhybridkit-check.so, a PMPI checker of the MPI thread
 * level for a program's own MPI calls (issue 17):
 *
 *   LD_PRELOAD=libhybridkit-check.so  (mpirun -x LD_PRELOAD=... / mpiexec -genv ...)
 *
 * MPI_Init means MPI_THREAD_SINGLE; MPI_Init_thread the lower of the level the
 * program required and the one MPI provided.  The thread that initialised MPI
 * is the main thread.  Every wrapped call (hk_check_calls.h) is checked against
 * that level's rule:
 *   SINGLE      the main thread, outside any OpenMP parallel region
 *               (omp_get_level() == 0: hybrid MASTERONLY; a region of one
 *               thread counts too, it would break with more)
 *   FUNNELED    the main thread (inside a parallel region or not)
 *   SERIALIZED  never two threads inside MPI at once: an atomic count of the
 *               threads inside a wrapped call; a call entering while another
 *               thread is inside is the violation (calls that never overlap
 *               in this run are not caught: the check sees what happens)
 *   MULTIPLE    anything
 * The first violation of each (call name, rule broken) on a rank prints one
 * line: the rule, the thread (kernel id, OpenMP thread and team size, parallel
 * level) and the call site (the caller's return address - through an MPI
 * library's own binding, the first frame outside it, hk_tool.c - symbolised
 * with dladdr: the function when its symbol is exported (-rdynamic), always the
 * file and the offset for addr2line; file:line when records are written, below).
 * At MPI_Finalize rank 0 prints the violations per call name summed over ranks.
 * HK_CHECK_FATAL=1 (or yes/true/on): after MPI_Finalize every rank exits with
 * status 3 if any rank saw a violation (for tests).
 *
 * HK_CHECK_OUTPUT=FILE.jsonl: JSON Lines records for `hybridkit check`
 * (docs/check.md): a rank appends a check.first record when it first sees a
 * violation of a (call, rule), its site resolved to file:line by addr2line
 * (hk_tool.c; spawned once per call, rule and rank); at MPI_Finalize rank 0
 * appends one check.violation per (call, rule) with the counts per rank and
 * the lowest rank's first site, and a check.summary (levels, calls checked,
 * violations).  A hanging program leaves its check.first records.
 *
 * HK_CHECK_ABORT=1: the first violation stops the job before the call reaches
 * MPI (where it could deadlock or crash): its line on stderr, flushed, then its
 * check.first record (abort true), then PMPI_Abort(MPI_COMM_WORLD, 86) (_exit(86)
 * if that returns).  A value of HK_CHECK_FATAL or HK_CHECK_ABORT that is no
 * boolean stops the program at MPI_Init (status 2).
 *
 * hybridkit's own MPI calls go to PMPI_ and are not seen here
 * (HK_CHECK_MASTERONLY checks those).  Fortran programs (mpif.h, use mpi,
 * use mpi_f08) are checked like C ones under Open MPI and MPICH: the Fortran
 * calls that go to PMPI_* are taken by hk_fortran.c, which calls hk__tool_<name>
 * below with the Fortran caller as site (docs/profile.md, "Fortran programs").
 * MPI initialised without this library's MPI_Init: one line at exit (hk_tool.c).
 *
 * Every wrapper calls the next definition of its function (dlsym RTLD_NEXT), so
 * a PMPI library preloaded after this one works too:
 * LD_PRELOAD=libhybridkit-check.so:libhybridkit-preload.so checks the program's
 * calls and accelerates its MPI_Allreduce (the other order hides the program's
 * calls from the checker: the preload library says so in one line). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "hk_check.h"
#include "hk_check_state.h"
#include "hk_interpose.h"
#include "hk_check_ids.h"
#include "../src/internal/hk_env_word.h"
#include "hk_tool.h"

const char hk__tool_name[] = "hybridkit-check";

const char *const hk__check_call_names[NCALLS] = {
#define HK_CHECK_CALL(name, params, args) "MPI_" #name,
#include "hk_check_calls.h"
#undef HK_CHECK_CALL
};
const char *const hk__check_why_text[NWHY] = {"not the main thread",
                                              "inside an OpenMP parallel region",
                                              "another thread is inside an MPI call"};
hk__check_t hk__ck;

#define ABORT_CODE 86 /* HK_CHECK_ABORT: the MPI_Abort error code */

/* wrapped calls this thread is inside (a wrapper reached from another one,
 * e.g. an MPI library calling its own MPI_ symbols, is not a second call) */
static __thread __attribute__((tls_model("initial-exec"))) int depth;

/* the site for the line on stderr: file:line (function) when resolved, else dladdr's */
static void site_text(const first_t *f, char *out, size_t n)
{
  const hk_tool_loc_t *l = &f->loc;
  if (f->src.where[0])
    snprintf(out, n, "%s", f->src.where);
  else if (l->func[0])
    snprintf(out, n, "%s+0x%llx (%s+0x%llx)", l->func, l->func_offset, l->module, l->offset);
  else
    snprintf(out, n, "%s+0x%llx", l->module, l->offset);
}

static void report(const first_t *f, const char *tail)
{
  char site[600];
  site_text(f, site, sizeof site);
  fprintf(stderr, "hybridkit-check: rank %d: %s violates %s: %s (thread %ld, OpenMP thread %d "
          "of %d, parallel level %d); first at %s%s\n", f->rank, call_names[f->call],
          hk__mpi_level_long(ck.level), why_text[f->why], f->tid, f->omp_thread,
          f->omp_threads, f->omp_level, site, tail);
  fflush(stderr);
}

/* HK_CHECK_ABORT: this violation stops the job; the call never reaches MPI */
static __attribute__((noreturn)) void stop_job(first_t *f)
{
  report(f, "; stopping the job before the call reaches MPI (HK_CHECK_ABORT)");
  if (ck.output[0]) {
    hk__tool_addr2line(&f->loc, &f->src);
    hk__check_first_record(f, 1);
  }
  PMPI_Abort(MPI_COMM_WORLD, ABORT_CODE);
  _exit(ABORT_CODE);
}

static __attribute__((noinline, cold)) void violation(int call, int why, const void *ret)
{
  __atomic_add_fetch(&ck.count[call][why], 1, __ATOMIC_RELAXED);
  if (ck.abort && __atomic_exchange_n(&ck.aborting, 1, __ATOMIC_ACQ_REL))
    for (;;)
      pause(); /* another thread of this rank is stopping the job */
  if (!ck.abort && __atomic_exchange_n(&ck.reported[call][why], 1, __ATOMIC_ACQ_REL))
    return;
  first_t *f = &ck.first[call][why];
  *f = (first_t){.call = call, .why = why, .rank = ck.rank, .omp_thread = omp_get_thread_num(),
                 .omp_threads = omp_get_num_threads(), .omp_level = omp_get_level(),
                 .tid = (long)syscall(SYS_gettid)};
  hk__tool_locate(hk__tool_site(ret), &f->loc);
  if (ck.abort)
    stop_job(f);
  if (ck.output[0]) {
    hk__tool_addr2line(&f->loc, &f->src);
    hk__check_first_record(f, 0);
  }
  report(f, "");
}

/* returns whether this call counts as one (1) or runs inside another (0) */
static inline int enter(int call, const void *ret)
{
  if (depth++ > 0 || !__atomic_load_n(&ck.active, __ATOMIC_RELAXED))
    return 0;
  int others = __atomic_fetch_add(&ck.in_call, 1, __ATOMIC_ACQ_REL);
  __atomic_fetch_add(&ck.checked, 1, __ATOMIC_RELAXED);
  switch (ck.level) {
  case MPI_THREAD_SINGLE:
    if (!pthread_equal(pthread_self(), ck.main_thread))
      violation(call, WHY_OFF_MAIN, ret);
    else if (omp_get_level() > 0)
      violation(call, WHY_PARALLEL, ret);
    break;
  case MPI_THREAD_FUNNELED:
    if (!pthread_equal(pthread_self(), ck.main_thread))
      violation(call, WHY_OFF_MAIN, ret);
    break;
  case MPI_THREAD_SERIALIZED:
    if (others > 0)
      violation(call, WHY_OVERLAP, ret);
    break;
  default:
    break;
  }
  return 1;
}

static inline void leave(int counted)
{
  depth--;
  if (counted)
    __atomic_fetch_sub(&ck.in_call, 1, __ATOMIC_ACQ_REL);
}

/* The next definition of each wrapped function after this library (dlsym RTLD_NEXT):
 * MPI's own, or that of a PMPI library preloaded after this one.  With
 * LD_PRELOAD=libhybridkit-check.so:libhybridkit-preload.so the program's calls are
 * checked and its MPI_Allreduce still accelerated (calling PMPI_ here skipped the
 * preload's MPI_Init and MPI_Allreduce: it stayed off).  PMPI_<name> when none is found. */
#define HK_CHECK_CALL(name, params, args) static int(*next_##name) params = PMPI_##name;
#include "hk_check_calls.h"
#undef HK_CHECK_CALL
static int (*next_Init)(int *, char ***) = PMPI_Init;
static int (*next_Init_thread)(int *, char ***, int, int *) = PMPI_Init_thread;
static int (*next_Finalize)(void) = PMPI_Finalize;

__attribute__((constructor)) static void find_next(void)
{
  void *f;
#define HK_FIND(name)                                                                          \
  if ((f = dlsym(RTLD_NEXT, "MPI_" #name)) != NULL)                                          \
    memcpy(&next_##name, &f, sizeof f);
#define HK_CHECK_CALL(name, params, args) HK_FIND(name)
#include "hk_check_calls.h"
#undef HK_CHECK_CALL
  HK_FIND(Init)
  HK_FIND(Init_thread)
  HK_FIND(Finalize)
#undef HK_FIND
}

/* hk__tool_<name>: the check of a call made at site_ (also reached from the Fortran
 * entry points, hk_fortran.c); MPI_<name>: a C caller's */
#define HK_CHECK_CALL(name, params, args)                                                       \
  int hk__tool_##name HK_SITE_PARAMS params                                                     \
  {                                                                                             \
    int counted = enter(CALL_##name, site_);                                                    \
    int rc = next_##name args;                                                                  \
    leave(counted);                                                                             \
    return rc;                                                                                  \
  }                                                                                             \
  HK_PUBLIC int MPI_##name params                                                               \
  {                                                                                             \
    const void *site_ = __builtin_return_address(0);                                            \
    return hk__tool_##name HK_SITE_ARGS args;                                                   \
  }
#include "hk_check_calls.h"
#undef HK_CHECK_CALL

/* HK_CHECK_FATAL and HK_CHECK_ABORT, read at MPI_Init: a value that is no boolean stops the
 * program there on every rank (exit status 2), one line from the lowest rank that has it,
 * instead of meaning off (a test counting on it passed whatever the program did) */
static int read_switch(const char *name)
{
  const char *v = getenv(name);
  int b = hk__bool_word(v), mine = b < 0 ? ck.rank : INT_MAX, first = INT_MAX;
  PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX)
    return b;
  if (ck.rank == first) {
    char who[32] = "";
    if (ck.size > 1)
      snprintf(who, sizeof who, "rank %d: ", first);
    fprintf(stderr, "hybridkit-check: error: %s%s=%s: expected " HK_BOOL_WORDS "\n", who, name,
            v);
    fflush(stderr);
  }
  PMPI_Finalize();
  exit(2);
}

static int started(int rc, int required, int provided)
{
  if (rc != MPI_SUCCESS)
    return rc;
  ck.required = required;
  ck.provided = provided;
  ck.level = required < provided ? required : provided;
  ck.main_thread = pthread_self();
  PMPI_Comm_rank(MPI_COMM_WORLD, &ck.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &ck.size);
  ck.fatal = read_switch("HK_CHECK_FATAL");
  ck.abort = read_switch("HK_CHECK_ABORT");
  const char *out = getenv("HK_CHECK_OUTPUT");
  snprintf(ck.output, sizeof ck.output, "%s", out ? out : "");
  __atomic_store_n(&hk__tool_started, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&ck.active, 1, __ATOMIC_RELEASE);
  return rc;
}

HK_PUBLIC int MPI_Init(int *argc, char ***argv)
{
  return hk__tool_init(next_Init(argc, argv), started);
}

HK_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  return hk__tool_init_thread(next_Init_thread(argc, argv, required, provided), required, provided,
                              started);
}

HK_PUBLIC int hk_check_query(hk_check_state_t *s)
{
  long long v = 0;
  for (int c = 0; c < NCALLS; c++)
    for (int w = 0; w < NWHY; w++)
      v += __atomic_load_n(&ck.count[c][w], __ATOMIC_RELAXED);
  *s = (hk_check_state_t){__atomic_load_n(&ck.active, __ATOMIC_ACQUIRE), ck.level,
                          __atomic_load_n(&ck.in_call, __ATOMIC_ACQUIRE), v};
  return 0;
}

/* rank 0: the rule, then the violations per call summed over ranks and the
 * number of ranks that saw them; returns the total (every rank) */
static long long summary(void)
{
  /* per call: violations, whether this rank saw any; then the calls checked */
  long long mine[2 * NCALLS + 1], all[2 * NCALLS + 1];
  for (int c = 0; c < NCALLS; c++) {
    mine[c] = 0;
    for (int w = 0; w < NWHY; w++)
      mine[c] += __atomic_load_n(&ck.count[c][w], __ATOMIC_RELAXED);
    mine[NCALLS + c] = mine[c] > 0;
  }
  mine[2 * NCALLS] = __atomic_load_n(&ck.checked, __ATOMIC_RELAXED);
  PMPI_Allreduce(mine, all, 2 * NCALLS + 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  long long total = 0;
  for (int c = 0; c < NCALLS; c++)
    total += all[c];
  hk__check_records(all[2 * NCALLS], total);
  if (ck.rank != 0)
    return total;
  int size = ck.size;
  /* one write: the launcher merges our stderr with the program's output, and a line
   * written in pieces came out with the program's words in the middle of it */
  char line[8192];
  size_t n = 0;
#define HK_CHECK_ADD(...)                                                                   \
  do {                                                                                      \
    int w_ = snprintf(line + n, sizeof line - n, __VA_ARGS__);                              \
    if (w_ > 0)                                                                             \
      n = (size_t)w_ < sizeof line - n ? n + (size_t)w_ : sizeof line - 1;                  \
  } while (0)
  HK_CHECK_ADD("hybridkit-check: %d rank(s), rule of %s (program asked %s, MPI provides %s): ",
               size, hk__mpi_level_long(ck.level), hk__mpi_level_short(ck.required),
               hk__mpi_level_short(ck.provided));
  if (!total)
    HK_CHECK_ADD("no violation");
  else {
    HK_CHECK_ADD("%lld violation(s):", total);
    for (int c = 0; c < NCALLS; c++)
      if (all[c])
        HK_CHECK_ADD(" %s %lld (%lld rank(s))", call_names[c], all[c], all[NCALLS + c]);
  }
#undef HK_CHECK_ADD
  if (n >= sizeof line - 1)
    n = sizeof line - 2;
  line[n++] = '\n';
  fflush(stderr);
  ssize_t written = write(STDERR_FILENO, line, n);
  (void)written;
  return total;
}

HK_PUBLIC int MPI_Finalize(void)
{
  long long total = 0;
  int active = __atomic_exchange_n(&ck.active, 0, __ATOMIC_ACQ_REL);
  if (active)
    total = summary();
  int rc = next_Finalize();
  if (total > 0 && ck.fatal)
    exit(3);
  return rc;
}
