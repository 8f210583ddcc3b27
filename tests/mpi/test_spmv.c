/* tests/mpi/test_spmv.c: y = A x of every format x mode against a brute-force
 * product, and the communication plan against brute-force counts.
 *
 * Every rank builds the whole matrix (the library's generators give any rows; the
 * test's own matrices are derived from them) and computes, straight from the global
 * CRS, y_i = (sum over the columns of its block) + (sum over the others), each in
 * ascending column order: the summation order hybridkit/spmv.h promises, so the
 * library's y must equal it bit for bit.  It also must lie within the stated rounding
 * bound of the plain ascending sum.  Two multiplies with different x catch a stale
 * halo.  Matrices: 7- and 27-point Laplacians, a random band matrix, the same with
 * every 5th row empty, and its lower triangle (rank 0 then needs no remote column
 * but sends), a Holstein-Hubbard matrix (hopping columns far from the diagonal).  Row blocks: the default, and uneven ones in which rank 1 owns no row
 * when there are 3 or more ranks.
 */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

typedef struct gmat {
  long long n;
  long long *rowptr, *col;
  double *val;
} gmat_t;

static void gmat_free(gmat_t *g)
{
  free(g->rowptr);
  free(g->col);
  free(g->val);
}

/* the whole matrix of a spec; variant 1: every 5th row emptied, 2: lower triangle */
static int gmat_make(const char *spec, int variant, gmat_t *g)
{
  hk_spmv_crs_t all;
  long long n;
  if (hk_spmv_generate_size(spec, &n) != HK_SUCCESS || hk_spmv_generate(spec, 0, (int)n, &all))
    return -1;
  g->n = n;
  g->rowptr = calloc((size_t)n + 1, sizeof *g->rowptr);
  g->col = malloc((size_t)all.rowptr[n] * sizeof *g->col + 1);
  g->val = malloc((size_t)all.rowptr[n] * sizeof *g->val + 1);
  long long e = 0;
  for (long long i = 0; i < n; i++) {
    for (long long k = all.rowptr[i]; k < all.rowptr[i + 1]; k++) {
      if ((variant == 1 && i % 5 == 3) || (variant == 2 && all.col[k] > i))
        continue;
      g->col[e] = all.col[k];
      g->val[e++] = all.val[k];
    }
    g->rowptr[i + 1] = e;
  }
  hk_spmv_crs_free(&all);
  return 0;
}

/* rows [b, b + c) as the library's input (copies) */
static void gmat_rows(const gmat_t *g, long long b, int c, hk_spmv_crs_t *crs)
{
  memset(crs, 0, sizeof *crs);
  crs->nglobal = g->n;
  crs->row_begin = b;
  crs->nrows = c;
  long long e0 = g->rowptr[b], ne = g->rowptr[b + c] - e0;
  crs->rowptr = malloc(((size_t)c + 1) * sizeof *crs->rowptr);
  crs->col = malloc((size_t)ne * sizeof *crs->col + 1);
  crs->val = malloc((size_t)ne * sizeof *crs->val + 1);
  for (int r = 0; r <= c; r++)
    crs->rowptr[r] = g->rowptr[b + r] - e0;
  memcpy(crs->col, g->col + e0, (size_t)ne * sizeof *crs->col);
  memcpy(crs->val, g->val + e0, (size_t)ne * sizeof *crs->val);
}

/* x_j: irrational-ish values, so that sums round */
static double xval(long long j, int pass)
{
  return 1.0 / (double)(j + 3) + 0.25 * sin((double)j) + pass;
}

/* row blocks: 0 default; 1 sizes proportional to (r+1)^2 with rank 1 empty when p >= 3 */
static void blocks(long long n, int p, int split, long long *begin, int *count)
{
  if (split == 0) {
    for (int r = 0; r < p; r++)
      hk_spmv_block(n, p, r, &begin[r], &count[r]);
    return;
  }
  double w[64], tot = 0;
  for (int r = 0; r < p; r++)
    tot += (w[r] = (p >= 3 && r == 1) ? 0.0 : (double)(r + 1) * (r + 1));
  long long at = 0;
  for (int r = 0; r < p; r++) {
    long long c = r == p - 1 ? n - at : (long long)floor(n * w[r] / tot);
    begin[r] = at;
    count[r] = (int)c;
    at += c;
  }
}

int main(int argc, char **argv)
{
  if (hk_init(&argc, &argv, HK_THREAD_MULTIPLE) != HK_SUCCESS) {
    fprintf(stderr, "test_spmv: %s\n", hk_error_message());
    return 1;
  }
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  hk_test_rank = rank;
  const struct { const char *spec; int variant; } mats[] = {
    {"laplace3d:5", 0}, {"laplace27:4", 0}, {"random:150,7,40", 0},
    {"random:150,7,40", 1}, {"random:150,7,40", 2}, {"hh:4,2,1,2", 0}};
  const struct { hk_spmv_format_t f; int C, sigma; } fmts[] = {
    {HK_SPMV_CRS, 0, 0}, {HK_SPMV_JDS, 0, 0}, {HK_SPMV_SELL, 4, 8}, {HK_SPMV_SELL, 8, 1},
    {HK_SPMV_SELL, 3, 5}, {HK_SPMV_SELL, 16, 4}, {HK_SPMV_SELL, 32, 1}};
  /* chunks 4, 8, 16 and 32 take the kernel's paths with C a constant, 3 the general one */
  long long begin[64];
  int count[64];
  int nmism = 0, nbound = 0, cases = 0;
  for (size_t mi = 0; mi < sizeof mats / sizeof *mats; mi++) {
    gmat_t g;
    CHECK(gmat_make(mats[mi].spec, mats[mi].variant, &g) == 0);
    for (int split = 0; split < 2; split++) {
      blocks(g.n, p, split, begin, count);
      const long long b = begin[rank];
      const int c = count[rank];
      hk_spmv_crs_t crs;
      gmat_rows(&g, b, c, &crs);
      /* brute force: the expected y for two x, the plain ascending sums and their bound */
      double *want = calloc((size_t)c * 2 + 1, sizeof *want);
      double *plain = calloc((size_t)c * 2 + 1, sizeof *plain), *bound = calloc((size_t)c * 2 + 1, 8);
      for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < c; r++) {
          double sl = 0.0, sh = 0.0, s = 0.0, a = 0.0;
          long long i = b + r, k0 = g.rowptr[i], k1 = g.rowptr[i + 1];
          for (long long k = k0; k < k1; k++) {
            double t = g.val[k] * xval(g.col[k], pass);
            if (g.col[k] >= b && g.col[k] < b + c)
              sl += t;
            else
              sh += t;
            s += t;
            a += fabs(t);
          }
          double nk = (double)(k1 - k0) * DBL_EPSILON / 2;
          want[pass * c + r] = sl + sh;
          plain[pass * c + r] = s;
          bound[pass * c + r] = 2.0 * nk / (1.0 - nk) * a;
        }
      /* brute-force plan: distinct columns of my rows owned by q; of q's rows owned by me */
      int *bf_recv = calloc((size_t)p, sizeof(int)), *bf_send = calloc((size_t)p, sizeof(int));
      char *seen = calloc((size_t)g.n, 1);
      for (long long i = b; i < b + c; i++)
        for (long long k = g.rowptr[i]; k < g.rowptr[i + 1]; k++)
          seen[g.col[k]] = 1;
      for (int q = 0; q < p; q++)
        for (long long j = begin[q]; j < begin[q] + count[q]; j++)
          bf_recv[q] += q != rank && seen[j];
      for (int q = 0; q < p; q++) {
        if (q == rank)
          continue;
        memset(seen, 0, (size_t)g.n);
        for (long long i = begin[q]; i < begin[q] + count[q]; i++)
          for (long long k = g.rowptr[i]; k < g.rowptr[i + 1]; k++)
            seen[g.col[k]] = 1;
        for (long long j = b; j < b + c; j++)
          bf_send[q] += seen[j];
      }
      for (size_t fi = 0; fi < sizeof fmts / sizeof *fmts; fi++)
        for (int m = 0; m < HK_MODE_COUNT; m++) {
          hk_spmv_desc_t d = {.comm = MPI_COMM_WORLD, .crs = &crs, .format = fmts[fi].f,
                              .chunk = fmts[fi].C, .sigma = fmts[fi].sigma, .mode = (hk_mode_t)m,
                              .reserved = m == HK_MODE_MULTIPLE_RESERVED ? 2 : 0};
          hk_spmv_t *A = NULL;
          int err = hk_spmv_create(&d, &A);
          CHECK_EQ_INT(err, HK_SUCCESS);
          if (err != HK_SUCCESS) {
            fprintf(stderr, "rank %d: %s\n", rank, hk_error_message());
            continue;
          }
          hk_spmv_info_t info;
          hk_spmv_info(A, &info);
          CHECK_EQ_INT(info.nrows, c);
          CHECK_EQ_INT(info.nnz_local + info.nnz_halo, g.rowptr[b + c] - g.rowptr[b]);
          if (fmts[fi].f != HK_SPMV_SELL && info.nnz_local + info.nnz_halo > 0) {
            /* the format's least traffic, by hand: 12 B an entry, x + halo + y 8 B each,
             * row pointers (CRS, one more) or permutation (JDS) 4 B a row, JDS's row sums
             * 16 B an entry */
            const double nz = (double)(info.nnz_local + info.nnz_halo);
            double least = 12.0 * nz + 8.0 * (2.0 * c + info.nhalo) + 4.0 * c;
            least += fmts[fi].f == HK_SPMV_CRS ? 4.0 : 16.0 * nz;
            CHECK(fabs(info.min_bytes_per_nnz * nz - least) <= 1e-9 * least);
          }
          if (fi == 0 && m == 0) {
            int *sc = calloc((size_t)p, sizeof(int)), *rc = calloc((size_t)p, sizeof(int));
            hk_spmv_plan_counts(A, sc, rc);
            int npeers = 0;
            long long nh = 0;
            for (int q = 0; q < p; q++) {
              CHECK_EQ_INT(rc[q], bf_recv[q]);
              CHECK_EQ_INT(sc[q], bf_send[q]);
              npeers += bf_recv[q] > 0;
              nh += bf_recv[q];
            }
            CHECK_EQ_INT(info.npeers_recv, npeers);
            CHECK_EQ_INT(info.nhalo, nh);
            free(sc);
            free(rc);
          }
          double *x = malloc(((size_t)info.nrows + info.nhalo + 1) * sizeof *x);
          double *y = malloc(((size_t)c + 1) * sizeof *y);
          for (int pass = 0; pass < 2; pass++) {
            for (int r = 0; r < c; r++)
              x[r] = xval(b + r, pass);
            for (int h = 0; h < info.nhalo; h++)
              x[c + h] = NAN; /* must be overwritten by the exchange */
            for (int r = 0; r < c; r++)
              y[r] = NAN;
            CHECK_EQ_INT(hk_spmv_multiply(A, x, y), HK_SUCCESS);
            for (int r = 0; r < c; r++) {
              if (memcmp(&y[r], &want[pass * c + r], sizeof(double)) != 0 && nmism++ < 5)
                fprintf(stderr, "rank %d: %s v%d split %d %s C%d s%d %s pass %d: y[%lld] = %.17g, "
                        "expected %.17g\n", rank, mats[mi].spec, mats[mi].variant, split,
                        hk_spmv_format_name(fmts[fi].f), fmts[fi].C, fmts[fi].sigma,
                        hk_mode_name((hk_mode_t)m), pass, b + r, y[r], want[pass * c + r]);
              if (!(fabs(y[r] - plain[pass * c + r]) <= bound[pass * c + r]) && nbound++ < 5)
                fprintf(stderr, "rank %d: y[%lld] = %.17g off the plain sum %.17g by more than %g\n",
                        rank, b + r, y[r], plain[pass * c + r], bound[pass * c + r]);
            }
          }
          hk_spmv_stats_t st;
          hk_spmv_stats(A, &st);
          CHECK_EQ_INT(st.multiplies, 2);
          cases++;
          free(x);
          free(y);
          CHECK_EQ_INT(hk_spmv_destroy(&A), HK_SUCCESS);
          CHECK(A == NULL);
        }
      free(want);
      free(plain);
      free(bound);
      free(bf_recv);
      free(bf_send);
      free(seen);
      hk_spmv_crs_free(&crs);
    }
    gmat_free(&g);
  }
  CHECK_EQ_INT(nmism, 0);
  CHECK_EQ_INT(nbound, 0);
  CHECK(cases > 0);

  /* errors agreed on every rank: blocks that are not contiguous */
  {
    hk_spmv_crs_t crs;
    long long n;
    hk_spmv_generate_size("laplace3d:3", &n);
    long long b0;
    int c0;
    hk_spmv_block(n, p, rank, &b0, &c0);
    hk_spmv_generate("laplace3d:3", rank == p - 1 && p > 1 ? b0 + 1 : b0,
                     rank == p - 1 && p > 1 ? c0 - 1 : c0, &crs);
    hk_spmv_desc_t d = {.comm = MPI_COMM_WORLD, .crs = &crs, .mode = HK_MODE_MASTERONLY};
    hk_spmv_t *A = NULL;
    int err = hk_spmv_create(&d, &A);
    CHECK_EQ_INT(err, p > 1 ? HK_ERR_ARG : HK_SUCCESS);
    if (p > 1)
      CHECK_CONTAINS(hk_error_message(), "must be contiguous in rank order");
    hk_spmv_destroy(&A);
    hk_spmv_crs_free(&crs);
  }
  int rc = hk_test_mpi_report("test_spmv");
  hk_finalize();
  return rc;
}
