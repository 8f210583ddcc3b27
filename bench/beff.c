/* bench/beff.c: the effective bandwidth b_eff (Rabenseifner & Koniges), and
 * its masteronly-hybrid counterpart (Rabenseifner, EuroPVM/MPI 2002).
 *
 * Sizes: NS = 21 sizes L, the geometric series from the -m minimum to Lmax
 * (-m maximum, or --lmax), rounded to whole bytes, duplicates dropped.
 * Patterns, every one a set of (destination, source) pairs per rank:
 *   ring       right and left neighbour in rank order (periodic)
 *   random     the same on a ring through a random permutation of the ranks
 *              (Fisher-Yates with a fixed seed on rank 0, broadcast)
 *   3d-cyclic  both neighbours in each dimension of a periodic 3D grid
 *              (MPI_Dims_create, row-major ranks); dimensions of extent 1 are skipped
 * For each pattern and L: all receives (Irecv) and sends (Isend) posted, then
 * Waitall, repeated; time t_p per repetition on each rank, and
 *   b(pattern, L) = (bytes sent per repetition by all ranks) / max_p t_p
 *   b_eff         = exp((mean_L log b(ring, L) + mean_L log b(random, L)) / 2)
 *   b_eff at Lmax = exp((log b(ring, Lmax) + log b(random, Lmax)) / 2)
 *   3D-cyclic     = exp(mean_L log b(3d-cyclic, L)), and b(3d-cyclic, Lmax)
 * each also per process (/ ranks) and per node (/ nodes).
 * --compare-hybrid: the same on the node leaders (local rank 0) with messages of
 * L x ranks-on-the-sending-node bytes, the others sleeping; per pattern
 *   T_hybrid / T_MPP = b_MPP per node / b_hybrid per node.
 * Every message carries hk_bench_fill(sender's rank in the measured comm); the
 * last repetition of every (pattern, L) is checked byte for byte.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

enum { NSIZES = 21, MAXNBR = 6 };
enum { P_RING, P_RANDOM, P_CYC3D, NPAT };
static const char *const pat_names[NPAT] = {"ring", "random", "3d-cyclic"};

static const char *opt_lmax = NULL;
static int opt_compare_hybrid;
static int opt_seed = 12345;

static const hk_opt_t beff_opts[] = {
  {"lmax", HK_OPT_STR, &opt_lmax, "SIZE",
   "largest message Lmax (K, M, G suffixes; default: the -m maximum, 8M)", 0},
  {"compare-hybrid", HK_OPT_FLAG, &opt_compare_hybrid, "",
   "also run masteronly: node leaders only, messages of L x ranks-per-node", 0},
  {"seed", HK_OPT_INT, &opt_seed, "N", "seed of the random permutation", 0},
};

/* the neighbours of one rank in one pattern: send to dst[k], receive from
 * src[k], both with tag k */
typedef struct nbrs {
  int n;
  int dst[MAXNBR], src[MAXNBR];
} nbrs_t;

typedef struct run_set {
  MPI_Comm comm;     /* the measured communicator (MPI_COMM_NULL: not taking part) */
  int rank, size;
  const int *mult;   /* bytes multiplier of each rank's messages (NULL: 1) */
  nbrs_t nb[NPAT];
  const char *name;  /* "mpp" or "hybrid" */
  double b[NPAT][NSIZES]; /* bandwidth, bytes/s */
} run_set_t;

static unsigned long long rng_next(unsigned long long *s)
{
  /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static void ring_nbrs(nbrs_t *nb, const int *order, int pos, int n)
{
  int right = order[(pos + 1) % n], left = order[(pos + n - 1) % n];
  nb->n = 2;
  nb->dst[0] = right;
  nb->src[0] = left;
  nb->dst[1] = left;
  nb->src[1] = right;
}

/* neighbours of every pattern; collective over rs->comm (the permutation broadcast) */
static int make_patterns(run_set_t *rs)
{
  int n = rs->size, me = rs->rank;
  int *order = malloc((size_t)n * sizeof *order);
  if (!order)
    return hk_error_set(HK_ERR_NOMEM, "no memory for a permutation of %d ranks", n);
  for (int i = 0; i < n; i++)
    order[i] = i;
  ring_nbrs(&rs->nb[P_RING], order, me, n);
  if (me == 0) {
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(unsigned)opt_seed;
    for (int i = n - 1; i > 0; i--) {
      int j = (int)(rng_next(&s) % (unsigned long long)(i + 1));
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }
  if (MPI_Bcast(order, n, MPI_INT, 0, rs->comm) != MPI_SUCCESS) {
    free(order);
    return hk_error_set(HK_ERR_MPI, "broadcast of the random permutation failed");
  }
  int pos = 0;
  for (int i = 0; i < n; i++)
    if (order[i] == me)
      pos = i;
  ring_nbrs(&rs->nb[P_RANDOM], order, pos, n);
  free(order);
  int dims[3] = {0, 0, 0}, c[3];
  MPI_Dims_create(n, 3, dims);
  c[0] = me / (dims[1] * dims[2]);
  c[1] = me / dims[2] % dims[1];
  c[2] = me % dims[2];
  nbrs_t *nb = &rs->nb[P_CYC3D];
  nb->n = 0;
  for (int d = 0; d < 3; d++) {
    if (dims[d] < 2)
      continue;
    int cp[3] = {c[0], c[1], c[2]}, cm[3] = {c[0], c[1], c[2]};
    cp[d] = (c[d] + 1) % dims[d];
    cm[d] = (c[d] + dims[d] - 1) % dims[d];
    int plus = (cp[0] * dims[1] + cp[1]) * dims[2] + cp[2];
    int minus = (cm[0] * dims[1] + cm[1]) * dims[2] + cm[2];
    nb->dst[nb->n] = plus;
    nb->src[nb->n++] = minus;
    nb->dst[nb->n] = minus;
    nb->src[nb->n++] = plus;
  }
  if (nb->n == 0) /* a single rank (one node leader): it exchanges with itself */
    ring_nbrs(nb, &me, 0, 1);
  return HK_SUCCESS;
}

/* one pattern at one size on the ranks of rs->comm: seconds per repetition,
 * wrong bytes of the last repetition, bytes this rank sent per repetition */
static int exchange(const run_set_t *rs, const nbrs_t *nb, long long L, unsigned char *sbuf,
                    unsigned char **rbuf, int iters, int warmup, double *t, long long *bad,
                    long long *sent)
{
  int me = rs->rank;
  long long scount = L * (rs->mult ? rs->mult[me] : 1), rcount[MAXNBR];
  MPI_Request req[2 * MAXNBR];
  hk_bench_fill(sbuf, scount, me);
  for (int k = 0; k < nb->n; k++) {
    rcount[k] = L * (rs->mult ? rs->mult[nb->src[k]] : 1);
    memset(rbuf[k], 0, (size_t)rcount[k]);
  }
  double t0 = 0.0;
  for (int i = -warmup; i < iters; i++) {
    if (i == 0) {
      if (MPI_Barrier(rs->comm) != MPI_SUCCESS)
        return hk_error_set(HK_ERR_MPI, "barrier before the %s exchange failed", rs->name);
      t0 = MPI_Wtime();
    }
    int rc = MPI_SUCCESS;
    for (int k = 0; k < nb->n && rc == MPI_SUCCESS; k++)
      rc = MPI_Irecv(rbuf[k], (int)rcount[k], MPI_BYTE, nb->src[k], k, rs->comm, &req[k]);
    for (int k = 0; k < nb->n && rc == MPI_SUCCESS; k++)
      rc = MPI_Isend(sbuf, (int)scount, MPI_BYTE, nb->dst[k], k, rs->comm, &req[nb->n + k]);
    if (rc == MPI_SUCCESS)
      rc = MPI_Waitall(2 * nb->n, req, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
      return hk_error_set(HK_ERR_MPI, "%s exchange of %lld-byte messages failed", rs->name, L);
  }
  *t = (MPI_Wtime() - t0) / iters;
  *bad = 0;
  for (int k = 0; k < nb->n; k++)
    *bad += hk_bench_check(rbuf[k], rcount[k], nb->src[k]);
  *sent = scount * nb->n;
  return HK_SUCCESS;
}

/* repetitions: as given, or from 200 at small sizes down to 4 at 8 MiB
 * (about 32 MiB sent per rank and size), so the defaults take seconds */
static void beff_iters(const hk_bench_common_t *cm, long long bytes, int *iters, int *warmup)
{
  long long it = (32LL << 20) / (bytes > 0 ? bytes : 1);
  it = it > 200 ? 200 : it < 4 ? 4 : it;
  *iters = cm->iters > 0 ? cm->iters : (int)it;
  *warmup = cm->warmup >= 0 ? cm->warmup : (*iters / 10 > 1 ? *iters / 10 : 1);
}

/* every pattern and size of one run set; collective over ctx->comm (ranks
 * outside rs->comm sleep); one record per (pattern, size) */
static int run_set(hk_bench_ctx_t *c, run_set_t *rs, const long long *sizes, int ns,
                   unsigned char *sbuf, unsigned char **rbuf)
{
  int in = rs->comm != MPI_COMM_NULL, err = HK_SUCCESS;
  for (int p = 0; p < NPAT && err == HK_SUCCESS; p++)
    for (int s = 0; s < ns && err == HK_SUCCESS; s++) {
      long long L = sizes[s], mine = 1, mmax = 1;
      if (in && rs->mult)
        for (int r = 0; r < rs->size; r++)
          mine = rs->mult[r] > mine ? rs->mult[r] : mine;
      MPI_Allreduce(&mine, &mmax, 1, MPI_LONG_LONG, MPI_MAX, c->comm);
      int iters, warmup;
      beff_iters(c->common, L * mmax * 2, &iters, &warmup);
      double t = 0.0;
      long long bad = 0, sent = 0;
      int local = HK_SUCCESS;
      if (in)
        local = exchange(rs, &rs->nb[p], L, sbuf, rbuf, iters, warmup, &t, &bad, &sent);
      int e2 = hk_bench_idle_barrier(c->comm);
      if ((err = hk_agree(c->comm, local != HK_SUCCESS ? local : e2)) != HK_SUCCESS)
        break;
      /* min/avg/max over the ranks taking part; the others give neutral values */
      double mm[2] = {in ? t : 1e300, in ? -t : 1e300}, mmo[2];
      double sums[2] = {in ? t : 0.0, (double)in}, sumo[2];
      long long cnt[2] = {bad, sent}, cnto[2];
      MPI_Allreduce(mm, mmo, 2, MPI_DOUBLE, MPI_MIN, c->comm);
      MPI_Allreduce(sums, sumo, 2, MPI_DOUBLE, MPI_SUM, c->comm);
      MPI_Allreduce(cnt, cnto, 2, MPI_LONG_LONG, MPI_SUM, c->comm);
      if (cnto[0]) {
        err = hk_error_set(HK_ERR_STATE, "beff %s %s: %lld wrong bytes received at L = %lld",
                           rs->name, pat_names[p], cnto[0], L);
        break;
      }
      double tmax = -mmo[1];
      rs->b[p][s] = tmax > 0.0 ? (double)cnto[1] / tmax : 0.0;
      hk_stats_t us = {mmo[0] * 1e6, sumo[0] / sumo[1] * 1e6, tmax * 1e6};
      hk_record_t *rec = NULL;
      err = hk_record_create(c->rep, "bench.beff", &rec);
      if (err == HK_SUCCESS)
        err = hk_record_param_str(rec, "run", rs->name);
      if (err == HK_SUCCESS)
        err = hk_record_param_str(rec, "pattern", pat_names[p]);
      if (err == HK_SUCCESS)
        err = hk_record_param_int(rec, "size", L);
      if (err == HK_SUCCESS)
        err = hk_record_param_int(rec, "msg_bytes", L * mmax);
      if (err == HK_SUCCESS)
        err = hk_record_param_int(rec, "iters", iters);
      if (err == HK_SUCCESS)
        err = hk_record_value(rec, "bandwidth", rs->b[p][s] / 1e6, "MB/s");
      if (err == HK_SUCCESS)
        err = hk_record_stats_given(rec, "time", &us, "us");
      if (err == HK_SUCCESS)
        err = hk_record_emit(&rec);
      hk_record_discard(&rec);
    }
  return err;
}

static double logavg(const double *b, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += log(b[i] > 0.0 ? b[i] : 1e-300);
  return exp(s / n);
}

/* the four numbers of the 2002 paper's table, bytes/s for the whole run set */
typedef struct beff_numbers {
  double beff, beff_lmax, cyc, cyc_lmax;
  double pat_avg[NPAT], pat_lmax[NPAT];
} beff_numbers_t;

static void numbers(const run_set_t *rs, int ns, beff_numbers_t *x)
{
  for (int p = 0; p < NPAT; p++) {
    x->pat_avg[p] = logavg(rs->b[p], ns);
    x->pat_lmax[p] = rs->b[p][ns - 1];
  }
  x->beff = sqrt(x->pat_avg[P_RING] * x->pat_avg[P_RANDOM]);
  x->beff_lmax = sqrt(x->pat_lmax[P_RING] * x->pat_lmax[P_RANDOM]);
  x->cyc = x->pat_avg[P_CYC3D];
  x->cyc_lmax = x->pat_lmax[P_CYC3D];
}

static int emit_summary(hk_bench_ctx_t *c, const char *run, const beff_numbers_t *x, int procs,
                        int nodes)
{
  static const char *const names[4] = {"b_eff", "b_eff_lmax", "cyclic3d", "cyclic3d_lmax"};
  const double v[4] = {x->beff, x->beff_lmax, x->cyc, x->cyc_lmax};
  hk_record_t *rec = NULL;
  char name[48];
  int err = hk_record_create(c->rep, "bench.beff.summary", &rec);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "run", run);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "procs", procs);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "nodes", nodes);
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "b_eff", x->beff / 1e6, "MB/s");
  for (int i = 0; i < 4 && err == HK_SUCCESS; i++) {
    snprintf(name, sizeof name, "%s_per_proc", names[i]);
    err = hk_record_value(rec, name, v[i] / procs / 1e6, "MB/s");
    snprintf(name, sizeof name, "%s_per_node", names[i]);
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, name, v[i] / nodes / 1e6, "MB/s");
  }
  if (err == HK_SUCCESS)
    err = hk_record_emit(&rec);
  hk_record_discard(&rec);
  return err;
}

static int emit_compare(hk_bench_ctx_t *c, const beff_numbers_t *m, const beff_numbers_t *h,
                        int nodes)
{
  static const char *const names[NPAT + 1] = {"ring", "random", "3d-cyclic", "b_eff"};
  int err = HK_SUCCESS;
  for (int p = 0; p <= NPAT && err == HK_SUCCESS; p++) {
    double ma = p < NPAT ? m->pat_avg[p] : m->beff, ha = p < NPAT ? h->pat_avg[p] : h->beff;
    double ml = p < NPAT ? m->pat_lmax[p] : m->beff_lmax;
    double hl = p < NPAT ? h->pat_lmax[p] : h->beff_lmax;
    hk_record_t *rec = NULL;
    err = hk_record_create(c->rep, "bench.beff.hybrid", &rec);
    if (err == HK_SUCCESS)
      err = hk_record_param_str(rec, "pattern", names[p]);
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_mpp_per_node", ma / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_hybrid_per_node", ha / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "t_hybrid_over_t_mpp", ma / ha, "ratio");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_mpp_lmax_per_node", ml / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_hybrid_lmax_per_node", hl / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "t_hybrid_over_t_mpp_lmax", ml / hl, "ratio");
    if (err == HK_SUCCESS)
      err = hk_record_emit(&rec);
    hk_record_discard(&rec);
  }
  return err;
}

static int make_sizes(long long lo, long long hi, long long *sizes)
{
  int ns = 0;
  for (int i = 0; i < NSIZES; i++) {
    long long L = i == NSIZES - 1 ? hi
                                  : llround((double)lo * pow((double)hi / (double)lo,
                                                             (double)i / (NSIZES - 1)));
    if (ns == 0 || L > sizes[ns - 1])
      sizes[ns++] = L;
  }
  return ns;
}

static int run(hk_bench_ctx_t *c)
{
  int err = HK_SUCCESS, local = HK_SUCCESS;
  long long lo = c->common->min_size, hi = c->common->max_size;
  if (opt_lmax) {
    long long a, b;
    if (hk_bench_parse_sizes(opt_lmax, &a, &b) != HK_SUCCESS || a != b)
      local = hk_error_set(HK_ERR_ARG, "--lmax %s: Lmax is one positive byte count with an "
                                       "optional K, M or G suffix", opt_lmax);
    else if (b < lo)
      local = hk_error_set(HK_ERR_ARG, "--lmax %s: Lmax is smaller than the smallest size %lld",
                           opt_lmax, lo);
    else
      hi = b;
  }
  if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
    return err;
  hk_nodes_info_t ni;
  hk_nodes_info(c->nodes, &ni);
  long long sizes[NSIZES];
  int ns = make_sizes(lo, hi, sizes);
  hk_reporter_config(c->rep, "beff sizes", "%d sizes, geometric from %lld to Lmax = %lld bytes", ns,
                     lo, hi);

  run_set_t mpp = {.comm = c->comm, .rank = c->rank, .size = c->size, .name = "mpp"};
  run_set_t hyb = {.comm = MPI_COMM_NULL, .name = "hybrid"};
  int *mult = NULL, ppn = ni.local_size;
  unsigned char *sbuf = NULL, *rbuf[MAXNBR] = {NULL};
  beff_numbers_t xm, xh;
  if (opt_compare_hybrid) {
    if (ni.nnodes < 2)
      hk_reporter_config(c->rep, "compare-hybrid",
                         "one node: the hybrid run has a single leader that exchanges with "
                         "itself only (degenerate; use real nodes, HK_NODE_SIZE or tools/vcluster)");
    else
      hk_reporter_config(c->rep, "compare-hybrid", "%d node leaders, messages of L x ranks on "
                         "the sending node (%d%s)", ni.nnodes, ni.max_local_size,
                         ni.max_local_size == ni.local_size ? "" : " at most");
    if (MPI_Comm_split(c->comm, ni.local_rank == 0 ? 0 : MPI_UNDEFINED, c->rank, &hyb.comm) !=
        MPI_SUCCESS)
      local = hk_error_set(HK_ERR_MPI, "splitting the node leaders off failed");
    if (local == HK_SUCCESS && hyb.comm != MPI_COMM_NULL) {
      MPI_Comm_rank(hyb.comm, &hyb.rank);
      MPI_Comm_size(hyb.comm, &hyb.size);
      mult = malloc((size_t)hyb.size * sizeof *mult);
      if (!mult)
        local = hk_error_set(HK_ERR_NOMEM, "no memory for %d node sizes", hyb.size);
      else if (MPI_Allgather(&ppn, 1, MPI_INT, mult, 1, MPI_INT, hyb.comm) != MPI_SUCCESS)
        local = hk_error_set(HK_ERR_MPI, "gathering the node sizes failed");
      hyb.mult = mult;
    }
    if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
      goto done;
  }
  long long maxmsg = hi * (opt_compare_hybrid ? ni.max_local_size : 1);
  if (maxmsg > INT_MAX)
    local = hk_error_set(HK_ERR_ARG, "messages of %lld bytes are too large for an int count",
                         maxmsg);
  if (local == HK_SUCCESS) {
    sbuf = malloc((size_t)maxmsg);
    for (int k = 0; k < MAXNBR; k++)
      rbuf[k] = malloc((size_t)maxmsg);
    int ok = sbuf != NULL;
    for (int k = 0; k < MAXNBR; k++)
      ok = ok && rbuf[k];
    if (!ok)
      local = hk_error_set(HK_ERR_NOMEM, "no memory for 7 buffers of %lld bytes", maxmsg);
  }
  if (local == HK_SUCCESS)
    local = make_patterns(&mpp);
  if (local == HK_SUCCESS && hyb.comm != MPI_COMM_NULL)
    local = make_patterns(&hyb);
  if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
    goto done;
  err = run_set(c, &mpp, sizes, ns, sbuf, rbuf);
  if (err == HK_SUCCESS) {
    numbers(&mpp, ns, &xm);
    err = emit_summary(c, "mpp", &xm, c->size, ni.nnodes);
  }
  if (err == HK_SUCCESS && opt_compare_hybrid) {
    err = run_set(c, &hyb, sizes, ns, sbuf, rbuf);
    if (err == HK_SUCCESS) {
      /* rank 0 is a leader (the lowest rank of node 0): its results count */
      numbers(&hyb, ns, &xh);
      err = emit_summary(c, "hybrid", &xh, ni.nnodes, ni.nnodes);
    }
    if (err == HK_SUCCESS)
      err = emit_compare(c, &xm, &xh, ni.nnodes);
  }
done:
  free(sbuf);
  for (int k = 0; k < MAXNBR; k++)
    free(rbuf[k]);
  free(mult);
  if (hyb.comm != MPI_COMM_NULL)
    MPI_Comm_free(&hyb.comm);
  return err;
}

const hk_experiment_t hk_exp_beff = {
  .name = "beff",
  .summary = "effective bandwidth b_eff: ring, random and 3D-cyclic patterns, MPP vs hybrid",
  .description =
      "Rabenseifner & Koniges' effective bandwidth benchmark b_eff.  For 21 sizes L (geometric\n"
      "from the -m minimum to Lmax = --lmax or the -m maximum) and each pattern (ring in rank\n"
      "order; random: a ring through a seeded random permutation; 3d-cyclic: the 6 neighbours\n"
      "in a periodic MPI_Dims_create grid) every rank Isends to and Irecvs from its neighbours,\n"
      "Waitall, repeated.  b(pattern, L) = bytes sent by all ranks / slowest rank's time;\n"
      "b_eff = exp((mean_L log b_ring + mean_L log b_random) / 2), b_eff at Lmax likewise at\n"
      "Lmax only, 3D-cyclic = its log-average and its value at Lmax: the table of Rabenseifner's\n"
      "2002 paper, per process and per node.  --compare-hybrid repeats it masteronly on the\n"
      "node leaders with L x ranks-per-node messages and reports T_hybrid/T_MPP =\n"
      "b_MPP/b_hybrid per node (EuroPVM/MPI 2002).  Every received message is validated.",
  .default_sizes = "8:8M",
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = beff_opts,
  .nopts = (int)(sizeof beff_opts / sizeof beff_opts[0]),
  .run = run,
};
