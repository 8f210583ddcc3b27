/* bench/beff.c: the effective bandwidth b_eff as the original defines it (HLRS
 * b_eff 3.6 / 3.6.0.1, Rabenseifner & Koniges, EuroPVM/MPI 2001), and its
 * masteronly-hybrid counterpart (Rabenseifner, EuroPVM/MPI 2002).
 *
 * Sizes: 21, the original's: 1 B, 2 B, ... 4 KiB doubling, then 8 geometric
 * steps up to Lmax = memory per process / 128 (beff_calc.c).
 * Patterns: 6 rings, 30 random rings and 3D-cyclic (beff_patterns.c).
 * Methods: Sendrecv per pair, one Alltoallv, Irecv+Isend per pair then Waitall.
 * Loop lengths: the original's time-per-loop rule (a pass of 10 loops at 1 B,
 * then per size the previous loop length scaled so that all patterns of one
 * method take --time-per-loop seconds, capped), 3 repetitions; when the two
 * largest sizes would take more than 60 s, they run the best method only, once,
 * the largest in 2 repetitions (the original's "shortlasttwo").
 * b(pattern, L) = max over methods and repetitions of the slowest process's
 * bytes sent per second x messages of the pattern / messages per process;
 * b_eff = logavg(logavg_rings(mean_L b), logavg_random(mean_L b)) (beff_calc.h).
 * --compare-hybrid: the same on the node leaders (local rank 0) with messages
 * of L x ranks-on-the-sending-node bytes, the others sleeping; per pattern
 *   T_hybrid / T_MPP = b_MPP per node / b_hybrid per node.
 * Every message carries a stamp (sender, pair, loop) in its first and last
 * byte, checked after every loop as the original does; one more untimed loop
 * after each measurement sends hk_bench_fill(sender) and is checked byte for
 * byte.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "beff.h"

const char *const beff_meth_names[NMETH] = {"sendrecv", "alltoallv", "nonblocking"};
static const double max_for_last_two = 60.0; /* seconds, the original's MAX_FOR_LAST_TWO */
static const double posinf = 1e30;

static const char *opt_lmax = NULL;
static const char *opt_memory = NULL;
static double opt_time_per_loop = 0.5; /* the original's TIMEPERLOOP */
static int opt_compare_hybrid;
static int opt_seed = 12345;

static const hk_opt_t beff_opts[] = {
  {"lmax", HK_OPT_STR, &opt_lmax, "SIZE",
   "largest message Lmax, at least 4K (default: --memory / 128, or the maximum of -m)", 0},
  {"memory", HK_OPT_STR, &opt_memory, "SIZE",
   "memory per process, Lmax = SIZE / 128 (default: the node's memory / its ranks)", 0},
  {"time-per-loop", HK_OPT_DOUBLE, &opt_time_per_loop, "SEC",
   "seconds all patterns of one method take per size (the original's 0.5)", 0},
  {"compare-hybrid", HK_OPT_FLAG, &opt_compare_hybrid, "",
   "also run masteronly: node leaders only, messages of L x ranks-per-node", 0},
  {"seed", HK_OPT_INT, &opt_seed, "N", "seed of the random permutations", 0},
};


static unsigned char stamp(int sender, int k, int loop, int which)
{
  return (unsigned char)(sender * 7 + k * 13 + loop * 3 + which * 101 + 1);
}

/* one loop of pattern p with method m; `check`: messages hk_bench_fill'ed
 * and checked whole, else stamped and checked at both ends */
static int one_loop(const run_set_t *rs, const pattern_t *p, int m, long long L, int loop,
                    int check, mbuf_t *mb, long long *bad)
{
  int me, rc = MPI_SUCCESS;
  MPI_Comm_rank(p->comm, &me);
  long long stride = (L * (rs->mult ? rs->mult[me] : 1) + 7) / 8 * 8, off[MAXSR];
  long long smax = 0;
  for (int k = 0; k < p->nsr; k++) {
    long long rl = L * (rs->mult ? rs->mult[p->src[k]] : 1);
    smax = rl > smax ? rl : smax;
  }
  stride = (smax + 7) / 8 * 8 > stride ? (smax + 7) / 8 * 8 : stride;
  long long slen = L * (rs->mult ? rs->mult[me] : 1);
  for (int k = 0; k < p->nsr; k++) {
    if (mb->base + stride > mb->len)
      mb->base = 0;
    off[k] = mb->base;
    mb->base += stride;
    unsigned char *s = mb->sbuf + off[k];
    if (check) {
      hk_bench_fill(s, slen, me);
    } else {
      s[0] = stamp(me, k, loop, 0);
      s[slen - 1] = stamp(me, k, loop, 1);
    }
  }
  MPI_Request req[2 * MAXSR];
  int nreq = 0;
  switch (m) {
  case M_SENDRECV:
    for (int k = 0; k < p->nsr && rc == MPI_SUCCESS; k++) {
      long long rl = L * (rs->mult ? rs->mult[p->src[k]] : 1);
      rc = MPI_Sendrecv(mb->sbuf + off[k], (int)slen, MPI_BYTE, p->dst[k], k, mb->rbuf + off[k],
                        (int)rl, MPI_BYTE, p->src[k], k, p->comm, MPI_STATUS_IGNORE);
    }
    break;
  case M_ALLTOALLV:
    for (int k = 0; k < p->nsr; k++) {
      mb->scounts[p->dst[k]] = (int)slen;
      mb->sdispls[p->dst[k]] = (int)off[k];
      mb->rcounts[p->src[k]] = (int)(L * (rs->mult ? rs->mult[p->src[k]] : 1));
      mb->rdispls[p->src[k]] = (int)off[k];
    }
    rc = MPI_Alltoallv(mb->sbuf, mb->scounts, mb->sdispls, MPI_BYTE, mb->rbuf, mb->rcounts,
                       mb->rdispls, MPI_BYTE, p->comm);
    for (int k = 0; k < p->nsr; k++)
      mb->scounts[p->dst[k]] = mb->sdispls[p->dst[k]] = mb->rcounts[p->src[k]] =
          mb->rdispls[p->src[k]] = 0;
    break;
  default:
    for (int k = 0; k < p->nsr && rc == MPI_SUCCESS; k++) {
      long long rl = L * (rs->mult ? rs->mult[p->src[k]] : 1);
      rc = MPI_Irecv(mb->rbuf + off[k], (int)rl, MPI_BYTE, p->src[k], k, p->comm, &req[nreq++]);
      if (rc == MPI_SUCCESS)
        rc = MPI_Isend(mb->sbuf + off[k], (int)slen, MPI_BYTE, p->dst[k], k, p->comm,
                       &req[nreq++]);
    }
    if (rc == MPI_SUCCESS)
      rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  }
  if (rc != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "beff %s %s %s of %lld-byte messages failed", rs->name,
                        p->name, beff_meth_names[m], L);
  /* the peer's pair index of the message received in pair k is k: pairs are
   * matched by tag (Sendrecv, Irecv) and every pattern is symmetric */
  for (int k = 0; k < p->nsr; k++) {
    long long rl = L * (rs->mult ? rs->mult[p->src[k]] : 1);
    const unsigned char *r = mb->rbuf + off[k];
    if (check)
      *bad += hk_bench_check(r, rl, p->src[k]);
    else /* a 1-byte message holds the second stamp only */
      *bad += (rl > 1 && r[0] != stamp(p->src[k], k, loop, 0)) +
              (r[rl - 1] != stamp(p->src[k], k, loop, 1));
  }
  return HK_SUCCESS;
}

/* loops of pattern p with method m: seconds of the timed loops on this rank */
static int time_loops(const run_set_t *rs, const pattern_t *p, int m, long long L, int loops,
                   int pre, mbuf_t *mb, double *t, long long *bad)
{
  int err = HK_SUCCESS;
  double t0 = MPI_Wtime();
  for (int i = pre ? -1 : 0; i < loops; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    if ((err = one_loop(rs, p, m, L, i, 0, mb, bad)) != HK_SUCCESS)
      break;
  }
  *t = MPI_Wtime() - t0;
  if (err != HK_SUCCESS)
    return err;
  /* untimed: every byte of one more loop checked */
  return one_loop(rs, p, m, L, loops, 1, mb, bad);
}

/* the original's loop length for size index i, repetition r, method m, on rank 0 */
typedef struct looptime {
  double comm_time[NMSG][NREP][NMETH]; /* rank 0's seconds, all patterns */
  double min_time[NMSG][NREP][NMETH];  /* its shortest pattern */
  int max_loops[NMETH];
} looptime_t;

static int loop_length(run_set_t *rs, looptime_t *lt, int i, int r, int m, int pre,
                       double factor)
{
  double tpl = opt_time_per_loop;
  if (i == 0) {
    if (pre)
      return PRE_MSG_LOOPS;
    double ml = PRE_MSG_LOOPS * (tpl / (lt->comm_time[0][r][m] > 0 ? lt->comm_time[0][r][m]
                                                                    : 1e-9));
    ml = ml < 1e9 ? ml : 1e9;
    lt->max_loops[m] = (int)ml < PRE_MSG_LOOPS ? PRE_MSG_LOOPS : (int)ml;
    return lt->max_loops[m] / 2;
  }
  int loops = rs->loops[i - 1][r][m];
  double ct = lt->comm_time[i - 1][r][m];
  if (ct > 0) {
    double v = loops / (i < BEFF_NPOW2 ? 2.0 : factor) * fmax(1.0, tpl / ct);
    v = fmin(v, (double)lt->max_loops[m]);
    loops = (int)fmax(1.0, v);
  }
  if (i == NMSG - 2 && rs->loops[i - 1][r][m] > 0) {
    /* expected seconds of the two largest sizes in all repetitions and methods */
    double expect = lt->min_time[i - 1][r][m] * NPAT * 4.0 * (factor + factor * factor) * NREP *
                    NMETH / rs->loops[i - 1][r][m];
    if (expect > max_for_last_two)
      loops = 0;
  }
  return loops;
}

/* the measurement loop of one run set, on the ranks of rs->comm */
static int measure_set(run_set_t *rs, const long long *sizes, double factor, mbuf_t *mb)
{
  looptime_t *lt = calloc(1, sizeof *lt);
  if (!lt)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the loop times");
  static int measure[NREP][NPAT][NMSG][NMETH];
  int best[NREP][NPAT], reps[NMSG];
  for (int i = 0; i < NMSG; i++)
    reps[i] = NREP;
  for (int r = 0; r < NREP; r++)
    for (int p = 0; p < NPAT; p++) {
      best[r][p] = -1;
      for (int i = 0; i < NMSG; i++)
        for (int m = 0; m < NMETH; m++) {
          measure[r][p][i][m] = 1;
          rs->rate[r][p][i][m] = 0.0;
        }
    }
  for (int i = 0; i < NMSG; i++)
    for (int r = 0; r < NREP; r++)
      for (int m = 0; m < NMETH; m++) {
        lt->min_time[i][r][m] = posinf;
        rs->loops[i][r][m] = 0;
      }
  int err = HK_SUCCESS, root = rs->rank == 0;
  long long bad = 0;
  if (MPI_Barrier(rs->comm) != MPI_SUCCESS) {
    free(lt);
    return hk_agree(rs->comm, hk_error_set(HK_ERR_MPI, "barrier before the %s measurement failed",
                                           rs->name));
  }
  double t_all = MPI_Wtime();
  for (int r = 0; r < NREP; r++) {
    int pre = 1;
    for (int i = 0; i < NMSG; i++) {
      if (r >= reps[i]) { /* the largest size, shortened: repetition 0's values */
        for (int p = 0; p < NPAT; p++)
          for (int m = 0; m < NMETH; m++)
            rs->rate[r][p][i][m] = rs->rate[0][p][i][m];
        continue;
      }
      long long L = sizes[i];
      if (root)
        for (int m = 0; m < NMETH; m++)
          rs->loops[i][r][m] = loop_length(rs, lt, i, r, m, pre, factor);
      MPI_Bcast(rs->loops[i][r], NMETH, MPI_INT, 0, rs->comm);
      int minloops = PRE_MSG_LOOPS;
      for (int m = 0; m < NMETH; m++)
        minloops = rs->loops[i][r][m] < minloops ? rs->loops[i][r][m] : minloops;
      if (minloops == 0 && i + 1 < NMSG) {
        /* shortlasttwo: the best method of the size before, by rank 0's rates */
        if (root)
          for (int p = 0; p < NPAT; p++) {
            best[r][p] = 0;
            for (int m = 1; m < NMETH; m++)
              if (measure[r][p][i - 1][m] && rs->rate[r][p][i - 1][m] >= rs->rate[r][p][i - 1][best[r][p]])
                best[r][p] = m;
          }
        MPI_Bcast(best[r], NPAT, MPI_INT, 0, rs->comm);
        reps[i + 1] = MINREP;
        for (int m = 0; m < NMETH; m++) {
          rs->loops[i][r][m] = 1;
          rs->loops[i + 1][r][m] = r < reps[i + 1] ? 1 : 0;
          for (int p = 0; p < NPAT; p++) {
            measure[r][p][i][m] = best[r][p] == m;
            measure[r][p][i + 1][m] = best[r][p] == m && r < reps[i + 1];
          }
        }
      }
      for (int p = 0; p < NPAT; p++) {
        const pattern_t *pt = &rs->pat[p];
        for (int m = 0; m < NMETH; m++) {
          if (!measure[r][p][i][m])
            continue;
          if (MPI_Barrier(rs->comm) != MPI_SUCCESS) {
            err = hk_error_set(HK_ERR_MPI, "barrier in the %s measurement failed", rs->name);
            goto measured;
          }
          if (pt->comm == MPI_COMM_NULL) {
            rs->rate[r][p][i][m] = posinf; /* not taking part: neutral in the minimum */
            continue;
          }
          double t = 0.0;
          int loops = rs->loops[i][r][m];
          err = time_loops(rs, pt, m, L, loops, i < WITH_PRELOOPS, mb, &t, &bad);
          lt->comm_time[i][r][m] += t;
          lt->min_time[i][r][m] = fmin(lt->min_time[i][r][m], t);
          long long sent = L * (rs->mult ? rs->mult[rs->rank] : 1);
          rs->rate[r][p][i][m] = t > 0 ? (double)sent * loops * pt->nsr / t : posinf;
          if (err != HK_SUCCESS)
            goto measured;
        }
        if (best[r][p] >= 0)
          for (int m = 0; m < NMETH; m++)
            rs->rate[r][p][i][m] = rs->rate[r][p][i][best[r][p]];
      }
      for (int m = 0; m < NMETH; m++)
        if (lt->min_time[i][r][m] == posinf)
          lt->min_time[i][r][m] = 0.0;
      if (pre) { /* the pass of 10 loops at 1 B done: now every size */
        pre = 0;
        i = -1;
      }
    }
  }
measured: /* a local error leaves the loops at once; the ranks agree on it below */
  rs->elapsed = MPI_Wtime() - t_all;
  free(lt);
  if ((err = hk_agree(rs->comm, err)) != HK_SUCCESS)
    return err;
  long long badall = 0;
  MPI_Allreduce(&bad, &badall, 1, MPI_LONG_LONG, MPI_SUM, rs->comm);
  if (badall) /* the same sum on every rank: agreed */
    return hk_error_set(HK_ERR_STATE, "beff %s: %lld wrong bytes received", rs->name, badall);
  if (MPI_Allreduce(MPI_IN_PLACE, rs->rate, NREP * NPAT * NMSG * NMETH, MPI_DOUBLE, MPI_MIN,
                    rs->comm) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "reducing the %s bandwidths failed", rs->name);
  MPI_Allreduce(MPI_IN_PLACE, &rs->elapsed, 1, MPI_DOUBLE, MPI_MAX, rs->comm);
  for (int p = 0; p < NPAT; p++)
    for (int i = 0; i < NMSG; i++) {
      double b = 0.0;
      for (int m = 0; m < NMETH; m++)
        for (int r = 0; r < NREP; r++)
          b = fmax(b, beff_pattern_bw(rs->rate[r][p][i][m], rs->all_msg0[p], rs->nsr0[p]));
      rs->b[p][i] = b;
    }
  return HK_SUCCESS;
}

static int run_set(hk_bench_ctx_t *c, run_set_t *rs, const long long *sizes, double factor,
                   long long lmax, int procs, int nodes)
{
  int local = HK_SUCCESS, err;
  mbuf_t mb = {0};
  if (rs->comm != MPI_COMM_NULL) {
    long long mmax = 1;
    for (int r = 0; rs->mult && r < rs->size; r++)
      mmax = rs->mult[r] > mmax ? rs->mult[r] : mmax;
    mb.len = ((lmax * mmax + 7) / 8 * 8 + 16) * MAXSR; /* the original's buffer, cycled */
    mb.sbuf = malloc((size_t)mb.len);
    mb.rbuf = malloc((size_t)mb.len);
    mb.scounts = calloc((size_t)rs->size * 4, sizeof(int));
    if (!mb.sbuf || !mb.rbuf || !mb.scounts)
      local = hk_error_set(HK_ERR_NOMEM, "no memory for two %lld-byte buffers", mb.len);
    else {
      mb.rcounts = mb.scounts + rs->size;
      mb.sdispls = mb.rcounts + rs->size;
      mb.rdispls = mb.sdispls + rs->size;
      memset(mb.sbuf, 0, (size_t)mb.len);
      memset(mb.rbuf, 0, (size_t)mb.len);
      local = beff_make_patterns(rs, opt_seed);
    }
    if ((local = hk_agree(rs->comm, local)) == HK_SUCCESS)
      local = measure_set(rs, sizes, factor, &mb);
  }
  int e2 = hk_bench_idle_barrier(c->comm);
  err = hk_agree(c->comm, local != HK_SUCCESS ? local : e2);
  free(mb.sbuf);
  free(mb.rbuf);
  free(mb.scounts);
  if (rs->cyc_comm != MPI_COMM_NULL)
    MPI_Comm_free(&rs->cyc_comm);
  if (err != HK_SUCCESS)
    return err;
  /* rank 0 of ctx->comm is rank 0 of rs->comm and writes the records */
  beff_numbers_t x;
  beff_numbers(rs, &x);
  if ((err = beff_emit_sizes(c, rs, sizes, &x)) != HK_SUCCESS ||
      (err = beff_emit_patterns(c, rs)) != HK_SUCCESS)
    return err; /* agreed by the emits */
  return beff_emit_summary(c, rs, &x, procs, nodes, lmax);
}

static int parse_one_size(const char *opt, const char *spec, long long *v)
{
  long long a, b;
  if (hk_bench_parse_sizes(spec, &a, &b) != HK_SUCCESS || a != b)
    return hk_error_set(HK_ERR_ARG, "--%s %s: one positive byte count with an optional K, M "
                                    "or G suffix", opt, spec);
  *v = b;
  return HK_SUCCESS;
}

static int run(hk_bench_ctx_t *c)
{
  int err = HK_SUCCESS, local = HK_SUCCESS;
  hk_nodes_info_t ni;
  hk_nodes_info(c->nodes, &ni);
  long long lmax = 0, memory = 0, a = 0;
  const char *from = "--lmax";
  if (opt_lmax) {
    local = parse_one_size("lmax", opt_lmax, &lmax);
  } else if (c->common->sizes) {
    from = "the maximum of -m";
    local = hk_bench_parse_sizes(c->common->sizes, &a, &lmax);
  } else {
    if (opt_memory) {
      from = "--memory / 128";
      local = parse_one_size("memory", opt_memory, &memory);
    } else {
      from = "the node's memory / its ranks / 128";
      memory = (long long)sysconf(_SC_PHYS_PAGES) * (long long)sysconf(_SC_PAGESIZE) /
               (ni.local_size > 0 ? ni.local_size : 1);
    }
    lmax = beff_lmax_of_memory(memory);
  }
  /* every rank uses the same sizes: the smallest Lmax (nodes may differ in memory or ranks) */
  MPI_Allreduce(MPI_IN_PLACE, &lmax, 1, MPI_LONG_LONG, MPI_MIN, c->comm);
  if (local == HK_SUCCESS && lmax < 4096)
    local = hk_error_set(HK_ERR_ARG, "Lmax %lld (from %s) is below 4K: the original's sizes "
                                     "double from 1 B to 4 KiB before Lmax", lmax, from);
  if (local == HK_SUCCESS && !(opt_time_per_loop > 0.0))
    local = hk_error_set(HK_ERR_ARG, "--time-per-loop %g: must be positive", opt_time_per_loop);
  long long maxmsg = lmax * (opt_compare_hybrid ? ni.max_local_size : 1);
  if (local == HK_SUCCESS && (maxmsg + 24) * MAXSR > INT_MAX) /* displacements are ints */
    local = hk_error_set(HK_ERR_ARG, "messages of %lld bytes are too large: %d of them must fit "
                         "an int displacement", maxmsg, MAXSR);
  if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
    return err;
  long long sizes[NMSG];
  double factor = beff_sizes(lmax, sizes);
  hk_reporter_config(c->rep, "beff sizes", "1 B to 4 KiB doubling, then x %.4f to Lmax = %lld "
                     "bytes (%s)", factor, lmax, from);
  hk_reporter_config(c->rep, "beff patterns", "%d rings, %d random rings, 3D-cyclic; methods "
                     "Sendrecv, Alltoallv, Irecv+Isend; best of %d repetitions; %.3g s per loop",
                     NRING, NRAND, NREP, opt_time_per_loop);

  run_set_t *mpp = calloc(1, sizeof *mpp), *hyb = calloc(1, sizeof *hyb);
  int *mult = NULL, ppn = ni.local_size;
  local = mpp && hyb ? HK_SUCCESS : hk_error_set(HK_ERR_NOMEM, "no memory for the results");
  if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
    goto done;
  *mpp = (run_set_t){.comm = c->comm, .rank = c->rank, .size = c->size, .name = "mpp",
                     .cyc_comm = MPI_COMM_NULL};
  *hyb = (run_set_t){.comm = MPI_COMM_NULL, .name = "hybrid", .cyc_comm = MPI_COMM_NULL};
  err = run_set(c, mpp, sizes, factor, lmax, c->size, ni.nnodes);
  if (err != HK_SUCCESS || !opt_compare_hybrid)
    goto done;
  if (ni.nnodes < 2)
    hk_reporter_config(c->rep, "compare-hybrid",
                       "one node: the hybrid run has a single leader that exchanges with "
                       "itself only (degenerate; use real nodes, HK_NODE_SIZE or tools/vcluster)");
  else
    hk_reporter_config(c->rep, "compare-hybrid", "%d node leaders, messages of L x ranks on "
                       "the sending node (%d%s)", ni.nnodes, ni.max_local_size,
                       ni.max_local_size == ni.local_size ? "" : " at most");
  if (MPI_Comm_split(c->comm, ni.local_rank == 0 ? 0 : MPI_UNDEFINED, c->rank, &hyb->comm) !=
      MPI_SUCCESS)
    local = hk_error_set(HK_ERR_MPI, "splitting the node leaders off failed");
  if (local == HK_SUCCESS && hyb->comm != MPI_COMM_NULL) {
    MPI_Comm_rank(hyb->comm, &hyb->rank);
    MPI_Comm_size(hyb->comm, &hyb->size);
    mult = malloc((size_t)hyb->size * sizeof *mult);
    if (!mult)
      local = hk_error_set(HK_ERR_NOMEM, "no memory for %d node sizes", hyb->size);
    else if (MPI_Allgather(&ppn, 1, MPI_INT, mult, 1, MPI_INT, hyb->comm) != MPI_SUCCESS)
      local = hk_error_set(HK_ERR_MPI, "gathering the node sizes failed");
    hyb->mult = mult;
  }
  if ((err = hk_agree(c->comm, local)) != HK_SUCCESS)
    goto done;
  if ((err = run_set(c, hyb, sizes, factor, lmax, ni.nnodes, ni.nnodes)) != HK_SUCCESS)
    goto done;
  /* rank 0 is a leader (the lowest rank of node 0): its results count */
  beff_numbers_t xm, xh;
  beff_numbers(mpp, &xm);
  beff_numbers(hyb, &xh);
  err = beff_emit_compare(c, &xm, &xh, ni.nnodes);
done:
  free(mult);
  if (hyb && hyb->comm != MPI_COMM_NULL)
    MPI_Comm_free(&hyb->comm);
  free(mpp);
  free(hyb);
  return err;
}

const hk_experiment_t hk_exp_beff = {
  .name = "beff",
  .summary = "effective bandwidth b_eff as the original defines it; 3D-cyclic; MPP vs hybrid",
  .description =
      "Rabenseifner & Koniges' effective bandwidth b_eff, computed as HLRS b_eff 3.6.0.1 does.\n"
      "Sizes: 1 B to 4 KiB doubling, then 8 geometric steps to Lmax (memory per process / 128;\n"
      "--lmax, the maximum of -m, or --memory).  Patterns: 6 rings of about 2, 4, 8, n/4, n/2\n"
      "and n ranks, 30 random rings, and the 3D-cyclic grid.  Methods: Sendrecv, Alltoallv,\n"
      "Irecv+Isend+Waitall; loops sized so all patterns of a method take --time-per-loop s;\n"
      "3 repetitions.  b(pattern, L) = best method and repetition of the slowest process's\n"
      "rate x the pattern's messages / its messages per process; b_eff = logavg(logavg of the\n"
      "rings' means over L, logavg of the random rings' means over L); b_eff at Lmax likewise\n"
      "at Lmax; 3D-cyclic = its mean over L and its value at Lmax; all in MB/s = 1e6 B/s, in\n"
      "total, per process and per node.  --compare-hybrid repeats it masteronly on the node\n"
      "leaders with L x ranks-per-node messages: T_hybrid/T_MPP = b_MPP/b_hybrid per node\n"
      "(EuroPVM/MPI 2002).  Every message is checked.  A default run takes ~100 s; -i and\n"
      "-x do not apply (the original's loop lengths), -m gives Lmax by its maximum.",
  .default_sizes = NULL,
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = beff_opts,
  .nopts = (int)(sizeof beff_opts / sizeof beff_opts[0]),
  .run = run,
};
