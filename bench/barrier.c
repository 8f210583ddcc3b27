/* bench/barrier.c: the cost of synchronising the threads of a rank, the
 * "OpenMP overhead" mismatch problem of hybrid codes (Hager/Wellein's barrier
 * comparison: OpenMP vs pthreads vs a spin barrier, by thread placement).
 *
 *   for t = 2 .. threads, for each placement (compact: neighbouring cores;
 *   scatter: spread over packages, when there are several), for each barrier:
 *     omp        #pragma omp barrier
 *     pthread    pthread_barrier_wait
 *     spin       a sense-reversing barrier: atomic arrival counter, global sense flag,
 *                threads spin (with a pause) until the last arriving thread flips it
 *   time per barrier = (time of K barriers on thread 0) / K, after a warm-up.
 * Before timing, every barrier is validated: each thread bumps a shared counter
 * before the barrier and checks after it that all t threads have arrived; a
 * barrier that lets a thread through early fails the run.
 */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "bench.h"
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HK_HAVE_TSC 1
#endif

typedef enum { B_OMP, B_PTHREAD, B_SPIN, B_COUNT } barrier_kind_t;
static const char *const barrier_names[B_COUNT] = {"omp", "pthread", "spin"};

typedef struct spin_barrier {
  _Alignas(64) atomic_int count;
  _Alignas(64) atomic_int sense;
  int nthreads;
} spin_barrier_t;

typedef struct barriers {
  pthread_barrier_t pb;
  spin_barrier_t sb;
} barriers_t;

static void spin_wait(spin_barrier_t *b, int *local_sense)
{
  *local_sense = !*local_sense;
  if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->nthreads - 1) {
    atomic_store_explicit(&b->count, 0, memory_order_relaxed);
    atomic_store_explicit(&b->sense, *local_sense, memory_order_release);
  } else {
    while (atomic_load_explicit(&b->sense, memory_order_acquire) != *local_sense) {
#ifdef HK_HAVE_TSC
      _mm_pause();
#endif
    }
  }
}

static inline void wait_on(barrier_kind_t k, barriers_t *b, int *sense)
{
  if (k == B_OMP) {
#pragma omp barrier
  } else if (k == B_PTHREAD) {
    pthread_barrier_wait(&b->pb);
  } else {
    spin_wait(&b->sb, sense);
  }
}

static inline unsigned long long ticks(void)
{
#ifdef HK_HAVE_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

/* validation, then K timed barriers; *ns and *cycles per barrier (thread 0's view) */
static int measure(barrier_kind_t k, int t, int iters, int warmup, double *ns, double *cycles)
{
  barriers_t b;
  atomic_int arrived = 0;
  int early = 0;
  pthread_barrier_init(&b.pb, NULL, (unsigned)t);
  atomic_init(&b.sb.count, 0);
  atomic_init(&b.sb.sense, 0);
  b.sb.nthreads = t;
  double t0 = 0.0, t1 = 0.0;
  unsigned long long c0 = 0, c1 = 0;
#pragma omp parallel num_threads(t) reduction(+ : early)
  {
    int sense = 0;
    /* validation: nobody passes before everybody has arrived */
    for (int round = 1; round <= 100; round++) {
      atomic_fetch_add(&arrived, 1);
      wait_on(k, &b, &sense);
      early += atomic_load(&arrived) < round * t;
      wait_on(k, &b, &sense); /* nobody starts the next round before all have checked */
    }
    for (int i = 0; i < warmup; i++)
      wait_on(k, &b, &sense);
#pragma omp master
    {
      t0 = hk_clock();
      c0 = ticks();
    }
    for (int i = 0; i < iters; i++)
      wait_on(k, &b, &sense);
#pragma omp master
    {
      c1 = ticks();
      t1 = hk_clock();
    }
  }
  pthread_barrier_destroy(&b.pb);
  if (early)
    return hk_error_set(HK_ERR_STATE, "%s barrier with %d threads let threads through early %d "
                                      "times", barrier_names[k], t, early);
  *ns = (t1 - t0) / iters * 1e9;
  *cycles = (double)(c1 - c0) / iters;
  return HK_SUCCESS;
}

/* one record: time per barrier (and TSC cycles) of barrier k with t threads */
static int emit(hk_bench_ctx_t *c, hk_bind_policy_t place, int t, int k, int iters, double ns,
                double cyc)
{
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_barrier, &rec);
  hk_record_param_int(rec, "threads", t);
  hk_record_param_str(rec, "placement", hk_bind_policy_name(place));
  hk_record_param_str(rec, "barrier", barrier_names[k]);
  hk_record_param_int(rec, "iters", iters);
  hk_record_stats(rec, "time", ns, "ns");
#ifdef HK_HAVE_TSC
  hk_record_stats(rec, "tsc_cycles", cyc, "cycles");
#else
  (void)cyc;
#endif
  return hk_record_emit(&rec);
}

static int run(hk_bench_ctx_t *c)
{
  int err = HK_SUCCESS, nmax = omp_get_max_threads(), packages = 1;
  const hk_machine_t *m = NULL;
  hk_machine_info_t mi;
  if (hk_machine_this(&m) == HK_SUCCESS && hk_machine_info(m, &mi) == HK_SUCCESS)
    packages = mi.packages; /* of the machine the threads are bound on */
  if (nmax < 2)
    err = hk_error_set(HK_ERR_ARG, "barrier needs at least 2 threads per rank "
                                   "(OMP_NUM_THREADS is %d)", nmax);
  HK_AGREE(err, c->comm);
  const hk_bind_policy_t placements[2] = {HK_BIND_COMPACT, HK_BIND_SCATTER};
  int nplace = packages > 1 ? 2 : 1;
  hk_reporter_config(c->rep, "placements", "%s (%d package%s)",
                     nplace > 1 ? "compact, scatter" : "compact", packages, packages > 1 ? "s" : "");
  int iters = c->common->iters > 0 ? c->common->iters : 20000;
  int warmup = c->common->warmup >= 0 ? c->common->warmup : iters / 10;
  for (int p = 0; p < nplace; p++) {
    HK_LOCAL(err, hk_bind_threads(placements[p]));
    HK_AGREE(err, c->comm);
    for (int t = 2; t <= nmax; t++)
      for (int k = 0; k < B_COUNT; k++) {
        double ns = 0.0, cyc = 0.0;
        HK_LOCAL(err, measure((barrier_kind_t)k, t, iters, warmup, &ns, &cyc));
        HK_AGREE(err, c->comm);
        HK_TRY(err, emit(c, placements[p], t, k, iters, ns, cyc)); /* agreed */
      }
  }
cleanup:
  return err;
}

const hk_experiment_t hk_exp_barrier = {
  .name = "barrier",
  .summary = "thread synchronisation cost: OpenMP vs pthread vs spin barrier, 2..n threads",
  .description =
      "Every rank times, for 2 up to OMP_NUM_THREADS threads and each placement (compact; also\n"
      "scatter over packages when the machine has several), K barriers of each kind: OpenMP's,\n"
      "pthread_barrier_wait and a sense-reversing spin barrier.  Time per barrier in ns and TSC\n"
      "cycles (min/avg/max over ranks).  Hager/Wellein's barrier-overhead comparison; the cost\n"
      "behind the 'OpenMP overhead' mismatch problem.  Each barrier is first validated (no thread\n"
      "passes before all arrived).  -i sets K (default 20000).",
  .default_sizes = NULL,
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 1,
  .opts = NULL,
  .nopts = 0,
  .run = run,
};
