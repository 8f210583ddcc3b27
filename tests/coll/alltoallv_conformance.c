/* tests/coll/alltoallv_conformance.c: hk_alltoallv against this program's own arithmetic
 * (issue 39).
 *
 * For each algorithm forced through the options (auto, mpi, chunked, chunked-shifted,
 * hierarchical; min_bytes 1 so every message is a candidate and the ranks agree):
 *
 *   counts     per pair (i sends j): all n; unequal with zeros (0 when (i + 2j) % 3 == 1,
 *              else n + 5i + 3j: what i sends j differs from what j sends i); symmetric
 *              with zeros (0 when (i + j) % 3 == 1, else n + 2(i + j): in place needs
 *              it); n in 0, 1, 7, 1001, 65537 (65537: unequal / symmetric only)
 *   layout     send blocks in reverse rank order with gaps of 2 elements, receive blocks
 *              in rank order with gaps of 3 (gaps and the derived types' holes keep
 *              their sentinel)
 *   types      MPI_INT, MPI_DOUBLE, a vector (ints 0, 1 of 3), send MPI_INT x 2c /
 *              receive contiguous(2 ints) x c (type sizes differ: fallback datatype on
 *              every rank); in place (symmetric counts) and not
 *   contexts   outside parallel regions, from the master thread of an active region
 *   info       the reason of every fallback certain from the inputs; the default
 *              (built-in threshold never) is `small` with no agreement; with
 *              HK_ALLTOALLV_MIN_BYTES=1 in the environment the defaults agree and
 *              decide as min_bytes 1 (auto: fallback model, or small with no element)
 *
 * usage: alltoallv_conformance [--level funneled|serialized|multiple]
 * Prints "alltoallv_conformance: N ranks, level L, M checks, 0 failed" and the fallbacks
 * seen on wrank 0; exit 1 on a wrong result.
 */
#include "check.h"

static const hk_allreduce_alg_t algs[] = {HK_ALLREDUCE_AUTO, HK_ALLREDUCE_MPI, HK_ALLREDUCE_CHUNKED,
                                          HK_ALLREDUCE_CHUNKED_SHIFTED, HK_ALLREDUCE_HIERARCHICAL};
#define NALGS 5

static tdesc_t d_int, d_double, d_vec, d_pair;

/* elements rank i sends rank j under pattern p */
static int pair_count(int p, long long n, int i, int j)
{
  if (p == 0)
    return (int)n;
  if (p == 1)
    return (i + 2 * j) % 3 == 1 ? 0 : (int)n + 5 * i + 3 * j;
  return (i + j) % 3 == 1 ? 0 : (int)n + 2 * (i + j);
}

/* item u of element e of the block src sends dst */
static long value(int src, int dst, long long e, int u, int salt)
{
  return (long)(((long long)src * 7919 + dst * 613 + e * 31 + u * 3 + salt) % 100003);
}

static void put_block(void *buf, const tdesc_t *d, long long at, long long n, int src, int dst,
                      int salt)
{
  for (long long e = 0; e < n; e++)
    for (int u = 0; u < d->used; u++)
      set_cell(buf, d->base, (at + e) * d->stride + d->first + u, value(src, dst, e, u, salt));
}

static int expected(hk_allreduce_alg_t alg, int same_size, long long maxc, MPI_Datatype st,
                    MPI_Datatype rt, int in_place)
{
  if (alg == HK_ALLREDUCE_MPI)
    return HK_FALLBACK_CHOSEN;
  if (wsize == 1)
    return HK_FALLBACK_ONE_RANK;
  if (maxc == 0)
    return HK_FALLBACK_SMALL;
  if (alg == HK_ALLREDUCE_AUTO)
    return HK_FALLBACK_MODEL;
  if (alg == HK_ALLREDUCE_HIERARCHICAL)
    return HK_FALLBACK_UNAVAILABLE;
  if (!same_size)
    return HK_FALLBACK_DATATYPE;
  if (level < MPI_THREAD_MULTIPLE)
    return HK_FALLBACK_THREAD_LEVEL;
  MPI_Aint lb, se = 0, re;
  MPI_Type_get_extent(rt, &lb, &re);
  if (!in_place)
    MPI_Type_get_extent(st, &lb, &se);
  long long g = gran_of(re) > gran_of(se ? se : re) ? gran_of(re) : gran_of(se ? se : re);
  long long units = (maxc + g - 1) / g;
  return (units < nthreads ? units : nthreads) < 2 ? HK_FALLBACK_ONE_THREAD : HK_FALLBACK_NONE;
}

static void check_info(hk_allreduce_alg_t alg, int err, const hk_allreduce_info_t *info, int want,
                       const char *what)
{
  const char *name = hk_allreduce_alg_name(alg);
  check(err == HK_SUCCESS, what, name, err);
  int ran_ok = (info->fallback == HK_FALLBACK_NONE) == (info->algorithm != HK_ALLREDUCE_MPI);
  check(ran_ok && (int)info->fallback == want, "info.fallback", name,
        info->fallback * 100 + want);
  if (want == HK_FALLBACK_NONE)
    check(info->algorithm == alg && info->threads >= 2, "info.algorithm", name, info->algorithm);
#pragma omp atomic
  seen[info->fallback]++;
}

/* send sd x (per x count), receive rd x count; opts NULL: the library's defaults */
static void alltoallv(hk_allreduce_alg_t alg, int use_opts, const tdesc_t *sd, const tdesc_t *rd,
                      int per, int p, long long n, int in_place, int salt)
{
  int P = wsize;
  int *sc = malloc(4 * (size_t)P * sizeof *sc), *sdsp = sc + P, *rc = sdsp + P, *rdsp = rc + P;
  long long maxc = 0, sat = 0, rat = 0;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < P; j++) {
      long long c = pair_count(p, n, i, j);
      maxc = c > maxc ? c : maxc;
    }
  if (per == 2)
    maxc *= 2; /* the send side's count (fallback datatype anyway) */
  for (int k = P - 1; k >= 0; k--) { /* send blocks in reverse order */
    sc[k] = pair_count(p, n, wrank, k) * per;
    sdsp[k] = (int)sat;
    sat += sc[k] + 2;
  }
  for (int j = 0; j < P; j++) {
    rc[j] = pair_count(p, n, j, wrank);
    rdsp[j] = (int)rat;
    rat += rc[j] + 3;
  }
  const tdesc_t *id = in_place ? rd : sd;
  long long scells = sat * id->stride, rcells = rat * rd->stride;
  void *sbuf = malloc((size_t)(scells + 1) * cell_size(id->base));
  void *rbuf = malloc((size_t)(rcells + 1) * cell_size(rd->base));
  for (long long c = 0; c < scells; c++)
    set_cell(sbuf, id->base, c, SENTINEL);
  for (long long c = 0; c < rcells; c++)
    set_cell(rbuf, rd->base, c, SENTINEL);
  for (int k = 0; k < P; k++) {
    if (in_place) /* block k of recvbuf holds what goes to k (counts symmetric) */
      put_block(rbuf, rd, rdsp[k], rc[k], wrank, k, salt);
    else if (per == 2) /* MPI_INT x 2c: the items one by one */
      for (long long i = 0; i < sc[k]; i++)
        set_cell(sbuf, 'i', sdsp[k] + i, value(wrank, k, i / 2, (int)(i % 2), salt));
    else
      put_block(sbuf, sd, sdsp[k], sc[k], wrank, k, salt);
  }
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = alg, .min_bytes = 1, .info = &info};
  hk_allreduce_opts_t dflt = HK_ALLREDUCE_OPTS_DEFAULT;
  dflt.info = &info;
  int err = hk_alltoallv(in_place ? MPI_IN_PLACE : sbuf, sc, sdsp, sd->t, rbuf, rc, rdsp, rd->t,
                         MPI_COMM_WORLD, use_opts ? &o : &dflt);
  char what[112];
  snprintf(what, sizeof what, "alltoallv %s->%s pattern %d n=%lld%s%s", sd->name, rd->name, p, n,
           in_place ? " in place" : "", use_opts ? "" : " defaults");
  /* the defaults: the environment's algorithm and threshold (1: every message agreed) */
  const char *env_min = getenv("HK_ALLTOALLV_MIN_BYTES");
  hk_allreduce_alg_t dalg = HK_ALLREDUCE_AUTO;
  int want = use_opts ? expected(alg, in_place || per == 1, maxc, sd->t, rd->t, in_place)
             : env_min && !strcmp(env_min, "1")
                 ? expected(dalg, in_place || per == 1, maxc, sd->t, rd->t, in_place)
                 : HK_FALLBACK_SMALL;
  check_info(use_opts ? alg : dalg, err, &info, want, what);
  long long bad = 0, cell = 0;
  for (int j = 0; j < P; j++) {
    for (; cell < (long long)rdsp[j] * rd->stride; cell++) /* the gap before block j */
      bad += get_cell(rbuf, rd->base, cell) != SENTINEL;
    for (long long e = 0; e < rc[j]; e++)
      for (int u = 0; u < rd->stride; u++, cell++) {
        int used = u >= rd->first && u < rd->first + rd->used;
        long want_v = used ? value(j, wrank, e, u - rd->first, salt) : SENTINEL;
        bad += get_cell(rbuf, rd->base, cell) != want_v;
      }
  }
  for (; cell < rcells; cell++)
    bad += get_cell(rbuf, rd->base, cell) != SENTINEL;
  check(bad == 0, what, hk_allreduce_alg_name(alg), bad);
  free(sbuf);
  free(rbuf);
  free(sc);
}

static const long long counts[] = {0, 1, 7, 1001, 65537};
#define NCOUNTS 5

static void suite(hk_allreduce_alg_t alg, int salt)
{
  for (int c = 0; c < NCOUNTS; c++)
    for (int p = 0; p < 3; p++) {
      long long n = counts[c];
      if (n == 65537 && p == 0)
        continue;
      for (int in_place = 0; in_place < 2; in_place++) {
        int s = salt + 7 * c + p;
        if (in_place && p != 2)
          continue; /* in place needs what i sends j == what j sends i */
        alltoallv(alg, 1, &d_int, &d_int, 1, p, n, in_place, s);
        alltoallv(alg, 1, &d_double, &d_double, 1, p, n, in_place, s);
        if (n < 65537) {
          alltoallv(alg, 1, &d_vec, &d_vec, 1, p, n, in_place, s);
          if (!in_place)
            alltoallv(alg, 1, &d_int, &d_pair, 2, p, n, 0, s);
        }
      }
    }
}

/* the master thread of an active parallel region calls (FUNNELED allows it) */
static void inside_parallel(hk_allreduce_alg_t alg)
{
#pragma omp parallel
#pragma omp master
  {
    check(omp_in_parallel() || omp_get_num_threads() == 1, "inside a parallel region", "-", 0);
    alltoallv(alg, 1, &d_int, &d_int, 1, 1, 4099, 0, 51);
    alltoallv(alg, 1, &d_double, &d_double, 1, 2, 4099, 1, 52);
  }
}

static void bad_arguments(void)
{
  int x = 0, y = 0, neg[64], zero[64] = {0};
  for (int j = 0; j < 64; j++)
    neg[j] = -1;
  check(hk_alltoallv(&x, zero, zero, MPI_INT, &y, NULL, zero, MPI_INT, MPI_COMM_WORLD, NULL) ==
            HK_ERR_ARG,
        "alltoallv recvcounts NULL: HK_ERR_ARG", "-", 0);
  check(hk_alltoallv(&x, neg, zero, MPI_INT, &y, zero, zero, MPI_INT, MPI_COMM_WORLD, NULL) ==
            HK_ERR_ARG,
        "alltoallv negative sendcount: HK_ERR_ARG", "-", 0);
  hk_error_clear();
}

int main(int argc, char **argv)
{
  ck_start(&argc, &argv, "alltoallv_conformance");
  MPI_Datatype v, pair;
  MPI_Type_vector(1, 2, 3, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 3 * sizeof(int), &d_vec.t);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&d_vec.t);
  MPI_Type_commit(&pair);
  MPI_Type_free(&v);
  d_int = (tdesc_t){MPI_INT, 'i', 1, 0, 1, 1, "int"};
  d_double = (tdesc_t){MPI_DOUBLE, 'd', 1, 0, 1, 1, "double"};
  d_vec = (tdesc_t){d_vec.t, 'i', 3, 0, 2, 0, "vector(2 of 3)"};
  d_pair = (tdesc_t){pair, 'i', 2, 0, 2, 1, "contiguous(2 int)"};

  for (int a = 0; a < NALGS; a++) {
    suite(algs[a], 10 * a);
    inside_parallel(algs[a]);
  }
  /* the defaults: PMPI_Alltoallv, fallback small, no agreement */
  alltoallv(HK_ALLREDUCE_AUTO, 0, &d_int, &d_int, 1, 1, 1001, 0, 77);
  alltoallv(HK_ALLREDUCE_AUTO, 0, &d_int, &d_int, 1, 2, 7, 1, 78);
  bad_arguments();

  MPI_Type_free(&d_vec.t);
  MPI_Type_free(&d_pair.t);
  return ck_finish();
}
