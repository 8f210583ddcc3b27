/* apps/mz/mz_verify.c: the NPB verification of hk-mz: the RMS norms of the residual
 * and of the error (LU-MZ: also the surface integral), summed over zones and ranks, against
 * the official values of the class (mz_problem.c, from NPB3.3-MZ / NPB3.4-MZ), relative 1e-8.
 * The per-zone quantities come from the solver (mz_solver_t.norms). */
#include <math.h>
#include <stdio.h>
#include "mz.h"

/* NPB verify: sum over zones and ranks of the per-zone norms (the residual over dt),
 * reduced to rank 0 and broadcast */
int mz_verify(mz_run_t *r)
{
  double loc[11] = {0}, sum[11];
  for (int i = 0; i < r->nlocal; i++) {
    double e[5], rr[5], ci;
    r->solver->norms(&r->zone[i], rr, e, &ci);
    for (int m = 0; m < 5; m++) {
      loc[m] += rr[m];
      loc[5 + m] += e[m];
    }
    loc[10] += ci;
  }
  /* over the first level (--second-level mpi: sub-rank s of every group, all alike): as
   * the NPB-MZ reference, an MPI_Reduce of the norms to rank 0 (under the preload library
   * the library's reduce runs it), then an MPI_Bcast of the sums, so that every rank compares
   * the same numbers and agrees on the verdict (and the exit code) */
  int rc = MPI_Reduce(loc, sum, 11, MPI_DOUBLE, MPI_SUM, 0, r->comm1);
  if (rc == MPI_SUCCESS)
    rc = MPI_Bcast(sum, 11, MPI_DOUBLE, 0, r->comm1);
  if (rc != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Reduce / MPI_Bcast of the norms failed");
  r->verified = r->niter == r->cls->niter;
  for (int m = 0; m < 5; m++) {
    r->xcr[m] = sum[m];
    r->xce[m] = sum[5 + m];
    r->verified &= fabs((r->xcr[m] - r->cls->xcr[m]) / r->cls->xcr[m]) <= 1e-8;
    r->verified &= fabs((r->xce[m] - r->cls->xce[m]) / r->cls->xce[m]) <= 1e-8;
  }
  r->xci = sum[10];
  if (r->cls->xci != 0.0)
    r->verified &= fabs((r->xci - r->cls->xci) / r->cls->xci) <= 1e-8;
  return HK_SUCCESS;
}

void mz_print_verification(const mz_run_t *r)
{
  printf(" Verification being performed for class %c\n accuracy setting for epsilon = %20.13E\n",
         r->cls->name, 1e-8);
  if (r->niter != r->cls->niter)
    printf(" NITER does not match the reference value of %5d\n", r->cls->niter);
  const char *what[2] = {"residual", "solution error"};
  for (int t = 0; t < 2; t++) {
    printf(" Comparison of RMS-norms of %s\n", what[t]);
    for (int m = 0; m < 5; m++) {
      double v = t ? r->xce[m] : r->xcr[m], ref = t ? r->cls->xce[m] : r->cls->xcr[m];
      double dif = fabs((v - ref) / ref);
      printf(" %s %2d%20.13E%20.13E%20.13E\n", dif <= 1e-8 ? "        " : "FAILURE:", m + 1, v,
             ref, dif);
    }
  }
  if (r->cfg->norms_hex) {
    printf(" Norms (hex):");
    for (int m = 0; m < 11; m++)
      printf(" %a", m < 5 ? r->xcr[m] : m < 10 ? r->xce[m - 5] : r->xci);
    printf("\n");
  }
  if (r->cls->xci != 0.0) {
    double dif = fabs((r->xci - r->cls->xci) / r->cls->xci);
    printf(" Comparison of surface integral\n %s   %20.13E%20.13E%20.13E\n",
           dif <= 1e-8 ? "        " : "FAILURE:", r->xci, r->cls->xci, dif);
  }
}

