/* bench/orthogonal.c: Rabenseifner's SR8000 experiment (2002/2003): pure MPI
 * with inter- and intra-node messages vs masteronly hybrid.
 *
 * The ranks form a grid of nnodes x ppn (node, local rank); all nodes need the
 * same ppn >= 2 and there must be >= 2 nodes.  For each size L (-m, default 8:1M):
 *   --pattern sendrecv (the default: what the seeds' experiment sends; seed 000,
 *              slide 'Experiment: Orthogonal parallel communication': "8*8*1MB"
 *              inter-node, "8*8*1MB" intra-node, "MPI_Sendrecv", "pure MPI:
 *              Sigma=11.6 ms" = 9.6 ms vertical + 2.0 ms horizontal; masteronly
 *              "8*8MB", "only vertical"; seed 003 Sect. 5 on Fig. 1)
 *     pure MPI   two phases, each timed on its own, repeated:
 *                vertical   every rank (n, l) MPI_Sendrecv: L bytes to (n+1, l),
 *                           L bytes from (n-1, l)                inter-node, periodic
 *                horizontal every rank (n, l) MPI_Sendrecv: L bytes to (n, l+1),
 *                           L bytes from (n, l-1)                intra-node, periodic
 *                T_pure = T_vertical + T_horizontal (each the slowest rank's time)
 *     masteronly the node leaders (n, 0) MPI_Sendrecv: L x ppn bytes (the node's
 *                vertical data) to leader n+1, L x ppn from leader n-1; no
 *                horizontal messages (shared memory), the other ranks sleep
 *     so per repetition a rank sends 2 messages of L (1 inter-, 1 intra-node) and
 *     a leader 1 of L x ppn: a node puts ppn x L on the inter-node network in both.
 *   --pattern concurrent (hybridkit's variant before session 20)
 *     pure MPI   every rank exchanges L bytes at once with (n-1, l), (n+1, l),
 *                (n, l-1) and (n, l+1): Irecv x 4, Isend x 4, Waitall (4 messages
 *                sent per rank, 2 of them inter-node)
 *     masteronly the leaders exchange L x ppn with both neighbouring leaders
 *                (Irecv x 2, Isend x 2, Waitall)
 *   T_hybrid = max over the leaders; ratio T_hybrid / T_pure.
 * Every message is hk_bench_fill(sender's world rank); the last repetition of
 * every size is checked byte for byte.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

enum { NMSG = 4 };
enum { PAT_SENDRECV, PAT_CONCURRENT };

static const char *const pattern_names[] = {"sendrecv", "concurrent", NULL};
static int opt_pattern = PAT_SENDRECV;

static const hk_opt_t orthogonal_opts[] = {
  {"pattern", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt_pattern, pattern_names}, "P",
   "sendrecv: the seed's (vertical then horizontal MPI_Sendrecv, one message each); "
   "concurrent: 4 neighbours at once", 0},
};

typedef struct xchg {
  int n;                       /* messages each way; 1 with sendrecv: one MPI_Sendrecv */
  int sendrecv;
  int dst[NMSG], src[NMSG];    /* world ranks; send to dst[k], receive from src[k], tag k */
  long long scount, rcount;    /* bytes */
} xchg_t;

static int exchange(MPI_Comm comm, int me, const xchg_t *x, unsigned char *sbuf,
                    unsigned char **rbuf, int iters, int warmup, double *t, long long *bad)
{
  MPI_Request req[2 * NMSG];
  int err = HK_SUCCESS;
  hk_bench_fill(sbuf, x->scount, me);
  for (int k = 0; k < x->n; k++)
    memset(rbuf[k], 0, (size_t)x->rcount);
  double t0 = 0.0;
  for (int i = -warmup; i < iters; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    if (x->sendrecv) {
      HK_TRY(err, hk_bench_mpi(MPI_Sendrecv(sbuf, (int)x->scount, MPI_BYTE, x->dst[0], 0,
                                            rbuf[0], (int)x->rcount, MPI_BYTE, x->src[0], 0,
                                            comm, MPI_STATUS_IGNORE),
                               "MPI_Sendrecv of the exchange"));
      continue;
    }
    for (int k = 0; k < x->n; k++)
      HK_TRY(err, hk_bench_mpi(MPI_Irecv(rbuf[k], (int)x->rcount, MPI_BYTE, x->src[k], k, comm,
                                         &req[k]), "MPI_Irecv of the exchange"));
    for (int k = 0; k < x->n; k++)
      HK_TRY(err, hk_bench_mpi(MPI_Isend(sbuf, (int)x->scount, MPI_BYTE, x->dst[k], k, comm,
                                         &req[x->n + k]), "MPI_Isend of the exchange"));
    HK_TRY(err, hk_bench_mpi(MPI_Waitall(2 * x->n, req, MPI_STATUSES_IGNORE),
                             "MPI_Waitall of the exchange"));
  }
  *t = (MPI_Wtime() - t0) / iters;
  *bad = 0;
  for (int k = 0; k < x->n; k++)
    *bad += hk_bench_check(rbuf[k], x->rcount, x->src[k]);
cleanup:
  return err;
}

/* one timed exchange of the ranks with `in` set, collective over ctx->comm (the
 * others sleep): the time stats over the participants, wrong bytes checked */
static int measure(hk_bench_ctx_t *c, int in, const xchg_t *x, unsigned char *sbuf,
                   unsigned char **rbuf, int iters, int warmup, const char *what,
                   hk_stats_t *st)
{
  double t = 0.0;
  long long bad = 0, badsum = 0;
  int err = HK_SUCCESS;
  HK_LOCAL(err, hk_bench_mpi(MPI_Barrier(c->comm), "the barrier before the exchange"));
  if (in)
    HK_LOCAL(err, exchange(c->comm, c->rank, x, sbuf, rbuf, iters, warmup, &t, &bad));
  int barrier = hk_bench_idle_barrier(c->comm); /* on every rank, whatever its error */
  HK_LOCAL(err, barrier);
  HK_AGREE(err, c->comm);
  double mm[2] = {in ? t : 1e300, in ? -t : 1e300}, mmo[2];
  double sums[2] = {in ? t : 0.0, (double)in}, sumo[2];
  MPI_Allreduce(mm, mmo, 2, MPI_DOUBLE, MPI_MIN, c->comm);
  MPI_Allreduce(sums, sumo, 2, MPI_DOUBLE, MPI_SUM, c->comm);
  MPI_Allreduce(&bad, &badsum, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  if (badsum)
    return hk_error_set(HK_ERR_STATE, "orthogonal %s: %lld wrong bytes in %lld-byte messages",
                        what, badsum, x->rcount);
  st->min = mmo[0];
  st->max = -mmo[1];
  st->avg = sumo[0] / sumo[1];
cleanup:
  return err;
}

/* world rank of every (node, local rank): (*grid)[node * ppn + local rank].
 * Collective: c->comm; errors agreed. */
static int make_grid(hk_bench_ctx_t *c, const hk_nodes_info_t *ni, int **grid)
{
  int err = HK_SUCCESS, *all = NULL, mine[2] = {ni->node, ni->local_rank};
  HK_ALLOC_LOCAL(err, all, 2LL * c->size);
  HK_ALLOC_LOCAL(err, *grid, (long long)ni->nnodes * ni->local_size);
  HK_AGREE(err, c->comm);
  HK_LOCAL(err, hk_bench_mpi(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c->comm),
                             "gathering the rank grid"));
  HK_AGREE(err, c->comm);
  for (int r = 0; r < c->size; r++)
    (*grid)[all[2 * r] * ni->local_size + all[2 * r + 1]] = r;
cleanup:
  free(all);
  return err;
}

/* The messages of each phase (--pattern).  sendrecv: vertical (to the same local
 * rank of the next node, from the previous), horizontal (to the next local rank,
 * from the previous), masteronly (leader to the next node's leader, from the
 * previous); concurrent: pure = both vertical and both horizontal neighbours at
 * once (vert = all four, horiz unused), masteronly = the leaders above and below. */
static void neighbours(const int *grid, const hk_nodes_info_t *ni, int pattern, xchg_t *vert,
                       xchg_t *horiz, xchg_t *hyb)
{
  int nn = ni->nnodes, ppn = ni->local_size, node = ni->node, lr = ni->local_rank;
  int up = (node + 1) % nn, down = (node + nn - 1) % nn;
  int sr = pattern == PAT_SENDRECV;
  *vert = (xchg_t){.n = sr ? 1 : 4, .sendrecv = sr};
  *horiz = (xchg_t){.n = 1, .sendrecv = 1};
  *hyb = (xchg_t){.n = sr ? 1 : 2, .sendrecv = sr};
  vert->dst[0] = grid[up * ppn + lr];
  vert->src[0] = grid[down * ppn + lr];
  hyb->dst[0] = grid[up * ppn];
  hyb->src[0] = grid[down * ppn];
  xchg_t *side = sr ? horiz : vert;
  int k = sr ? 0 : 2;
  side->dst[k] = grid[node * ppn + (lr + 1) % ppn];
  side->src[k] = grid[node * ppn + (lr + ppn - 1) % ppn];
  if (sr)
    return;
  for (k = 0; k < 3; k += 2) { /* the opposite direction of each pair */
    vert->dst[k + 1] = vert->src[k];
    vert->src[k + 1] = vert->dst[k];
  }
  hyb->dst[1] = hyb->src[0];
  hyb->src[1] = hyb->dst[0];
}

static hk_stats_t in_us(const hk_stats_t *t)
{
  return (hk_stats_t){t->min * 1e6, t->avg * 1e6, t->max * 1e6};
}

/* tv, th: the sendrecv pattern's vertical and horizontal phases (NULL: concurrent) */
static int emit(hk_bench_ctx_t *c, long long L, int ppn, int iters, const hk_stats_t *tp,
                const hk_stats_t *th, const hk_stats_t *tv, const hk_stats_t *tz)
{
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_orthogonal, &rec);
  hk_record_param_int(rec, "size", L);
  hk_record_param_int(rec, "hybrid_size", L * ppn);
  hk_record_param_int(rec, "iters", iters);
  hk_record_param_str(rec, "pattern", pattern_names[tv ? PAT_SENDRECV : PAT_CONCURRENT]);
  hk_stats_t tpu = in_us(tp), thu = in_us(th);
  hk_record_stats_given(rec, "t_pure", &tpu, "us");
  if (tv) {
    hk_stats_t tvu = in_us(tv), tzu = in_us(tz);
    hk_record_stats_given(rec, "t_pure_inter", &tvu, "us");
    hk_record_stats_given(rec, "t_pure_intra", &tzu, "us");
  }
  hk_record_stats_given(rec, "t_hybrid", &thu, "us");
  hk_record_value(rec, "t_hybrid_over_t_pure", th->max / tp->max, "ratio");
  return hk_record_emit(&rec);
}

/* at least 2 nodes of the same size >= 2 ranks; messages of an int count */
static int grid_fits(const hk_nodes_info_t *ni, int minppn, long long maxmsg)
{
  if (ni->nnodes < 2 || minppn != ni->max_local_size || minppn < 2)
    return hk_error_set(HK_ERR_ARG, "orthogonal needs at least 2 nodes of equal size >= 2 ranks "
                                    "(HK_NODE_SIZE=k or tools/vcluster)");
  if (maxmsg > INT_MAX)
    return hk_error_set(HK_ERR_ARG, "messages of %lld bytes are too large for an int count",
                        maxmsg);
  return HK_SUCCESS;
}

static int run(hk_bench_ctx_t *c)
{
  hk_nodes_info_t ni = {0};
  int err = HK_SUCCESS, *grid = NULL;
  unsigned char *sbuf = NULL, *rbuf[NMSG] = {NULL};
  HK_LOCAL(err, hk_nodes_info(c->nodes, &ni));
  int minppn = ni.local_size, ppn = ni.local_size;
  MPI_Allreduce(&ni.local_size, &minppn, 1, MPI_INT, MPI_MIN, c->comm);
  long long maxmsg = c->common->max_size * ppn;
  HK_LOCAL(err, grid_fits(&ni, minppn, maxmsg));
  HK_AGREE(err, c->comm);
  HK_TRY(err, make_grid(c, &ni, &grid));
  HK_ALLOC_LOCAL(err, sbuf, maxmsg);
  for (int k = 0; k < NMSG; k++)
    HK_ALLOC_LOCAL(err, rbuf[k], maxmsg);
  HK_AGREE(err, c->comm);
  int sr = opt_pattern == PAT_SENDRECV;
  if (sr)
    hk_reporter_config(c->rep, "grid", "%d nodes x %d ranks; pure: MPI_Sendrecv of L to the "
                       "next node, then of L to the next rank of the node (T_pure = the two "
                       "phases' sum); masteronly: MPI_Sendrecv of L x %d per leader (--pattern "
                       "sendrecv)", ni.nnodes, ppn, ppn);
  else
    hk_reporter_config(c->rep, "grid", "%d nodes x %d ranks; pure: 2 vertical + 2 horizontal "
                       "messages of L per rank at once; masteronly: 2 of L x %d per leader "
                       "(--pattern concurrent)", ni.nnodes, ppn, ppn);
  xchg_t vert, horiz, hyb;
  neighbours(grid, &ni, opt_pattern, &vert, &horiz, &hyb);
  for (long long L = c->common->min_size; L <= c->common->max_size; L *= 2) {
    int iters, warmup;
    hk_bench_iters(c->common, L * ppn, &iters, &warmup);
    vert.scount = vert.rcount = horiz.scount = horiz.rcount = L;
    hyb.scount = hyb.rcount = L * ppn;
    hk_stats_t tp, tv, tz, th; /* measure's errors are agreed, the emit's too */
    HK_TRY(err, measure(c, 1, &vert, sbuf, rbuf, iters, warmup,
                        sr ? "pure MPI vertical" : "pure MPI", &tv));
    tp = tv;
    if (sr) {
      HK_TRY(err, measure(c, 1, &horiz, sbuf, rbuf, iters, warmup, "pure MPI horizontal", &tz));
      tp = (hk_stats_t){tv.min + tz.min, tv.avg + tz.avg, tv.max + tz.max};
    }
    HK_TRY(err, measure(c, ni.local_rank == 0, &hyb, sbuf, rbuf, iters, warmup, "masteronly", &th));
    HK_TRY(err, emit(c, L, ppn, iters, &tp, &th, sr ? &tv : NULL, sr ? &tz : NULL));
  }
cleanup:
  free(grid);
  free(sbuf);
  for (int k = 0; k < NMSG; k++)
    free(rbuf[k]);
  return err;
}

const hk_experiment_t hk_exp_orthogonal = {
  .name = "orthogonal",
  .summary = "pure MPI vertical+horizontal exchange vs masteronly leaders (SR8000 experiment)",
  .description =
      "Rabenseifner's SR8000 experiment (2002/2003).  The ranks form a grid nodes x ranks-per-\n"
      "node.  --pattern sendrecv (default, the seed's): pure MPI in two phases, each timed on\n"
      "its own: vertical, every rank MPI_Sendrecv's L bytes to the same local rank of the next\n"
      "node (from the previous node's); horizontal, L bytes to the next rank of its node (from\n"
      "the previous); T_pure = T_vertical + T_horizontal.  Masteronly: the node leaders\n"
      "MPI_Sendrecv L x ranks-per-node bytes (the node's vertical data) to the next node's\n"
      "leader (no horizontal messages: shared memory).  --pattern concurrent: pure MPI\n"
      "exchanges L with all four neighbours at once (Isend/Irecv x 4, Waitall), masteronly\n"
      "with both neighbouring leaders.  T_pure and T_hybrid are the slowest rank's time per\n"
      "exchange (us, min/avg/max); the ratio T_hybrid/T_pure per L.  Needs >= 2 nodes of\n"
      "equal size >= 2 (real nodes, HK_NODE_SIZE=k or tools/vcluster).  Every received\n"
      "message is validated.",
  .default_sizes = "8:1M",
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = orthogonal_opts,
  .nopts = (int)(sizeof orthogonal_opts / sizeof orthogonal_opts[0]),
  .run = run,
};
