/* apps/jacobi/wavefront.h: temporal blocking of the 3D 7-point sweep.
 *
 * After an exchange of a w-layer halo, b <= w sweeps need no communication.
 * Done one after another, each sweep streams the whole field through memory
 * (one load and one store stream per cell: memory bound on large grids).  The
 * wavefront does the b sweeps in ONE pass over the planes: at step t, sweep s
 * updates plane t - (s - 1) (sweeps in order, a barrier between them), reading
 * the planes sweep s - 1 wrote in the steps before.  Sweeps 1 .. b-1 write into
 * small ring buffers of three planes each (they stay in the caches); sweep b
 * writes the field itself, in place: by then sweep 1 has read every plane it
 * overwrites for the last time.  The field streams through memory once per b
 * sweeps, and every cell is computed with the reference's formula and sum
 * order, so the result is bit-identical to b separate sweeps.
 */
#ifndef HK_JACOBI_WAVEFRONT_H
#define HK_JACOBI_WAVEFRONT_H

#include "hybridkit.h"

typedef struct jac_wave {
  double *ring;   /* (sweeps - 1) x 3 planes of L.sz doubles */
  int sweeps;     /* most sweeps per pass this ring holds */
} jac_wave_t;

/* ring buffers for passes of up to `sweeps` sweeps (>= 2) over fields of layout L,
 * first touched by `threads` threads as the pass uses them */
int jac_wave_alloc(jac_wave_t *w, const hk_field_layout_t *L, int sweeps, int threads);
void jac_wave_free(jac_wave_t *w);

/* b (2 <= b <= w->sweeps) sweeps of the 3D stencil on u, in place.  region[s]
 * (s = 0 .. b-1) is the box sweep s + 1 updates (the owned cells with b - 1 - s
 * ghost layers, hk_halo_regions); u's ghosts must hold valid values b deep.
 * Opens its own parallel region of `threads` threads. */
void jac_wave3d(const jac_wave_t *w, double *u, const hk_field_layout_t *L, int b,
                const hk_box_t *region, int threads);

#endif
