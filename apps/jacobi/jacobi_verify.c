/* apps/jacobi/jacobi_verify.c: hk-jacobi checks itself: the invariant of the
 * stencil (periodic: the global sum is conserved; Dirichlet: values stay within
 * the initial and boundary range) and the gathered field against the frozen serial
 * reference (jacobi_ref.c), bit for bit. */
#include <math.h>
#include <stdlib.h>
#include "jacobi.h"
#include "jacobi_ref.h"

/* global sum, min and max of the owned cells (untimed checks) */
void jac_owned_stats(const jac_run_t *r, double out[3])
{
  const hk_field_layout_t *L = &r->L;
  double s = 0.0, lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for collapse(2) reduction(+ : s) reduction(min : lo) reduction(max : hi)
  for (int k = 0; k < L->n[2]; k++)
    for (int j = 0; j < L->n[1]; j++)
      for (int i = 0; i < L->n[0]; i++) {
        double x = r->u[L->offset + i + j * L->sy + k * L->sz];
        s += x;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
      }
  double in[2] = {lo, -hi}, mm[2];
  MPI_Allreduce(&s, &out[0], 1, MPI_DOUBLE, MPI_SUM, hk_cart_comm(r->cart));
  MPI_Allreduce(in, mm, 2, MPI_DOUBLE, MPI_MIN, hk_cart_comm(r->cart));
  out[1] = mm[0];
  out[2] = -mm[1];
}

int jac_check_invariant(const jac_run_t *r, int sweep)
{
  double st[3];
  jac_owned_stats(r, st);
  if (r->periodic) {
    double tol = 1e-10 * fmax(1.0, fabs(r->sum0));
    if (fabs(st[0] - r->sum0) > tol)
      return hk_error_set(HK_ERR_STATE,
                          "invariant violated after sweep %d: global sum %.17g, initially %.17g "
                          "(periodic Jacobi conserves it)",
                          sweep, st[0], r->sum0);
  } else {
    double slack = 1e-12 * fmax(fabs(r->lo0), fabs(r->hi0));
    if (st[1] < r->lo0 - slack || st[2] > r->hi0 + slack)
      return hk_error_set(HK_ERR_STATE,
                          "invariant violated after sweep %d: values in [%.17g, %.17g] leave "
                          "the initial range [%.17g, %.17g]",
                          sweep, st[1], st[2], r->lo0, r->hi0);
  }
  return HK_SUCCESS;
}

/* rank 0: the gathered blocks (all, in rank order at displs) against the serial
 * reference after `sweeps` sweeps: *ndiff cells differ, by at most *maxdiff */
static int compare_blocks(const jac_run_t *r, int sweeps, const double *all, const int *displs,
                          long long *ndiff, double *maxdiff)
{
  long long G = r->cd.global[0] * r->cd.global[1] * r->cd.global[2];
  double *ref = malloc((size_t)G * sizeof *ref);
  *ndiff = 0;
  *maxdiff = 0.0;
  if (!ref || jacobi_ref_stencil(r->L.dims, r->cd.global, r->periodic, sweeps, r->cfg->stencil, ref) != 0) {
    free(ref);
    return hk_error_set(HK_ERR_NOMEM, "no memory for the reference (%lld cells)", G);
  }
  for (int p = 0; p < r->ci.size; p++) {
    long long lo[3];
    int n[3];
    hk_cart_block(r->cart, p, lo, n);
    const double *blk = all + displs[p];
    for (long long c = 0, k = 0; k < n[2]; k++)
      for (int j = 0; j < n[1]; j++)
        for (int i = 0; i < n[0]; i++, c++) {
          long long g = (lo[0] + i) + r->cd.global[0] * ((lo[1] + j) + r->cd.global[1] * (lo[2] + k));
          if (blk[c] != ref[g]) {
            (*ndiff)++;
            *maxdiff = fmax(*maxdiff, fabs(blk[c] - ref[g]));
          }
        }
  }
  free(ref);
  if (*ndiff)
    return hk_error_set(HK_ERR_STATE, "%lld of %lld cells differ from the serial reference (max "
                        "|diff| %.3g): not bit-identical", *ndiff, G, *maxdiff);
  return HK_SUCCESS;
}

/* gather the owned field on rank 0 and compare with the serial reference */
int jac_verify_reference(jac_run_t *r, int sweeps, long long *ndiff, double *maxdiff)
{
  const hk_field_layout_t *L = &r->L;
  MPI_Comm comm = hk_cart_comm(r->cart);
  long long cells = (long long)L->n[0] * L->n[1] * L->n[2];
  long long G = r->cd.global[0] * r->cd.global[1] * r->cd.global[2];
  double *mine = malloc((size_t)cells * sizeof *mine), *all = NULL;
  int *counts = NULL, *displs = NULL, err = HK_SUCCESS;
  if (!mine)
    err = hk_error_set(HK_ERR_NOMEM, "no memory for the gather");
  for (long long c = 0, k = 0; k < L->n[2] && mine; k++)
    for (int j = 0; j < L->n[1]; j++)
      for (int i = 0; i < L->n[0]; i++)
        mine[c++] = r->u[L->offset + i + j * L->sy + k * L->sz];
  if (r->ci.rank == 0) {
    all = malloc((size_t)G * sizeof *all);
    counts = malloc((size_t)r->ci.size * sizeof *counts);
    displs = malloc((size_t)r->ci.size * sizeof *displs);
    if (!all || !counts || !displs)
      err = hk_error_set(HK_ERR_NOMEM, "no memory for the gathered field (%lld cells)", G);
  }
  HK_AGREE(err, comm);
  for (int p = 0, off = 0; r->ci.rank == 0 && p < r->ci.size; p++) {
    long long lo[3];
    int n[3];
    hk_cart_block(r->cart, p, lo, n);
    counts[p] = n[0] * n[1] * n[2];
    displs[p] = off;
    off += counts[p];
  }
  MPI_Gatherv(mine, (int)cells, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, comm);
  if (r->ci.rank == 0)
    HK_LOCAL(err, compare_blocks(r, sweeps, all, displs, ndiff, maxdiff));
  HK_AGREE(err, comm);
cleanup:
  free(mine);
  free(all);
  free(counts);
  free(displs);
  return err;
}
