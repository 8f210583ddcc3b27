/* preload/hk_preload.c: libhybridkit-preload.so, the PMPI wrapper that brings the
 * hybrid collectives to an unmodified MPI+OpenMP program:
 *   LD_PRELOAD=libhybridkit-preload.so  (mpirun -x LD_PRELOAD=... / mpiexec -genv ...)
 *
 *   MPI_Init, MPI_Init_thread  ask PMPI for MPI_THREAD_MULTIPLE only where it can
 *                              help (below), else for the program's level; the
 *                              program is told min(what it asked, what MPI gives),
 *                              and so is MPI_Query_thread: its view stays truthful.
 *                              Then one PMPI_Allreduce over MPI_COMM_WORLD agrees
 *                              on the threshold (ranks that disagree: every call
 *                              passes through)
 *   MPI_Allreduce              below the threshold (or count 0): straight to
 *                              PMPI_Allreduce (a size test and a per-thread
 *                              counter: the pass-through cost); at or above it,
 *                              a communicator of one rank passes too; else
 *                              hk_allreduce (AUTO: tuning table / environment /
 *                              model), from any thread
 *   MPI_Reduce, MPI_Bcast, ...  the same way with their own thresholds and hk_reduce,
 *                              hk_bcast, ... (hk_preload_colls.h)
 *   MPI_Finalize               HK_PRELOAD_VERBOSE=1: rank 0 prints the summary
 *   mpi_init_, mpi_allreduce_, ...  (Open MPI build) the Fortran bindings, which
 *                              call PMPI_ directly there (end of this file)
 *
 * Every decision about which MPI calls run depends only on what is equal on all
 * ranks of the communicator: count x type size, the threshold agreed at init,
 * the per-communicator state hk_allreduce agrees on, and a per-communicator call
 * counter (the sampling below) that every rank advances on the same calls.
 * hybridkit's own MPI calls go to PMPI_ and never come through here.
 *
 * Thread level (HK_PRELOAD_THREAD_LEVEL):
 *   auto (default)  MPI_THREAD_MULTIPLE when the rank can use more than one core (its
 *                   affinity mask, at most the online CPUs over the launcher's ranks on
 *                   the node), more than one thread would run (HK_ALLREDUCE_THREADS,
 *                   HK_COLL_THREADS, else OMP max threads), the job has more than one
 *                   rank and some collective's algorithm is not mpi (HK_<KIND>_ALGORITHM,
 *                   else HK_COLL_ALGORITHM); else the program's level (hierarchical still
 *                   runs, one thread per rank)
 *   program         the program's level; multiple: always MULTIPLE (tests)
 *
 * Errors: a failure of the hybrid path after its set-up (set-up failures are
 * agreed fallbacks) calls the communicator's error handler with MPI_ERR_OTHER,
 * as MPI would: fatal by default, MPI_ERR_OTHER returned under
 * MPI_ERRORS_RETURN (the receive buffer is then undefined).
 *
 * Time-saved estimate: per communicator and power-of-two size class, the first
 * call at or above the threshold and every 32nd after it are run by
 * PMPI_Allreduce instead ("sampled"; the counter lives in an attribute of the
 * communicator, so all its ranks sample the same calls), giving the baseline
 * time per call of the class; the saving of an algorithm is (baseline - its
 * time) x its calls, summed over the classes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_interpose.h"
#include "hybridkit/preload.h"
#include "preload_internal.h"
#include "internal/hk_env_word.h"
#include "internal/hk_last_comm.h"
#include "internal/hk_launcher.h"
#include "hybridkit/coll.h"
#include "hybridkit/env.h"
#include "hybridkit/error.h"

#define NCLASS 48
#define SAMPLE_EVERY 32
#define NALG HK_ALLREDUCE_ALG_COUNT

enum { P_SAMPLED = HK_FALLBACK_COUNT, P_NREASONS };

static struct {
  int inited, active, program_level, mpi_level, asked_level, mode, world_size, verbose;
  char why[160];              /* why asked_level */
  long long min_bytes;
  int keyval;
  pthread_mutex_t lock;       /* the rest, and the list of per-thread counters */
  long long accelerated, by_alg[NALG], passed[P_NREASONS];
  double hybrid_time;
  struct { long long n_alg[NALG], n_mpi; double t_alg[NALG], t_mpi; } cls[NCLASS];
} st = {.keyval = MPI_KEYVAL_INVALID, .lock = PTHREAD_MUTEX_INITIALIZER};

/* calls and pass-throughs below the threshold, counted per thread without
 * atomics (the fast path stays a few instructions); blocks are never freed, so
 * the summary adds those of threads that have ended too */
typedef struct tcount {
  long long calls, small, one_rank;
  long long kcalls[12], ksmall[12]; /* the other collectives (hk_preload_colls.h: NK <= 12) */
  long long kmodel[12], kchosen[12]; /* memo hits per kind (K_ALLREDUCE too), by reason */
  long long kone[12];                /* the other collectives on one rank */
  struct tcount *next;
} tcount_t;
static tcount_t *thread_counts, spare_counts; /* spare: if malloc fails (shared, racy) */
/* the fast path's per-thread state in one TLS block (one address look-up): this
 * thread's counters and the size of the last predefined datatype it saw --
 * predefined handles are never freed, so the cache cannot go stale (a third of the
 * pass-through cost was PMPI_Type_size) */
static __thread __attribute__((tls_model("initial-exec"))) struct {
  tcount_t *counts;
  MPI_Datatype type;
  long long size;
} fast;

static __attribute__((noinline, cold)) tcount_t *new_counts(void)
{
  tcount_t *c = calloc(1, sizeof *c);
  if (!c)
    return &spare_counts;
  pthread_mutex_lock(&st.lock);
  c->next = thread_counts;
  thread_counts = c;
  pthread_mutex_unlock(&st.lock);
  return c;
}

static inline tcount_t *counts(void)
{
  if (__builtin_expect(!fast.counts, 0))
    fast.counts = new_counts();
  return fast.counts;
}

/* the allreduce's counts summed over threads; memo[0], memo[1]: its memo hits (model,
 * chosen) */
static void sum_counts(long long *calls, long long *small, long long *one_rank, long long *memo)
{
  pthread_mutex_lock(&st.lock);
  *calls = spare_counts.calls;
  *small = spare_counts.small;
  *one_rank = spare_counts.one_rank;
  memo[0] = spare_counts.kmodel[0];
  memo[1] = spare_counts.kchosen[0];
  for (tcount_t *c = thread_counts; c; c = c->next) {
    *calls += c->calls;
    *small += c->small;
    *one_rank += c->one_rank;
    memo[0] += c->kmodel[0];
    memo[1] += c->kchosen[0];
  }
  pthread_mutex_unlock(&st.lock);
}

/* floor(log2(bytes)), 0 for bytes < 2, at most NCLASS - 1 */
static int size_class(long long bytes)
{
  int c = bytes > 1 ? 63 - __builtin_clzll((unsigned long long)bytes) : 0;
  return c < NCLASS - 1 ? c : NCLASS - 1;
}

/* MPI_Reduce, MPI_Bcast, ...: a file of their own, compiled here (this file's state) */
#include "hk_preload_colls.h"
/* the per-communicator state: sampling counters and the memo (this file's state too) */
#include "hk_preload_memo.h"

int hk__preload_ask(int required)
{
  st.asked_level = hk__preload_level(required, &st.mode, st.why, sizeof st.why);
  return st.asked_level;
}

static const char *level_name(int l) { return hk__mpi_level_short(l); }

/* A PMPI tool preloaded after this library (libhybridkit-check.so, -profile.so) defines
 * MPI_Init_thread too, but this library calls PMPI_ and MPI_Init never reaches the tool,
 * which then sees nothing: one line says so (the tool first works: it calls the next
 * definition, ours) */
static void warn_skipped_tool(void)
{
  Dl_info next, mpi;
  void *f = dlsym(RTLD_NEXT, "MPI_Init_thread");
  if (!f || !dladdr(f, &next) || !next.dli_fname ||
      !dladdr((void *)(uintptr_t)PMPI_Init_thread, &mpi) || !mpi.dli_fname ||
      !strcmp(next.dli_fname, mpi.dli_fname))
    return;
  const char *tool = strrchr(next.dli_fname, '/') ? strrchr(next.dli_fname, '/') + 1
                                                   : next.dli_fname;
  fprintf(stderr, "hybridkit-preload: warning: %s comes after libhybridkit-preload.so in "
          "LD_PRELOAD: MPI_Init never reaches it and it sees none of the program's calls "
          "(put it first: LD_PRELOAD=%s:libhybridkit-preload.so)\n", tool, tool);
}

int hk__preload_init_common(int rc, int required, int *provided, int mpi_level)
{
  if (rc != MPI_SUCCESS)
    return rc;
  st.inited = 1;
  st.mpi_level = mpi_level;
  st.program_level = required < mpi_level ? required : mpi_level;
  if (provided)
    *provided = st.program_level;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &st.world_size);
  const char *verbose = getenv("HK_PRELOAD_VERBOSE");
  st.verbose = hk__bool_word(verbose);
  if (rank == 0 && st.mode == LEVEL_BOGUS)
    fprintf(stderr, "hybridkit-preload: warning: HK_PRELOAD_THREAD_LEVEL=%s is not auto, program "
            "or multiple; using auto\n", getenv("HK_PRELOAD_THREAD_LEVEL"));
  if (rank == 0 && st.verbose < 0)
    fprintf(stderr, "hybridkit-preload: warning: HK_PRELOAD_VERBOSE=%s: expected " HK_BOOL_WORDS
            "; no summary\n", verbose);
  if (rank == 0)
    warn_skipped_tool();
  hk_coll_config_t cfg;
  hk_coll_config(&cfg); /* warnings about the environment appear at start-up (rank 0) */
  st.min_bytes = cfg.min_bytes;
  /* the thresholds decide on every rank whether hk_allreduce, hk_reduce, ... (and their
   * first-use agreement) run: ranks that disagree would mismatch collectives */
  int ok = agree_thresholds(&cfg);
  ok = ok && PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_counters, &st.keyval, NULL) ==
                 MPI_SUCCESS;
  if (!ok && rank == 0)
    fprintf(stderr, "hybridkit-preload: warning: a threshold (HK_ALLREDUCE_MIN_BYTES, "
            "HK_<KIND>_MIN_BYTES, HK_COLL_MIN_BYTES, HK_COLL_TUNING) differs between ranks; every "
            "MPI_Allreduce, MPI_Reduce, ... passes through\n");
  if (rank == 0 && ((st.mode == LEVEL_MULTIPLE || st.asked_level == MPI_THREAD_MULTIPLE) &&
                    mpi_level < MPI_THREAD_MULTIPLE))
    fprintf(stderr, "hybridkit-preload: warning: asked MPI for MPI_THREAD_MULTIPLE, it provides "
            "%s: the chunked algorithms stay off\n", level_name(mpi_level));
  st.active = ok;
  return rc;
}

/* MPI ran but its MPI_Init never reached this library: a PMPI tool before it in LD_PRELOAD
 * called PMPI_Init itself (libhybridkit-profile.so does; libhybridkit-check.so passes the
 * call on), and nothing was accelerated.  Rank 0 says so once at exit, not silence. */
__attribute__((destructor)) static void unreached(void)
{
  int up = 0;
  if (st.inited || PMPI_Initialized(&up) != MPI_SUCCESS || !up || hk__launcher_rank() > 0)
    return;
  fprintf(stderr, "hybridkit-preload: warning: MPI ran but its MPI_Init never reached "
          "libhybridkit-preload.so: no MPI_Allreduce was accelerated (a library before it in "
          "LD_PRELOAD called PMPI_Init: put libhybridkit-preload.so first; or the program "
          "reaches MPI by a way the preload does not take: another Fortran compiler's symbol "
          "names, a static MPI, PMPI_* called itself)\n");
}

HK_PUBLIC int MPI_Init(int *argc, char ***argv)
{
  int level = MPI_THREAD_SINGLE;
  hk__preload_ask(MPI_THREAD_SINGLE);
  int rc = PMPI_Init_thread(argc, argv, st.asked_level, &level);
  return hk__preload_init_common(rc, MPI_THREAD_SINGLE, NULL, level);
}

HK_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  int level = MPI_THREAD_SINGLE;
  hk__preload_ask(required);
  int rc = PMPI_Init_thread(argc, argv, st.asked_level, &level);
  return hk__preload_init_common(rc, required, provided, level);
}

HK_PUBLIC int MPI_Query_thread(int *provided)
{
  if (!st.inited)
    return PMPI_Query_thread(provided);
  *provided = st.program_level;
  return MPI_SUCCESS;
}

/* out of line: the pass-through path of MPI_Allreduce keeps no stack frame */
static __attribute__((noinline)) int hybrid_call(const void *sbuf, void *rbuf, int count,
                                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                                 long long bytes)
{
  int c = size_class(bytes), n = 0;
  /* one rank: MPI only copies, nothing to gain (the same on that one rank);
   * MPI_COMM_SELF and a one-rank MPI_COMM_WORLD without asking MPI */
  if (comm == MPI_COMM_SELF || (st.world_size == 1 && comm == MPI_COMM_WORLD) ||
      (PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n == 1)) {
    counts()->one_rank++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  }
  comm_state_t *cs = comm_state(comm);
  if (!cs || cs->seen[c]++ % SAMPLE_EVERY == 0) {
    /* no counters: every rank of comm lacks them alike only by luck, so a rank
     * without them passes through as if sampled; allocation failure is the
     * only cause, and then the process is in trouble anyway */
    double t0 = PMPI_Wtime();
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    double t = PMPI_Wtime() - t0;
    pthread_mutex_lock(&st.lock);
    st.passed[P_SAMPLED]++;
    st.cls[c].n_mpi++;
    st.cls[c].t_mpi += t;
    pthread_mutex_unlock(&st.lock);
    return rc;
  }
  memo_t key;
  int keyed = memo_key(&key, K_ALLREDUCE, bytes, type, type, 1, op);
  int why = keyed ? memo_get(cs, &key, c) : HK_FALLBACK_NONE;
  if (why != HK_FALLBACK_NONE) { /* no clock, no lock: what MPI_Allreduce pays here */
    memo_count(K_ALLREDUCE, why);
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  }
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_AUTO, .min_bytes = HK_DEFAULT, .info = &info};
  double t0 = PMPI_Wtime();
  int err = hk_allreduce(sbuf, rbuf, count, type, op, comm, &o);
  double t = PMPI_Wtime() - t0;
  if (err != HK_SUCCESS && info.mpi_error != MPI_SUCCESS)
    return info.mpi_error; /* PMPI_Allreduce failed: MPI called the error handler already */
  if (err != HK_SUCCESS) {
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "hybridkit-preload: rank %d: MPI_Allreduce: %s\n", rank, hk_error_message());
    fflush(stderr);
    PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
  }
  if (keyed)
    memo_put(cs, &key, c, info.fallback);
  pthread_mutex_lock(&st.lock);
  if (info.fallback == HK_FALLBACK_NONE && info.algorithm != HK_ALLREDUCE_MPI) {
    st.accelerated++;
    st.by_alg[info.algorithm]++;
    st.hybrid_time += t;
    st.cls[c].n_alg[info.algorithm]++;
    st.cls[c].t_alg[info.algorithm] += t;
  } else {
    st.passed[info.fallback]++;
  }
  pthread_mutex_unlock(&st.lock);
  return MPI_SUCCESS;
}

static __attribute__((noinline)) int type_size_slow(MPI_Datatype type)
{
  int size = 0, ni, na, nd, combiner = -1;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS)
    return -1;
  PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (combiner == MPI_COMBINER_NAMED) {
    fast.type = type;
    fast.size = size;
  }
  return size;
}

static inline int type_size(MPI_Datatype type)
{
  if (type == fast.type && fast.size > 0)
    return (int)fast.size;
  return type_size_slow(type);
}

/* everything but the common pass-through (out of line, see MPI_Allreduce) */
static __attribute__((noinline)) int allreduce_rest(const void *sbuf, void *rbuf, int count,
                                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  tcount_t *n = counts();
  n->calls++;
  /* not initialised through us, nothing to reduce, or arguments MPI must judge */
  if (!st.active || count <= 0 || type == MPI_DATATYPE_NULL || comm == MPI_COMM_NULL ||
      op == MPI_OP_NULL) {
    n->small++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  }
  long long bytes = (long long)count * type_size(type);
  if (bytes < st.min_bytes || bytes <= 0) {
    n->small++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  }
  return hybrid_call(sbuf, rbuf, count, type, op, comm, bytes);
}

/* The pass-through below the threshold with this thread's last predefined type:
 * one TLS block, three compares, one 16-byte increment of the two counters and a
 * tail jump to PMPI_Allreduce (no stack frame: what a program pays where nothing is
 * accelerated; 13 instructions and the PLT jump, docs/performance.md, "Preload
 * pass-through and the hierarchical crossover").  Passing through is always right, so
 * this path needs no other check (a cached size of 0 would pass through too). */
HK_PUBLIC int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm)
{
  tcount_t *n = fast.counts;
  if (__builtin_expect(n != NULL, 1) && type == fast.type && count * fast.size < st.min_bytes) {
    n->calls++;
    n->small++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  }
  return allreduce_rest(sbuf, rbuf, count, type, op, comm);
}

HK_PUBLIC int hk_preload_query(hk_preload_state_t *s)
{
  long long calls = 0, passed = 0, one = 0, memo[2];
  sum_counts(&calls, &passed, &one, memo);
  passed += memo[0] + memo[1];
  pthread_mutex_lock(&st.lock);
  for (int r = 0; r < P_NREASONS; r++)
    passed += st.passed[r];
  *s = (hk_preload_state_t){st.active, st.program_level, st.mpi_level, calls, st.accelerated,
                            passed + one, st.hybrid_time};
  kinds_state(s); /* and the other collectives' */
  pthread_mutex_unlock(&st.lock);
  return 0;
}

static void summary(void)
{
  /* calls, accelerated, small, by_alg, passed, sampled calls under each algorithm */
  enum { NC = 3 + NALG + P_NREASONS + NALG, ND = 2 * NALG };
  long long mine[NC], all[NC];
  double tmine[ND], tall[ND]; /* per algorithm: time, estimated saving */
  memset(mine, 0, sizeof mine);
  memset(tmine, 0, sizeof tmine);
  long long one = 0, memo[2];
  sum_counts(&mine[0], &mine[2], &one, memo);
  mine[1] = st.accelerated;
  memcpy(mine + 3, st.by_alg, sizeof st.by_alg);
  memcpy(mine + 3 + NALG, st.passed, sizeof st.passed);
  mine[3 + NALG + HK_FALLBACK_ONE_RANK] += one;
  mine[3 + NALG + HK_FALLBACK_MODEL] += memo[0];
  mine[3 + NALG + HK_FALLBACK_CHOSEN] += memo[1];
  mine[3 + NALG + HK_FALLBACK_SMALL] += mine[2]; /* one "small" in the summary */
  for (int a = 0; a < NALG; a++)
    for (int c = 0; c < NCLASS; c++) {
      tmine[a] += st.cls[c].t_alg[a];
      if (st.cls[c].n_alg[a] && st.cls[c].n_mpi) {
        tmine[NALG + a] += (st.cls[c].t_mpi / st.cls[c].n_mpi -
                            st.cls[c].t_alg[a] / st.cls[c].n_alg[a]) * st.cls[c].n_alg[a];
        mine[3 + NALG + P_NREASONS + a] += st.cls[c].n_mpi;
      }
    }
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Reduce(mine, all, NC, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(tmine, tall, ND, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return;
  char algs[256] = "", why[512] = "";
  for (int a = 0; a < NALG; a++)
    if (all[3 + a])
      snprintf(algs + strlen(algs), sizeof algs - strlen(algs), "%s%s %lld",
               algs[0] ? ", " : "", hk_allreduce_alg_name((hk_allreduce_alg_t)a), all[3 + a]);
  for (int r = 0; r < P_NREASONS; r++) {
    long long n = all[3 + NALG + r];
    const char *name = r == P_SAMPLED ? "sampled" : hk_allreduce_fallback_name(r);
    if (n)
      snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s %lld", why[0] ? ", " : "",
               name, n);
  }
  fprintf(stderr,
          "hybridkit-preload: MPI_Allreduce: %lld calls intercepted on %d ranks, %lld accelerated%s%s%s, "
          "%lld passed through%s%s%s\n"
          "hybridkit-preload: thread level: program asked %s and is told %s, MPI provides %s "
          "(asked %s: %s); threshold %lld bytes\n",
          all[0], size, all[1], algs[0] ? " (" : "", algs, algs[0] ? ")" : "", all[0] - all[1],
          why[0] ? " (" : "", why, why[0] ? ")" : "", level_name(st.program_level),
          level_name(st.program_level), level_name(st.mpi_level), level_name(st.asked_level),
          st.why, st.min_bytes);
  for (int a = 0; a < NALG; a++) {
    if (!all[3 + a])
      continue;
    long long base = all[3 + NALG + P_NREASONS + a];
    if (base)
      fprintf(stderr, "hybridkit-preload: %s: %lld calls, %.6f s (sum over ranks), estimated "
              "saving %.6f s against %lld sampled MPI calls of the same sizes\n",
              hk_allreduce_alg_name((hk_allreduce_alg_t)a), all[3 + a], tall[a], tall[NALG + a],
              base);
    else
      fprintf(stderr, "hybridkit-preload: %s: %lld calls, %.6f s (sum over ranks), no sampled "
              "MPI call of the same sizes to estimate a saving\n",
              hk_allreduce_alg_name((hk_allreduce_alg_t)a), all[3 + a], tall[a]);
  }
  fflush(stderr);
}

/* what the C and Fortran MPI_Finalize do before MPI's own: the summary, the keyval */
void hk__preload_finalize(void)
{
  if (st.inited && st.verbose > 0) {
    summary();
    summary_kinds();
  }
  if (st.keyval != MPI_KEYVAL_INVALID)
    PMPI_Comm_free_keyval(&st.keyval);
  st.active = 0;
}

HK_PUBLIC int MPI_Finalize(void)
{
  hk__preload_finalize();
  return PMPI_Finalize();
}
