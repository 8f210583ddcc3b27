/* src/spmv/formats.c: the storage formats of one part (CRS, JDS, SELL-C-sigma)
 * and their kernels.  Every kernel adds a row's entries one after the other in
 * the CRS order (ascending columns), from 0.0, so all formats give the same bits;
 * SELL's padding adds exact zeros (value 0.0) after a row's last entry. */
#include <stdlib.h>
#include <string.h>
#include "spmv/spmv_internal.h"

#define HK_SELL_MAX_CHUNK 256

static const char *const format_names[HK_SPMV_FORMAT_COUNT] = {"crs", "jds", "sell"};

const char *hk_spmv_format_name(hk_spmv_format_t f)
{
  return (int)f >= 0 && f < HK_SPMV_FORMAT_COUNT ? format_names[f] : "invalid";
}

int hk_spmv_format_parse(const char *name, hk_spmv_format_t *f)
{
  for (int i = 0; name && i < HK_SPMV_FORMAT_COUNT; i++)
    if (!strcmp(name, format_names[i])) {
      *f = (hk_spmv_format_t)i;
      return HK_SUCCESS;
    }
  return HK_ERROR(HK_ERR_ARG, "unknown format '%s' (crs, jds, sell)", name ? name : "(null)");
}

void hk__spmv_part_free(hk_spmv_part_t *p)
{
  free(p->rowptr);
  free(p->crow);
  free(p->dptr);
  free(p->tmp);
  free(p->clen);
  free(p->cptr);
  free(p->perm);
  free(p->col);
  free(p->val);
  memset(p, 0, sizeof *p);
}

/* rows [lo, hi) sorted by length, longest first, stable (ties keep row order);
 * qsort_r (GNU): no shared state, so creates in different threads do not interfere */
static int cmp_len(const void *a, const void *b, void *arg)
{
  const int *len = arg;
  int ra = *(const int *)a, rb = *(const int *)b;
  int la = len[ra], lb = len[rb];
  return la != lb ? (lb > la ? 1 : -1) : (ra > rb) - (ra < rb);
}

static void sort_rows(int *perm, const int *len, int lo, int hi)
{
  qsort_r(perm + lo, (size_t)(hi - lo), sizeof *perm, cmp_len, (void *)len);
}

/* the rows of a part as given: rowptr over nrows, columns ascending; len[i]: entries of row i */
typedef struct rows_in {
  const int *rowptr, *col, *len;
  const double *val;
  int chunk, sigma;
} rows_in_t;

static int build_crs(hk_spmv_part_t *p, const rows_in_t *in)
{
  int err = HK_SUCCESS, nrows = p->nrows;
  HK_ALLOC_TRY(err, p->rowptr, nrows + 1);
  HK_ALLOC_TRY(err, p->col, p->nnz);
  HK_ALLOC_TRY(err, p->val, p->nnz);
  memcpy(p->rowptr, in->rowptr, (size_t)(nrows + 1) * sizeof *in->rowptr);
  memcpy(p->col, in->col, (size_t)p->nnz * sizeof *in->col);
  memcpy(p->val, in->val, (size_t)p->nnz * sizeof *in->val);
  p->stored = p->nnz;
  for (int i = 0; i < nrows; i++)
    p->ncrow += in->len[i] > 0;
  if (p->ncrow < nrows) {
    HK_ALLOC_TRY(err, p->crow, p->ncrow > 0 ? p->ncrow : 1);
    for (int i = 0, n = 0; i < nrows; i++)
      if (in->len[i] > 0)
        p->crow[n++] = i;
  }
cleanup:
  return err;
}

static int build_jds(hk_spmv_part_t *p, const rows_in_t *in)
{
  int err = HK_SUCCESS, nrows = p->nrows;
  const int *len = in->len;
  HK_ALLOC_TRY(err, p->perm, nrows);
  HK_ALLOC_TRY(err, p->tmp, nrows);
  for (int i = 0; i < nrows; i++)
    p->perm[i] = i;
  sort_rows(p->perm, len, 0, nrows);
  p->ndiag = nrows > 0 ? len[p->perm[0]] : 0;
  HK_ALLOC_TRY(err, p->dptr, p->ndiag + 1);
  HK_ALLOC_TRY(err, p->col, p->nnz);
  HK_ALLOC_TRY(err, p->val, p->nnz);
  int rows_in = nrows; /* rows longer than d, shrinking */
  for (int d = 0; d < p->ndiag; d++) {
    while (rows_in > 0 && len[p->perm[rows_in - 1]] <= d)
      rows_in--;
    p->dptr[d + 1] = p->dptr[d] + rows_in;
    for (int r = 0; r < rows_in; r++) {
      int i = p->perm[r];
      p->col[p->dptr[d] + r] = in->col[in->rowptr[i] + d];
      p->val[p->dptr[d] + r] = in->val[in->rowptr[i] + d];
    }
  }
  p->stored = p->nnz;
cleanup:
  return err;
}

/* SELL-C-sigma's layout: rows sorted by length within windows of S, chunks of C rows,
 * each chunk as long as its longest row (p->perm, clen, cptr, stored) */
static int sell_chunks(hk_spmv_part_t *p, const int *len, int C, int S)
{
  int err = HK_SUCCESS, nrows = p->nrows;
  p->C = C;
  p->nchunks = (nrows + C - 1) / C;
  long long slots = (long long)p->nchunks * C;
  HK_ALLOC_TRY(err, p->perm, slots);
  for (long long s = 0; s < slots; s++)
    p->perm[s] = s < nrows ? (int)s : -1;
  if (S > 1)
    for (int lo = 0; lo < nrows; lo += S)
      sort_rows(p->perm, len, lo, lo + S < nrows ? lo + S : nrows);
  HK_ALLOC_TRY(err, p->clen, p->nchunks);
  HK_ALLOC_TRY(err, p->cptr, p->nchunks + 1);
  for (int c = 0; c < p->nchunks; c++) {
    int m = 0;
    for (int r = 0; r < C; r++) {
      int i = p->perm[c * C + r];
      if (i >= 0 && len[i] > m)
        m = len[i];
    }
    p->clen[c] = m;
    p->cptr[c + 1] = p->cptr[c] + (long long)m * C;
  }
  p->stored = p->cptr[p->nchunks];
cleanup:
  return err;
}

static int build_sell(hk_spmv_part_t *p, const rows_in_t *in)
{
  int err = HK_SUCCESS;
  const int C = in->chunk > 0 ? in->chunk : 8, *len = in->len;
  if (C > HK_SELL_MAX_CHUNK)
    return HK_ERROR(HK_ERR_ARG, "SELL chunk %d is larger than %d", C, HK_SELL_MAX_CHUNK);
  int S = in->sigma > 0 ? in->sigma : 1;
  if (S > C)
    S = (S + C - 1) / C * C;
  HK_TRY(err, sell_chunks(p, len, C, S));
  HK_ALLOC_TRY(err, p->col, p->stored);
  HK_ALLOC_TRY(err, p->val, p->stored);
  for (int c = 0; c < p->nchunks; c++) {
    /* padding reads a column of the chunk (valid, likely cached) times 0.0 */
    int pad = 0;
    for (int r = 0; r < C; r++) {
      int i = p->perm[c * C + r];
      if (i >= 0 && len[i] > 0) {
        pad = in->col[in->rowptr[i]];
        break;
      }
    }
    for (int j = 0; j < p->clen[c]; j++)
      for (int r = 0; r < C; r++) {
        int i = p->perm[c * C + r];
        long long at = p->cptr[c] + (long long)j * C + r;
        int real = i >= 0 && j < len[i];
        p->col[at] = real ? in->col[in->rowptr[i] + j] : pad;
        p->val[at] = real ? in->val[in->rowptr[i] + j] : 0.0;
      }
  }
cleanup:
  return err;
}

/* the builder of each format, by hk_spmv_format_t */
static int (*const builders[HK_SPMV_FORMAT_COUNT])(hk_spmv_part_t *, const rows_in_t *) = {
    [HK_SPMV_CRS] = build_crs, [HK_SPMV_JDS] = build_jds, [HK_SPMV_SELL] = build_sell};

int hk__spmv_part_build(hk_spmv_part_t *p, hk_spmv_format_t format, int nrows, const int *rowptr,
                        const int *col, const double *val, int chunk, int sigma)
{
  int err = HK_SUCCESS;
  int *len = NULL;
  memset(p, 0, sizeof *p);
  p->format = format;
  p->nrows = nrows;
  p->nnz = rowptr[nrows];
  HK_ALLOC_TRY(err, len, nrows);
  for (int i = 0; i < nrows; i++)
    len[i] = rowptr[i + 1] - rowptr[i];
  const rows_in_t in = {rowptr, col, len, val, chunk, sigma};
  HK_TRY(err, builders[format](p, &in));
cleanup:
  free(len);
  if (err != HK_SUCCESS)
    hk__spmv_part_free(p);
  return err;
}

/* software prefetch distance of the CRS and SELL loops, in entries (0: none) */
#ifndef SPMV_PF
#define SPMV_PF 512
#endif

/* prefetch the values and column indices of entries [from, to) SPMV_PF entries ahead, a
 * line of each per 8 values (16 indices): one core alone keeps too few misses in flight
 * for the 4 to 8 streams of a multiply */
static inline void prefetch_ahead(const double *val, const int *col, long long from, long long to)
{
  if (SPMV_PF == 0) /* -DSPMV_PF=0: no software prefetch (A/B builds) */
    return;
  for (long long e = from + SPMV_PF; e < to + SPMV_PF; e += 8)
    __builtin_prefetch(&val[e], 0, 0);
  for (long long e = from + SPMV_PF; e < to + SPMV_PF; e += 16)
    __builtin_prefetch(&col[e], 0, 0);
}

/* one SELL chunk of C rows and len columns, stored column-major from base, into acc[0, C):
 * every row summed in column order (the order of the reference); any C */
static inline void
sell_chunk(const double *restrict val, const int *restrict col, const double *restrict x,
           long long base, int len, const int C, double *restrict acc)
{
  for (int r = 0; r < C; r++)
    acc[r] = 0.0;
  for (int j = 0; j < len; j++) {
    const long long at = base + (long long)j * C;
#pragma omp simd
    for (int r = 0; r < C; r++)
      acc[r] += val[at + r] * x[col[at + r]];
  }
}

/* sell_chunk for C a multiple of 4 up to 32, known at the call: the rows in vectors of 4
 * (GCC's vector extension), held in registers across the columns (sell_chunk's accumulators
 * go through the stack every column, even with C a constant: GCC 12); the same additions in
 * the same order as sell_chunk (no contraction: -ffp-contract=off) */
typedef double sell_v4d __attribute__((vector_size(32)));
static inline __attribute__((always_inline)) void
sell_chunk4(const double *restrict val, const int *restrict col, const double *restrict x,
            long long base, int len, const int C, double *restrict acc)
{
  sell_v4d a[8];
  for (int k = 0; k < C / 4; k++)
    a[k] = (sell_v4d){0.0, 0.0, 0.0, 0.0};
  for (int j = 0; j < len; j++) {
    const double *v = val + base + (long long)j * C;
    const int *ci = col + base + (long long)j * C;
    for (int k = 0; k < C / 4; k++) {
      sell_v4d vv;
      memcpy(&vv, v + 4 * k, sizeof vv);
      const sell_v4d xx = {x[ci[4 * k]], x[ci[4 * k + 1]], x[ci[4 * k + 2]], x[ci[4 * k + 3]]};
      a[k] += vv * xx;
    }
  }
  for (int k = 0; k < C / 4; k++)
    memcpy(acc + 4 * k, &a[k], sizeof a[k]);
}

/* four CRS rows of M entries each, stored one after the other from val and col, into s[4]:
 * four independent chains of additions, each row's entries in order (M a constant at the
 * call: GCC unrolls the entries at fixed offsets from one base).  Zen 3, laplace3d, 7 entries
 * a row: four rows straight instead of a counted loop each, a stand-alone copy in cache
 * 1.25-1.38x, hk-spmv laplace3d:200 at 1x1 1.02-1.13x; then one base instead of four and no
 * tails: 7.61 instead of 8.18 instructions per entry in the L3 (docs/spmv.md, session 12) */
static inline __attribute__((always_inline)) void
crs_rows4(const double *restrict val, const int *restrict col, const double *restrict x,
          const int M, double *restrict s)
{
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
#pragma GCC unroll 8
  for (int q = 0; q < M; q++) {
    s0 += val[q] * x[col[q]];
    s1 += val[M + q] * x[col[M + q]];
    s2 += val[2 * M + q] * x[col[2 * M + q]];
    s3 += val[3 * M + q] * x[col[3 * M + q]];
  }
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
}

/* four CRS rows of any lengths, entries [e0, e1), [e1, e2), [e2, e3), [e3, e4): as crs_rows4
 * up to the shortest length, then each row's rest */
static void crs_rows4_any(const double *restrict val, const int *restrict col,
                          const double *restrict x, int e0, int e1, int e2, int e3, int e4,
                          double *restrict s)
{
  int m = e1 - e0;
  m = e2 - e1 < m ? e2 - e1 : m;
  m = e3 - e2 < m ? e3 - e2 : m;
  m = e4 - e3 < m ? e4 - e3 : m;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  for (int q = 0; q < m; q++) {
    s0 += val[e0 + q] * x[col[e0 + q]];
    s1 += val[e1 + q] * x[col[e1 + q]];
    s2 += val[e2 + q] * x[col[e2 + q]];
    s3 += val[e3 + q] * x[col[e3 + q]];
  }
  for (int e = e0 + m; e < e1; e++)
    s0 += val[e] * x[col[e]];
  for (int e = e1 + m; e < e2; e++)
    s1 += val[e] * x[col[e]];
  for (int e = e2 + m; e < e3; e++)
    s2 += val[e] * x[col[e]];
  for (int e = e3 + m; e < e4; e++)
    s3 += val[e] * x[col[e]];
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
}

static inline void split(long long n, int pieces, int k, long long *lo, long long *hi)
{
  *lo = n * k / pieces;
  *hi = n * (k + 1) / pieces;
}

/* The apply of each format over piece k of `pieces` (called once each: inlined).  CRS
 * is inlined twice, once per value of `add`, so each copy's loop has no test of it: the
 * split of this function (issue 38) had cost hk-spmv 2-3 % until then (interleaved A/B
 * against the one-function code, docs/performance.md). */

/* CRS, adding: only the rows with entries (the halo part touches a rank's boundary rows) */
static inline void apply_crs_rows(const hk_spmv_part_t *p, const double *restrict x,
                                  double *restrict y, int pieces, int k)
{
  long long lo, hi;
  const int *restrict col = p->col, *restrict rp = p->rowptr, *restrict crow = p->crow;
  const double *restrict val = p->val;
  split(p->ncrow, pieces, k, &lo, &hi);
  for (long long r = lo; r < hi; r++) {
    const int i = crow[r];
    double s = 0.0;
    for (int e = rp[i]; e < rp[i + 1]; e++)
      s += val[e] * x[col[e]];
    y[i] += s;
  }
}

static inline __attribute__((always_inline)) void
apply_crs(const hk_spmv_part_t *p, const double *restrict x, double *restrict y, int add,
          int pieces, int k)
{
  long long lo, hi;
  const int *restrict col = p->col, *restrict rp = p->rowptr;
  const double *restrict val = p->val;
  split(p->nrows, pieces, k, &lo, &hi);
  long long i = lo;
  /* four rows at a time: four independent chains of additions (each row still adds its
   * entries in order), as a row's own chain would bound a core at one add per latency */
  for (; i + 4 <= hi; i += 4) {
    const int e0 = rp[i], e1 = rp[i + 1], e2 = rp[i + 2], e3 = rp[i + 3], e4 = rp[i + 4];
    prefetch_ahead(val, col, e0, e4);
    const int m = e1 - e0;
    double s[4];
    /* four rows of the same short length (stencil and FEM matrices: most rows): the
     * entries straight, at fixed offsets from the first row's, without a loop to count
     * and mispredict at its end */
    switch (e2 - e1 == m && e3 - e2 == m && e4 - e3 == m ? m : 0) {
    case 5: crs_rows4(val + e0, col + e0, x, 5, s); break;
    case 6: crs_rows4(val + e0, col + e0, x, 6, s); break;
    case 7: crs_rows4(val + e0, col + e0, x, 7, s); break;
    case 8: crs_rows4(val + e0, col + e0, x, 8, s); break;
    default: crs_rows4_any(val, col, x, e0, e1, e2, e3, e4, s);
    }
    for (int r = 0; r < 4; r++)
      y[i + r] = add ? y[i + r] + s[r] : s[r];
  }
  for (; i < hi; i++) {
    double s = 0.0;
    for (int e = rp[i]; e < rp[i + 1]; e++)
      s += val[e] * x[col[e]];
    y[i] = add ? y[i] + s : s;
  }
}

static inline void apply_jds(const hk_spmv_part_t *p, const double *restrict x,
                             double *restrict y, int add, int pieces, int k)
{
  long long lo, hi;
  const int *restrict col = p->col;
  const double *restrict val = p->val;
  /* sorted rows with entries come first (dptr[1] - dptr[0] of them): adding visits those */
  split(add ? p->dptr[1] - p->dptr[0] : p->nrows, pieces, k, &lo, &hi);
  double *restrict tmp = p->tmp;
  for (long long r = lo; r < hi; r++)
    tmp[r] = 0.0;
  for (int d = 0; d < p->ndiag; d++) {
    const long long base = p->dptr[d], rows = p->dptr[d + 1] - base;
    if (rows <= lo)
      break;
    const long long end = rows < hi ? rows : hi;
    for (long long r = lo; r < end; r++)
      tmp[r] += val[base + r] * x[col[base + r]];
  }
  for (long long r = lo; r < hi; r++)
    y[p->perm[r]] = add ? y[p->perm[r]] + tmp[r] : tmp[r];
}

static inline void apply_sell(const hk_spmv_part_t *p, const double *restrict x,
                              double *restrict y, int add, int pieces, int k)
{
  long long lo, hi;
  const int *restrict col = p->col;
  const double *restrict val = p->val;
  split(p->nchunks, pieces, k, &lo, &hi);
  const int C = p->C;
  for (long long c = lo; c < hi; c++) {
    if (add && p->clen[c] == 0)
      continue; /* rows without entries: y += 0 */
    double acc[HK_SELL_MAX_CHUNK];
    const long long base = p->cptr[c], len = (long long)p->clen[c] * C;
    prefetch_ahead(val, col, base, base + len);
    switch (C) { /* the usual chunks: C known to the compiler */
    case 4: sell_chunk4(val, col, x, base, p->clen[c], 4, acc); break;
    case 8: sell_chunk4(val, col, x, base, p->clen[c], 8, acc); break;
    case 16: sell_chunk4(val, col, x, base, p->clen[c], 16, acc); break;
    case 32: sell_chunk4(val, col, x, base, p->clen[c], 32, acc); break;
    default: sell_chunk(val, col, x, base, p->clen[c], C, acc); break;
    }
    for (int r = 0; r < C; r++) {
      int i = p->perm[c * C + r];
      if (i >= 0)
        y[i] = add ? y[i] + acc[r] : acc[r];
    }
  }
}

void hk__spmv_part_apply(const hk_spmv_part_t *p, const double *restrict x, double *restrict y,
                         int add, int pieces, int k)
{
  if (add && p->nnz == 0)
    return; /* y += 0: nothing to read or write (the halo part of a rank without peers) */
  if (p->format == HK_SPMV_CRS && add && p->crow)
    apply_crs_rows(p, x, y, pieces, k);
  else if (p->format == HK_SPMV_CRS && add)
    apply_crs(p, x, y, 1, pieces, k);
  else if (p->format == HK_SPMV_CRS)
    apply_crs(p, x, y, 0, pieces, k);
  else if (p->format == HK_SPMV_JDS)
    apply_jds(p, x, y, add, pieces, k);
  else
    apply_sell(p, x, y, add, pieces, k);
}

double hk__spmv_part_bytes(const hk_spmv_part_t *p)
{
  double b = (double)p->stored * (sizeof(double) + sizeof(int));
  if (p->format == HK_SPMV_CRS && p->crow) /* added: rows with entries, their two pointers */
    b += (double)p->ncrow * 3 * sizeof(int);
  else if (p->format == HK_SPMV_CRS)
    b += (double)(p->nrows + 1) * sizeof(int);
  else if (p->format == HK_SPMV_JDS)
    b += (double)p->nrows * (sizeof(int) + 2 * sizeof(double)) + (double)(p->ndiag + 1) * sizeof(int);
  else
    b += (double)p->nchunks * (sizeof(int) + sizeof(long long)) +
         (double)p->nchunks * p->C * sizeof(int);
  return b;
}
