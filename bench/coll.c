/* bench/coll.c: hk-bench coll -- plain MPI against the hybrid collectives of
 * hybridkit/coll.h, one collective per run (--collective allreduce, reduce,
 * reduce-scatter, bcast, allgather, alltoall, scan, exscan, alltoallv), records
 * bench.coll; and hk-bench
 * allreduce, the same measurement of the allreduce alone with its own record kind
 * bench.allreduce (the kind `hybridkit tune allreduce` reads; no collective, ranks and
 * node fields).
 *
 * Rows: "mpi" (the MPI call itself, which the preload library intercepts when it is
 * loaded) and hk_<collective> with a fixed algorithm (chunked, chunked-shifted,
 * hierarchical; default: the ones the collective has, scan/exscan mpi and chunked,
 * alltoallv mpi, chunked, chunked-shifted) x --threads, from the library's tiny-message
 * threshold on (below it a
 * hybrid row is the MPI call again: not measured; --min-bytes 0 measures every size, as
 * `hybridkit tune` does); a hybrid row that falls back (one thread, no
 * MPI_THREAD_MULTIPLE, one chunk) is still measured and its record says what ran
 * ("ran", "fallback").  Sizes are message bytes as the tuning table counts them:
 * allreduce, reduce, bcast, scan, exscan count x type size; reduce-scatter, allgather,
 * alltoall P x per-rank count x type size; alltoallv the same with the same count for
 * every pair (the most bytes a rank sends, what hk_alltoallv compares with its
 * threshold) (sizes P x type size does not divide are skipped).
 * Types: double and int sums for the reductions and scans, bytes for the others.
 * Every element is checked: for the reductions rank r gives (r+1)(1 + g mod 13) to
 * element g, so the sum is exactly (1 + g mod 13) P(P+1)/2 (small integers: exact in
 * double too), rank r's scan (1 + g mod 13)(r+1)(r+2)/2, its exscan (1 + g mod 13)
 * r(r+1)/2 (rank 0's exscan result is undefined: not checked); bcast the root's
 * pattern, allgather block j the pattern of rank j, alltoall(v) block j at rank r the
 * pattern of the pair (j, r).
 * --timing back-to-back (default): one timer around `iters` calls in a row; --timing
 * osu: each call timed alone and a barrier after it, as the OSU benchmarks (the barrier
 * keeps a fast rank from running ahead into the next call); warm-up not timed.  Time
 * per call min/avg/max over ranks, bandwidth size / slowest rank's time.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static struct {
  const char *collective, *algorithms, *threads, *timing;
  int min_bytes;
} copt = {.collective = "allreduce", .timing = "back-to-back", .min_bytes = -1};

/* --collective last: hk-bench allreduce takes the others */
static const hk_opt_t coll_opts[] = {
  {"algorithms", HK_OPT_STR, &copt.algorithms, "LIST",
   "comma-separated: mpi, chunked, chunked-shifted, hierarchical (default: the collective's)", 0},
  {"threads", HK_OPT_STR, &copt.threads, "LIST",
   "thread counts of the hybrid algorithms, e.g. 1,2,4 (default: OMP_NUM_THREADS)", 0},
  {"min-bytes", HK_OPT_INT, &copt.min_bytes, "B",
   "tiny-message threshold of the hybrid rows (-1: the library's; 0: none)", 0},
  {"timing", HK_OPT_STR, &copt.timing, "MODE",
   "back-to-back (one timer around all calls) or osu (each call timed, barrier between)", 0},
  {"collective", HK_OPT_STR, &copt.collective, "C",
   "allreduce, reduce, reduce-scatter, bcast, allgather, alltoall, scan, exscan or alltoallv", 0},
};
enum { NOPTS = sizeof coll_opts / sizeof coll_opts[0] };

typedef enum {
  C_ALLREDUCE, C_REDUCE, C_REDUCE_SCATTER, C_BCAST, C_ALLGATHER, C_ALLTOALL, C_SCAN, C_EXSCAN,
  C_ALLTOALLV, C_N
} coll_t;
static const char *const coll_names[C_N] = {"allreduce", "reduce", "reduce-scatter", "bcast",
                                            "allgather", "alltoall", "scan", "exscan",
                                            "alltoallv"};
/* the algorithms the library has for each (the default of --algorithms) */
static const char *const coll_algorithms[C_N] = {
  [C_SCAN] = "mpi,chunked", [C_EXSCAN] = "mpi,chunked",
  [C_ALLTOALLV] = "mpi,chunked,chunked-shifted"};
static coll_t coll;
static int osu;
static const hk_kind_decl_t *kind = &bench_kind_coll; /* bench_kind_allreduce: hk-bench allreduce */

/* sizes per rank (reduce-scatter, allgather, alltoall) or of the whole vector */
static int per_rank(void)
{
  return coll == C_REDUCE_SCATTER || coll == C_ALLGATHER || coll == C_ALLTOALL ||
         coll == C_ALLTOALLV;
}
static int scans(void) { return coll == C_SCAN || coll == C_EXSCAN; }
static int reduces(void) { return coll <= C_REDUCE_SCATTER || scans(); }
static int exchanges(void) { return coll == C_ALLTOALL || coll == C_ALLTOALLV; }

/* alltoallv: the same count n for every pair, block j at j x n (set by measure) */
static int *vcounts, *vdispls;

typedef struct row {
  hk_allreduce_alg_t alg;
  int threads;
  hk_allreduce_info_t info;
} row_t;
enum { MAXT = 16, MAXROWS = 4 * MAXT };

static int mpi_call(coll_t k, const void *s, void *r, int n, MPI_Datatype t, MPI_Comm comm)
{
  int rc = MPI_SUCCESS;
  switch (k) {
  case C_ALLREDUCE: rc = MPI_Allreduce(s, r, n, t, MPI_SUM, comm); break;
  case C_REDUCE: rc = MPI_Reduce(s, r, n, t, MPI_SUM, 0, comm); break;
  case C_REDUCE_SCATTER: rc = MPI_Reduce_scatter_block(s, r, n, t, MPI_SUM, comm); break;
  case C_BCAST: rc = MPI_Bcast(r, n, t, 0, comm); break;
  case C_ALLGATHER: rc = MPI_Allgather(s, n, t, r, n, t, comm); break;
  case C_SCAN: rc = MPI_Scan(s, r, n, t, MPI_SUM, comm); break;
  case C_EXSCAN: rc = MPI_Exscan(s, r, n, t, MPI_SUM, comm); break;
  case C_ALLTOALLV:
    rc = MPI_Alltoallv(s, vcounts, vdispls, t, r, vcounts, vdispls, t, comm);
    break;
  default: rc = MPI_Alltoall(s, n, t, r, n, t, comm); break;
  }
  return hk_bench_mpi(rc, coll_names[k]);
}

/* one call of the row: n is the count argument (per rank where the collective has one) */
static int call(row_t *w, const void *s, void *r, int n, MPI_Datatype t, MPI_Comm comm)
{
  if (w->alg == HK_ALLREDUCE_MPI) {
    w->info = (hk_allreduce_info_t){HK_ALLREDUCE_MPI, 1, HK_FALLBACK_NONE, 0};
    return mpi_call(coll, s, r, n, t, comm);
  }
  hk_allreduce_opts_t o = {.algorithm = w->alg, .threads = w->threads,
                           .min_bytes = copt.min_bytes < 0 ? HK_DEFAULT
                                        : copt.min_bytes > 0 ? copt.min_bytes : 1,
                           .info = &w->info};
  switch (coll) {
  case C_ALLREDUCE: return hk_allreduce(s, r, n, t, MPI_SUM, comm, &o);
  case C_REDUCE: return hk_reduce(s, r, n, t, MPI_SUM, 0, comm, &o);
  case C_REDUCE_SCATTER: return hk_reduce_scatter_block(s, r, n, t, MPI_SUM, comm, &o);
  case C_BCAST: return hk_bcast(r, n, t, 0, comm, &o);
  case C_ALLGATHER: return hk_allgather(s, n, t, r, n, t, comm, &o);
  case C_SCAN: return hk_scan(s, r, n, t, MPI_SUM, comm, &o);
  case C_EXSCAN: return hk_exscan(s, r, n, t, MPI_SUM, comm, &o);
  case C_ALLTOALLV:
    return hk_alltoallv(s, vcounts, vdispls, t, r, vcounts, vdispls, t, comm, &o);
  default: return hk_alltoall(s, n, t, r, n, t, comm, &o);
  }
}

/* the rows of --algorithms x --threads (mpi once, with one thread) */
static int rows(row_t *out, int *n)
{
  int threads[MAXT], nt = 0;
  char buf[256];
  *n = 0;
  int err = hk_bench_parse_threads(copt.threads, MAXT, threads, &nt);
  if (err != HK_SUCCESS)
    return err;
  unsigned seen = 0; /* each algorithm at most once: out has room for 4 x MAXT rows */
  const char *algs = copt.algorithms ? copt.algorithms
                     : coll_algorithms[coll] ? coll_algorithms[coll]
                     : "mpi,chunked,chunked-shifted,hierarchical";
  snprintf(buf, sizeof buf, "%s", algs);
  for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
    hk_allreduce_alg_t a;
    if (hk_allreduce_alg_parse(s, &a) != HK_SUCCESS)
      return hk_error_set(HK_ERR_ARG, "--algorithms: unknown algorithm '%s' (mpi, chunked, "
                          "chunked-shifted, hierarchical)", s);
    if (a == HK_ALLREDUCE_AUTO)
      return hk_error_set(HK_ERR_ARG, "--algorithms: name the algorithm, not auto");
    if (seen & (1u << a))
      return hk_error_set(HK_ERR_ARG, "--algorithms %s: '%s' named twice", algs, s);
    seen |= 1u << a;
    for (int t = 0; t < (a == HK_ALLREDUCE_MPI ? 1 : nt) && *n < MAXROWS; t++)
      out[(*n)++] = (row_t){a, a == HK_ALLREDUCE_MPI ? 1 : threads[t], {0}};
  }
  return *n ? HK_SUCCESS : hk_error_set(HK_ERR_ARG, "--algorithms selects nothing");
}

typedef enum { T_DOUBLE, T_INT, T_BYTE } type_t;
static const char *const type_names[] = {"double", "int", "byte"};
static const size_t type_sizes[] = {sizeof(double), sizeof(int), 1};

static void put(void *buf, type_t t, long long i, int v)
{
  if (t == T_DOUBLE)
    ((double *)buf)[i] = v;
  else
    ((int *)buf)[i] = v;
}

/* inputs: reductions and scans (r+1)(1 + g mod 13); bcast the root's pattern (others
 * zero); allgather the rank's pattern; alltoall(v) block j the pattern of (rank, j) */
static void fill(void *s, void *r, type_t t, long long n, int rank, int P)
{
  long long total = per_rank() ? n * P : n;
  memset(r, 0, (size_t)total * type_sizes[t]);
  if (reduces())
    for (long long g = 0; g < total; g++)
      put(s, t, g, (rank + 1) * (int)(1 + g % 13));
  else if (coll == C_BCAST && rank == 0)
    hk_bench_fill(r, n, 0);
  else if (coll == C_ALLGATHER)
    hk_bench_fill(s, n, rank);
  else if (exchanges())
    for (int j = 0; j < P; j++)
      hk_bench_fill((unsigned char *)s + j * n, n, rank * P + j);
}

/* wrong elements of the result on this rank */
static long long check(const void *r, type_t t, long long n, int rank, int P)
{
  long long bad = 0, tri = (long long)P * (P + 1) / 2;
  if (scans()) /* the sum over ranks 0..rank (exscan: 0..rank-1) */
    tri = coll == C_SCAN ? (long long)(rank + 1) * (rank + 2) / 2
                         : (long long)rank * (rank + 1) / 2;
  if (reduces()) {
    if ((coll == C_REDUCE && rank != 0) || (coll == C_EXSCAN && rank == 0))
      return 0;
    long long off = coll == C_REDUCE_SCATTER ? rank * n : 0;
    for (long long i = 0; i < n; i++) {
      long long want = (1 + (off + i) % 13) * tri;
      bad += t == T_DOUBLE ? ((const double *)r)[i] != (double)want
                           : ((const int *)r)[i] != (int)want;
    }
  } else if (coll == C_BCAST)
    bad = hk_bench_check(r, n, 0);
  else
    for (int j = 0; j < P; j++)
      bad += hk_bench_check((const unsigned char *)r + j * n, n,
                            coll == C_ALLGATHER ? j : j * P + rank);
  return bad;
}

/* call() as hk_bench_time_calls runs it */
typedef struct timed {
  row_t *w;
  const void *s;
  void *r;
  int n;
  MPI_Datatype t;
  MPI_Comm comm;
} timed_t;

static int timed_call(void *arg)
{
  timed_t *a = arg;
  return call(a->w, a->s, a->r, a->n, a->t, a->comm);
}

static int measure(hk_bench_ctx_t *c, row_t *w, type_t t, long long size, void *s, void *r,
                   const hk_nodes_info_t *ni)
{
  long long n = size / (long long)type_sizes[t] / (per_rank() ? c->size : 1);
  int iters, warmup, err = HK_SUCCESS;
  hk_bench_iters(c->common, size, &iters, &warmup);
  MPI_Datatype type = t == T_DOUBLE ? MPI_DOUBLE : t == T_INT ? MPI_INT : MPI_BYTE;
  for (int j = 0; coll == C_ALLTOALLV && j < c->size; j++) {
    vcounts[j] = (int)n;
    vdispls[j] = j * (int)n;
  }
  fill(s, r, t, n, c->rank, c->size);
  for (int i = 0; i < warmup; i++)
    HK_LOCAL(err, call(w, s, r, (int)n, type, c->comm));
  HK_AGREE(err, c->comm);
  fill(s, r, t, n, c->rank, c->size);
  MPI_Barrier(c->comm);
  double per = 0.0, slowest = 0.0;
  timed_t a = {w, s, r, (int)n, type, c->comm};
  HK_LOCAL(err, hk_bench_time_calls(c->comm, iters, osu, timed_call, &a, &per));
  HK_AGREE(err, c->comm);
  long long bad = check(r, t, n, c->rank, c->size), allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  MPI_Allreduce(&per, &slowest, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  if (allbad)
    return hk_error_set(HK_ERR_STATE, "%s %s (%d threads) %s of %lld bytes: %lld wrong elements",
                        coll_names[coll], hk_allreduce_alg_name(w->alg), w->threads,
                        type_names[t], size, allbad);
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, kind, &rec);
  if (kind == &bench_kind_coll)
    hk_record_param_str(rec, "collective", coll_names[coll]);
  hk_record_param_str(rec, "type", type_names[t]);
  hk_record_param_str(rec, "algorithm", hk_allreduce_alg_name(w->alg));
  hk_record_param_int(rec, "threads", w->threads);
  hk_record_param_str(rec, "ran", hk_allreduce_alg_name(w->info.algorithm));
  hk_record_param_int(rec, "threads_used", w->info.threads);
  hk_record_param_str(rec, "fallback", w->alg == HK_ALLREDUCE_MPI
                      ? "none" : hk_allreduce_fallback_name(w->info.fallback));
  hk_record_param_int(rec, "size", size);
  hk_record_param_int(rec, "count", n);
  hk_record_param_int(rec, "iters", iters);
  hk_record_param_str(rec, "timing", osu ? "osu" : "back-to-back");
  if (kind == &bench_kind_coll) {
    hk_record_param_int(rec, "ranks", c->size);
    hk_record_param_int(rec, "ranks_per_node", ni->local_size);
    hk_record_param_int(rec, "nodes", ni->nnodes);
  }
  hk_record_stats(rec, "time", per * 1e6, "us");
  hk_record_value(rec, "bandwidth", (double)size / slowest / 1e6, "MB/s");
  return hk_record_emit(&rec);
cleanup:
  return err;
}

static int options(void)
{
  coll = C_N;
  for (int k = 0; k < C_N; k++)
    if (copt.collective && !strcmp(copt.collective, coll_names[k]))
      coll = (coll_t)k;
  if (coll == C_N)
    return hk_error_set(HK_ERR_ARG, "--collective %s: allreduce, reduce, reduce-scatter, bcast, "
                        "allgather, alltoall, scan, exscan or alltoallv",
                        copt.collective ? copt.collective : "");
  osu = copt.timing && !strcmp(copt.timing, "osu");
  if (!osu && copt.timing && strcmp(copt.timing, "back-to-back"))
    return hk_error_set(HK_ERR_ARG, "--timing %s: back-to-back or osu", copt.timing);
  return HK_SUCCESS;
}

static int run(hk_bench_ctx_t *c)
{
  const hk_bench_common_t *cm = c->common;
  int err = HK_SUCCESS, nw = 0;
  row_t ws[MAXROWS];
  unsigned char *s = NULL, *r = NULL;
  hk_nodes_info_t ni = {0};
  HK_LOCAL(err, options());
  HK_LOCAL(err, rows(ws, &nw));
  HK_ALLOC_LOCAL(err, vcounts, (size_t)c->size * sizeof(int));
  HK_ALLOC_LOCAL(err, vdispls, (size_t)c->size * sizeof(int));
  HK_LOCAL(err, hk_nodes_info(c->nodes, &ni));
  /* the smallest message: one int (reductions) or byte, per rank where counts are */
  long long least = (reduces() ? (long long)sizeof(int) : 1) * (per_rank() ? c->size : 1);
  if (err == HK_SUCCESS && cm->max_size < least)
    err = hk_error_set(HK_ERR_ARG, "%s sizes must reach at least %lld bytes (one element%s), "
                       "-m gives at most %lld", coll_names[coll], least,
                       per_rank() ? " per rank" : "", cm->max_size);
  if (cm->max_size > 0x7fffffffLL)
    err = hk_error_set(HK_ERR_ARG, "coll sizes above 2 GiB do not fit an int count");
  HK_ALLOC_LOCAL(err, s, cm->max_size);
  HK_ALLOC_LOCAL(err, r, cm->max_size);
  int agreed = hk_agree(c->comm, err);
  hk_reporter_config(c->rep, "collective", "%s, algorithms %s, threads %s", copt.collective,
                     copt.algorithms ? copt.algorithms
                     : coll < C_N && coll_algorithms[coll] ? coll_algorithms[coll]
                     : "mpi,chunked,chunked-shifted,hierarchical",
                     copt.threads ? copt.threads : "OMP_NUM_THREADS");
  hk_reporter_config(c->rep, "timing", "%s", osu ? "osu: each call timed, a barrier after each"
                     : "back-to-back: one timer around all calls");
  hk_coll_config_t cfg;
  hk_coll_config(&cfg);
  long long threshold = copt.min_bytes >= 0 ? copt.min_bytes : cfg.min_bytes;
  hk_reporter_config(c->rep, "hybrid rows", "from %lld bytes (--min-bytes)", threshold);
  HK_TRY(err, agreed);
  for (int t = reduces() ? T_DOUBLE : T_BYTE; t <= (reduces() ? T_INT : T_BYTE); t++)
    for (int a = 0; a < nw; a++)
      for (long long size = cm->min_size; size <= cm->max_size; size *= 2) {
        long long unit = (long long)type_sizes[t] * (per_rank() ? c->size : 1);
        if (size % unit == 0 && (ws[a].alg == HK_ALLREDUCE_MPI || size >= threshold))
          HK_TRY(err, measure(c, &ws[a], (type_t)t, size, s, r, &ni));
      }
cleanup:
  free(s);
  free(r);
  free(vcounts);
  free(vdispls);
  vcounts = vdispls = NULL;
  return err;
}

/* hk-bench allreduce: coll's measurement of the allreduce, records bench.allreduce */
static int run_allreduce(hk_bench_ctx_t *c)
{
  copt.collective = "allreduce";
  kind = &bench_kind_allreduce;
  return run(c);
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
      "--timing osu: each call timed alone with a barrier after it (osu_allreduce).  Records\n"
      "(bench.allreduce) say what ran (a hybrid row falls back to MPI_Allreduce with one\n"
      "thread or without MPI_THREAD_MULTIPLE).  Rank r contributes (r+1)(1 + i mod 13) to\n"
      "element i: every element of the result is checked.  hk-bench coll --collective\n"
      "allreduce measures the same, recorded as bench.coll.",
  .default_sizes = "8:16M",
  .level = HK_THREAD_MULTIPLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = coll_opts, /* but --collective */
  .nopts = NOPTS - 1,
  .run = run_allreduce,
};

const hk_experiment_t hk_exp_coll = {
  .name = "coll",
  .summary = "plain MPI vs the hybrid collectives (--collective C), 8 B to 16 MiB",
  .description =
      "For one collective (--collective allreduce, reduce, reduce-scatter, bcast, allgather,\n"
      "alltoall, scan, exscan, alltoallv), each type (double and int sums for the reductions\n"
      "and scans, bytes otherwise), algorithm (mpi: the MPI call; chunked, chunked-shifted,\n"
      "hierarchical: hk_<collective> with --threads threads; default: the ones the\n"
      "collective has) and size (message bytes; reduce-scatter, allgather, alltoall(v): P x\n"
      "per-rank bytes, alltoallv the same count for every pair; sizes P x type size does\n"
      "not divide skipped), times the call\n"
      "after a barrier and a warm-up as hk-bench allreduce does (--timing back-to-back or\n"
      "osu): time per call min/avg/max over ranks, bandwidth size / slowest time.  Every\n"
      "element of the result is checked (sums in closed form, the root's pattern, blocks\n"
      "naming their source rank): a wrong element fails the run.",
  .default_sizes = "8:16M",
  .level = HK_THREAD_MULTIPLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 1,
  .opts = coll_opts,
  .nopts = NOPTS,
  .run = run,
};
