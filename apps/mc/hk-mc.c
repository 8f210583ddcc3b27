/* apps/mc/hk-mc.c: a Monte Carlo particle mini-app with one allreduce of a tally
 * array per time step (or another collective reduction: --collective), outside the
 * parallel region (the simulation: mc_sim.c; the files of the program: mc.h). */
#include "mc.h"

int main(int argc, char **argv)
{
  int done = 0;
  mc_config_t c;
  int err = mc_config_parse(argc, argv, &c, &done);
  if (done)
    return HK_EXIT_OK;
  /* a typical program asks for what it needs (MASTERONLY); the hk_* algorithms want more */
  return hk_app_run(&mc_app, &argc, &argv, c.use_hk ? HK_THREAD_MULTIPLE : HK_THREAD_MASTERONLY,
                    HK_THREAD_MASTERONLY, err, mc_run, &c);
}
