/* bench/multipath.c: inter-node bandwidth with several communication paths per
 * node (Rabenseifner's "multiple inter-node communication paths" figures).
 *
 * Nodes are paired (0<->1, 2<->3, ...; an odd last node idles).  Of the n ranks
 * of every node (n = the smallest node), k communicate, chosen with stride s
 * among the local ranks (0, s, 2s, ... up to k of them); each exchanges with the
 * rank of the same local rank on the partner node: Isend + Irecv, both
 * directions, Waitall, repeated.  Sweep k = 1..n and every stride s with
 * (k-1)*s < n (k = 1: s = 1 only), or the stride given by --stride.
 *   bandwidth per node = k x size x iterations / (slowest communicating rank of the node)
 * (bytes the node sends; it receives as many), min/avg/max over the paired nodes.
 * --threads-mode: one rank per node, k of its OpenMP threads (stride s among the
 * thread numbers) exchange with the same thread of the partner rank, each with its
 * own tag (MPI_THREAD_MULTIPLE).  The last message of every path is checked byte
 * for byte.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static int opt_stride;
static int opt_threads;

static const hk_opt_t multipath_opts[] = {
  {"stride", HK_OPT_INT, &opt_stride, "S",
   "only this stride between the communicating ranks/threads (default: sweep all)", 0},
  {"threads-mode", HK_OPT_FLAG, &opt_threads, "",
   "one rank per node, k OpenMP threads communicate (needs MPI_THREAD_MULTIPLE)", 0},
};

typedef struct layout {
  int n;        /* paths available per node: ranks (or threads) per node */
  int paired;   /* this rank's node has a partner node */
  int npaired;  /* nodes with a partner */
  int peer;     /* the counterpart rank (process mode) or the partner rank (threads mode) */
  int local;    /* local rank on the node */
} layout_t;

/* one path: warm-up, then `iters` exchanges of `size` bytes with `peer`; seconds of the timed part */
static int exchange(MPI_Comm comm, int peer, int tag, unsigned char *sbuf, unsigned char *rbuf,
                    long long size, int iters, int warmup, double *secs)
{
  MPI_Request req[2];
  double t0 = 0.0;
  for (int i = -warmup; i < iters; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    if (MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, tag, comm, &req[0]) != MPI_SUCCESS ||
        MPI_Isend(sbuf, (int)size, MPI_BYTE, peer, tag, comm, &req[1]) != MPI_SUCCESS ||
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return hk_error_set(HK_ERR_MPI, "multipath exchange of %lld bytes with rank %d failed",
                          size, peer);
  }
  *secs = MPI_Wtime() - t0;
  return HK_SUCCESS;
}

static int is_active(int id, int k, int s) { return id % s == 0 && id / s < k; }

/* the node's time (max over its paths) -> bandwidth and time stats over the paired nodes */
static int report(hk_bench_ctx_t *c, const layout_t *l, int k, int s, long long size, int iters,
                  double mytime, long long bad)
{
  MPI_Comm node = hk_nodes_comm(c->nodes);
  double node_t = 0.0;
  if (!opt_threads)
    MPI_Allreduce(&mytime, &node_t, 1, MPI_DOUBLE, MPI_MAX, node);
  else
    node_t = mytime;
  /* one contribution per paired node (its local rank 0): min, -max, sum of bw and time */
  int me = l->paired && l->local == 0;
  double bw = me && node_t > 0.0 ? (double)k * (double)size * iters / node_t / 1e6 : 0.0;
  double us = me ? node_t / iters * 1e6 : 0.0;
  double in[4] = {me ? bw : 1e300, me ? -bw : 1e300, me ? us : 1e300, me ? -us : 1e300};
  double sums[2] = {bw, us}, out[4], tot[2];
  long long allbad = 0;
  MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_MIN, c->comm);
  MPI_Allreduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, c->comm);
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  if (allbad)
    return hk_error_set(HK_ERR_STATE, "multipath k=%d s=%d: %lld wrong bytes in %lld-byte messages",
                        k, s, allbad, size);
  hk_stats_t bws = {out[0], tot[0] / l->npaired, -out[1]};
  hk_stats_t ts = {out[2], tot[1] / l->npaired, -out[3]};
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_multipath, &rec);
  hk_record_param_str(rec, "mode", opt_threads ? "threads" : "processes");
  hk_record_param_int(rec, "paths", k);
  hk_record_param_int(rec, "stride", s);
  hk_record_param_int(rec, "size", size);
  hk_record_param_int(rec, "iters", iters);
  hk_record_stats_given(rec, "node_bandwidth", &bws, "MB/s");
  hk_record_stats_given(rec, "time", &ts, "us");
  return hk_record_emit(&rec);
}

static int measure(hk_bench_ctx_t *c, const layout_t *l, int k, int s, long long size,
                   unsigned char *sbuf, unsigned char *rbuf)
{
  int iters, warmup, err = HK_SUCCESS;
  hk_bench_iters(c->common, size, &iters, &warmup);
  double t = 0.0;
  long long bad = 0;
  HK_LOCAL(err, hk_bench_idle_barrier(c->comm));
  HK_AGREE(err, c->comm);
  if (!opt_threads) {
    if (l->paired && is_active(l->local, k, s)) {
      memset(rbuf, 0, (size_t)size);
      HK_LOCAL(err, exchange(c->comm, l->peer, 1, sbuf, rbuf, size, iters, warmup, &t));
      bad = hk_bench_check(rbuf, size, l->peer);
    }
  } else if (l->paired) {
    int lerr = HK_SUCCESS;
#pragma omp parallel num_threads(l->n) reduction(max : t) reduction(+ : bad) \
    reduction(min : lerr)
    {
      int id = omp_get_thread_num();
      if (is_active(id, k, s)) {
        size_t off = (size_t)id * (size_t)c->common->max_size; /* each thread's buffers */
        unsigned char *sb = sbuf + off, *rb = rbuf + off;
        double mine = 0.0;
        memset(rb, 0, (size_t)size);
        int e = exchange(c->comm, l->peer, id, sb, rb, size, iters, warmup, &mine);
        lerr = e < lerr ? e : lerr;
        t = mine > t ? mine : t;
        bad += hk_bench_check(rb, size, l->peer * 1000 + id);
      }
    }
    HK_LOCAL(err, lerr);
  }
  int barrier = hk_bench_idle_barrier(c->comm); /* on every rank, whatever its error */
  HK_LOCAL(err, barrier);
  HK_AGREE(err, c->comm);
  return report(c, l, k, s, size, iters, t, bad);
cleanup:
  return err;
}

/* the arguments fit the nodes (the same on every rank) */
static int layout_args(const hk_bench_ctx_t *c, const hk_nodes_info_t *ni)
{
  if (ni->nnodes < 2)
    return hk_error_set(HK_ERR_ARG, "multipath needs at least 2 nodes, all %d ranks are on one "
                        "node (use several nodes, HK_NODE_SIZE=k for virtual nodes, or "
                        "tools/vcluster)", c->size);
  if (opt_stride < 0)
    return hk_error_set(HK_ERR_ARG, "--stride %d: the stride must be >= 1 (0: sweep)", opt_stride);
  return HK_SUCCESS;
}

/* --threads-mode: MPI_THREAD_MULTIPLE, one rank per node; a stride below n */
static int threads_args(const hk_nodes_info_t *ni, int n)
{
  int err = HK_SUCCESS;
  if (opt_threads)
    HK_TRY(err, hk_require_thread_level(HK_THREAD_MULTIPLE, "multipath --threads-mode"));
  if (opt_threads && ni->max_local_size != 1)
    return hk_error_set(HK_ERR_ARG, "multipath --threads-mode needs one rank per node, nodes "
                        "have up to %d (HK_NODE_SIZE=1 for virtual nodes)", ni->max_local_size);
  if (opt_stride > 0 && opt_stride >= n && n > 1)
    return hk_error_set(HK_ERR_ARG, "--stride %d: must be below the %d %s per node", opt_stride, n,
                        opt_threads ? "threads" : "ranks");
cleanup:
  return err;
}

/* the pairs of nodes and each rank's peer.  Collective: c->comm; errors agreed. */
static int make_layout(hk_bench_ctx_t *c, layout_t *l)
{
  hk_nodes_info_t ni;
  int err = HK_SUCCESS, *all = NULL;
  HK_TRY(err, hk_nodes_info(c->nodes, &ni));
  HK_TRY(err, layout_args(c, &ni));
  l->local = ni.local_rank;
  l->npaired = ni.nnodes / 2 * 2;
  l->paired = ni.node < l->npaired;
  int partner = ni.node ^ 1;
  /* every rank's (node, local rank): the counterpart has the partner node and our local rank */
  int mine[2] = {ni.node, ni.local_rank};
  HK_ALLOC_LOCAL(err, all, 2LL * c->size);
  HK_AGREE(err, c->comm);
  MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c->comm);
  l->peer = -1;
  for (int r = 0; r < c->size; r++)
    if (all[2 * r] == partner && all[2 * r + 1] == ni.local_rank)
      l->peer = r;
  int n = opt_threads ? omp_get_max_threads() : ni.local_size;
  MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_MIN, c->comm);
  l->n = n;
  HK_LOCAL(err, threads_args(&ni, n));
  HK_AGREE(err, c->comm);
cleanup:
  free(all);
  return err;
}

static int run(hk_bench_ctx_t *c)
{
  layout_t l = {0, 0, 0, -1, 0};
  unsigned char *sbuf = NULL, *rbuf = NULL;
  int err = HK_SUCCESS;
  HK_TRY(err, make_layout(c, &l)); /* agreed */
  hk_reporter_config(c->rep, "paths", "%s: up to %d per node, %d paired nodes, stride %s",
                     opt_threads ? "threads of one rank" : "ranks", l.n, l.npaired,
                     opt_stride ? "as given" : "swept");
  long long nbuf = c->common->max_size * (opt_threads ? l.n : 1);
  HK_ALLOC_LOCAL(err, sbuf, nbuf);
  HK_ALLOC_LOCAL(err, rbuf, nbuf);
  HK_AGREE(err, c->comm);
  if (opt_threads)
    for (int t = 0; t < l.n; t++)
      hk_bench_fill(sbuf + (size_t)t * (size_t)c->common->max_size, c->common->max_size,
                    c->rank * 1000 + t);
  else
    hk_bench_fill(sbuf, c->common->max_size, c->rank);
  for (int k = 1; k <= l.n; k++) {
    /* k = 1: one stride (the given one, or 1); k > 1: strides with (k-1)s < n */
    int smax = k == 1 ? 1 : (l.n - 1) / (k - 1);
    int s0 = opt_stride ? opt_stride : 1, s1 = opt_stride ? opt_stride : smax;
    if (k > 1 && s0 > smax)
      break; /* a fixed stride that does not fit k paths fits no larger k either */
    for (int s = s0; s <= s1; s++) /* measure's errors are agreed */
      for (long long size = c->common->min_size; size <= c->common->max_size; size *= 2)
        HK_TRY(err, measure(c, &l, k, s, size, sbuf, rbuf));
  }
cleanup:
  free(sbuf);
  free(rbuf);
  return err;
}

const hk_experiment_t hk_exp_multipath = {
  .name = "multipath",
  .summary = "inter-node bandwidth per node with k of n ranks (or threads) communicating",
  .description =
      "Nodes are paired (0<->1, 2<->3, ...).  k of the n ranks of each node, local ranks 0, s,\n"
      "2s, ..., exchange (Isend+Irecv both ways) with the same local rank of the partner node;\n"
      "k = 1..n and every stride s with (k-1)s < n (or --stride S).  Bandwidth per node =\n"
      "k x size x iterations / slowest path of the node (MB/s, min/avg/max over paired nodes),\n"
      "and time per exchange.  Reproduces Rabenseifner's multiple-inter-node-paths figures\n"
      "(can one rank saturate the network?).  --threads-mode: one rank per node, k OpenMP threads\n"
      "communicate, own tag each (MPI_THREAD_MULTIPLE).  Needs >= 2 nodes: real ones,\n"
      "HK_NODE_SIZE virtual ones or tools/vcluster.  The last message of every path is checked.\n"
      "The binary requests MPI_THREAD_MULTIPLE (needed by --threads-mode) in both modes.",
  .default_sizes = "8:4M",
  .level = HK_THREAD_MULTIPLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = multipath_opts,
  .nopts = (int)(sizeof multipath_opts / sizeof multipath_opts[0]),
  .run = run,
};
