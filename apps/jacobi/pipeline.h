/* apps/jacobi/pipeline.h: pipelined temporal blocking (--temporal pipeline).
 *
 * After an exchange of a w-layer halo, b <= w sweeps need no communication.  The
 * pipeline runs them at once with the threads as stages (Wellein et al., COMPSAC 2009;
 * Wittmann et al., Parallel Processing Letters 2010): stage s does sweep s + 1, tile by
 * tile, behind its predecessor stage, so a tile the predecessor just wrote is still in the
 * cache when the stage reads it.  A tile: P planes of the outer dimension (z; rows in 2D),
 * cut into blocks of R rows of the middle one (y; columns in 2D) when R > 0, numbered
 * outer-major.  As in the papers, stage s's tiles are shifted by -s in both tiled
 * dimensions (--tile-shift 1, the default; the first and last block of each dimension
 * stretched to the region's edges): stage s + 1 reads of level s + 1 only cells of stage
 * s's tiles up to the same number, so it may work on a tile as soon as its predecessor
 * has finished that tile.  With --tile-strip H the tiles are numbered strip by strip: the
 * blocks of rows of the first H rows through all planes, then the next H rows (outer-major
 * within a strip), so that the planes in flight (about b + P + 2 of both fields) are H rows
 * tall rather than the region's height: at 512^3 a whole-plane pipeline of 8 stages keeps
 * some 50 MB in flight, more than a 32 MB L3.  By default (no --tile-rows) the strips are
 * sized for the L2 (jac_pipe_rows).  Any order that puts a tile after those below
 * it in both tiled dimensions is as safe as the outer-major one (the stencil reads and the
 * in-place overwrite touch only those, see docs/modes.md).  Unshifted (--tile-shift 0;
 * whole planes only) the stencil reads the first plane of the next tile: the predecessor
 * must be one tile further.
 *
 * Only the two fields are used: level s (the field after s sweeps) lives in u for even s
 * and in v for odd s, and sweep s + 1 overwrites level s - 1 in place of a ring buffer;
 * that is safe once the predecessor has read level s - 1 there for the last time, which
 * the same condition ensures.  Instead of a barrier per tile, every stage posts how many
 * tiles it has finished (hk_progress.h) and keeps a relaxed distance, --looseness dl:du:
 * between the tiles two neighbouring stages work on lie at least dl and at most du tiles
 * (the papers' d_l and d_u): a stage starts tile k once its predecessor has finished tile
 * k + dl (dl >= 0 shifted, dl >= 1 unshifted) and its successor tile k - du - 2.
 * With b stages and T threads, thread t runs stages [t b / T, (t + 1) b / T): several
 * consecutive sweeps (0 tiles apart shifted, 1 unshifted) when b > T, and threads without a
 * stage idle when b < T.  Each cell is computed by the update of the plain sweeps, so the
 * result is bit-identical to b plain sweeps.
 */
#ifndef HK_JACOBI_PIPELINE_H
#define HK_JACOBI_PIPELINE_H

#include "hk_progress.h"
#include "hybridkit.h"

/* the user's choices: --looseness dl:du, --tile-planes, --tile-rows (-1: from the caches,
 * jac_pipe_rows, with strips of one block of rows), --tile-shift, --tile-strip (rows of a
 * strip, a multiple of rows; 0: one strip) */
typedef struct jac_pipe_desc {
  int dl, du, planes, rows, shift, strip;
} jac_pipe_desc_t;

typedef struct jac_pipe {
  hk_progress_t prog; /* one counter per stage (tiles finished) */
  int on;             /* 1 when set up */
  int threads;        /* the passes run with this many threads */
  int stages;         /* most stages (sweeps per pass) */
  jac_pipe_desc_t d;  /* looseness and tiles: rows 0 whole planes; shift 1: stage s's
                       * tiles shifted by -s (the papers' scheme) */
  int nt;             /* the last stage writes with non-temporal stores */
  int xwrap;          /* x is periodic within the rank: the sweeps wrap it */
} jac_pipe_t;

/* counters for passes of up to `stages` (<= HK_WAVE_MAX) sweeps run by `threads` threads */
int jac_pipe_init(jac_pipe_t *p, const jac_pipe_desc_t *d, int stages, int threads, int nt,
                  int xwrap, const hk_field_layout_t *L, long long l2, long long l3);

/* the default rows of a strip (d->rows < 0: --tile-rows not given) of a pipeline of `stages`
 * stages run by `threads` threads on tiles of `planes` planes of layout L, from the L2 size
 * and the rank's L3 share (bytes); 0: whole planes (2D: always) */
int jac_pipe_rows(const hk_field_layout_t *L, int stages, int planes, int threads, long long l2,
                  long long l3);
void jac_pipe_free(jac_pipe_t *p);

/* b (1 <= b <= p->stages) sweeps with `update` (jac_update3d, jac_update27 or jac_update2d)
 * from *u: region[s] (s = 0 .. b-1) is the box sweep s + 1 updates (hk_halo_regions); u's
 * ghosts must hold valid values b deep.  Levels alternate between *u and *v; the result
 * ends in *u (the pointers are swapped when b is odd).  Opens its own parallel region. */
void jac_pipe_run(jac_pipe_t *p, double **u, double **v, const hk_field_layout_t *L, int b,
                  const hk_box_t *region, hk_update_fn update);

#endif
