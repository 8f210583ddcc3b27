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
  free(p->dptr);
  free(p->tmp);
  free(p->clen);
  free(p->cptr);
  free(p->perm);
  free(p->col);
  free(p->val);
  memset(p, 0, sizeof *p);
}

/* rows [lo, hi) sorted by length, longest first, stable (ties keep row order) */
static const int *sort_len;
static int cmp_len(const void *a, const void *b)
{
  int ra = *(const int *)a, rb = *(const int *)b;
  int la = sort_len[ra], lb = sort_len[rb];
  return la != lb ? (lb > la ? 1 : -1) : (ra > rb) - (ra < rb);
}

static void sort_rows(int *perm, const int *len, int lo, int hi)
{
  /* qsort is not reentrant through the static; create is called outside parallel
   * regions and by one thread of the process at a time (Threads: of hk_spmv_create) */
  sort_len = len;
  qsort(perm + lo, (size_t)(hi - lo), sizeof *perm, cmp_len);
  sort_len = NULL;
}

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
  if (format == HK_SPMV_CRS) {
    HK_ALLOC_TRY(err, p->rowptr, nrows + 1);
    HK_ALLOC_TRY(err, p->col, p->nnz);
    HK_ALLOC_TRY(err, p->val, p->nnz);
    memcpy(p->rowptr, rowptr, (size_t)(nrows + 1) * sizeof *rowptr);
    memcpy(p->col, col, (size_t)p->nnz * sizeof *col);
    memcpy(p->val, val, (size_t)p->nnz * sizeof *val);
    p->stored = p->nnz;
  } else if (format == HK_SPMV_JDS) {
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
        p->col[p->dptr[d] + r] = col[rowptr[i] + d];
        p->val[p->dptr[d] + r] = val[rowptr[i] + d];
      }
    }
    p->stored = p->nnz;
  } else {
    const int C = chunk > 0 ? chunk : 8;
    if (C > HK_SELL_MAX_CHUNK) {
      err = HK_ERROR(HK_ERR_ARG, "SELL chunk %d is larger than %d", C, HK_SELL_MAX_CHUNK);
      goto cleanup;
    }
    int S = sigma > 0 ? sigma : 1;
    if (S > C)
      S = (S + C - 1) / C * C;
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
    HK_ALLOC_TRY(err, p->col, p->stored);
    HK_ALLOC_TRY(err, p->val, p->stored);
    for (int c = 0; c < p->nchunks; c++) {
      /* padding reads a column of the chunk (valid, likely cached) times 0.0 */
      int pad = 0;
      for (int r = 0; r < C; r++) {
        int i = p->perm[c * C + r];
        if (i >= 0 && len[i] > 0) {
          pad = col[rowptr[i]];
          break;
        }
      }
      for (int j = 0; j < p->clen[c]; j++)
        for (int r = 0; r < C; r++) {
          int i = p->perm[c * C + r];
          long long at = p->cptr[c] + (long long)j * C + r;
          int real = i >= 0 && j < len[i];
          p->col[at] = real ? col[rowptr[i] + j] : pad;
          p->val[at] = real ? val[rowptr[i] + j] : 0.0;
        }
    }
  }
cleanup:
  free(len);
  if (err != HK_SUCCESS)
    hk__spmv_part_free(p);
  return err;
}

static inline void split(long long n, int pieces, int k, long long *lo, long long *hi)
{
  *lo = n * k / pieces;
  *hi = n * (k + 1) / pieces;
}

void hk__spmv_part_apply(const hk_spmv_part_t *p, const double *restrict x, double *restrict y,
                         int add, int pieces, int k)
{
  long long lo, hi;
  const int *restrict col = p->col;
  const double *restrict val = p->val;
  if (p->format == HK_SPMV_CRS) {
    split(p->nrows, pieces, k, &lo, &hi);
    for (long long i = lo; i < hi; i++) {
      double s = 0.0;
      for (int e = p->rowptr[i]; e < p->rowptr[i + 1]; e++)
        s += val[e] * x[col[e]];
      y[i] = add ? y[i] + s : s;
    }
  } else if (p->format == HK_SPMV_JDS) {
    split(p->nrows, pieces, k, &lo, &hi);
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
  } else {
    split(p->nchunks, pieces, k, &lo, &hi);
    const int C = p->C;
    for (long long c = lo; c < hi; c++) {
      double acc[HK_SELL_MAX_CHUNK];
      for (int r = 0; r < C; r++)
        acc[r] = 0.0;
      const long long base = p->cptr[c];
      for (int j = 0; j < p->clen[c]; j++) {
        const long long at = base + (long long)j * C;
#pragma omp simd
        for (int r = 0; r < C; r++)
          acc[r] += val[at + r] * x[col[at + r]];
      }
      for (int r = 0; r < C; r++) {
        int i = p->perm[c * C + r];
        if (i >= 0)
          y[i] = add ? y[i] + acc[r] : acc[r];
      }
    }
  }
}

double hk__spmv_part_bytes(const hk_spmv_part_t *p)
{
  double b = (double)p->stored * (sizeof(double) + sizeof(int));
  if (p->format == HK_SPMV_CRS)
    b += (double)(p->nrows + 1) * sizeof(int);
  else if (p->format == HK_SPMV_JDS)
    b += (double)p->nrows * (sizeof(int) + 2 * sizeof(double)) + (double)(p->ndiag + 1) * sizeof(int);
  else
    b += (double)p->nchunks * (sizeof(int) + sizeof(long long)) +
         (double)p->nchunks * p->C * sizeof(int);
  return b;
}
