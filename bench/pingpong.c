/* bench/pingpong.c: latency and bandwidths between two ranks, intra-node and
 * inter-node pairs side by side (Hager/Wellein's IMB intra vs inter comparison),
 * each quantity defined as the OSU micro-benchmarks define it:
 *
 *   rank 0 <-> first other rank on rank 0's node      (intra, if the node has two ranks)
 *   rank 0 <-> first rank on another node             (inter, with real, virtual or emulated nodes)
 *
 * One pair is measured at a time; every other rank waits in a sleeping barrier.
 *   latency              half the round trip of a Send/Recv ping-pong (osu_latency)
 *   pingpong_bandwidth   size / latency = 2 x size / round trip (IMB PingPong)
 *   uni_bandwidth        rank 0 Isends a window of W messages, Waitall, the partner
 *                        Irecvs them and answers with 4 bytes; W x size / time (osu_bw)
 *   bi_bandwidth         both post W Irecvs and W Isends, Waitall the sends, then the
 *                        receives; 2 x W x size / time (osu_bibw)
 * Iterations as OSU 7.x: latency 10000 (+100 warm-up) up to 8 KiB, 1000 (+10)
 * above; bandwidths 100 (+10) up to 8 KiB, 20 (+2) above; -i/-x override all.
 * Buffers are page-aligned, one send and one receive buffer per rank (OSU's
 * default); the bandwidth times are rank 0's, as OSU prints them.  Ping-pong
 * messages carry the iteration number in their first bytes; the last message
 * of every size and kind is checked byte for byte.  --baseline also times a
 * plain MPI_Send/MPI_Recv loop with no stamping or checks at 8 B and 4 MiB.
 */
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static int opt_baseline;
static int opt_window = 64; /* OSU's WINDOW_SIZE_LARGE */

static const hk_opt_t pingpong_opts[] = {
  {"baseline", HK_OPT_FLAG, &opt_baseline, "",
   "also time a plain MPI_Send/MPI_Recv loop at 8 B and 4 MiB (harness overhead)", 0},
  {"window", HK_OPT_INT, &opt_window, "W",
   "messages in flight of the streaming bandwidths (osu_bw's 64; 0: latency only)", 0},
};

typedef enum kind { K_LATENCY, K_UNI, K_BI } kind_t;

/* OSU 7.x's counts (c/util/osu_util.h: LAT_LOOP_SMALL 10000, LAT_SKIP_SMALL 100,
 * LAT_LOOP_LARGE 1000, LAT_SKIP_LARGE 10, BW_LOOP_SMALL 100, BW_SKIP_SMALL 10,
 * BW_LOOP_LARGE 20, BW_SKIP_LARGE 2; "large" is above LARGE_MESSAGE_SIZE 8192) */
static void osu_iters(const hk_bench_common_t *c, kind_t k, long long size, int *iters,
                      int *warmup)
{
  int large = size > 8192;
  if (k == K_LATENCY) {
    *iters = large ? 1000 : 10000;
    *warmup = large ? 10 : 100;
  } else {
    *iters = large ? 20 : 100;
    *warmup = large ? 2 : 10;
  }
  if (c->iters > 0)
    *iters = c->iters;
  if (c->warmup >= 0)
    *warmup = c->warmup;
}

typedef struct pair_result {
  double t;         /* seconds per iteration (latency: half round trip), this rank's view */
  long long bad;    /* wrong bytes received */
} pair_result_t;

/* rank `a` pings, rank `b` pongs; `stamp` writes the iteration into the message */
static int pingpong(MPI_Comm comm, int me, int a, int b, unsigned char *sbuf, unsigned char *rbuf,
                    long long size, int iters, int warmup, int stamp, pair_result_t *res)
{
  int peer = me == a ? b : a, n = (int)size, err = HK_SUCCESS;
  hk_bench_fill(sbuf, size, me);
  memset(rbuf, 0, (size_t)size);
  double t0 = 0.0;
  for (int i = -warmup; i < iters; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    if (stamp && size >= (long long)sizeof i)
      memcpy(sbuf, &i, sizeof i);
    if (me == a)
      HK_TRY(err, hk_bench_mpi(MPI_Send(sbuf, n, MPI_BYTE, peer, 1, comm), "the ping (MPI_Send)"));
    HK_TRY(err, hk_bench_mpi(MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE),
                             "MPI_Recv of the ping-pong"));
    if (me != a)
      HK_TRY(err, hk_bench_mpi(MPI_Send(sbuf, n, MPI_BYTE, peer, 1, comm), "the pong (MPI_Send)"));
  }
  res->t = (MPI_Wtime() - t0) / iters / 2.0;
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
cleanup:
  return err;
}

/* osu_bw (uni) or osu_bibw (bi) between a and b: seconds per window on this rank */
static int stream(MPI_Comm comm, int me, int a, int b, kind_t k, unsigned char *sbuf,
                  unsigned char *rbuf, long long size, int iters, int warmup, pair_result_t *res)
{
  int peer = me == a ? b : a, n = (int)size, w = opt_window, err = HK_SUCCESS;
  MPI_Request *req = NULL;
  HK_ALLOC_TRY(err, req, 2 * w);
  hk_bench_fill(sbuf, size, me);
  memset(rbuf, 0, (size_t)size);
  double t0 = 0.0;
  for (int i = -warmup; i < iters; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    if (k == K_BI || me != a) /* the receives of the window */
      for (int j = 0; j < w; j++)
        HK_TRY(err, hk_bench_mpi(MPI_Irecv(rbuf, n, MPI_BYTE, peer, 100, comm,
                                           &req[k == K_BI ? w + j : j]), "MPI_Irecv"));
    if (k == K_BI || me == a) /* the sends of the window */
      for (int j = 0; j < w; j++)
        HK_TRY(err, hk_bench_mpi(MPI_Isend(sbuf, n, MPI_BYTE, peer, 100, comm, &req[j]),
                                 "MPI_Isend"));
    HK_TRY(err, hk_bench_mpi(MPI_Waitall(w, req, MPI_STATUSES_IGNORE), "MPI_Waitall"));
    if (k == K_BI)
      HK_TRY(err, hk_bench_mpi(MPI_Waitall(w, req + w, MPI_STATUSES_IGNORE), "MPI_Waitall"));
    else if (me == a) /* the 4-byte acknowledgement */
      HK_TRY(err, hk_bench_mpi(MPI_Recv(rbuf, 4 < n ? 4 : n, MPI_BYTE, peer, 101, comm,
                                        MPI_STATUS_IGNORE), "MPI_Recv of the acknowledgement"));
    else
      HK_TRY(err, hk_bench_mpi(MPI_Send(sbuf, 4 < n ? 4 : n, MPI_BYTE, peer, 101, comm),
                               "MPI_Send of the acknowledgement"));
  }
  res->t = (MPI_Wtime() - t0) / iters;
  /* every message is the sender's pattern: the receiver checks the last one
   * (rank a's receive buffer of a uni stream holds the acknowledgement) */
  res->bad = k == K_BI || me == b ? hk_bench_check(rbuf, size, peer)
                                  : hk_bench_check(rbuf, 4 < size ? 4 : size, peer);
cleanup:
  free(req);
  return err;
}

/* measure one pair for every rank of comm: the pair communicates, the others
 * sleep; the pair's min/avg/max of the time, rank a's time in `ta` */
static int measure(hk_bench_ctx_t *c, int a, int b, kind_t k, unsigned char *sbuf,
                   unsigned char *rbuf, long long size, int iters, int warmup, int stamp,
                   hk_stats_t *st, double *ta)
{
  pair_result_t r = {0.0, 0};
  int err = HK_SUCCESS;
  if (c->rank == a || c->rank == b)
    HK_LOCAL(err, k == K_LATENCY
                      ? pingpong(c->comm, c->rank, a, b, sbuf, rbuf, size, iters, warmup, stamp, &r)
                      : stream(c->comm, c->rank, a, b, k, sbuf, rbuf, size, iters, warmup, &r));
  int barrier = hk_bench_idle_barrier(c->comm); /* on every rank, whatever its error */
  HK_LOCAL(err, barrier);
  HK_AGREE(err, c->comm);
  /* the two participants' values, everyone else neutral */
  int in = c->rank == a || c->rank == b;
  /* MIN over (x, -x): the min and -max of the two; the others add neutral values */
  double mine[3] = {in ? r.t : 1e300, in ? -r.t : 1e300, in ? r.t : 0.0};
  double out[3], sum = 0.0;
  long long bad = 0;
  MPI_Allreduce(mine, out, 2, MPI_DOUBLE, MPI_MIN, c->comm);
  MPI_Allreduce(&mine[2], &sum, 1, MPI_DOUBLE, MPI_SUM, c->comm);
  MPI_Allreduce(&r.bad, &bad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  st->min = out[0];
  st->max = -out[1];
  st->avg = sum / 2.0;
  *ta = r.t;
  MPI_Bcast(ta, 1, MPI_DOUBLE, a, c->comm);
  if (bad) /* the same sum on every rank: agreed */
    err = hk_error_set(HK_ERR_STATE, "%s %d<->%d: %lld wrong bytes in %lld-byte messages",
                       k == K_LATENCY ? "ping-pong" : "stream", a, b, bad, size);
cleanup:
  return err;
}

static int find_partners(hk_bench_ctx_t *c, int *intra, int *inter)
{
  *intra = *inter = -1;
  int n0 = -1;
  hk_nodes_node_of(c->nodes, 0, &n0);
  for (int r = 1; r < c->size; r++) {
    int n = -1;
    hk_nodes_node_of(c->nodes, r, &n);
    if (n == n0 && *intra < 0)
      *intra = r;
    if (n != n0 && *inter < 0)
      *inter = r;
  }
  return HK_SUCCESS;
}

/* latency (us, min/avg/max of the pair) and the ping-pong bandwidth from the slower side
 * (no error tests: a record keeps its first error, and its emit reports it, agreed) */
static void add_latency(hk_record_t *rec, const char *kind, const hk_stats_t *lat, long long size)
{
  char name[40];
  hk_stats_t us = {lat->min * 1e6, lat->avg * 1e6, lat->max * 1e6};
  snprintf(name, sizeof name, "%s_latency", kind);
  hk_record_stats_given(rec, name, &us, "us");
  snprintf(name, sizeof name, "%s_pingpong_bandwidth", kind);
  hk_record_value(rec, name, (double)size / lat->max / 1e6, "MB/s");
}

/* the errors returned are agreed: measure()'s and the emit's */
static int run_baseline(hk_bench_ctx_t *c, int partner, const char *kind, unsigned char *sbuf,
                        unsigned char *rbuf)
{
  static const long long sizes[2] = {8, 4LL << 20};
  int err = HK_SUCCESS;
  for (int s = 0; s < 2; s++) {
    int iters, warmup;
    osu_iters(c->common, K_LATENCY, sizes[s], &iters, &warmup);
    hk_stats_t harness, plain;
    double ta;
    HK_TRY(err, measure(c, 0, partner, K_LATENCY, sbuf, rbuf, sizes[s], iters, warmup, 1,
                        &harness, &ta));
    HK_TRY(err, measure(c, 0, partner, K_LATENCY, sbuf, rbuf, sizes[s], iters, warmup, 0, &plain,
                        &ta));
    hk_record_t *rec = NULL;
    hk_record_create_declared(c->rep, &bench_kind_pingpong_baseline, &rec);
    hk_record_param_str(rec, "pair", kind);
    hk_record_param_int(rec, "size", sizes[s]);
    add_latency(rec, "harness", &harness, sizes[s]);
    add_latency(rec, "plain", &plain, sizes[s]);
    hk_record_value(rec, "harness_over_plain", harness.max / plain.max, "time ratio");
    HK_TRY(err, hk_record_emit(&rec));
  }
cleanup:
  return err;
}

/* every quantity of one pair at one size into rec; returns measure()'s error (agreed), the
 * record's own errors are left to its emit */
static int measure_pair(hk_bench_ctx_t *c, hk_record_t *rec, int partner, const char *kind,
                        unsigned char *sbuf, unsigned char *rbuf, long long size)
{
  int iters, warmup;
  hk_stats_t st;
  double ta;
  char name[40];
  osu_iters(c->common, K_LATENCY, size, &iters, &warmup);
  int err = HK_SUCCESS;
  HK_TRY(err, measure(c, 0, partner, K_LATENCY, sbuf, rbuf, size, iters, warmup, 1, &st, &ta));
  add_latency(rec, kind, &st, size);
  for (kind_t k = K_UNI; k <= K_BI && opt_window > 0; k++) {
    osu_iters(c->common, k, size, &iters, &warmup);
    HK_TRY(err, measure(c, 0, partner, k, sbuf, rbuf, size, iters, warmup, 1, &st, &ta));
    snprintf(name, sizeof name, "%s_%s_bandwidth", kind, k == K_UNI ? "uni" : "bi");
    double bytes = (double)size * opt_window * (k == K_BI ? 2 : 1);
    hk_record_value(rec, name, bytes / ta / 1e6, "MB/s");
  }
cleanup:
  return err;
}

/* page-aligned send and receive buffers of n bytes (OSU's default) */
static int aligned_buffers(long long n, void **sp, void **rp)
{
  const size_t page = 4096;
  if (posix_memalign(sp, page, (size_t)n) != 0 || posix_memalign(rp, page, (size_t)n) != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for %lld-byte buffers", n);
  return HK_SUCCESS;
}

static int run(hk_bench_ctx_t *c)
{
  int intra, inter, err = HK_SUCCESS;
  void *sp = NULL, *rp = NULL;
  hk_record_t *rec = NULL;
  find_partners(c, &intra, &inter);
  hk_reporter_config(c->rep, "pairs", "intra-node 0<->%d, inter-node 0<->%d (-1: none)", intra,
                     inter);
  if (inter < 0)
    hk_reporter_config(c->rep, "note", "one node: no inter-node pair (use real nodes, "
                                       "HK_NODE_SIZE or tools/vcluster)");
  hk_reporter_config(c->rep, "quantities", "latency = half round trip; pingpong_bandwidth = "
                     "size / latency; uni/bi_bandwidth = osu_bw/osu_bibw, window %d%s",
                     opt_window, opt_window > 0 ? "" : " (off)");
  if (opt_window < 0 || opt_window > 4096)
    err = hk_error_set(HK_ERR_ARG, "--window %d: 0 to 4096 messages", opt_window);
  long long bufsize = c->common->max_size > (4LL << 20) ? c->common->max_size : (4LL << 20);
  HK_LOCAL(err, aligned_buffers(bufsize, &sp, &rp));
  HK_AGREE(err, c->comm);
  unsigned char *sbuf = sp, *rbuf = rp;
  for (long long size = c->common->min_size; size <= c->common->max_size; size *= 2) {
    int iters, warmup, bw_iters, bw_warmup;
    osu_iters(c->common, K_LATENCY, size, &iters, &warmup);
    osu_iters(c->common, K_UNI, size, &bw_iters, &bw_warmup);
    hk_record_create_declared(c->rep, &bench_kind_pingpong, &rec);
    hk_record_param_int(rec, "size", size);
    hk_record_param_int(rec, "iters", iters);
    hk_record_param_int(rec, "bw_iters", opt_window > 0 ? bw_iters : 0);
    hk_record_param_int(rec, "window", opt_window);
    /* measure()'s errors are agreed: every rank discards the record at cleanup */
    if (intra >= 0)
      HK_TRY(err, measure_pair(c, rec, intra, "intra", sbuf, rbuf, size));
    if (inter >= 0)
      HK_TRY(err, measure_pair(c, rec, inter, "inter", sbuf, rbuf, size));
    HK_TRY(err, hk_record_emit(&rec));
  }
  if (opt_baseline && intra >= 0)
    HK_TRY(err, run_baseline(c, intra, "intra", sbuf, rbuf));
  if (opt_baseline && inter >= 0)
    HK_TRY(err, run_baseline(c, inter, "inter", sbuf, rbuf));
cleanup:
  hk_record_discard(&rec);
  free(sp);
  free(rp);
  return err;
}

const hk_experiment_t hk_exp_pingpong = {
  .name = "pingpong",
  .summary = "latency and bandwidth between two ranks, intra-node and inter-node side by side",
  .description =
      "Rank 0 communicates with the first other rank of its node (intra) and with the first\n"
      "rank of another node (inter; nodes are real, HK_NODE_SIZE virtual, or tools/vcluster\n"
      "emulated), one pair at a time while the other ranks sleep.  Per pair and size:\n"
      "  latency             half round trip of a Send/Recv ping-pong (us, min/avg/max of the\n"
      "                      two ranks), as osu_latency\n"
      "  pingpong_bandwidth  size / latency (MB/s = 1e6 B/s), as IMB PingPong\n"
      "  uni_bandwidth       a window of W Isends answered by a 4-byte message, as osu_bw\n"
      "  bi_bandwidth        W Isends and W Irecvs on both sides, as osu_bibw\n"
      "Iterations as OSU: latency 10000 (+100 warm-up) up to 8 KiB, 1000 (+10) above; bandwidths\n"
      "100 (+10), 20 (+2) above 8 KiB; -i/-x set all.  Reproduces Hager/Wellein's intra- vs\n"
      "inter-node ping-pong figure.  Every size's last message is checked byte for byte;\n"
      "--baseline compares the latency with a plain Send/Recv loop; --window 0: latency only.",
  .default_sizes = "8:4M",
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = pingpong_opts,
  .nopts = (int)(sizeof pingpong_opts / sizeof pingpong_opts[0]),
  .run = run,
};
