/* src/spmv/mm.c: the Matrix Market reader (coordinate real|integer|pattern,
 * general|symmetric): this rank's rows of the file, every error as "FILE:LINE: what". */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>
#include "internal/hk_ckd.h"
#include "spmv/spmv_internal.h"

typedef struct mm_entry {
  long long i, j;
  double v;
} mm_entry_t;

static int cmp_entry(const void *a, const void *b)
{
  const mm_entry_t *x = a, *y = b;
  if (x->i != y->i)
    return (x->i > y->i) - (x->i < y->i);
  return (x->j > y->j) - (x->j < y->j);
}

/* what this process may allocate: the smallest of RLIMIT_AS, RLIMIT_DATA (soft, "ulimit -v /
 * -d") and the physical memory; *what names it.  Infinity when none is known. */
static double mem_room(const char **what)
{
  static const struct { int res; const char *name; } lim[] = {
    {RLIMIT_AS, "RLIMIT_AS (ulimit -v)"}, {RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)"}};
  double room = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  *what = "the physical memory";
  if (!(room > 0))
    room = 1e300;
  for (int i = 0; i < 2; i++) {
    struct rlimit rl;
    if (getrlimit(lim[i].res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (double)rl.rlim_cur < room) {
      room = (double)rl.rlim_cur;
      *what = lim[i].name;
    }
  }
  return room;
}

/* a line holds only blanks from p on */
static int rest_blank(const char *p)
{
  while (*p && isspace((unsigned char)*p))
    p++;
  return *p == '\0';
}

/* a Matrix Market file being read: where, and what its header said */
typedef struct mm_reader {
  const char *path;
  FILE *f;
  char line[1024];
  long long lineno;
  int pattern, symmetric;
  long long M, N, L; /* rows, columns, entries declared */
} mm_reader_t;

/* header: %%MatrixMarket matrix coordinate <field> <symmetry> */
static int mm_header(mm_reader_t *r)
{
  char w[5][64];
  if (!fgets(r->line, sizeof r->line, r->f) ||
      (r->lineno = 1, sscanf(r->line, "%63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4]) != 5) ||
      strcasecmp(w[0], "%%MatrixMarket") || strcasecmp(w[1], "matrix"))
    return HK_ERROR(HK_ERR_ARG, "%s:1: not a Matrix Market file (expected '%%%%MatrixMarket matrix "
                    "coordinate real|integer|pattern general|symmetric')", r->path);
  if (strcasecmp(w[2], "coordinate"))
    return HK_ERROR(HK_ERR_ARG, "%s:1: format '%s' is not supported (only coordinate)", r->path, w[2]);
  r->pattern = !strcasecmp(w[3], "pattern");
  if (!r->pattern && strcasecmp(w[3], "real") && strcasecmp(w[3], "integer") &&
      strcasecmp(w[3], "double"))
    return HK_ERROR(HK_ERR_ARG, "%s:1: field '%s' is not supported (real, integer or pattern)",
                    r->path, w[3]);
  r->symmetric = !strcasecmp(w[4], "symmetric");
  if (!r->symmetric && strcasecmp(w[4], "general"))
    return HK_ERROR(HK_ERR_ARG, "%s:1: symmetry '%s' is not supported (general or symmetric)",
                    r->path, w[4]);
  return HK_SUCCESS;
}

/* comments, then the size line; the sizes are checked before the body (a reader that went
 * through the entries first answered a header of 2e9 rows after half a minute) */
static int mm_size(mm_reader_t *r)
{
  r->M = r->N = r->L = -1;
  while (fgets(r->line, sizeof r->line, r->f)) {
    r->lineno++;
    if (r->line[0] == '%' || rest_blank(r->line))
      continue;
    char *end, *line = r->line;
    if (hk__spmv_parse_ll(line + strspn(line, " \t"), &end, &r->M) ||
        hk__spmv_parse_ll(end + strspn(end, " \t"), &end, &r->N) ||
        hk__spmv_parse_ll(end + strspn(end, " \t"), &end, &r->L) || !rest_blank(end))
      return HK_ERROR(HK_ERR_ARG, "%s:%lld: expected the size line 'ROWS COLS ENTRIES'", r->path,
                      r->lineno);
    break;
  }
  if (r->M < 0)
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: no size line", r->path, r->lineno);
  if (r->M != r->N || r->M < 1)
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: the matrix is %lldx%lld; SpMV needs a square one",
                    r->path, r->lineno, r->M, r->N);
  if (r->M >= INT_MAX / 2)
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: %lld rows: at most %d (hk_spmv indexes rows with int)",
                    r->path, r->lineno, r->M, INT_MAX / 2 - 1);
  return HK_SUCCESS;
}

/* Before allocating: the declared entries must fit a matrix of this size (duplicates are
 * refused), and this rank's share of them (the rows' share of the entries, mirrored ones
 * included: an estimate) must fit this process's memory: the entries while reading (24 B)
 * and the CRS made of them (16 B), the row pointers (8 B a row) */
static int mm_fits(const mm_reader_t *r, long long row_begin, int nrows)
{
  const double cells = r->symmetric ? (double)r->M * ((double)r->M + 1.0) / 2.0
                                    : (double)r->M * (double)r->N;
  if ((double)r->L > cells)
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: %lld entries declared, more than a %s %lldx%lld matrix "
                    "has", r->path, r->lineno, r->L, r->symmetric ? "symmetric" : "general", r->M,
                    r->N);
  const char *limit;
  const hk_spmv_crs_t *crs = NULL;
  const double share = (double)r->L * (r->symmetric ? 2.0 : 1.0) * (double)nrows / (double)r->M;
  const double need = share * (double)(sizeof(mm_entry_t) + sizeof *crs->col + sizeof *crs->val) +
                      8.0 * ((double)nrows + 1.0), room = mem_room(&limit);
  if (need > room) {
    char a[32], b[32];
    return HK_ERROR(HK_ERR_NOMEM, "%s:%lld: %lld entries declared: rows [%lld, %lld) need about %s "
                    "here, more than the %s of %s", r->path, r->lineno, r->L, row_begin,
                    row_begin + nrows, hk_fmt_bytes(a, sizeof a, need),
                    hk_fmt_bytes(b, sizeof b, room), limit);
  }
  return HK_SUCCESS;
}

/* the entry on r->line (1-based i, j; v 1 for a pattern), checked against the matrix */
static int mm_entry(const mm_reader_t *r, long long *i, long long *j, double *v)
{
  char *p = (char *)r->line + strspn(r->line, " \t"), *end;
  *v = 1.0;
  if (hk__spmv_parse_ll(p, &end, i) || hk__spmv_parse_ll(end + strspn(end, " \t"), &end, j))
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: expected an entry 'ROW COL%s'", r->path, r->lineno,
                    r->pattern ? "" : " VALUE");
  if (!r->pattern) {
    errno = 0;
    char *vs = end + strspn(end, " \t");
    *v = strtod(vs, &end);
    if (end == vs || errno == ERANGE)
      return HK_ERROR(HK_ERR_ARG, "%s:%lld: expected an entry 'ROW COL VALUE'", r->path, r->lineno);
  }
  if (!rest_blank(end))
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: unexpected text after the entry", r->path, r->lineno);
  if (*i < 1 || *j < 1 || *i > r->M || *j > r->N)
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: entry (%lld, %lld) outside the %lldx%lld matrix",
                    r->path, r->lineno, *i, *j, r->M, r->N);
  if (r->symmetric && *j > *i)
    return HK_ERROR(HK_ERR_ARG, "%s:%lld: entry (%lld, %lld) above the diagonal of a symmetric "
                    "matrix (only the lower triangle is stored)", r->path, r->lineno, *i, *j);
  return HK_SUCCESS;
}

/* the declared entries whose row (or mirrored row) is in [row_begin, row_begin + nrows),
 * 0-based, into *ent (grown by doubling); then nothing but comments may follow */
static int mm_entries(mm_reader_t *r, long long row_begin, int nrows, mm_entry_t **ent,
                      long long *n)
{
  int err = HK_SUCCESS;
  long long cap = 1024, read = 0;
  HK_ALLOC_TRY(err, *ent, cap);
  while (read < r->L) {
    if (!fgets(r->line, sizeof r->line, r->f))
      return HK_ERROR(HK_ERR_ARG, "%s:%lld: the file ends after %lld of its %lld entries", r->path,
                      r->lineno, read, r->L);
    r->lineno++;
    if (r->line[0] == '%' || rest_blank(r->line))
      continue;
    long long i = 0, j = 0;
    double v = 1.0;
    HK_TRY(err, mm_entry(r, &i, &j, &v));
    read++;
    for (int mirror = 0; mirror < 1 + (r->symmetric && i != j); mirror++) {
      long long row = (mirror ? j : i) - 1, c = (mirror ? i : j) - 1;
      if (row < row_begin || row >= row_begin + nrows)
        continue;
      if (*n == cap) {
        mm_entry_t *more = realloc(*ent, (size_t)(cap *= 2) * sizeof *more);
        if (!more)
          return HK_ERROR(HK_ERR_NOMEM, "%s: out of memory", r->path);
        *ent = more;
      }
      (*ent)[(*n)++] = (mm_entry_t){row, c, v};
    }
  }
  while (fgets(r->line, sizeof r->line, r->f)) {
    r->lineno++;
    if (r->line[0] != '%' && !rest_blank(r->line))
      return HK_ERROR(HK_ERR_ARG, "%s:%lld: more entries than the %lld the size line says",
                      r->path, r->lineno, r->L);
  }
cleanup:
  return err;
}

/* crs's rows from the n entries (sorted here; a duplicate is an error) */
static int mm_to_crs(const char *path, mm_entry_t *ent, long long n, hk_spmv_crs_t *crs)
{
  int err = HK_SUCCESS;
  qsort(ent, (size_t)n, sizeof *ent, cmp_entry);
  for (long long k = 1; k < n; k++)
    if (ent[k].i == ent[k - 1].i && ent[k].j == ent[k - 1].j)
      return HK_ERROR(HK_ERR_ARG, "%s: entry (%lld, %lld) appears twice", path, ent[k].i + 1,
                      ent[k].j + 1);
  HK_ALLOC_TRY(err, crs->rowptr, crs->nrows + 1);
  HK_ALLOC_TRY(err, crs->col, n);
  HK_ALLOC_TRY(err, crs->val, n);
  for (long long k = 0; k < n; k++) {
    crs->col[k] = ent[k].j;
    crs->val[k] = ent[k].v;
    crs->rowptr[ent[k].i - crs->row_begin + 1]++;
  }
  for (int r = 0; r < crs->nrows; r++)
    crs->rowptr[r + 1] += crs->rowptr[r];
cleanup:
  return err;
}

int hk_spmv_read_mm(const char *path, MPI_Comm comm, long long row_begin, int nrows,
                    hk_spmv_crs_t *crs)
{
  int err = HK_SUCCESS;
  mm_reader_t r = {.path = path};
  mm_entry_t *ent = NULL;
  long long n = 0;
  memset(crs, 0, sizeof *crs);
  if (!path || !(r.f = fopen(path, "r"))) {
    err = HK_ERROR(HK_ERR_IO, "%s: cannot open: %s", path ? path : "(null)", strerror(errno));
    goto cleanup;
  }
  HK_TRY(err, mm_header(&r));
  HK_TRY(err, mm_size(&r));
  if (nrows < 0) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    hk_spmv_block(r.M, size, rank, &row_begin, &nrows);
  }
  if (row_begin < 0 || row_begin + nrows > r.M) {
    err = HK_ERROR(HK_ERR_ARG, "%s: rows [%lld, %lld) outside its %lld rows", path, row_begin,
                   row_begin + nrows, r.M);
    goto cleanup;
  }
  HK_TRY(err, mm_fits(&r, row_begin, nrows));
  HK_TRY(err, mm_entries(&r, row_begin, nrows, &ent, &n));
  crs->nglobal = r.M;
  crs->row_begin = row_begin;
  crs->nrows = nrows;
  crs->symmetric = r.symmetric;
  HK_TRY(err, mm_to_crs(path, ent, n, crs));
cleanup:
  if (r.f)
    fclose(r.f);
  free(ent);
  if (err != HK_SUCCESS)
    hk_spmv_crs_free(crs);
  return err;
}
