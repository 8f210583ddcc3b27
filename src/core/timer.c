/* src/core/timer.c: wall clock, min/avg/max over ranks, a timed loop with warm-up. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <time.h>
#include "internal/hk_internal.h"

double hk_wtime(void) { return MPI_Wtime(); }

/* hk_clock (hk__clock inside the library): the phase timers read inside parallel regions
 * (src/modes/engine.c, src/halo/modes.c) by every thread, and hk-bench's barrier timed on
 * the master thread inside one, need a clock that
 *  - any thread may read: not MPI_Wtime, an MPI call, which at MPI_THREAD_FUNNELED only the
 *    master thread may make;
 *  - the simulator virtualises: not omp_get_wtime, which SimGrid's SMPI leaves alone, so
 *    under `hybridkit simulate` the phases read the host's time while the iteration read the
 *    simulated one (halo wait 0.176 s against 0.417 ms per iteration, phase_other -0.18 s:
 *    issue 43).
 * clock_gettime is both: smpicc compiles every source with smpi_helpers.h, which turns it
 * into smpi_clock_gettime (the simulated clock; like MPI_Wtime it first ends the compute
 * burst being timed, so the burst is charged before the clock is read).  SMPI runs ranks
 * with one thread (MPI_THREAD_SINGLE), so only a rank's own thread reads it there.
 * CLOCK_MONOTONIC, as omp_get_wtime in libgomp; only differences of it are used. */
double hk_clock(void)
{
  struct timespec ts;
#if HK_UNDER_SMPI
  /* SMPI runs its ranks as user-level contexts of one OS thread, and smpi_clock_gettime may
   * switch to another rank (it first charges the compute burst): inside a parallel region of
   * several threads that rank's own regions would take this OS thread's OpenMP team (a
   * masteronly run with 2 threads crashed or deadlocked), and a worker thread has no
   * simulated clock at all.  There the host's clock is read (the parenthesised name escapes
   * smpi_helpers.h's macro): threads are not simulated (docs/simulate.md), runs have one */
  if (omp_in_parallel()) {
    (clock_gettime)(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  }
#endif
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
