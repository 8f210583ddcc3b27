/* bench/beff_measure.c: the measurement of one b_eff run set on its members (see beff.c):
 * every pattern and method at every size, with the original's loop lengths (a pass of 10
 * loops at 1 B, then each size's loop length scaled from the one before so that all
 * patterns of a method take --time-per-loop seconds; the two largest sizes shortened when
 * they would take more than 60 s), 3 repetitions, stamps checked after every loop and
 * every byte of one more loop; then the slowest rank's rates and b(pattern, L). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "beff.h"

static const double max_for_last_two = 60.0; /* seconds, the original's MAX_FOR_LAST_TWO */
static const double posinf = 1e30;

static unsigned char stamp(int sender, int k, int loop, int which)
{
  return (unsigned char)(sender * 7 + k * 13 + loop * 3 + which * 101 + 1);
}

/* one loop of pattern p with method m; `check`: messages hk_bench_fill'ed
 * and checked whole, else stamped and checked at both ends */
static int one_loop(const run_set_t *rs, const pattern_t *p, int m, long long L, int loop,
                    int check, mbuf_t *mb, long long *bad)
{
  int me, err = HK_SUCCESS;
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
    for (int k = 0; k < p->nsr; k++) {
      long long rl = L * (rs->mult ? rs->mult[p->src[k]] : 1);
      HK_TRY(err, hk_bench_mpi(MPI_Sendrecv(mb->sbuf + off[k], (int)slen, MPI_BYTE, p->dst[k], k,
                                            mb->rbuf + off[k], (int)rl, MPI_BYTE, p->src[k], k,
                                            p->comm, MPI_STATUS_IGNORE), "MPI_Sendrecv of b_eff"));
    }
    break;
  case M_ALLTOALLV:
    for (int k = 0; k < p->nsr; k++) {
      mb->scounts[p->dst[k]] = (int)slen;
      mb->sdispls[p->dst[k]] = (int)off[k];
      mb->rcounts[p->src[k]] = (int)(L * (rs->mult ? rs->mult[p->src[k]] : 1));
      mb->rdispls[p->src[k]] = (int)off[k];
    }
    int rc = MPI_Alltoallv(mb->sbuf, mb->scounts, mb->sdispls, MPI_BYTE, mb->rbuf, mb->rcounts,
                           mb->rdispls, MPI_BYTE, p->comm);
    for (int k = 0; k < p->nsr; k++) /* the counts are zero again, whatever the error */
      mb->scounts[p->dst[k]] = mb->sdispls[p->dst[k]] = mb->rcounts[p->src[k]] =
          mb->rdispls[p->src[k]] = 0;
    HK_TRY(err, hk_bench_mpi(rc, "MPI_Alltoallv of b_eff"));
    break;
  default:
    for (int k = 0; k < p->nsr; k++) {
      long long rl = L * (rs->mult ? rs->mult[p->src[k]] : 1);
      HK_TRY(err, hk_bench_mpi(MPI_Irecv(mb->rbuf + off[k], (int)rl, MPI_BYTE, p->src[k], k,
                                         p->comm, &req[nreq++]), "MPI_Irecv of b_eff"));
      HK_TRY(err, hk_bench_mpi(MPI_Isend(mb->sbuf + off[k], (int)slen, MPI_BYTE, p->dst[k], k,
                                         p->comm, &req[nreq++]), "MPI_Isend of b_eff"));
    }
    HK_TRY(err, hk_bench_mpi(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE), "MPI_Waitall of b_eff"));
  }
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
cleanup:
  return err;
}

/* loops of pattern p with method m: seconds of the timed loops on this rank */
static int time_loops(const run_set_t *rs, const pattern_t *p, int m, long long L, int loops,
                   int pre, mbuf_t *mb, double *t, long long *bad)
{
  int err = HK_SUCCESS;
  double t0 = MPI_Wtime();
  *t = 0.0;
  for (int i = pre ? -1 : 0; i < loops; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    HK_TRY(err, one_loop(rs, p, m, L, i, 0, mb, bad));
  }
  *t = MPI_Wtime() - t0;
  /* untimed: every byte of one more loop checked */
  HK_TRY(err, one_loop(rs, p, m, L, loops, 1, mb, bad));
cleanup:
  return err;
}

/* the original's loop length for size index i, repetition r, method m, on rank 0 */
typedef struct looptime {
  double comm_time[NMSG][NREP][NMETH]; /* rank 0's seconds, all patterns */
  double min_time[NMSG][NREP][NMETH];  /* its shortest pattern */
  int max_loops[NMETH];
  double time_per_loop;                /* --time-per-loop: seconds of all patterns of a method */
} looptime_t;

static int loop_length(run_set_t *rs, looptime_t *lt, int i, int r, int m, int pre,
                       double factor)
{
  double tpl = lt->time_per_loop;
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

/* what the measurement loop of a run set decides on its way: which (pattern, method)
 * pairs to measure at each size, the best method of the shortened sizes, repetitions */
typedef struct mstate {
  looptime_t lt;
  int measure[NREP][NPAT][NMSG][NMETH];
  int best[NREP][NPAT], reps[NMSG];
} mstate_t;

static void mstate_init(run_set_t *rs, mstate_t *ms)
{
  for (int i = 0; i < NMSG; i++)
    ms->reps[i] = NREP;
  for (int r = 0; r < NREP; r++)
    for (int p = 0; p < NPAT; p++) {
      ms->best[r][p] = -1;
      for (int i = 0; i < NMSG; i++)
        for (int m = 0; m < NMETH; m++) {
          ms->measure[r][p][i][m] = 1;
          rs->rate[r][p][i][m] = 0.0;
        }
    }
  for (int i = 0; i < NMSG; i++)
    for (int r = 0; r < NREP; r++)
      for (int m = 0; m < NMETH; m++) {
        ms->lt.min_time[i][r][m] = posinf;
        rs->loops[i][r][m] = 0;
      }
}

/* shortlasttwo: sizes i and i+1 run the best method of the size before (by rank 0's
 * rates) only, once, size i+1 in MINREP repetitions.  Collective: rs->comm. */
static void shortlasttwo(run_set_t *rs, mstate_t *ms, int r, int i)
{
  if (rs->rank == 0)
    for (int p = 0; p < NPAT; p++) {
      ms->best[r][p] = 0;
      for (int m = 1; m < NMETH; m++)
        if (ms->measure[r][p][i - 1][m] &&
            rs->rate[r][p][i - 1][m] >= rs->rate[r][p][i - 1][ms->best[r][p]])
          ms->best[r][p] = m;
    }
  MPI_Bcast(ms->best[r], NPAT, MPI_INT, 0, rs->comm);
  ms->reps[i + 1] = MINREP;
  for (int m = 0; m < NMETH; m++) {
    rs->loops[i][r][m] = 1;
    rs->loops[i + 1][r][m] = r < ms->reps[i + 1] ? 1 : 0;
    for (int p = 0; p < NPAT; p++) {
      ms->measure[r][p][i][m] = ms->best[r][p] == m;
      ms->measure[r][p][i + 1][m] = ms->best[r][p] == m && r < ms->reps[i + 1];
    }
  }
}

/* every pattern and method to measure at size index i in repetition r.  Collective:
 * rs->comm (a barrier before each); a local error skips the rest of this rank's loops */
static int measure_size(run_set_t *rs, mstate_t *ms, int r, int i, long long L, mbuf_t *mb,
                        long long *bad)
{
  int err = HK_SUCCESS;
  for (int p = 0; p < NPAT; p++) {
    const pattern_t *pt = &rs->pat[p];
    for (int m = 0; m < NMETH; m++) {
      if (!ms->measure[r][p][i][m])
        continue;
      int barrier = hk_bench_mpi(MPI_Barrier(rs->comm), "a barrier of the b_eff measurement");
      HK_LOCAL(err, barrier);
      if (pt->comm == MPI_COMM_NULL) {
        rs->rate[r][p][i][m] = posinf; /* not taking part: neutral in the minimum */
        continue;
      }
      double t = 0.0;
      int loops = rs->loops[i][r][m];
      HK_LOCAL(err, time_loops(rs, pt, m, L, loops, i < WITH_PRELOOPS, mb, &t, bad));
      ms->lt.comm_time[i][r][m] += t;
      ms->lt.min_time[i][r][m] = fmin(ms->lt.min_time[i][r][m], t);
      long long sent = L * (rs->mult ? rs->mult[rs->rank] : 1);
      rs->rate[r][p][i][m] = t > 0 ? (double)sent * loops * pt->nsr / t : posinf;
    }
    if (ms->best[r][p] >= 0)
      for (int m = 0; m < NMETH; m++)
        rs->rate[r][p][i][m] = rs->rate[r][p][i][ms->best[r][p]];
  }
  return err;
}

/* size index i of repetition r: rank 0's loop lengths, then the measurement.
 * Collective: rs->comm; the error is local */
static int one_size(run_set_t *rs, mstate_t *ms, int r, int i, int pre, double factor, long long L,
                    mbuf_t *mb, long long *bad)
{
  if (rs->rank == 0)
    for (int m = 0; m < NMETH; m++)
      rs->loops[i][r][m] = loop_length(rs, &ms->lt, i, r, m, pre, factor);
  MPI_Bcast(rs->loops[i][r], NMETH, MPI_INT, 0, rs->comm);
  int minloops = PRE_MSG_LOOPS;
  for (int m = 0; m < NMETH; m++)
    minloops = rs->loops[i][r][m] < minloops ? rs->loops[i][r][m] : minloops;
  if (minloops == 0 && i + 1 < NMSG)
    shortlasttwo(rs, ms, r, i);
  int err = measure_size(rs, ms, r, i, L, mb, bad);
  for (int m = 0; m < NMETH; m++)
    if (ms->lt.min_time[i][r][m] == posinf)
      ms->lt.min_time[i][r][m] = 0.0;
  return err;
}

/* the slowest rank's rates, b(pattern, L) the best over methods and repetitions.
 * Collective: rs->comm; errors agreed */
static int reduce_set(run_set_t *rs, long long bad)
{
  int err = HK_SUCCESS;
  long long badall = 0;
  MPI_Allreduce(&bad, &badall, 1, MPI_LONG_LONG, MPI_SUM, rs->comm);
  if (badall) /* the same sum on every rank: agreed */
    return hk_error_set(HK_ERR_STATE, "beff %s: %lld wrong bytes received", rs->name, badall);
  HK_LOCAL(err, hk_bench_mpi(MPI_Allreduce(MPI_IN_PLACE, rs->rate, NREP * NPAT * NMSG * NMETH,
                                           MPI_DOUBLE, MPI_MIN, rs->comm),
                             "reducing the bandwidths"));
  MPI_Allreduce(MPI_IN_PLACE, &rs->elapsed, 1, MPI_DOUBLE, MPI_MAX, rs->comm);
  HK_AGREE(err, rs->comm);
  for (int p = 0; p < NPAT; p++)
    for (int i = 0; i < NMSG; i++) {
      double b = 0.0;
      for (int m = 0; m < NMETH; m++)
        for (int r = 0; r < NREP; r++)
          b = fmax(b, beff_pattern_bw(rs->rate[r][p][i][m], rs->all_msg0[p], rs->nsr0[p]));
      rs->b[p][i] = b;
    }
cleanup:
  return err;
}

/* the measurement loop of one run set, on the ranks of rs->comm; errors agreed after
 * every size */
static int measure_set(run_set_t *rs, const long long *sizes, double factor, double tpl,
                       mbuf_t *mb)
{
  int err = HK_SUCCESS;
  long long bad = 0;
  mstate_t *ms = NULL;
  HK_ALLOC_LOCAL(err, ms, 1);
  HK_AGREE(err, rs->comm);
  mstate_init(rs, ms);
  ms->lt.time_per_loop = tpl;
  HK_LOCAL(err, hk_bench_mpi(MPI_Barrier(rs->comm), "the barrier before the measurement"));
  HK_AGREE(err, rs->comm);
  double t_all = MPI_Wtime();
  for (int r = 0; r < NREP; r++) {
    int pre = 1;
    for (int i = 0; i < NMSG; i++) {
      if (r >= ms->reps[i]) { /* the largest size, shortened: repetition 0's values */
        for (int p = 0; p < NPAT; p++)
          for (int m = 0; m < NMETH; m++)
            rs->rate[r][p][i][m] = rs->rate[0][p][i][m];
        continue;
      }
      int size_err = one_size(rs, ms, r, i, pre, factor, sizes[i], mb, &bad); /* every rank */
      HK_LOCAL(err, size_err);
      HK_AGREE(err, rs->comm);
      if (pre) { /* the pass of 10 loops at 1 B done: now every size */
        pre = 0;
        i = -1;
      }
    }
  }
  rs->elapsed = MPI_Wtime() - t_all;
  HK_TRY(err, reduce_set(rs, bad));
cleanup:
  free(ms);
  return err;
}

int beff_measure(run_set_t *rs, const long long *sizes, double factor, long long lmax,
                 double time_per_loop, int seed, mbuf_t *mb)
{
  int err = HK_SUCCESS;
  long long mmax = 1;
  for (int r = 0; rs->mult && r < rs->size; r++)
    mmax = rs->mult[r] > mmax ? rs->mult[r] : mmax;
  mb->len = ((lmax * mmax + 7) / 8 * 8 + 16) * MAXSR; /* the original's buffer, cycled */
  HK_ALLOC_LOCAL(err, mb->sbuf, mb->len);
  HK_ALLOC_LOCAL(err, mb->rbuf, mb->len);
  HK_ALLOC_LOCAL(err, mb->scounts, 4LL * rs->size);
  HK_AGREE(err, rs->comm);
  mb->rcounts = mb->scounts + rs->size;
  mb->sdispls = mb->rcounts + rs->size;
  mb->rdispls = mb->sdispls + rs->size;
  HK_LOCAL(err, beff_make_patterns(rs, seed));
  HK_AGREE(err, rs->comm);
  HK_TRY(err, measure_set(rs, sizes, factor, time_per_loop, mb));
cleanup:
  return err;
}

