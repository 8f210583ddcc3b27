/* apps/jacobi/hk-jacobi.c: 3D 7- or 27-point Jacobi (and the 2D 5-point heat equation
 * of the hybrid tutorial) on the halo engine, in every hybrid mode.
 *
 *   cart (decomposition, mapping) -> halo plan (mode) -> per batch of w sweeps:
 *     hk_halo_step(u -> v, extend w-1)   exchange + first sweep, the mode's way
 *     w-1 more sweeps on shrinking regions (multi-layer halo: no exchange)
 *   -> invariant checks -> gather + compare with jacobi_ref.c -> record
 *
 * It verifies itself: the periodic stencil conserves the global sum and the
 * Dirichlet one keeps values within the initial/boundary range (checked every
 * --check-every sweeps, untimed), and for small grids the gathered field must
 * equal the frozen serial reference bit for bit.  Exit code 1 when not.
 * The files of the program: jacobi.h.
 */
#include "jacobi.h"

int main(int argc, char **argv)
{
  int done = 0;
  jac_config_t cfg;
  int err = jac_config_parse(argc, argv, &cfg, &done);
  if (done)
    return HK_EXIT_OK;
  hk_thread_level_t level = hk_mode_thread_level(cfg.mode); /* pure after a parse error */
  return hk_app_run(&jac_app, &argc, &argv, level, level, err, jac_run, &cfg);
}
