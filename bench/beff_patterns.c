/* bench/beff_patterns.c: the communication patterns of b_eff (see beff.c), each a list
 * of ping-pong pairs (send to dst[k], receive from src[k]):
 *   6 rings   rings of about 2, 4, 8, max(16, n/4), max(32, n/2) and n ranks, cut
 *             from the rank order as the original cuts them
 *   30 random a ring through a random permutation of the ranks
 *   3D-cyclic both neighbours in each dimension of extent > 1 of a periodic 3D
 *             grid of the largest rank count the original accepts (not in b_eff)
 * A pong whose destination is its ping's (a ring of 2, a dimension of 2) is
 * dropped, with its messages, as the original does. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "beff.h"

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
int beff_make_patterns(run_set_t *rs, int seed)
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
  unsigned long long s = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(unsigned)seed;
  for (int r = 0; r < NRAND; r++) {
    if (me == 0) {
      for (int i = 0; i < n; i++)
        order[i] = i;
      for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(rng_next(&s) % (unsigned long long)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
    if (MPI_Bcast(order, n, MPI_INT, 0, rs->comm) != MPI_SUCCESS) {
      err = hk_error_set(HK_ERR_MPI, "broadcast of a random permutation failed");
      break;
    }
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

