/* src/spmv/matrix.c: where matrices come from: the generators (3D 7- and 27-point
 * Laplacians, a seeded random band matrix, the Holstein-Hubbard matrix of hh.c; the
 * Matrix Market reader is mm.c), and the serial reference product in the summation
 * order of hybridkit/spmv.h. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal/hk_ckd.h"
#include "spmv/spmv_internal.h"

void hk_spmv_crs_free(hk_spmv_crs_t *crs)
{
  if (!crs)
    return;
  free(crs->rowptr);
  free(crs->col);
  free(crs->val);
  memset(crs, 0, sizeof *crs);
}

void hk_spmv_block(long long n, int nprocs, int rank, long long *begin, int *count)
{
  long long q = n / nprocs, r = n % nprocs;
  *begin = rank * q + (rank < r ? rank : r);
  *count = (int)(q + (rank < r ? 1 : 0));
}

/* ---- generators ---- */
typedef enum { GEN_LAP7, GEN_LAP27, GEN_RANDOM, GEN_HH } gen_kind_t;
typedef struct gen {
  gen_kind_t kind;
  long long n;           /* grid edge (Laplacians) or rows (random) */
  long long nnz, band;   /* random */
  hk__spmv_hh_t hh;
} gen_t;

int hk__spmv_parse_ll(const char *s, char **end, long long *v)
{
  errno = 0;
  if (!isdigit((unsigned char)*s))
    return -1;
  *v = strtoll(s, end, 10);
  return errno ? -1 : 0;
}

static int parse_spec(const char *spec, gen_t *g)
{
  char *end = NULL;
  const char *arg;
  memset(g, 0, sizeof *g);
  if (!spec)
    return HK_ERROR(HK_ERR_ARG, "no matrix given");
  if (!strncmp(spec, "laplace3d:", 10) || !strncmp(spec, "laplace27:", 10)) {
    g->kind = !strncmp(spec, "laplace3d:", 10) ? GEN_LAP7 : GEN_LAP27;
    arg = spec + 10;
    if (hk__spmv_parse_ll(arg, &end, &g->n) || *end || g->n < 1 || g->n > 1290000)
      return HK_ERROR(HK_ERR_ARG, "'%s': expected %.10sN with a grid edge N >= 1", spec, spec);
    if (g->n * g->n * g->n > (1LL << 40))
      return HK_ERROR(HK_ERR_ARG, "'%s': N^3 rows is too many", spec);
    return HK_SUCCESS;
  }
  if (!strncmp(spec, "random:", 7)) {
    g->kind = GEN_RANDOM;
    arg = spec + 7;
    if (hk__spmv_parse_ll(arg, &end, &g->n) || *end != ',' || hk__spmv_parse_ll(end + 1, &end, &g->nnz) ||
        *end != ',' || hk__spmv_parse_ll(end + 1, &end, &g->band) || *end)
      return HK_ERROR(HK_ERR_ARG, "'%s': expected random:ROWS,NNZ,BW (three integers)", spec);
    if (g->n < 1 || g->nnz < 1 || g->nnz > 100000 || g->band < 0)
      return HK_ERROR(HK_ERR_ARG,
                      "'%s': ROWS >= 1, 1 <= NNZ <= 100000 non-zeros per row, bandwidth BW >= 0",
                      spec);
    /* a row holds the columns within BW of the diagonal: 2 BW + 1 in the middle of the
     * matrix, fewer towards its ends (as the Laplacians' boundary rows) */
    long long most = g->band > (g->n - 1) / 2 ? g->n : 2 * g->band + 1;
    if (g->nnz > most)
      return HK_ERROR(HK_ERR_ARG, "'%s': NNZ %lld non-zeros per row: at most %lld for ROWS %lld "
                      "and BW %lld (the 2 BW + 1 columns of the band, at most ROWS)", spec, g->nnz,
                      most, g->n, g->band);
    return HK_SUCCESS;
  }
  if (!strncmp(spec, "hh:", 3)) {
    g->kind = GEN_HH;
    int err = hk__spmv_hh_parse(spec, &g->hh);
    g->n = g->hh.n;
    g->nnz = g->hh.max_row;
    return err;
  }
  return HK_ERROR(HK_ERR_ARG,
                  "unknown matrix '%s' (laplace3d:N, laplace27:N, random:ROWS,NNZ,BW, "
                  "hh:L,NUP,NDN,M or FILE.mtx)", spec);
}

/* rows of the matrix and entries per row at most */
static long long gen_rows(const gen_t *g)
{
  return g->kind == GEN_RANDOM || g->kind == GEN_HH ? g->n : g->n * g->n * g->n;
}

static long long gen_row_max(const gen_t *g)
{
  return g->kind == GEN_LAP7 ? 7 : g->kind == GEN_LAP27 ? 27 : g->nnz;
}

int hk_spmv_generate_size(const char *spec, long long *nglobal)
{
  gen_t g;
  int err = HK_SUCCESS;
  HK_TRY(err, parse_spec(spec, &g));
  *nglobal = gen_rows(&g);
cleanup:
  return err;
}

int hk_spmv_generate_row_max(const char *spec, int *row_max)
{
  gen_t g;
  int err = HK_SUCCESS;
  HK_TRY(err, parse_spec(spec, &g));
  *row_max = (int)gen_row_max(&g);
cleanup:
  return err;
}

/* splitmix64 (Steele, Lea, Flood 2014): a counter-based hash, so entry (i, j) has
 * the same value whatever rank generates it */
static uint64_t mix(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
#define HK_SPMV_SEED 20261123ULL

static int cmp_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* the columns of random row i: the diagonal and nnz-1 distinct others in the band */
static int random_row(const gen_t *g, long long i, long long *cols)
{
  long long lo = i - g->band < 0 ? 0 : i - g->band;
  long long hi = i + g->band >= g->n ? g->n - 1 : i + g->band;
  long long width = hi - lo + 1, k = g->nnz < width ? g->nnz : width, m = 0;
  cols[m++] = i;
  for (uint64_t draw = 0; m < k; draw++) {
    long long c = lo + (long long)(mix(HK_SPMV_SEED ^ mix((uint64_t)i) ^ draw) % (uint64_t)width);
    int seen = 0;
    for (long long q = 0; q < m && !seen; q++)
      seen = cols[q] == c;
    if (!seen)
      cols[m++] = c;
  }
  qsort(cols, (size_t)m, sizeof *cols, cmp_ll);
  return (int)m;
}

static double random_val(const gen_t *g, long long i, long long j)
{
  if (i == j)
    return (double)g->nnz + 1.0;
  uint64_t h = mix(HK_SPMV_SEED ^ mix((uint64_t)i * 0x100000001b3ULL) ^ mix((uint64_t)j));
  return (double)(h >> 11) * 0x1.0p-52 - 1.0; /* [-1, 1) in steps of 2^-52 */
}

int hk_spmv_generate(const char *spec, long long row_begin, int nrows, hk_spmv_crs_t *crs)
{
  int err = HK_SUCCESS;
  gen_t g;
  long long *cols = NULL;
  memset(crs, 0, sizeof *crs);
  HK_TRY(err, parse_spec(spec, &g));
  long long N = gen_rows(&g);
  if (nrows < 0 || row_begin < 0 || row_begin + nrows > N) {
    err = HK_ERROR(HK_ERR_ARG, "rows [%lld, %lld) outside the %lld rows of '%s'", row_begin,
                   row_begin + nrows, N, spec);
    goto cleanup;
  }
  long long per = gen_row_max(&g);
  crs->nglobal = N;
  crs->row_begin = row_begin;
  crs->nrows = nrows;
  crs->symmetric = g.kind != GEN_RANDOM;
  HK_ALLOC_TRY(err, crs->rowptr, nrows + 1);
  HK_ALLOC_TRY(err, crs->col, per * nrows);
  HK_ALLOC_TRY(err, crs->val, per * nrows);
  HK_ALLOC_TRY(err, cols, per);
  long long e = 0;
  for (int r = 0; r < nrows; r++) {
    long long i = row_begin + r;
    if (g.kind == GEN_HH) {
      e += hk__spmv_hh_row(&g.hh, i, crs->col + e, crs->val + e);
    } else if (g.kind == GEN_RANDOM) {
      int m = random_row(&g, i, cols);
      for (int q = 0; q < m; q++, e++) {
        crs->col[e] = cols[q];
        crs->val[e] = random_val(&g, i, cols[q]);
      }
    } else {
      const long long n = g.n, x = i % n, y = (i / n) % n, z = i / (n * n);
      for (int dz = -1; dz <= 1; dz++)   /* z slowest: ascending columns */
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            int dist = abs(dx) + abs(dy) + abs(dz);
            if (g.kind == GEN_LAP7 && dist > 1)
              continue;
            long long X = x + dx, Y = y + dy, Z = z + dz;
            if (X < 0 || Y < 0 || Z < 0 || X >= n || Y >= n || Z >= n)
              continue; /* Dirichlet: the neighbour outside is a known zero */
            crs->col[e] = X + n * (Y + n * Z);
            crs->val[e] = dist == 0 ? (g.kind == GEN_LAP7 ? 6.0 : 26.0) : -1.0;
            e++;
          }
    }
    crs->rowptr[r + 1] = e;
  }
cleanup:
  free(cols);
  if (err != HK_SUCCESS)
    hk_spmv_crs_free(crs);
  return err;
}

void hk_spmv_reference(const hk_spmv_crs_t *crs, double (*x_of)(long long j, void *arg), void *arg,
                       double *y)
{
  const long long lo = crs->row_begin, hi = crs->row_begin + crs->nrows;
  for (int r = 0; r < crs->nrows; r++) {
    double s_local = 0.0, s_halo = 0.0;
    for (long long e = crs->rowptr[r]; e < crs->rowptr[r + 1]; e++) {
      long long j = crs->col[e];
      if (j >= lo && j < hi)
        s_local += crs->val[e] * x_of(j, arg);
      else
        s_halo += crs->val[e] * x_of(j, arg);
    }
    y[r] = s_local + s_halo;
  }
}
