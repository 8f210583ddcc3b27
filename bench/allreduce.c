/* bench/allreduce.c: MPI_Allreduce against the hybrid allreduce (hybridkit/coll.h),
 * time and bandwidth, sizes 8 B to 16 MiB, types double and int (sum), every
 * element of the result checked.
 *
 * Algorithms are rows of a table {name, algorithm}: "mpi" (MPI_Allreduce, which
 * the preload library intercepts when it is loaded), "chunked", "chunked-shifted",
 * "hierarchical" (hk_allreduce with that algorithm, from its tiny-message
 * threshold on: below it they are MPI_Allreduce; --min-bytes 0 measures every
 * size, as `hybridkit tune allreduce` does);
 * --algorithms selects rows, --threads the thread counts of the hybrid rows.  A
 * hybrid row that falls back (one thread, no MPI_THREAD_MULTIPLE, one chunk) is
 * still measured and its record says what ran ("ran", "fallback").  For each type,
 * algorithm, thread count and size (bytes; count = size / sizeof type, sizes below
 * one element skipped), after a barrier, time `iters` allreduces (after a warm-up).
 * Rank r contributes (r + 1) x (1 + i mod 13) to element i, so element i of the
 * sum is exactly (1 + i mod 13) x P(P+1)/2 (small integers: exact in double too).
 * --timing back-to-back (default): one timer around `iters` calls in a row;
 * --timing osu: each call timed alone and a barrier after it, as osu_allreduce
 * (the barrier keeps a fast rank from running ahead into the next call); the
 * record's "timing" says which.
 * Time per call (us, min/avg/max over ranks) and bandwidth count x sizeof type /
 * slowest rank's time (MB/s).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static struct {
  const char *algorithms, *threads, *timing;
  int min_bytes;
} aopt = {.algorithms = "mpi,chunked,chunked-shifted,hierarchical", .timing = "back-to-back",
          .min_bytes = -1};

static const hk_opt_t allreduce_opts[] = {
  {"algorithms", HK_OPT_STR, &aopt.algorithms, "LIST",
   "comma-separated: mpi, chunked, chunked-shifted, hierarchical", 0},
  {"threads", HK_OPT_STR, &aopt.threads, "LIST",
   "thread counts of the hybrid algorithms, e.g. 1,2,4 (default: OMP_NUM_THREADS)", 0},
  {"min-bytes", HK_OPT_INT, &aopt.min_bytes, "B",
   "tiny-message threshold of the hybrid rows (-1: the library's, 16 KiB; 0: none)", 0},
  {"timing", HK_OPT_STR, &aopt.timing, "MODE",
   "back-to-back (one timer around all calls) or osu (each call timed, barrier between)", 0},
};

/* one row: MPI_Allreduce itself, or hk_allreduce with a fixed algorithm */
static const struct algorithm {
  const char *name;
  hk_allreduce_alg_t alg;
} algorithms[] = {
  {"mpi", HK_ALLREDUCE_MPI},
  {"chunked", HK_ALLREDUCE_CHUNKED},
  {"chunked-shifted", HK_ALLREDUCE_CHUNKED_SHIFTED},
  {"hierarchical", HK_ALLREDUCE_HIERARCHICAL},
};
enum { NALG = sizeof algorithms / sizeof algorithms[0], MAXT = 16 };

typedef struct variant {
  const struct algorithm *alg;
  int threads;               /* asked of the hybrid algorithm */
  hk_allreduce_info_t info;  /* what ran at the last call */
} variant_t;

static int allreduce(variant_t *v, const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                     MPI_Comm comm)
{
  if (v->alg->alg == HK_ALLREDUCE_MPI) {
    v->info = (hk_allreduce_info_t){HK_ALLREDUCE_MPI, 1, HK_FALLBACK_NONE, 0};
    if (MPI_Allreduce(sbuf, rbuf, count, type, MPI_SUM, comm) != MPI_SUCCESS)
      return hk_error_set(HK_ERR_MPI, "MPI_Allreduce of %d elements failed", count);
    return HK_SUCCESS;
  }
  hk_allreduce_opts_t o = {.algorithm = v->alg->alg, .threads = v->threads,
                           .min_bytes = aopt.min_bytes < 0 ? HK_DEFAULT
                                        : aopt.min_bytes > 0 ? aopt.min_bytes : 1,
                           .info = &v->info};
  return hk_allreduce(sbuf, rbuf, count, type, MPI_SUM, comm, &o);
}

/* the rows selected by --algorithms x --threads */
static int variants(variant_t *out, int *n)
{
  int threads[MAXT], nt = 0;
  unsigned seen = 0; /* algorithms named: each at most once (out has NALG x MAXT rows) */
  char buf[256];
  *n = 0;
  int err = hk_bench_parse_threads(aopt.threads, MAXT, threads, &nt);
  if (err != HK_SUCCESS)
    return err;
  snprintf(buf, sizeof buf, "%s", aopt.algorithms);
  for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
    const struct algorithm *a = NULL;
    for (int k = 0; k < NALG; k++)
      if (!strcmp(s, algorithms[k].name))
        a = &algorithms[k];
    if (!a)
      return hk_error_set(HK_ERR_ARG, "--algorithms: unknown algorithm '%s' (mpi, chunked, "
                          "chunked-shifted, hierarchical)", s);
    if (seen & (1u << (a - algorithms)))
      return hk_error_set(HK_ERR_ARG, "--algorithms %s: '%s' named twice", aopt.algorithms, s);
    seen |= 1u << (a - algorithms);
    for (int t = 0; t < (a->alg == HK_ALLREDUCE_MPI ? 1 : nt); t++)
      out[(*n)++] = (variant_t){a, a->alg == HK_ALLREDUCE_MPI ? 1 : threads[t], {0}};
  }
  return *n ? HK_SUCCESS : hk_error_set(HK_ERR_ARG, "--algorithms selects nothing");
}

static int osu_timing; /* --timing osu */

typedef enum { T_DOUBLE, T_INT, T_COUNT } type_t;
static const char *const type_names[T_COUNT] = {"double", "int"};

static size_t type_size(type_t t) { return t == T_DOUBLE ? sizeof(double) : sizeof(int); }

static void fill(void *buf, type_t t, long long count, int rank)
{
  for (long long i = 0; i < count; i++) {
    int v = (rank + 1) * (int)(1 + i % 13);
    if (t == T_DOUBLE)
      ((double *)buf)[i] = v;
    else
      ((int *)buf)[i] = v;
  }
}

static long long check(const void *buf, type_t t, long long count, int nranks)
{
  long long bad = 0, tri = (long long)nranks * (nranks + 1) / 2;
  for (long long i = 0; i < count; i++) {
    long long want = (1 + i % 13) * tri;
    if (t == T_DOUBLE)
      bad += ((const double *)buf)[i] != (double)want;
    else
      bad += ((const int *)buf)[i] != (int)want;
  }
  return bad;
}

/* allreduce() as hk_bench_time_calls runs it */
typedef struct timed {
  variant_t *v;
  const void *s;
  void *r;
  int n;
  MPI_Datatype t;
  MPI_Comm comm;
} timed_t;

static int timed_allreduce(void *arg)
{
  timed_t *a = arg;
  return allreduce(a->v, a->s, a->r, a->n, a->t, a->comm);
}

static int measure(hk_bench_ctx_t *c, variant_t *v, type_t t, long long size, void *sbuf,
                   void *rbuf)
{
  long long count = size / (long long)type_size(t);
  int iters, warmup, err = HK_SUCCESS;
  hk_bench_iters(c->common, size, &iters, &warmup);
  MPI_Datatype type = t == T_DOUBLE ? MPI_DOUBLE : MPI_INT;
  fill(sbuf, t, count, c->rank);
  memset(rbuf, 0, (size_t)count * type_size(t));
  for (int i = 0; i < warmup; i++) /* skipped after a failed call */
    HK_LOCAL(err, allreduce(v, sbuf, rbuf, (int)count, type, c->comm));
  HK_AGREE(err, c->comm);
  memset(rbuf, 0, (size_t)count * type_size(t));
  MPI_Barrier(c->comm);
  double per = 0.0, slowest = 0.0;
  timed_t a = {v, sbuf, rbuf, (int)count, type, c->comm};
  HK_LOCAL(err, hk_bench_time_calls(c->comm, iters, osu_timing, timed_allreduce, &a, &per));
  HK_AGREE(err, c->comm);
  long long bad = check(rbuf, t, count, c->size), allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  MPI_Allreduce(&per, &slowest, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  if (allbad) /* the same sum on every rank: agreed */
    return hk_error_set(HK_ERR_STATE, "allreduce %s (%d threads) %s of %lld elements: %lld wrong "
                        "elements", v->alg->name, v->threads, type_names[t], count, allbad);
  long long bytes = count * (long long)type_size(t);
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_allreduce, &rec);
  hk_record_param_str(rec, "type", type_names[t]);
  hk_record_param_str(rec, "algorithm", v->alg->name);
  hk_record_param_int(rec, "threads", v->threads);
  hk_record_param_str(rec, "ran", hk_allreduce_alg_name(v->info.algorithm));
  hk_record_param_int(rec, "threads_used", v->info.threads);
  hk_record_param_str(rec, "fallback", v->alg->alg == HK_ALLREDUCE_MPI
                      ? "none" : hk_allreduce_fallback_name(v->info.fallback));
  hk_record_param_int(rec, "size", bytes);
  hk_record_param_int(rec, "count", count);
  hk_record_param_int(rec, "iters", iters);
  hk_record_param_str(rec, "timing", osu_timing ? "osu" : "back-to-back");
  hk_record_stats(rec, "time", per * 1e6, "us");
  hk_record_value(rec, "bandwidth", (double)bytes / slowest / 1e6, "MB/s");
  return hk_record_emit(&rec);
cleanup:
  return err;
}

/* --timing: back-to-back (default) or osu */
static int timing_check(void)
{
  if (!osu_timing && aopt.timing && strcmp(aopt.timing, "back-to-back"))
    return hk_error_set(HK_ERR_ARG, "--timing %s: back-to-back or osu", aopt.timing);
  return HK_SUCCESS;
}

static int run(hk_bench_ctx_t *c)
{
  const hk_bench_common_t *cm = c->common;
  int err = HK_SUCCESS;
  if (cm->max_size < (long long)sizeof(int))
    err = hk_error_set(HK_ERR_ARG, "allreduce sizes must reach at least %zu bytes (one int), "
                       "-m gives at most %lld", sizeof(int), cm->max_size);
  else if (cm->max_size > (long long)sizeof(int) * 0x7fffffffLL)
    err = hk_error_set(HK_ERR_ARG, "allreduce sizes above %lld bytes do not fit an int count",
                       (long long)sizeof(int) * 0x7fffffffLL);
  unsigned char *sbuf = NULL, *rbuf = NULL;
  HK_ALLOC_LOCAL(err, sbuf, cm->max_size);
  HK_ALLOC_LOCAL(err, rbuf, cm->max_size);
  variant_t vs[NALG * MAXT];
  int nv = 0;
  HK_LOCAL(err, variants(vs, &nv));
  osu_timing = aopt.timing && !strcmp(aopt.timing, "osu");
  HK_LOCAL(err, timing_check());
  int agreed = hk_agree(c->comm, err);
  hk_reporter_config(c->rep, "algorithms", "%s (mpi: MPI_Allreduce, others: hk_allreduce, "
                     "threads %s); types double, int (sum)", aopt.algorithms,
                     aopt.threads ? aopt.threads : "OMP_NUM_THREADS");
  hk_reporter_config(c->rep, "timing", "%s", osu_timing ? "osu: each call timed, a barrier "
                     "after each (osu_allreduce)" : "back-to-back: one timer around all calls");
  /* below the tiny-message threshold a hybrid row is MPI_Allreduce again: not measured */
  hk_coll_config_t cfg;
  hk_coll_config(&cfg);
  long long threshold = aopt.min_bytes >= 0 ? aopt.min_bytes : cfg.min_bytes;
  hk_reporter_config(c->rep, "hybrid rows", "from %lld bytes (--min-bytes; smaller messages go "
                     "to MPI_Allreduce)", threshold);
  HK_TRY(err, agreed); /* the configuration lines first, even for bad options */
  for (int t = 0; t < T_COUNT; t++) /* measure's errors are agreed */
    for (int a = 0; a < nv; a++)
      for (long long size = cm->min_size; size <= cm->max_size; size *= 2)
        if (size >= (long long)type_size((type_t)t) &&
            (vs[a].alg->alg == HK_ALLREDUCE_MPI || size >= threshold))
          HK_TRY(err, measure(c, &vs[a], (type_t)t, size, sbuf, rbuf));
cleanup:
  free(sbuf);
  free(rbuf);
  return err;
}

const hk_experiment_t hk_exp_allreduce = {
  .name = "allreduce",
  .summary = "MPI_Allreduce vs the hybrid allreduce, double and int sums, 8 B to 16 MiB",
  .description =
      "For each type (double sum, int sum), algorithm (mpi: MPI_Allreduce; chunked,\n"
      "chunked-shifted, hierarchical: hk_allreduce with idle threads taking part, --threads\n"
      "thread counts) and size in bytes (count = size / sizeof type; sizes below one element\n"
      "skipped), times the allreduce after a barrier and a warm-up: time per call (us,\n"
      "min/avg/max over ranks) and bandwidth size / slowest rank's time (MB/s), as OSU\n"
      "osu_allreduce / IMB Allreduce.  --timing back-to-back: calls in a row, one timer;\n"
      "--timing osu: each call timed alone with a barrier after it (osu_allreduce).  Records say what ran (a hybrid row falls back to\n"
      "MPI_Allreduce with one thread or without MPI_THREAD_MULTIPLE).  Rank r contributes\n"
      "(r+1)(1 + i mod 13) to element i: every element of the result is checked.",
  .default_sizes = "8:16M",
  .level = HK_THREAD_MULTIPLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = allreduce_opts,
  .nopts = (int)(sizeof allreduce_opts / sizeof allreduce_opts[0]),
  .run = run,
};
