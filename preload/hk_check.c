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
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "hk_check.h"
#include "hk_interpose.h"
#include "hk_check_ids.h"
#include "../src/internal/hk_env_word.h"
#include "hk_tool.h"

const char hk__tool_name[] = "hybridkit-check";

static const char *const call_names[NCALLS] = {
#define HK_CHECK_CALL(name, params, args) "MPI_" #name,
#include "hk_check_calls.h"
#undef HK_CHECK_CALL
};

/* the rules a call can break: the record's "rule" */
enum { WHY_OFF_MAIN, WHY_PARALLEL, WHY_OVERLAP, NWHY };
static const char *const why_text[NWHY] = {"not the main thread",
                                           "inside an OpenMP parallel region",
                                           "another thread is inside an MPI call"};

#define ABORT_CODE 86 /* HK_CHECK_ABORT: the MPI_Abort error code */

/* the first violation of a (call, rule) on a rank: who made it, and where */
typedef struct first {
  int call, why, rank, omp_thread, omp_threads, omp_level;
  long tid;
  hk_tool_loc_t loc; /* dladdr */
  hk_tool_src_t src; /* addr2line, when records are written */
} first_t;

static struct {
  int active;              /* between our MPI_Init(_thread) and MPI_Finalize */
  int level, required, provided, rank, size;
  pthread_t main_thread;
  int in_call;             /* atomic: threads inside a wrapped call */
  long long checked;       /* atomic: calls checked */
  long long count[NCALLS][NWHY]; /* atomic: violations per call and rule */
  int reported[NCALLS][NWHY];    /* atomic: the first one was taken */
  first_t first[NCALLS][NWHY];   /* written by the thread that took it */
  int fatal, abort;        /* HK_CHECK_FATAL, HK_CHECK_ABORT */
  int aborting;            /* atomic: a thread is stopping the job */
  char output[1024];       /* HK_CHECK_OUTPUT, "" none */
} ck;

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

/* ---- JSON Lines (HK_CHECK_OUTPUT): one record built in a buffer, one write ---- */

typedef struct jbuf {
  char *b;
  size_t cap, n;
} jbuf_t;

static __attribute__((format(printf, 2, 3))) void jadd(jbuf_t *j, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(j->b + j->n, j->cap - j->n, fmt, ap);
  va_end(ap);
  if (w > 0)
    j->n = (size_t)w < j->cap - j->n ? j->n + (size_t)w : j->cap - 1;
}

/* "key":"value", escaped */
static void jstr(jbuf_t *j, const char *key, const char *v)
{
  jadd(j, "\"%s\":\"", key);
  for (; v && *v && j->n < j->cap - 8; v++) {
    unsigned char c = (unsigned char)*v;
    if (c == '"' || c == '\\')
      jadd(j, "\\%c", c);
    else if (c < 0x20)
      jadd(j, "\\u%04x", c);
    else
      j->b[j->n++] = (char)c;
  }
  j->b[j->n] = '\0';
  jadd(j, "\"");
}

/* "rank":..,"thread":{..},"site":{..} of a first violation */
static void jfirst(jbuf_t *j, const first_t *f)
{
  char symbol[HK_TOOL_FUNCLEN + 24] = "";
  if (f->loc.func[0])
    snprintf(symbol, sizeof symbol, "%s+0x%llx", f->loc.func, f->loc.func_offset);
  jadd(j, "\"rank\":%d,\"thread\":{\"tid\":%ld,\"omp_thread\":%d,\"omp_threads\":%d,"
       "\"parallel_level\":%d},\"site\":{", f->rank, f->tid, f->omp_thread, f->omp_threads,
       f->omp_level);
  jstr(j, "where", f->src.where);
  jadd(j, ",");
  jstr(j, "file", f->src.file);
  jadd(j, ",");
  jstr(j, "line", f->src.line);
  jadd(j, ",");
  jstr(j, "function", f->src.func);
  jadd(j, ",");
  jstr(j, "module", f->loc.module);
  jadd(j, ",\"offset\":\"0x%llx\",", f->loc.offset);
  jstr(j, "symbol", symbol);
  jadd(j, "}");
}

static void jhead(jbuf_t *j, const char *kind, int call, int why)
{
  jadd(j, "{\"kind\":\"%s\",\"format\":1,\"function\":\"%s\",\"level\":\"%s\",\"asked\":\"%s\","
       "\"rule\":\"%s\",", kind, call_names[call], hk__mpi_level_long(ck.level),
       hk__mpi_level_long(ck.required), why_text[why]);
}

/* appends the record (O_APPEND, one write: ranks and threads append to one file) */
static void jwrite(jbuf_t *j)
{
  if (j->n >= j->cap - 2)
    return; /* cut: no half record */
  j->b[j->n++] = '\n';
  int fd = open(ck.output, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "hybridkit-check: error: cannot open %s\n", ck.output);
    return;
  }
  ssize_t w = write(fd, j->b, j->n);
  if (w != (ssize_t)j->n)
    fprintf(stderr, "hybridkit-check: error: cannot write %s\n", ck.output);
  close(fd);
}

static void first_record(const first_t *f, int aborting)
{
  char b[4096];
  jbuf_t j = {.b = b, .cap = sizeof b, .n = 0};
  jhead(&j, "check.first", f->call, f->why);
  jfirst(&j, f);
  jadd(&j, ",\"abort\":%s}", aborting ? "true" : "false");
  jwrite(&j);
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
    first_record(f, 1);
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
    first_record(f, 0);
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
  int provided = MPI_THREAD_SINGLE;
  int rc = next_Init(argc, argv);
  if (rc == MPI_SUCCESS)
    PMPI_Query_thread(&provided);
  return started(rc, MPI_THREAD_SINGLE, provided);
}

HK_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  int rc = next_Init_thread(argc, argv, required, provided);
  return started(rc, required, rc == MPI_SUCCESS ? *provided : MPI_THREAD_SINGLE);
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

#define NV (NCALLS * NWHY) /* (call, rule) pairs, flat: call * NWHY + why */

/* HK_CHECK_OUTPUT at MPI_Finalize (collective): rank 0 appends a check.violation per
 * (call, rule) any rank broke - the counts per rank, the first site of the lowest rank
 * that broke it - and the check.summary */
static void records(long long checked, long long total)
{
  int mine[2] = {ck.output[0] != 0, 0}, all[2] = {0, 0};
  long long *per_rank = NULL;
  int *nfirst = NULL, *displs = NULL;
  first_t *firsts = NULL;
  if (ck.rank == 0) {
    per_rank = calloc((size_t)ck.size * NV, sizeof *per_rank);
    nfirst = calloc((size_t)ck.size, sizeof *nfirst);
    displs = calloc((size_t)ck.size, sizeof *displs);
    firsts = calloc(NV, sizeof *firsts);
    mine[1] = !(per_rank && nfirst && displs && firsts);
  }
  PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!all[0] || all[1])
    goto done;
  long long counts[NV];
  int low[NV], lowest[NV], n = 0;
  first_t *own = calloc(NV, sizeof *own);
  for (int v = 0; v < NV; v++) {
    counts[v] = __atomic_load_n(&ck.count[v / NWHY][v % NWHY], __ATOMIC_RELAXED);
    low[v] = counts[v] > 0 ? ck.rank : INT_MAX;
  }
  PMPI_Allreduce(low, lowest, NV, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (int v = 0; v < NV && own; v++)
    if (lowest[v] == ck.rank)
      own[n++] = ck.first[v / NWHY][v % NWHY];
  PMPI_Gather(counts, NV, MPI_LONG_LONG, per_rank, NV, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  int bytes = n * (int)sizeof(first_t);
  PMPI_Gather(&bytes, 1, MPI_INT, nfirst, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; ck.rank == 0 && r < ck.size; r++)
    displs[r] = displs[r - 1] + nfirst[r - 1];
  PMPI_Gatherv(own, bytes, MPI_BYTE, firsts, nfirst, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
  free(own);
  if (ck.rank != 0 || !ck.output[0])
    goto done;
  int got = (displs[ck.size - 1] + nfirst[ck.size - 1]) / (int)sizeof(first_t);
  jbuf_t j = {.cap = 4096 + 32 * (size_t)ck.size};
  j.b = malloc(j.cap);
  for (int k = 0; k < got && j.b; k++) {
    const first_t *f = &firsts[k];
    int v = f->call * NWHY + f->why;
    long long sum = 0;
    j.n = 0;
    jhead(&j, "check.violation", f->call, f->why);
    jadd(&j, "\"ranks\":{");
    for (int r = 0; r < ck.size; r++)
      if (per_rank[(size_t)r * NV + v]) {
        jadd(&j, "%s\"%d\":%lld", sum ? "," : "", r, per_rank[(size_t)r * NV + v]);
        sum += per_rank[(size_t)r * NV + v];
      }
    jadd(&j, "},\"count\":%lld,\"first\":{", sum);
    jfirst(&j, f);
    jadd(&j, "}}");
    jwrite(&j);
  }
  if (j.b) {
    j.n = 0;
    jadd(&j, "{\"kind\":\"check.summary\",\"format\":1,\"ranks\":%d,\"threads\":%d,"
         "\"level\":\"%s\",\"asked\":\"%s\",\"provided\":\"%s\",\"calls\":%lld,"
         "\"violations\":%lld}", ck.size, omp_get_max_threads(), hk__mpi_level_long(ck.level),
         hk__mpi_level_long(ck.required), hk__mpi_level_long(ck.provided), checked, total);
    jwrite(&j);
  }
  free(j.b);
done:
  free(per_rank);
  free(nfirst);
  free(displs);
  free(firsts);
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
  records(all[2 * NCALLS], total);
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
