/* src/core/timer.c: wall clock, min/avg/max over ranks, a timed loop with warm-up. */
#include <math.h>
#include <stdlib.h>
#include "internal/hk_internal.h"

double hk_wtime(void) { return MPI_Wtime(); }

int hk_stats_reduce(MPI_Comm comm, double local, hk_stats_t *stats)
{
  int err = HK_SUCCESS, size = 1;
  int finite = isfinite(local);
  double x = finite ? local : 0.0, in[3] = {x, -x, finite ? 0.0 : 1.0}, out[3], sum = 0.0;
  if (!stats)
    return HK_ERROR(HK_ERR_ARG, "stats is NULL");
  HK_MPI_TRY(err, MPI_Comm_size(comm, &size));
  /* max of (x, -x, not-finite flag) gives max, -min and "some rank is bad" at once */
  HK_MPI_TRY(err, MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, comm));
  if (out[2] > 0.0)
    return HK_ERROR(HK_ERR_ARG, "a per-rank value is not finite (NaN or Inf) on at least one rank");
  HK_MPI_TRY(err, MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, comm));
  stats->max = out[0];
  stats->min = -out[1];
  stats->avg = sum / size;
cleanup:
  return err;
}

int hk_time_loop(const hk_timing_desc_t *desc, hk_timed_fn fn, void *arg, hk_stats_t *per_call)
{
  int err = HK_SUCCESS;
  if (!desc || !fn || !per_call)
    return HK_ERROR(HK_ERR_ARG, "desc, fn and per_call must not be NULL");
  if (desc->warmup < 0 || desc->iters < 1)
    return HK_ERROR(HK_ERR_ARG, "warmup %d must be >= 0 and iters %d >= 1", desc->warmup,
                    desc->iters);
  for (int i = 0; i < desc->warmup; i++)
    HK_LOCAL(err, fn(arg));
  HK_AGREE(err, desc->comm);
  HK_MPI_TRY(err, MPI_Barrier(desc->comm));
  double t0 = MPI_Wtime();
  for (int i = 0; i < desc->iters; i++)
    HK_LOCAL(err, fn(arg));
  double t = (MPI_Wtime() - t0) / desc->iters;
  HK_AGREE(err, desc->comm);
  HK_TRY(err, hk_stats_reduce(desc->comm, t, per_call));
cleanup:
  return err;
}
