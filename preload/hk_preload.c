/* preload/hk_preload.c: libhybridkit-preload.so, the PMPI wrapper that brings
 * the hybrid allreduce to an unmodified MPI+OpenMP program:
 *
 *   LD_PRELOAD=libhybridkit-preload.so  (mpirun -x LD_PRELOAD=... / mpiexec -genv ...)
 *
 *   MPI_Init, MPI_Init_thread  request MPI_THREAD_MULTIPLE from PMPI; the program
 *                              is told min(what it asked, what MPI gives), and so
 *                              is MPI_Query_thread: its view stays truthful
 *   MPI_Allreduce              messages below the threshold go straight to
 *                              PMPI_Allreduce (a size test and two counters: the
 *                              pass-through cost; counters are not atomic, so a
 *                              MULTIPLE program calling from several threads may
 *                              lose counts); larger ones go to hk_allreduce
 *                              (AUTO: tuning table / environment), when called by
 *                              the thread that initialised MPI
 *   MPI_Finalize               HK_PRELOAD_VERBOSE=1: rank 0 prints the summary
 *
 * HK_PRELOAD_THREAD_LEVEL=program: ask MPI for the program's level only (no
 * acceleration; isolates the cost of MPI_THREAD_MULTIPLE in the MPI library).
 *
 * Time-saved estimate: per power-of-two size class, the first accelerated-size
 * call and every 32nd after it are run by PMPI_Allreduce instead ("sampled", the
 * same on every rank since the size is), giving the baseline time per call; the
 * saving is (baseline - hybrid) x accelerated calls, summed over the classes.
 */
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_preload.h"
#include "hybridkit/coll.h"
#include "hybridkit/env.h"
#include "hybridkit/error.h"

#define HK_PUBLIC __attribute__((visibility("default")))
#define NCLASS 48
#define SAMPLE_EVERY 32

enum { P_NOT_MAIN = HK_FALLBACK_NREASONS, P_SAMPLED, P_NREASONS };

static struct {
  int active, program_level, mpi_level;
  pthread_t main;
  long long min_bytes;
  long long calls, accelerated, by_alg[HK_ALLREDUCE_NALG], passed[P_NREASONS];
  double hybrid_time;
  struct { long long n_hyb, n_mpi, seen; double t_hyb, t_mpi; } cls[NCLASS];
} st;

static int size_class(long long bytes)
{
  int c = 0;
  while (c < NCLASS - 1 && (1LL << (c + 1)) <= bytes)
    c++;
  return c;
}

static int init_common(int rc, int required, int *provided, int mpi_level)
{
  if (rc != MPI_SUCCESS)
    return rc;
  st.active = 1;
  st.mpi_level = mpi_level;
  st.program_level = required < mpi_level ? required : mpi_level;
  st.main = pthread_self();
  hk_coll_config_t cfg;
  hk_coll_config(&cfg); /* warnings about the environment appear at start-up */
  st.min_bytes = cfg.min_bytes;
  if (provided)
    *provided = st.program_level;
  return rc;
}

/* MPI_THREAD_MULTIPLE, unless HK_PRELOAD_THREAD_LEVEL=program keeps the program's
 * request (then every call passes through: "thread-level"; for measuring what
 * MPI_THREAD_MULTIPLE itself costs an MPI library) */
static int level_to_ask(int required)
{
  const char *v = getenv("HK_PRELOAD_THREAD_LEVEL");
  return v && !strcmp(v, "program") ? required : MPI_THREAD_MULTIPLE;
}

HK_PUBLIC int MPI_Init(int *argc, char ***argv)
{
  int level = MPI_THREAD_SINGLE;
  int rc = PMPI_Init_thread(argc, argv, level_to_ask(MPI_THREAD_SINGLE), &level);
  return init_common(rc, MPI_THREAD_SINGLE, NULL, level);
}

HK_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  int level = MPI_THREAD_SINGLE;
  int rc = PMPI_Init_thread(argc, argv, level_to_ask(required), &level);
  return init_common(rc, required, provided, level);
}

HK_PUBLIC int MPI_Query_thread(int *provided)
{
  if (!st.active)
    return PMPI_Query_thread(provided);
  *provided = st.program_level;
  return MPI_SUCCESS;
}

static int hybrid_call(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm, long long bytes)
{
  int c = size_class(bytes);
  int sample = st.cls[c].seen++ % SAMPLE_EVERY == 0;
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = sample ? HK_ALLREDUCE_MPI : HK_ALLREDUCE_AUTO,
                           .min_bytes = -1, .info = &info};
  double t0 = PMPI_Wtime();
  int err = hk_allreduce(sbuf, rbuf, count, type, op, comm, &o);
  double t = PMPI_Wtime() - t0;
  if (err != HK_SUCCESS) {
    fprintf(stderr, "hybridkit-preload: %s\n", hk_error_message());
    return MPI_ERR_OTHER;
  }
  if (info.fallback == HK_FALLBACK_NONE) {
    st.accelerated++;
    st.by_alg[info.algorithm]++;
    st.hybrid_time += t;
    st.cls[c].n_hyb++;
    st.cls[c].t_hyb += t;
  } else {
    st.passed[sample ? P_SAMPLED : info.fallback]++;
    if (sample || info.fallback == HK_FALLBACK_CHOSEN) {
      st.cls[c].n_mpi++;
      st.cls[c].t_mpi += t;
    }
  }
  return MPI_SUCCESS;
}

/* the size of the last predefined datatype seen by this thread: predefined
 * handles are never freed, so the cache cannot go stale (a third of the
 * pass-through cost was PMPI_Type_size) */
static __thread __attribute__((tls_model("initial-exec"))) struct {
  MPI_Datatype type;
  int size;
} last_type;

static int type_size(MPI_Datatype type)
{
  if (type == last_type.type && last_type.size > 0)
    return last_type.size;
  int size = 0, ni, na, nd, combiner = -1;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (combiner == MPI_COMBINER_NAMED) {
    last_type.type = type;
    last_type.size = size;
  }
  return size;
}

HK_PUBLIC int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm)
{
  int tsize = type_size(type);
  st.calls++;
  long long bytes = (long long)count * tsize;
  if (bytes < st.min_bytes || !st.active) {
    st.passed[HK_FALLBACK_SMALL]++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  }
  if (!pthread_equal(pthread_self(), st.main)) {
    st.passed[P_NOT_MAIN]++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  }
  return hybrid_call(sbuf, rbuf, count, type, op, comm, bytes);
}

HK_PUBLIC int hk_preload_query(hk_preload_state_t *s)
{
  long long passed = 0;
  for (int r = 0; r < P_NREASONS; r++)
    passed += st.passed[r];
  *s = (hk_preload_state_t){st.active, st.program_level, st.mpi_level, st.calls, st.accelerated,
                            passed, st.hybrid_time};
  return 0;
}

static const char *level_name(int l)
{
  static const char *const n[] = {"single", "funneled", "serialized", "multiple"};
  int i = l == MPI_THREAD_SINGLE ? 0 : l == MPI_THREAD_FUNNELED ? 1
          : l == MPI_THREAD_SERIALIZED ? 2 : 3;
  return n[i];
}

static void summary(void)
{
  enum { NC = 3 + HK_ALLREDUCE_NALG + P_NREASONS };
  long long mine[NC], all[NC];
  double est = 0.0, tsum[2], tall[2];
  long long sampled_n = 0;
  for (int c = 0; c < NCLASS; c++)
    if (st.cls[c].n_hyb && st.cls[c].n_mpi) {
      est += (st.cls[c].t_mpi / st.cls[c].n_mpi - st.cls[c].t_hyb / st.cls[c].n_hyb) *
             st.cls[c].n_hyb;
      sampled_n += st.cls[c].n_mpi;
    }
  mine[0] = st.calls;
  mine[1] = st.accelerated;
  mine[2] = sampled_n;
  memcpy(mine + 3, st.by_alg, sizeof st.by_alg);
  memcpy(mine + 3 + HK_ALLREDUCE_NALG, st.passed, sizeof st.passed);
  tsum[0] = st.hybrid_time;
  tsum[1] = est;
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Reduce(mine, all, NC, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(tsum, tall, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return;
  char algs[256] = "", why[512] = "";
  for (int a = 0; a < HK_ALLREDUCE_NALG; a++)
    if (all[3 + a])
      snprintf(algs + strlen(algs), sizeof algs - strlen(algs), "%s%s %lld",
               algs[0] ? ", " : "", hk_allreduce_alg_name((hk_allreduce_alg_t)a), all[3 + a]);
  for (int r = 0; r < P_NREASONS; r++) {
    long long n = all[3 + HK_ALLREDUCE_NALG + r];
    const char *name = r == P_NOT_MAIN ? "not-main-thread"
                       : r == P_SAMPLED ? "sampled" : hk_allreduce_fallback_name(r);
    if (n)
      snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s %lld", why[0] ? ", " : "",
               name, n);
  }
  long long passed = all[0] - all[1];
  fprintf(stderr,
          "hybridkit-preload: MPI_Allreduce: %lld calls intercepted on %d ranks, %lld accelerated%s%s%s, "
          "%lld passed through%s%s%s\n"
          "hybridkit-preload: thread level: program asked %s and is told %s, MPI provides %s; "
          "threshold %lld bytes\n"
          "hybridkit-preload: time in accelerated calls %.6f s (sum over ranks), estimated saving "
          "%.6f s (baseline from %lld sampled calls)\n",
          all[0], size, all[1], algs[0] ? " (" : "", algs, algs[0] ? ")" : "", passed,
          why[0] ? " (" : "", why, why[0] ? ")" : "", level_name(st.program_level),
          level_name(st.program_level), level_name(st.mpi_level), st.min_bytes, tall[0], tall[1],
          all[2]);
  fflush(stderr);
}

HK_PUBLIC int MPI_Finalize(void)
{
  const char *v = getenv("HK_PRELOAD_VERBOSE");
  if (st.active && v && !strcmp(v, "1"))
    summary();
  return PMPI_Finalize();
}
