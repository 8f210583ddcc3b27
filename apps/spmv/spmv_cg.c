/* apps/spmv/spmv_cg.c: conjugate gradients on A x = b with b = A 1, from x = 0, until
 * |r| / |b| < tol (spmv.h).  Dot products are summed per rank in row order, then
 * MPI_Allreduce: the same iteration count in every mode and thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "spmv.h"

static double dot(const double *a, const double *b, int n, MPI_Comm comm)
{
  double s = 0.0, g = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* A failed multiply (a local error) does not leave the loop: every rank goes through the
 * same dot products (their sums are the same everywhere), and the error is agreed once
 * after the last collective */
int spmv_cg(const spmv_opt_t *o, hk_spmv_t *A, const hk_spmv_info_t *in, spmv_cg_t *res)
{
  const int n = in->nrows, ext = in->nrows + in->nhalo;
  MPI_Comm comm = MPI_COMM_WORLD;
  int err = HK_SUCCESS;
  double *x = NULL, *p = NULL, *r = NULL, *q = NULL, *b = NULL;
  HK_ALLOC_LOCAL(err, x, ext + 1LL);
  HK_ALLOC_LOCAL(err, p, ext + 1LL);
  HK_ALLOC_LOCAL(err, r, n + 1LL);
  HK_ALLOC_LOCAL(err, q, n + 1LL);
  HK_ALLOC_LOCAL(err, b, n + 1LL);
  HK_AGREE(err, comm);
  memset(res, 0, sizeof *res);
  for (int i = 0; i < n; i++)
    p[i] = 1.0;
  HK_LOCAL(err, hk_spmv_multiply(A, p, b));
  double bb = dot(b, b, n, comm), rr;
  for (int i = 0; i < n; i++) {
    x[i] = 0.0;
    r[i] = p[i] = b[i];
  }
  rr = bb;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  while (res->iterations < o->max_iters && sqrt(rr / bb) >= o->tol) {
    HK_LOCAL(err, hk_spmv_multiply(A, p, q));
    double alpha = rr / dot(p, q, n, comm);
    for (int i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    double rr_new = dot(r, r, n, comm), beta = rr_new / rr;
    rr = rr_new;
    for (int i = 0; i < n; i++)
      p[i] = r[i] + beta * p[i];
    res->iterations++;
  }
  res->time = MPI_Wtime() - t0;
  res->relres = sqrt(rr / bb);
  res->converged = res->relres < o->tol;
  /* the true residual |b - A x| / |b| and the error max |x - 1| */
  HK_LOCAL(err, hk_spmv_multiply(A, x, q));
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    q[i] = b[i] - q[i];
    e = fmax(e, fabs(x[i] - 1.0));
  }
  res->true_relres = sqrt(dot(q, q, n, comm) / bb);
  MPI_Allreduce(&e, &res->error, 1, MPI_DOUBLE, MPI_MAX, comm);
  HK_AGREE(err, comm);
cleanup:
  free(x);
  free(p);
  free(r);
  free(q);
  free(b);
  return err;
}
