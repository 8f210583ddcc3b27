/* apps/jacobi/pipeline.h: pipelined temporal blocking (--temporal pipeline).
 *
 * After an exchange of a w-layer halo, b <= w sweeps need no communication.  The
 * pipeline runs them at once with the threads as stages (Wellein et al., COMPSAC 2009;
 * Wittmann et al., Parallel Processing Letters 2010): stage s does sweep s + 1, tile by
 * tile (a tile: P whole planes, rows in 2D), behind its predecessor stage, so a tile the
 * predecessor just wrote is still in the cache when the stage reads it.  Only the two
 * fields are used: level s (the field after s sweeps) lives in u for even s and in v for
 * odd s, and sweep s + 1 overwrites level s - 1 in place of a ring buffer; that is safe
 * once the predecessor has finished the tile after this one (the last that reads level
 * s - 1 there).  Instead of a barrier per tile, every stage posts how many tiles it has
 * finished (hk_progress.h) and keeps a relaxed distance, --looseness dl:du: between the
 * tiles two neighbouring stages work on lie at least dl and at most du tiles (the papers'
 * d_l and d_u): a stage starts tile k once its predecessor has finished tile k + dl (dl >= 1:
 * the stencil reads the first plane of tile k + 1) and its successor tile k - du - 2.
 * With b stages and T threads, thread t runs stages [t b / T, (t + 1) b / T): several
 * consecutive sweeps one tile apart when b > T, and threads without a stage idle when
 * b < T.  Each cell is computed
 * by the update of the plain sweeps, so the result is bit-identical to b plain sweeps.
 */
#ifndef HK_JACOBI_PIPELINE_H
#define HK_JACOBI_PIPELINE_H

#include "hk_progress.h"
#include "hybridkit.h"

typedef struct jac_pipe {
  hk_progress_t prog; /* one counter per stage (tiles finished) */
  int on;             /* 1 when set up */
  int threads;        /* the passes run with this many threads */
  int stages;         /* most stages (sweeps per pass) */
  int dl, du;         /* --looseness */
  int planes;         /* planes (rows in 2D) per tile */
  int nt;             /* the last stage writes with non-temporal stores */
  int xwrap;          /* x is periodic within the rank: the sweeps wrap it */
} jac_pipe_t;

/* counters for passes of up to `stages` (<= HK_WAVE_MAX) sweeps run by `threads` threads */
int jac_pipe_init(jac_pipe_t *p, int stages, int threads, int dl, int du, int planes, int nt,
                  int xwrap);
void jac_pipe_free(jac_pipe_t *p);

/* b (1 <= b <= p->stages) sweeps with `update` (jac_update3d, jac_update27 or jac_update2d)
 * from *u: region[s] (s = 0 .. b-1) is the box sweep s + 1 updates (hk_halo_regions); u's
 * ghosts must hold valid values b deep.  Levels alternate between *u and *v; the result
 * ends in *u (the pointers are swapped when b is odd).  Opens its own parallel region. */
void jac_pipe_run(jac_pipe_t *p, double **u, double **v, const hk_field_layout_t *L, int b,
                  const hk_box_t *region, hk_update_fn update);

#endif
