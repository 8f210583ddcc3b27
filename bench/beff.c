/* bench/beff.c: the effective bandwidth b_eff as the original defines it (HLRS
 * b_eff 3.6 / 3.6.0.1, Rabenseifner & Koniges, EuroPVM/MPI 2001), and its
 * masteronly-hybrid counterpart (Rabenseifner, EuroPVM/MPI 2002).
 *
 * Sizes: 21, the original's: 1 B, 2 B, ... 4 KiB doubling, then 8 geometric
 * steps up to Lmax = memory per process / 128 (beff_calc.c).
 * Patterns (each a list of ping-pong pairs: send to dst[k], receive from src[k]):
 *   6 rings   rings of about 2, 4, 8, max(16, n/4), max(32, n/2) and n ranks, cut
 *             from the rank order as the original cuts them
 *   30 random a ring through a random permutation of the ranks
 *   3D-cyclic both neighbours in each dimension of extent > 1 of a periodic 3D
 *             grid of the largest rank count the original accepts (not in b_eff)
 * A pong whose destination is its ping's (a ring of 2, a dimension of 2) is
 * dropped, with its messages, as the original does.
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
#include "bench.h"
#include "beff_calc.h"

enum {
  NMSG = BEFF_NMSG,
  NRING = 6,
  NRAND = 30,
  P_CYC = NRING + NRAND,
  NPAT = P_CYC + 1,
  NREP = 3,     /* the original's REPETITIONS */
  MINREP = 2,   /* MIN_REPETITIONS, for the largest size when shortened */
  NMETH = 3,
  MAXSR = 6,
  PRE_MSG_LOOPS = 10,
  WITH_PRELOOPS = 18, /* one untimed loop before the timed ones below this size index */
};
enum { M_SENDRECV, M_ALLTOALLV, M_NONBLK };
static const char *const meth_names[NMETH] = {"sendrecv", "alltoallv", "nonblocking"};
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

typedef struct pattern {
  char name[24];
  MPI_Comm comm;                 /* MPI_COMM_NULL: this rank is not in the pattern */
  int nsr;                       /* pairs this rank sends (and receives) per loop */
  int dst[MAXSR], src[MAXSR];    /* ranks in comm */
  long long cnt[MAXSR];          /* messages of this pair in the whole pattern */
  long long all_msg;             /* messages of the pattern, as this rank counts them */
} pattern_t;

typedef struct run_set {
  MPI_Comm comm;     /* the measured communicator (MPI_COMM_NULL: not taking part) */
  int rank, size;
  const int *mult;   /* bytes multiplier of each rank's messages (NULL: 1) */
  const char *name;  /* "mpp" or "hybrid" */
  MPI_Comm cyc_comm; /* the 3D grid's ranks */
  int cyc_dims[3];
  pattern_t pat[NPAT];
  long long all_msg0[NPAT];
  int nsr0[NPAT];
  double rate[NREP][NPAT][NMSG][NMETH]; /* this rank's bytes sent / s, then the min */
  int loops[NMSG][NREP][NMETH];
  double b[NPAT][NMSG];                 /* bytes/s of the whole pattern */
  double elapsed;                       /* seconds of the measurement loop */
} run_set_t;

/* what one run set needs while measuring */
typedef struct mbuf {
  unsigned char *sbuf, *rbuf;
  long long len, base;
  int *scounts, *rcounts, *sdispls, *rdispls;
} mbuf_t;

static unsigned long long rng_next(unsigned long long *s)
{
  /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static void add_pingpong(pattern_t *p, int next, int prev, long long cnt)
{
  p->dst[p->nsr] = next; /* ping */
  p->src[p->nsr] = prev;
  p->cnt[p->nsr++] = cnt;
  p->dst[p->nsr] = prev; /* pong */
  p->src[p->nsr] = next;
  p->cnt[p->nsr++] = cnt;
  p->all_msg += 2 * cnt;
}

/* the original's ring cut: `rings` rings of two sizes differing by one, the
 * odd-sized ones first when there are both */
static void ring_pattern(pattern_t *p, int me, int n, int medium)
{
  medium = medium < n ? medium : n;
  int rings = (int)(1.0 * n / medium + 0.4);
  rings = rings < n / 2 ? rings : n / 2;
  rings = rings > 1 ? rings : 1;
  int lo = n / rings, hi_count = n - lo * rings, lo_count = rings - hi_count;
  int s1 = lo, s2 = lo + 1, c1 = lo_count, c2 = hi_count;
  if (lo % 2 && hi_count > 0) {
    s1 = lo + 1;
    s2 = lo;
    c1 = hi_count;
    c2 = lo_count;
  }
  snprintf(p->name, sizeof p->name, "ring-%d*%d%s", rings, s1,
           c2 == 0 ? "fix" : s2 > s1 ? "&+1" : "&-1");
  int size, base;
  if (me < c1 * s1) {
    size = s1;
    base = me / s1 * s1;
  } else {
    size = s2;
    base = (me - c1 * s1) / s2 * s2 + c1 * s1;
  }
  add_pingpong(p, (me - base + 1) % size + base, (me - base + size - 1) % size + base, n);
}

/* drop every pong that goes where its ping goes (one message between two
 * ranks per direction, as one Alltoallv can carry), with its messages */
static void drop_double_pongs(pattern_t *p)
{
  for (int k = p->nsr - 2; k >= 0; k -= 2) {
    if (p->dst[k] != p->dst[k + 1])
      continue;
    p->all_msg -= p->cnt[k];
    for (int j = k + 2; j < p->nsr; j++) {
      p->dst[j - 1] = p->dst[j];
      p->src[j - 1] = p->src[j];
      p->cnt[j - 1] = p->cnt[j];
    }
    p->nsr--;
  }
}

/* every pattern; collective over rs->comm */
static int make_patterns(run_set_t *rs)
{
  int n = rs->size, me = rs->rank, err = HK_SUCCESS;
  const int medium[NRING] = {2, 4, 8, n / 4 > 16 ? n / 4 : 16, n / 2 > 32 ? n / 2 : 32, n};
  for (int i = 0; i < NRING; i++) {
    rs->pat[i].comm = rs->comm;
    ring_pattern(&rs->pat[i], me, n, medium[i]);
  }
  int *order = malloc((size_t)n * sizeof *order);
  if (!order)
    return hk_error_set(HK_ERR_NOMEM, "no memory for a permutation of %d ranks", n);
  unsigned long long s = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(unsigned)opt_seed;
  for (int r = 0; r < NRAND && err == HK_SUCCESS; r++) {
    if (me == 0) {
      for (int i = 0; i < n; i++)
        order[i] = i;
      for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(rng_next(&s) % (unsigned long long)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
    if (MPI_Bcast(order, n, MPI_INT, 0, rs->comm) != MPI_SUCCESS)
      err = hk_error_set(HK_ERR_MPI, "broadcast of a random permutation failed");
    int pos = 0;
    for (int i = 0; i < n; i++)
      pos = order[i] == me ? i : pos;
    pattern_t *p = &rs->pat[NRING + r];
    p->comm = rs->comm;
    snprintf(p->name, sizeof p->name, "random-%02d", r);
    add_pingpong(p, order[(pos + 1) % n], order[(pos + n - 1) % n], n);
  }
  free(order);
  if (err != HK_SUCCESS)
    return err;
  /* 3D-cyclic: the largest rank count whose MPI_Dims_create grid has a last
   * dimension > 1, or is even below 8, or is below 4 (the original's rule) */
  int cs = n + 1, *dims = rs->cyc_dims;
  do {
    cs--;
    dims[0] = dims[1] = dims[2] = 0;
    MPI_Dims_create(cs, 3, dims);
  } while (!(dims[2] > 1 || (cs < 8 && cs % 2 == 0) || cs < 4));
  if (MPI_Comm_split(rs->comm, me < cs ? 0 : MPI_UNDEFINED, me, &rs->cyc_comm) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "splitting off the 3D grid's ranks failed");
  pattern_t *p = &rs->pat[P_CYC];
  snprintf(p->name, sizeof p->name, "cyclic-3dim-all");
  p->comm = rs->cyc_comm;
  if (me < cs) {
    int c[3] = {me / (dims[1] * dims[2]), me / dims[2] % dims[1], me % dims[2]};
    for (int d = 0; d < 3; d++) {
      if (dims[d] < 2)
        continue;
      int cp[3] = {c[0], c[1], c[2]}, cm[3] = {c[0], c[1], c[2]};
      cp[d] = (c[d] + 1) % dims[d];
      cm[d] = (c[d] + dims[d] - 1) % dims[d];
      add_pingpong(p, (cp[0] * dims[1] + cp[1]) * dims[2] + cp[2],
                   (cm[0] * dims[1] + cm[1]) * dims[2] + cm[2], cs);
    }
    if (p->nsr == 0) /* a single rank (one node leader): it exchanges with itself */
      add_pingpong(p, me, me, 1);
  }
  for (int i = 0; i < NPAT; i++)
    drop_double_pongs(&rs->pat[i]);
  /* the original computes b from rank 0's accounting */
  for (int i = 0; i < NPAT; i++) {
    rs->all_msg0[i] = rs->pat[i].all_msg;
    rs->nsr0[i] = rs->pat[i].nsr;
  }
  if (MPI_Bcast(rs->all_msg0, NPAT, MPI_LONG_LONG, 0, rs->comm) != MPI_SUCCESS ||
      MPI_Bcast(rs->nsr0, NPAT, MPI_INT, 0, rs->comm) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "broadcast of the pattern accounting failed");
  return HK_SUCCESS;
}

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
                        p->name, meth_names[m], L);
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
  for (int i = pre ? -1 : 0; i < loops && err == HK_SUCCESS; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    err = one_loop(rs, p, m, L, i, 0, mb, bad);
  }
  *t = MPI_Wtime() - t0;
  if (err == HK_SUCCESS) /* untimed: every byte of one more loop checked */
    err = one_loop(rs, p, m, L, loops, 1, mb, bad);
  return err;
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
  if (MPI_Barrier(rs->comm) != MPI_SUCCESS)
    err = hk_error_set(HK_ERR_MPI, "barrier before the %s measurement failed", rs->name);
  double t_all = MPI_Wtime();
  for (int r = 0; r < NREP && err == HK_SUCCESS; r++) {
    int pre = 1;
    for (int i = 0; i < NMSG && err == HK_SUCCESS; i++) {
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
      for (int p = 0; p < NPAT && err == HK_SUCCESS; p++) {
        const pattern_t *pt = &rs->pat[p];
        for (int m = 0; m < NMETH && err == HK_SUCCESS; m++) {
          if (!measure[r][p][i][m])
            continue;
          if (MPI_Barrier(rs->comm) != MPI_SUCCESS) {
            err = hk_error_set(HK_ERR_MPI, "barrier in the %s measurement failed", rs->name);
            break;
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
  rs->elapsed = MPI_Wtime() - t_all;
  free(lt);
  err = hk_agree(rs->comm, err);
  long long badall = 0;
  if (err == HK_SUCCESS)
    MPI_Allreduce(&bad, &badall, 1, MPI_LONG_LONG, MPI_SUM, rs->comm);
  if (err == HK_SUCCESS && badall)
    err = hk_error_set(HK_ERR_STATE, "beff %s: %lld wrong bytes received", rs->name, badall);
  if (err == HK_SUCCESS &&
      MPI_Allreduce(MPI_IN_PLACE, rs->rate, NREP * NPAT * NMSG * NMETH, MPI_DOUBLE, MPI_MIN,
                    rs->comm) != MPI_SUCCESS)
    err = hk_error_set(HK_ERR_MPI, "reducing the %s bandwidths failed", rs->name);
  if (err == HK_SUCCESS) {
    MPI_Allreduce(MPI_IN_PLACE, &rs->elapsed, 1, MPI_DOUBLE, MPI_MAX, rs->comm);
    for (int p = 0; p < NPAT; p++)
      for (int i = 0; i < NMSG; i++) {
        double b = 0.0;
        for (int m = 0; m < NMETH; m++)
          for (int r = 0; r < NREP; r++)
            b = fmax(b, beff_pattern_bw(rs->rate[r][p][i][m], rs->all_msg0[p], rs->nsr0[p]));
        rs->b[p][i] = b;
      }
  }
  return err;
}

/* the numbers of the original's summary, bytes/s for the whole run set */
typedef struct beff_numbers {
  double beff, beff_lmax, ring_lmax, cyc, cyc_lmax, latency;
  double ring, random, ring_at[NMSG], random_at[NMSG], beff_at[NMSG];
} beff_numbers_t;

static void numbers(const run_set_t *rs, beff_numbers_t *x)
{
  x->beff = beff_combine(&rs->b[0][0], NRING, NRAND, NMSG, -1, &x->ring, &x->random);
  for (int i = 0; i < NMSG; i++)
    x->beff_at[i] =
        beff_combine(&rs->b[0][0], NRING, NRAND, NMSG, i, &x->ring_at[i], &x->random_at[i]);
  x->beff_lmax = x->beff_at[NMSG - 1];
  x->ring_lmax = x->ring_at[NMSG - 1];
  x->cyc = beff_arith_mean(rs->b[P_CYC], NMSG);
  x->cyc_lmax = rs->b[P_CYC][NMSG - 1];
  /* the original's "Latency": 1 byte over b_eff at 1 byte per process */
  x->latency = x->beff_at[0] > 0 ? rs->size / x->beff_at[0] : 0.0;
}

static int emit_sizes(hk_bench_ctx_t *c, const run_set_t *rs, const long long *sizes,
                      const beff_numbers_t *x)
{
  static const char *const names[4] = {"ring", "random", "b_eff", "3d-cyclic"};
  int err = HK_SUCCESS;
  long long mmax = 1;
  for (int r = 0; rs->mult && r < rs->size; r++)
    mmax = rs->mult[r] > mmax ? rs->mult[r] : mmax;
  for (int k = 0; k < 4 && err == HK_SUCCESS; k++)
    for (int i = 0; i < NMSG && err == HK_SUCCESS; i++) {
      double v = k == 0 ? x->ring_at[i] : k == 1 ? x->random_at[i] : k == 2 ? x->beff_at[i]
                                                                               : rs->b[P_CYC][i];
      hk_record_t *rec = NULL;
      err = hk_record_create(c->rep, "bench.beff", &rec);
      if (err == HK_SUCCESS)
        err = hk_record_param_str(rec, "run", rs->name);
      if (err == HK_SUCCESS)
        err = hk_record_param_str(rec, "pattern", names[k]);
      if (err == HK_SUCCESS)
        err = hk_record_param_int(rec, "size", sizes[i]);
      if (err == HK_SUCCESS)
        err = hk_record_param_int(rec, "msg_bytes", sizes[i] * mmax);
      if (err == HK_SUCCESS)
        err = hk_record_param_int(rec, "loops", rs->loops[i][0][M_NONBLK]);
      if (err == HK_SUCCESS)
        err = hk_record_value(rec, "bandwidth", v / 1e6, "MB/s");
      if (err == HK_SUCCESS)
        err = hk_record_value(rec, "bandwidth_per_proc", v / rs->size / 1e6, "MB/s");
      if (err == HK_SUCCESS)
        err = hk_record_emit(&rec);
      hk_record_discard(&rec);
    }
  return err;
}

static int emit_patterns(hk_bench_ctx_t *c, const run_set_t *rs)
{
  int err = HK_SUCCESS;
  for (int p = 0; p < NPAT && err == HK_SUCCESS; p++) {
    /* which method was best at Lmax (repetition-best), for information */
    int bm = 0;
    double bv = 0.0;
    for (int m = 0; m < NMETH; m++)
      for (int r = 0; r < NREP; r++)
        if (rs->rate[r][p][NMSG - 1][m] > bv) {
          bv = rs->rate[r][p][NMSG - 1][m];
          bm = m;
        }
    double avg = beff_arith_mean(rs->b[p], NMSG);
    hk_record_t *rec = NULL;
    err = hk_record_create(c->rep, "bench.beff.pattern", &rec);
    if (err == HK_SUCCESS)
      err = hk_record_param_str(rec, "run", rs->name);
    if (err == HK_SUCCESS)
      err = hk_record_param_str(rec, "pattern", rs->pat[p].name);
    if (err == HK_SUCCESS)
      err = hk_record_param_int(rec, "messages", rs->all_msg0[p]);
    if (err == HK_SUCCESS)
      err = hk_record_param_str(rec, "best_at_lmax", meth_names[bm]);
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "bandwidth", avg / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "bandwidth_per_proc", avg / rs->size / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "bandwidth_lmax", rs->b[p][NMSG - 1] / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_emit(&rec);
    hk_record_discard(&rec);
  }
  return err;
}

static int emit_summary(hk_bench_ctx_t *c, const run_set_t *rs, const beff_numbers_t *x,
                        int procs, int nodes, long long lmax)
{
  static const char *const names[4] = {"b_eff", "b_eff_lmax", "cyclic3d", "cyclic3d_lmax"};
  const double v[4] = {x->beff, x->beff_lmax, x->cyc, x->cyc_lmax};
  hk_record_t *rec = NULL;
  char name[48];
  int err = hk_record_create(c->rep, "bench.beff.summary", &rec);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "run", rs->name);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "procs", procs);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "nodes", nodes);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "lmax", lmax);
  for (int i = 0; i < 4 && err == HK_SUCCESS; i++) {
    err = hk_record_value(rec, names[i], v[i] / 1e6, "MB/s");
    snprintf(name, sizeof name, "%s_per_proc", names[i]);
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, name, v[i] / procs / 1e6, "MB/s");
    snprintf(name, sizeof name, "%s_per_node", names[i]);
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, name, v[i] / nodes / 1e6, "MB/s");
  }
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "b_eff_lmax_ring", x->ring_lmax / 1e6, "MB/s");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "latency", x->latency * 1e6, "us");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "elapsed", rs->elapsed, "s");
  if (err == HK_SUCCESS)
    err = hk_record_emit(&rec);
  hk_record_discard(&rec);
  return err;
}

static int emit_compare(hk_bench_ctx_t *c, const beff_numbers_t *xm, const beff_numbers_t *xh,
                        int nodes)
{
  static const char *const names[4] = {"ring", "random", "3d-cyclic", "b_eff"};
  int err = HK_SUCCESS;
  for (int p = 0; p < 4 && err == HK_SUCCESS; p++) {
    const double ma[4] = {xm->ring, xm->random, xm->cyc, xm->beff};
    const double ha[4] = {xh->ring, xh->random, xh->cyc, xh->beff};
    const double ml[4] = {xm->ring_lmax, xm->random_at[NMSG - 1], xm->cyc_lmax, xm->beff_lmax};
    const double hl[4] = {xh->ring_lmax, xh->random_at[NMSG - 1], xh->cyc_lmax, xh->beff_lmax};
    hk_record_t *rec = NULL;
    err = hk_record_create(c->rep, "bench.beff.hybrid", &rec);
    if (err == HK_SUCCESS)
      err = hk_record_param_str(rec, "pattern", names[p]);
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_mpp_per_node", ma[p] / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_hybrid_per_node", ha[p] / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "t_hybrid_over_t_mpp", ma[p] / ha[p], "ratio");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_mpp_lmax_per_node", ml[p] / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "b_hybrid_lmax_per_node", hl[p] / nodes / 1e6, "MB/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "t_hybrid_over_t_mpp_lmax", ml[p] / hl[p], "ratio");
    if (err == HK_SUCCESS)
      err = hk_record_emit(&rec);
    hk_record_discard(&rec);
  }
  return err;
}

/* one run set, collective over ctx->comm: the ranks outside rs->comm sleep */
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
      local = make_patterns(rs);
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
  numbers(rs, &x);
  err = emit_sizes(c, rs, sizes, &x);
  if (err == HK_SUCCESS)
    err = emit_patterns(c, rs);
  if (err == HK_SUCCESS)
    err = emit_summary(c, rs, &x, procs, nodes, lmax);
  return err;
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
  err = run_set(c, hyb, sizes, factor, lmax, ni.nnodes, ni.nnodes);
  if (err == HK_SUCCESS) {
    /* rank 0 is a leader (the lowest rank of node 0): its results count */
    beff_numbers_t xm, xh;
    numbers(mpp, &xm);
    numbers(hyb, &xh);
    err = emit_compare(c, &xm, &xh, ni.nnodes);
  }
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
