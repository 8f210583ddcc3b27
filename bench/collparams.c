/* bench/collparams.c: the machine parameters of the collectives' cost model (issue 39,
 * python/src/hybridkit/advice/collmodel.py fits them): one record per point.
 *
 *   p2p     a Send/Recv ping-pong of `size` bytes between rank 0 and the first other rank
 *           of its node (link intra) and the first rank of another node (link inter, when
 *           there are several, HK_NODE_SIZE included): half the round trip (osu_latency);
 *           sizes 0 and powers of two up to min(-m, 4 MiB)
 *   copy    memcpy of `size` bytes by `threads` OpenMP threads of every rank at once (each
 *           thread its contiguous part, first touched by it): the copy rate of a process
 *           while the node's other ranks copy too (what a node's memory bus shares)
 *   reduce  a[i] += b[i] over `size` bytes of doubles, the same way
 *   threads 1 .. OMP_NUM_THREADS; copy/reduce sizes: powers of 4 from 64 KiB up to -m.
 * Results are checked: p2p messages byte by byte, the copy equal, the sums exact (small
 * integers in doubles).  time: us, min/avg/max over the ranks that took part; rate: MB/s,
 * size over the slowest of them.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static const char *threads_opt; /* --threads LIST: measure 1 .. its largest */

static const hk_opt_t collparams_opts[] = {
  {"threads", HK_OPT_STR, &threads_opt, "LIST",
   "thread counts, e.g. 1,2,4: copy and reduce are measured at 1 .. the largest "
   "(default: OMP_NUM_THREADS)", 0},
};

/* the largest count of --threads (HK_ERR_ARG for anything but positive integers) */
static int threads_max(int *tmax)
{
  int threads[64], n = 0, err = hk_bench_parse_threads(threads_opt, 64, threads, &n);
  *tmax = 0;
  for (int i = 0; i < n; i++)
    *tmax = threads[i] > *tmax ? threads[i] : *tmax;
  return err;
}

typedef struct point {
  const char *quantity, *link;
  int threads, iters;
  long long size;
} point_t;

/* min/avg/max of t over the ranks with t >= 0 (the others pass -1), in microseconds */
static int part_stats(MPI_Comm comm, double t, hk_stats_t *s)
{
  int err = hk_bench_stats_some(comm, t, s);
  s->min *= 1e6;
  s->avg *= 1e6;
  s->max *= 1e6;
  return err;
}

/* the wrong items of every rank summed: an error naming them when there are any */
static int none_wrong(MPI_Comm comm, long long bad, const char *what)
{
  long long all = 0;
  if (MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, comm) != MPI_SUCCESS)
    return hk_bench_mpi_failed("the check of the results");
  return all ? hk_error_set(HK_ERR_STATE, "collparams %s: %lld", what, all) : HK_SUCCESS;
}

static int emit(hk_bench_ctx_t *c, const point_t *p, double t)
{
  hk_stats_t us;
  int err = part_stats(c->comm, t, &us);
  if (err != HK_SUCCESS)
    return err;
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_collparams, &rec);
  hk_record_param_str(rec, "quantity", p->quantity);
  hk_record_param_str(rec, "link", p->link);
  hk_record_param_int(rec, "threads", p->threads);
  hk_record_param_int(rec, "size", p->size);
  hk_record_param_int(rec, "iters", p->iters);
  hk_record_stats_given(rec, "time", &us, "us");
  hk_record_value(rec, "rate", us.max > 0 ? (double)p->size / us.max : 0, "MB/s");
  return hk_record_emit(&rec);
}

/* one-way time of the ping-pong between rank 0 and `peer` (-1 elsewhere): rank 0 sends its
 * pattern, the peer sends back what it got; both check the last message after the timing
 * (filling and checking inside the loop would be timed too); wrong bytes in *bad */
static int pingpong(hk_bench_ctx_t *c, int peer, long long size, int iters, int warmup,
                    unsigned char *buf, double *t, long long *bad)
{
  int me = c->rank, other = me == 0 ? peer : 0;
  *t = -1;
  if (me != 0 && me != peer)
    return HK_SUCCESS;
  if (me == 0)
    hk_bench_fill(buf, size, 0);
  for (int i = 0; i < warmup + iters; i++) {
    if (i == warmup)
      *t = MPI_Wtime();
    if (me == 0 && (MPI_Send(buf, (int)size, MPI_BYTE, other, 7, c->comm) != MPI_SUCCESS ||
                    MPI_Recv(buf, (int)size, MPI_BYTE, other, 7, c->comm,
                             MPI_STATUS_IGNORE) != MPI_SUCCESS))
      return hk_bench_mpi_failed("the ping-pong");
    if (me != 0 && (MPI_Recv(buf, (int)size, MPI_BYTE, other, 7, c->comm,
                             MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                    MPI_Send(buf, (int)size, MPI_BYTE, other, 7, c->comm) != MPI_SUCCESS))
      return hk_bench_mpi_failed("the ping-pong");
  }
  *t = (MPI_Wtime() - *t) / (2.0 * iters);
  *bad += hk_bench_check(buf, size, 0);
  return HK_SUCCESS;
}

static int p2p(hk_bench_ctx_t *c, long long max)
{
  int err = HK_SUCCESS, peers[2] = {-1, -1}, node0 = 0;
  static const char *const links[2] = {"intra", "inter"};
  unsigned char *buf = NULL;
  HK_TRY(err, hk_nodes_node_of(c->nodes, 0, &node0));
  for (int r = 1; r < c->size; r++) {
    int nd = 0;
    HK_TRY(err, hk_nodes_node_of(c->nodes, r, &nd));
    int k = nd == node0 ? 0 : 1;
    if (peers[k] < 0)
      peers[k] = r;
  }
  long long top = max < (4LL << 20) ? max : (4LL << 20);
  buf = malloc((size_t)top + 1);
  long long bad = 0;
  if (!buf)
    err = hk_error_set(HK_ERR_NOMEM, "no memory for a %lld-byte ping-pong buffer", top);
  HK_AGREE(err, c->comm);
  for (int k = 0; k < 2; k++) {
    if (peers[k] < 0)
      continue;
    for (long long size = 0; size <= top; size = size ? 2 * size : 1) {
      int iters = 0, warmup = 0;
      double t = -1;
      hk_bench_iters(c->common, size, &iters, &warmup);
      HK_LOCAL(err, pingpong(c, peers[k], size, iters, warmup, buf, &t, &bad));
      HK_AGREE(err, c->comm);
      point_t p = {"p2p", links[k], 1, iters, size};
      HK_TRY(err, emit(c, &p, t));
    }
  }
  err = none_wrong(c->comm, bad, "p2p: wrong bytes");
cleanup:
  free(buf);
  return err;
}

/* time of `iters` copies (reduce: a += b) of n doubles by t threads, after one warm-up;
 * every rank at once (a node barrier before) */
static double memory_pass(hk_bench_ctx_t *c, int reduce, double *a, const double *b, long long n,
                          int t, int iters)
{
  MPI_Barrier(c->comm);
  double t0 = 0;
  for (int it = -1; it < iters; it++) {
    if (it == 0)
      t0 = hk_wtime();
#pragma omp parallel num_threads(t)
    {
      int id = omp_get_thread_num(), nt = omp_get_num_threads();
      long long lo = n * id / nt, hi = n * (id + 1) / nt;
      if (reduce) {
#pragma omp simd
        for (long long i = lo; i < hi; i++)
          a[i] += b[i];
      } else {
        memcpy(a + lo, b + lo, (size_t)(hi - lo) * sizeof(double));
      }
    }
  }
  return (hk_wtime() - t0) / iters;
}

static int memory(hk_bench_ctx_t *c, long long max, int tmax)
{
  int err = HK_SUCCESS;
  long long top = max < (64LL << 10) ? (64LL << 10) : max, n = top / (long long)sizeof(double);
  double *a = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  long long bad = 0;
  if (!a || !b)
    err = hk_error_set(HK_ERR_NOMEM, "no memory for two %lld-byte buffers", top);
  HK_AGREE(err, c->comm);
  for (int q = 0; q < 2; q++) {
    for (int t = 1; t <= tmax; t++) {
      for (long long size = 64LL << 10; size <= top; size *= 4) {
        long long m = size / (long long)sizeof(double);
        int iters = c->common->iters > 0 ? c->common->iters
                    : size <= (1LL << 20) ? 200 : size <= (16LL << 20) ? 20 : 5;
#pragma omp parallel for num_threads(t) schedule(static)
        for (long long i = 0; i < m; i++) { /* first touch by the threads that use it */
          a[i] = 0.0;
          b[i] = (double)(i % 7 + 1);
        }
        double s = memory_pass(c, q, a, b, m, t, iters);
        for (long long i = 0; i < m; i++) /* copy: b; reduce: (iters + 1) b */
          bad += a[i] != (q ? (double)(iters + 1) : 1.0) * (double)(i % 7 + 1);
        point_t p = {q ? "reduce" : "copy", "none", t, iters, size};
        HK_TRY(err, emit(c, &p, s));
      }
    }
  }
  err = none_wrong(c->comm, bad, "copy/reduce: wrong elements");
cleanup:
  free(a);
  free(b);
  return err;
}

static int run(hk_bench_ctx_t *c)
{
  int err = HK_SUCCESS, tmax = 0;
  long long max = c->common->max_size;
  HK_TRY(err, threads_max(&tmax));
  hk_reporter_config(c->rep, "quantities", "p2p (intra/inter node ping-pong), copy and reduce "
                     "(a += b, doubles) by 1..%d threads with every rank at once", tmax);
  HK_TRY(err, p2p(c, max));
  HK_TRY(err, memory(c, max, tmax));
cleanup:
  return err;
}

const hk_experiment_t hk_exp_collparams = {
  .name = "collparams",
  .summary = "the machine parameters of the collectives' model: p2p, copy and reduce rates",
  .description =
      "Latency and bandwidth of a ping-pong between rank 0 and a rank of its node (intra)\n"
      "and of another node (inter, also with HK_NODE_SIZE), sizes 0 .. min(-m, 4 MiB); the\n"
      "copy rate (memcpy) and reduction rate (a[i] += b[i], doubles) of a process with 1 ..\n"
      "T threads (OMP_NUM_THREADS, or the largest of --threads) while every rank of the node\n"
      "does the same, sizes 64 KiB .. -m in powers of 4.  hybridkit tune --predict fits the\n"
      "cost model of the collectives to these records (bench.collparams).  Every message,\n"
      "copy and sum is checked.",
  .default_sizes = "1:16M",
  .level = HK_THREAD_FUNNELED,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 1,
  .opts = collparams_opts,
  .nopts = (int)(sizeof collparams_opts / sizeof collparams_opts[0]),
  .run = run,
};
