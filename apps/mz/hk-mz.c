/* apps/mz/hk-mz.c: the NPB multi-zone benchmarks SP-MZ and BT-MZ (NPB3.3-MZ, MPI+OpenMP) and
 * LU-MZ (NPB3.4-MZ, with its process grid NXP x NZP: zones over NZP groups, each zone's x range
 * over the NXP ranks of a group, which needs MPI_THREAD_MULTIPLE).
 *
 *   class table -> zones -> zone-to-process map (bin packing / SP blocks) -> local zones
 *   -> one untimed step, re-initialise -> niter x { exchange boundaries; ADI per zone }
 *   -> verification (error and residual norms against the official values) -> report
 *
 * Two levels of parallelism as in Jin et al. (Parallel Computing 37, 2011): MPI across
 * zones (coarse grain), OpenMP inside each zone (fine grain); --zone-threads N additionally
 * runs N zones of a process at once, each with OMP_NUM_THREADS / N threads (nested OpenMP).
 * Exit code 1 when the verification fails.  The files of the program: mz.h.
 */
#include "mz.h"

int main(int argc, char **argv)
{
  int done = 0;
  mz_config_t cfg;
  int err = mz_config_parse(argc, argv, &cfg, &done);
  if (done)
    return HK_EXIT_OK;
  /* LU-MZ's x split calls MPI from the sweeps' threads: ask for MULTIPLE (mz_run falls back
   * to the zone-only grid when it is not provided) */
  hk_thread_level_t want = !err && cfg.bench == MZ_BENCH_LU ? HK_THREAD_MULTIPLE
                                                             : HK_THREAD_MASTERONLY;
  return hk_app_run(&mz_app, &argc, &argv, want, HK_THREAD_MASTERONLY, err, mz_run, &cfg);
}
