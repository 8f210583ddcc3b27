/* apps/jacobi/wavefront.h: temporal blocking of the 3D 7-point sweep.
 *
 * After an exchange of a w-layer halo, b <= w sweeps need no communication.
 * Done one after another, each sweep streams the whole field through memory
 * (one load and one store stream per cell: memory bound on large grids).  The
 * wavefront does the b sweeps in ONE pass over the planes: at step t, sweep s
 * updates plane t - (s - 1) (sweeps in order, a barrier between them), reading
 * the planes sweep s - 1 wrote in the steps before.  Sweeps 1 .. b-1 write into
 * small ring buffers of three planes each, strips of rows so that they stay in
 * the L2 cache; sweep b writes the field itself, in place.  The field streams through memory once per b
 * sweeps, and every cell is computed with the reference's formula and sum
 * order, so the result is bit-identical to b separate sweeps.
 */
#ifndef HK_JACOBI_WAVEFRONT_H
#define HK_JACOBI_WAVEFRONT_H

#include "hybridkit.h"

#define HK_WAVE_MAX 16 /* most sweeps per pass */

typedef struct jac_wave {
  double *mem;        /* per thread: rings of all levels, then three seam buffers */
  size_t per_thread;  /* doubles: ring_size + 3 x seam_size */
  size_t ring_size, seam_size;
  int sweeps;         /* most sweeps per pass */
  int rows;           /* strip height */
  int ring_rows;      /* rows of a ring plane: strip + redundant rows + frame */
  int planes;         /* planes of a seam buffer */
  int threads;        /* the passes run with this many threads */
} jac_wave_t;

/* buffers for passes of up to `sweeps` (2 .. HK_WAVE_MAX) sweeps over fields of
 * layout L by `threads` threads (each touches its own first); strips of `rows`
 * rows (0: sized for the L2 cache) */
int jac_wave_alloc(jac_wave_t *w, const hk_field_layout_t *L, int sweeps, int rows, int threads);
void jac_wave_free(jac_wave_t *w);

/* b (2 <= b <= w->sweeps) sweeps of the 3D stencil on u, in place.  region[s]
 * (s = 0 .. b-1) is the box sweep s + 1 updates (the owned cells with b - 1 - s
 * ghost layers, hk_halo_regions); u's ghosts must hold valid values b deep.
 * Opens its own parallel region of the threads the buffers were made for. */
void jac_wave3d(const jac_wave_t *w, double *u, const hk_field_layout_t *L, int b,
                const hk_box_t *region);

#endif
