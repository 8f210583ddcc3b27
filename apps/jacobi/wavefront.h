/* apps/jacobi/wavefront.h: temporal blocking of the 3D 7-point (or 27-point) sweep.
 *
 * After an exchange of a w-layer halo, b <= w sweeps need no communication.
 * Done one after another, each sweep streams the whole field through memory
 * (one load and one store stream per cell: memory bound on large grids).  The
 * wavefront does the b sweeps in ONE pass over the planes: at step t, sweep s
 * updates plane t - s, reading the three planes sweep s - 1 wrote in the steps
 * before.  Sweep 1 reads the field u, sweeps 2 .. b-1 read small ring buffers of
 * three planes that stay in the L2 cache, sweep b writes the field v.  The fields
 * stream through memory once per b sweeps, and every cell is computed with the
 * reference's formula and sum order, so the result is bit-identical to b separate
 * sweeps.  The 27-point stencil reads the same planes and rows (radius 1), only
 * their x neighbours too: the same rings, seams and frames serve it.
 */
#ifndef HK_JACOBI_WAVEFRONT_H
#define HK_JACOBI_WAVEFRONT_H

#include "hybridkit.h"

#define HK_WAVE_MAX 16 /* most sweeps per pass */

typedef struct jac_wave {
  double *mem;        /* per thread: the rings of levels 1 .. sweeps-1, then their seams */
  size_t per_thread;  /* doubles */
  size_t ring_size, seam_size; /* doubles: all rings; one seam (0: one strip per thread) */
  int planes;         /* planes of a seam */
  int sweeps;         /* most sweeps per pass */
  int rows;           /* strip height */
  int ring_rows;      /* rows of a ring plane: strip + redundant rows + frame */
  int threads;        /* the passes run with this many threads */
  int nt;             /* the last sweep writes v with non-temporal stores */
  int xwrap;          /* x is periodic within the rank: the sweeps wrap it (JAC_XWRAP) */
  int stencil27;      /* the 27-point stencil (set after jac_wave_alloc; 0: 7 points) */
} jac_wave_t;

/* buffers for passes of up to `sweeps` (2 .. HK_WAVE_MAX) sweeps over fields of
 * layout L by `threads` threads (each touches its own first); strips of `rows`
 * rows (0: sized for the caches: l2, the L2 of one core, and l3, the rank's share
 * of the L3, in bytes, 0 where unknown); nt: the last sweep of a pass writes v with
 * non-temporal stores; xwrap: x is periodic within the rank and the sweeps wrap it
 * (JAC_XWRAP: the regions span all of x) */
int jac_wave_alloc(jac_wave_t *w, const hk_field_layout_t *L, int sweeps, int rows, int threads,
                   long long l2, long long l3, int nt, int xwrap);
void jac_wave_free(jac_wave_t *w);

/* b (2 <= b <= w->sweeps) sweeps of the 3D stencil from u into v.  region[s]
 * (s = 0 .. b-1) is the box sweep s + 1 updates (the owned cells with b - 1 - s
 * ghost layers, hk_halo_regions); u's ghosts must hold valid values b deep.
 * Only v's owned cells are written; u is only read.  Opens its own parallel
 * region of the threads the buffers were made for. */
void jac_wave3d(const jac_wave_t *w, const double *u, double *v, const hk_field_layout_t *L, int b,
                const hk_box_t *region);

#endif
