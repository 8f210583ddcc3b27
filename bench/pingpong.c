/* bench/pingpong.c: latency and bandwidth between two ranks, intra-node and
 * inter-node pairs side by side (Hager/Wellein's IMB intra vs inter comparison).
 *
 *   rank 0 <-> first other rank on rank 0's node      (intra, if the node has two ranks)
 *   rank 0 <-> first rank on another node             (inter, with real, virtual or emulated nodes)
 *
 * One pair is measured at a time; every other rank waits in a sleeping barrier.
 * Latency = half the round-trip time, bandwidth = 2 x size / round-trip time
 * (the ping-pong bandwidth of IMB/OSU's latency test).  Each message carries the
 * iteration number in its first bytes; the last message of every size is checked
 * byte for byte.  --baseline also times a plain MPI_Send/MPI_Recv loop with no
 * stamping or checks at 8 B and 4 MiB: the harness must not add overhead.
 */
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static int opt_baseline;

static const hk_opt_t pingpong_opts[] = {
  {"baseline", HK_OPT_FLAG, &opt_baseline, "",
   "also time a plain MPI_Send/MPI_Recv loop at 8 B and 4 MiB (harness overhead)", 0},
};

typedef struct pair_result {
  double half_rtt;  /* seconds, this rank's view */
  long long bad;    /* wrong bytes received */
} pair_result_t;

/* rank `a` pings, rank `b` pongs; `stamp` writes the iteration into the message */
static int pingpong(MPI_Comm comm, int me, int a, int b, unsigned char *sbuf, unsigned char *rbuf,
                    long long size, int iters, int warmup, int stamp, pair_result_t *res)
{
  int peer = me == a ? b : a, n = (int)size;
  hk_bench_fill(sbuf, size, me);
  memset(rbuf, 0, (size_t)size);
  double t0 = 0.0;
  for (int i = -warmup; i < iters; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    if (stamp && size >= (long long)sizeof i)
      memcpy(sbuf, &i, sizeof i);
    int rc;
    if (me == a) {
      rc = MPI_Send(sbuf, n, MPI_BYTE, peer, 1, comm);
      if (rc == MPI_SUCCESS)
        rc = MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE);
    } else {
      rc = MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE);
      if (rc == MPI_SUCCESS)
        rc = MPI_Send(sbuf, n, MPI_BYTE, peer, 1, comm);
    }
    if (rc != MPI_SUCCESS)
      return hk_error_set(HK_ERR_MPI, "ping-pong of %lld bytes failed", size);
  }
  res->half_rtt = (MPI_Wtime() - t0) / iters / 2.0;
  res->bad = 0;
  if (stamp) {
    /* the last message: the peer's pattern, and its stamp = the last iteration */
    int got = iters - 1;
    if (size >= (long long)sizeof got) {
      memcpy(&got, rbuf, sizeof got);
      hk_bench_fill(rbuf, (long long)sizeof got, peer);
      res->bad += got != iters - 1;
    }
    res->bad += hk_bench_check(rbuf, size, peer);
  }
  return HK_SUCCESS;
}

/* measure one pair for every rank of comm: the pair pings, the others sleep;
 * the pair's min/avg/max of the latency, and the wrong bytes of both */
static int measure(hk_bench_ctx_t *c, int a, int b, unsigned char *sbuf, unsigned char *rbuf,
                   long long size, int iters, int warmup, int stamp, hk_stats_t *lat)
{
  pair_result_t r = {0.0, 0};
  int local = HK_SUCCESS;
  if (c->rank == a || c->rank == b)
    local = pingpong(c->comm, c->rank, a, b, sbuf, rbuf, size, iters, warmup, stamp, &r);
  int err = hk_bench_idle_barrier(c->comm);
  if ((err = hk_agree(c->comm, local != HK_SUCCESS ? local : err)) != HK_SUCCESS)
    return err;
  /* the two participants' values, everyone else neutral */
  int in = c->rank == a || c->rank == b;
  /* MIN over (x, -x): the min and -max of the two; the others add neutral values */
  double mine[3] = {in ? r.half_rtt : 1e300, in ? -r.half_rtt : 1e300, in ? r.half_rtt : 0.0};
  double out[3], sum = 0.0;
  long long bad = 0;
  MPI_Allreduce(mine, out, 2, MPI_DOUBLE, MPI_MIN, c->comm);
  MPI_Allreduce(&mine[2], &sum, 1, MPI_DOUBLE, MPI_SUM, c->comm);
  MPI_Allreduce(&r.bad, &bad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  lat->min = out[0];
  lat->max = -out[1];
  lat->avg = sum / 2.0;
  if (bad)
    return hk_error_set(HK_ERR_STATE,
                        "ping-pong %d<->%d: %lld wrong bytes in %lld-byte messages", a, b, bad,
                        size);
  return HK_SUCCESS;
}

static int find_partners(hk_bench_ctx_t *c, int *intra, int *inter)
{
  *intra = *inter = -1;
  int n0 = hk_nodes_node_of(c->nodes, 0);
  for (int r = 1; r < c->size; r++) {
    int n = hk_nodes_node_of(c->nodes, r);
    if (n == n0 && *intra < 0)
      *intra = r;
    if (n != n0 && *inter < 0)
      *inter = r;
  }
  return HK_SUCCESS;
}

static int add_pair_fields(hk_record_t *rec, const char *kind, const hk_stats_t *lat,
                           long long size)
{
  char name[32];
  hk_stats_t us = {lat->min * 1e6, lat->avg * 1e6, lat->max * 1e6};
  snprintf(name, sizeof name, "%s_latency", kind);
  int err = hk_record_stats_given(rec, name, &us, "us");
  snprintf(name, sizeof name, "%s_bandwidth", kind);
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, name, (double)size / lat->max / 1e6, "MB/s");
  return err;
}

static int run_baseline(hk_bench_ctx_t *c, int partner, const char *kind, unsigned char *sbuf,
                        unsigned char *rbuf)
{
  static const long long sizes[2] = {8, 4LL << 20};
  int err = HK_SUCCESS;
  for (int s = 0; s < 2 && err == HK_SUCCESS; s++) {
    int iters, warmup;
    hk_bench_iters(c->common, sizes[s], &iters, &warmup);
    hk_stats_t harness, plain;
    err = measure(c, 0, partner, sbuf, rbuf, sizes[s], iters, warmup, 1, &harness);
    if (err == HK_SUCCESS)
      err = measure(c, 0, partner, sbuf, rbuf, sizes[s], iters, warmup, 0, &plain);
    hk_record_t *rec = NULL;
    if (err == HK_SUCCESS)
      err = hk_record_create(c->rep, "bench.pingpong.baseline", &rec);
    if (err == HK_SUCCESS)
      err = hk_record_param_str(rec, "pair", kind);
    if (err == HK_SUCCESS)
      err = hk_record_param_int(rec, "size", sizes[s]);
    if (err == HK_SUCCESS)
      err = add_pair_fields(rec, "harness", &harness, sizes[s]);
    if (err == HK_SUCCESS)
      err = add_pair_fields(rec, "plain", &plain, sizes[s]);
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "harness_over_plain", harness.max / plain.max, "time ratio");
    if (err == HK_SUCCESS)
      err = hk_record_emit(&rec);
    hk_record_discard(&rec);
  }
  return err;
}

static int run(hk_bench_ctx_t *c)
{
  int intra, inter, err = HK_SUCCESS;
  find_partners(c, &intra, &inter);
  hk_reporter_config(c->rep, "pairs", "intra-node 0<->%d, inter-node 0<->%d (-1: none)", intra,
                     inter);
  if (inter < 0)
    hk_reporter_config(c->rep, "note", "one node: no inter-node pair (use real nodes, "
                                       "HK_NODE_SIZE or tools/vcluster)");
  long long bufsize = c->common->max_size > (4LL << 20) ? c->common->max_size : (4LL << 20);
  unsigned char *sbuf = malloc((size_t)bufsize), *rbuf = malloc((size_t)bufsize);
  int local = sbuf && rbuf ? HK_SUCCESS
                           : hk_error_set(HK_ERR_NOMEM, "no memory for %lld-byte buffers", bufsize);
  if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
    goto done;
  for (long long size = c->common->min_size; size <= c->common->max_size && err == HK_SUCCESS;
       size *= 2) {
    int iters, warmup;
    hk_bench_iters(c->common, size, &iters, &warmup);
    hk_stats_t li, le;
    if (intra >= 0)
      err = measure(c, 0, intra, sbuf, rbuf, size, iters, warmup, 1, &li);
    if (err == HK_SUCCESS && inter >= 0)
      err = measure(c, 0, inter, sbuf, rbuf, size, iters, warmup, 1, &le);
    hk_record_t *rec = NULL;
    if (err == HK_SUCCESS)
      err = hk_record_create(c->rep, "bench.pingpong", &rec);
    if (err == HK_SUCCESS)
      err = hk_record_param_int(rec, "size", size);
    if (err == HK_SUCCESS)
      err = hk_record_param_int(rec, "iters", iters);
    if (err == HK_SUCCESS && intra >= 0)
      err = add_pair_fields(rec, "intra", &li, size);
    if (err == HK_SUCCESS && inter >= 0)
      err = add_pair_fields(rec, "inter", &le, size);
    if (err == HK_SUCCESS)
      err = hk_record_emit(&rec);
    hk_record_discard(&rec);
  }
  if (err == HK_SUCCESS && opt_baseline && intra >= 0)
    err = run_baseline(c, intra, "intra", sbuf, rbuf);
  if (err == HK_SUCCESS && opt_baseline && inter >= 0)
    err = run_baseline(c, inter, "inter", sbuf, rbuf);
done:
  free(sbuf);
  free(rbuf);
  return err;
}

const hk_experiment_t hk_exp_pingpong = {
  .name = "pingpong",
  .summary = "latency and bandwidth between two ranks, intra-node and inter-node side by side",
  .description =
      "Rank 0 ping-pongs with the first other rank of its node (intra) and with the first rank\n"
      "of another node (inter; nodes are real, HK_NODE_SIZE virtual, or tools/vcluster emulated),\n"
      "one pair at a time while the other ranks sleep.  Latency = half round trip (us, min/avg/max\n"
      "of the two ranks), bandwidth = 2 x size / round trip (MB/s).  As OSU osu_latency and IMB\n"
      "PingPong; reproduces Hager/Wellein's intra- vs inter-node ping-pong figure.  Every size's\n"
      "last message is checked byte for byte; --baseline compares with a plain Send/Recv loop.",
  .default_sizes = "8:4M",
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = pingpong_opts,
  .nopts = (int)(sizeof pingpong_opts / sizeof pingpong_opts[0]),
  .run = run,
};
