/* bench/allreduce.c: MPI_Allreduce time and bandwidth, sizes 8 B to 16 MiB,
 * types double and int (sum), every element of the result checked.
 *
 * Algorithms are rows of a small table {name, fn}; for now only "mpi"
 * (MPI_Allreduce); the hybrid allreduce will be another row.  For each type,
 * algorithm and size (bytes; count = size / sizeof type, sizes below one
 * element skipped), after a barrier, time `iters` allreduces (after a warm-up).
 * Rank r contributes (r + 1) x (1 + i mod 13) to element i, so element i of the
 * sum is exactly (1 + i mod 13) x P(P+1)/2 (small integers: exact in double too).
 * Time per call (us, min/avg/max over ranks) and bandwidth count x sizeof type /
 * slowest rank's time (MB/s).
 */
#include <stdlib.h>
#include <string.h>
#include "bench.h"

typedef int (*allreduce_fn)(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                            MPI_Comm comm);

static int allreduce_mpi(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Comm comm)
{
  if (MPI_Allreduce(sbuf, rbuf, count, type, MPI_SUM, comm) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Allreduce of %d elements failed", count);
  return HK_SUCCESS;
}

static const struct algorithm {
  const char *name;
  allreduce_fn fn;
} algorithms[] = {
  {"mpi", allreduce_mpi},
};
enum { NALG = sizeof algorithms / sizeof algorithms[0] };

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

static int measure(hk_bench_ctx_t *c, const struct algorithm *alg, type_t t, long long size,
                   void *sbuf, void *rbuf)
{
  long long count = size / (long long)type_size(t);
  int iters, warmup, local = HK_SUCCESS;
  hk_bench_iters(c->common, size, &iters, &warmup);
  MPI_Datatype type = t == T_DOUBLE ? MPI_DOUBLE : MPI_INT;
  fill(sbuf, t, count, c->rank);
  memset(rbuf, 0, (size_t)count * type_size(t));
  for (int i = 0; i < warmup && local == HK_SUCCESS; i++)
    local = alg->fn(sbuf, rbuf, (int)count, type, c->comm);
  int err = hk_agree(c->comm, local);
  if (err != HK_SUCCESS)
    return err;
  memset(rbuf, 0, (size_t)count * type_size(t));
  MPI_Barrier(c->comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters && local == HK_SUCCESS; i++)
    local = alg->fn(sbuf, rbuf, (int)count, type, c->comm);
  double per = (MPI_Wtime() - t0) / iters, slowest = 0.0;
  if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
    return err;
  long long bad = check(rbuf, t, count, c->size), allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  MPI_Allreduce(&per, &slowest, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  if (allbad)
    return hk_error_set(HK_ERR_STATE, "allreduce %s %s of %lld elements: %lld wrong elements",
                        alg->name, type_names[t], count, allbad);
  long long bytes = count * (long long)type_size(t);
  hk_record_t *rec = NULL;
  err = hk_record_create(c->rep, "bench.allreduce", &rec);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "type", type_names[t]);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "algorithm", alg->name);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "size", bytes);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "count", count);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "iters", iters);
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "time", per * 1e6, "us");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "bandwidth", (double)bytes / slowest / 1e6, "MB/s");
  if (err == HK_SUCCESS)
    err = hk_record_emit(&rec);
  hk_record_discard(&rec);
  return err;
}

static int run(hk_bench_ctx_t *c)
{
  const hk_bench_common_t *cm = c->common;
  int local = HK_SUCCESS;
  if (cm->max_size < (long long)sizeof(int))
    local = hk_error_set(HK_ERR_ARG, "allreduce sizes must reach at least %zu bytes (one int), "
                         "-m gives at most %lld", sizeof(int), cm->max_size);
  else if (cm->max_size > (long long)sizeof(int) * 0x7fffffffLL)
    local = hk_error_set(HK_ERR_ARG, "allreduce sizes above %lld bytes do not fit an int count",
                         (long long)sizeof(int) * 0x7fffffffLL);
  void *sbuf = NULL, *rbuf = NULL;
  if (local == HK_SUCCESS) {
    sbuf = malloc((size_t)cm->max_size);
    rbuf = malloc((size_t)cm->max_size);
    if (!sbuf || !rbuf)
      local = hk_error_set(HK_ERR_NOMEM, "no memory for %lld-byte buffers", cm->max_size);
  }
  int err = hk_agree(c->comm, local);
  hk_reporter_config(c->rep, "algorithms", "mpi (MPI_Allreduce); types double, int (sum)");
  for (int t = 0; t < T_COUNT && err == HK_SUCCESS; t++)
    for (int a = 0; a < NALG && err == HK_SUCCESS; a++)
      for (long long size = cm->min_size; size <= cm->max_size && err == HK_SUCCESS; size *= 2)
        if (size >= (long long)type_size((type_t)t))
          err = measure(c, &algorithms[a], (type_t)t, size, sbuf, rbuf);
  free(sbuf);
  free(rbuf);
  return err;
}

const hk_experiment_t hk_exp_allreduce = {
  .name = "allreduce",
  .summary = "MPI_Allreduce time and bandwidth, double and int sums, 8 B to 16 MiB",
  .description =
      "For each type (double sum, int sum), algorithm (for now 'mpi': MPI_Allreduce) and size in\n"
      "bytes (count = size / sizeof type; sizes below one element skipped), times the allreduce\n"
      "after a barrier and a warm-up: time per call (us, min/avg/max over ranks) and bandwidth\n"
      "size / slowest rank's time (MB/s).  The reference for the hybrid (node-aware) allreduce,\n"
      "as OSU osu_allreduce / IMB Allreduce.  Rank r contributes (r+1)(1 + i mod 13) to element\n"
      "i: every element of the result is checked against the exact sum.",
  .default_sizes = "8:16M",
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = NULL,
  .nopts = 0,
  .run = run,
};
