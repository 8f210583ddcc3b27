/* apps/mz/mz_history.c: hk-mz --history: the global RMS residual after every step, so that
 * split and unsplit runs can be compared step by step (Jin et al., Fig. 1).
 *
 * The per-zone residual norms of the solver (the verification's, already over dt) are RMS
 * over the zone's interior points; squared and weighted by those points they sum to the
 * residual over all interior points of the aggregate grid, which the cuts of --split only
 * partition (a ghost is never an interior point), so the number means the same split or not:
 *     R = sqrt( sum_zones sum_m rms_zm^2 (nx-2)(ny-2)(nz-2) / (5 sum_zones (nx-2)(ny-2)(nz-2)) )
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mz.h"

int mz_history_alloc(mz_run_t *r)
{
  if (!r->cfg->history)
    return HK_SUCCESS;
  r->residual = calloc((size_t)r->niter + 1, sizeof *r->residual);
  if (!r->residual)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the residual history");
  return HK_SUCCESS;
}

/* after step s (1..niter): the global residual into r->residual[s].  Collective. */
int mz_history_step(mz_run_t *r, int s)
{
  if (!r->residual)
    return HK_SUCCESS;
  double t0 = MPI_Wtime(), loc[2] = {0, 0}, sum[2];
  for (int i = 0; i < r->nlocal; i++) {
    double rr[5], e[5], ci;
    mz_adi_zone_t *z = &r->zone[i];
    r->solver->norms(z, rr, e, &ci);
    double n = (double)(z->nx - 2) * (z->ny - 2) * (z->nz - 2);
    for (int m = 0; m < 5; m++)
      loc[0] += rr[m] * rr[m] * n;
    loc[1] += 5.0 * n;
  }
  int err = MPI_Allreduce(loc, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r->residual[s] = sum[1] > 0 ? sqrt(sum[0] / sum[1]) : 0.0;
  r->t_history += MPI_Wtime() - t0;
  return err == MPI_SUCCESS ? HK_SUCCESS
                            : hk_error_set(HK_ERR_MPI, "MPI_Allreduce of the residual failed");
}

/* rank 0 writes the CSV: "step,residual" and one row per step */
int mz_history_write(const mz_run_t *r)
{
  if (!r->residual || r->rank != 0)
    return HK_SUCCESS;
  FILE *f = fopen(r->cfg->history, "w");
  if (!f)
    return hk_error_set(HK_ERR_IO, "cannot write the residual history to '%s'", r->cfg->history);
  fprintf(f, "# %s class %c, split %d (%d zones), %d procs\nstep,residual\n",
          mz_bench_name(r->bench), r->cls->name, r->cfg->split, r->zones.nzones, r->nprocs);
  for (int s = 1; s <= r->niter; s++)
    fprintf(f, "%d,%.15e\n", s, r->residual[s]);
  return fclose(f) == 0 ? HK_SUCCESS
                        : hk_error_set(HK_ERR_IO, "cannot write '%s'", r->cfg->history);
}
