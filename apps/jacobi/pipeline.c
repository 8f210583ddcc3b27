/* apps/jacobi/pipeline.c: b sweeps as a pipeline of thread stages (see pipeline.h). */
#include <omp.h>
#include "kernel.h"
#include "pipeline.h"
#include "wavefront.h"

/* the default tiles of a 3D pipeline (--tile-rows -1): strips of H rows, one block of rows
 * each, H the tallest multiple of PIPE_ROWS_STEP whose planes in flight on a core (its
 * ceil(b / T) stages' planes, the tile's P and the stencil's 2, in both fields: pipeline.h)
 * keep within 3/4 of the L2; whole planes (0, the papers' scheme) when the rank's planes fit;
 * when not even PIPE_ROWS_STEP rows fit, the tallest strip whose planes in flight (all
 * stages) fit 3/4 of the rank's L3 share, at most PIPE_L3_ROWS.  Measured (docs/performance.md,
 * "Issue 42's open items on the Xeon"): on the Xeon's 2 MiB L2, w = 8, this gives 16 rows at
 * 512^3 and 32 at 256^3 on one core (the best of 8-64 there) and 24 at 512^3 on two (16 and
 * 32 measured best in turn); on the Zen 3 VM's 512 KiB L2 (32 MiB L3) 64, where strips of 64
 * rows beat 32 and tiles of 128 rows */
#define PIPE_ROWS_STEP 8
#define PIPE_L3_ROWS 64

int jac_pipe_rows(const hk_field_layout_t *L, int stages, int planes, int threads, long long l2,
                  long long l3)
{
  if (L->dims != 3)
    return 0;
  /* a core's L2: the planes of its own stages (pipeline.h: a thread runs b / T of them) */
  const int mine_stages = (stages + threads - 1) / threads;
  const long long row = L->sy * (long long)sizeof(double);
  const long long plane_row = 2LL * (mine_stages + planes + 2) * row;
  const long long mine = L->n[1] + 2LL * L->width;
  long long h = l2 * 3 / 4 / plane_row / PIPE_ROWS_STEP * PIPE_ROWS_STEP;
  if (h < PIPE_ROWS_STEP) { /* the L3 share holds every stage's planes */
    h = l3 * 3 / 4 / (2LL * (stages + threads * (planes + 2)) * row) / PIPE_ROWS_STEP *
        PIPE_ROWS_STEP;
    h = h > PIPE_L3_ROWS ? PIPE_L3_ROWS : h < PIPE_ROWS_STEP ? PIPE_ROWS_STEP : h;
  }
  return h >= mine ? 0 : (int)h;
}

int jac_pipe_init(jac_pipe_t *p, const jac_pipe_desc_t *d, int stages, int threads, int nt,
                  int xwrap, const hk_field_layout_t *L, long long l2, long long l3)
{
  *p = (jac_pipe_t){.threads = threads, .stages = stages, .d = *d, .nt = nt, .xwrap = xwrap};
  if (p->d.rows < 0) /* from the caches: one block of rows per strip */
    p->d.rows = p->d.strip = jac_pipe_rows(L, stages, d->planes, threads,
                                           l2 > 0 ? l2 : JAC_L2_DEFAULT,
                                           l3 > 0 ? l3 : JAC_L3_DEFAULT);
  if (stages > HK_WAVE_MAX || hk_progress_init(&p->prog, stages) != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the pipeline's %d counters", stages);
  p->on = 1;
  return HK_SUCCESS;
}

void jac_pipe_free(jac_pipe_t *p)
{
  if (p->on)
    hk_progress_free(&p->prog);
  p->on = 0;
}

/* the tiling of a pass: blocks of `planes` planes of the outer dimension (z; y in 2D), each
 * cut into blocks of `rows` rows of the middle one (y; x in 2D; rows 0: not cut), from the
 * widest region (sweep 1's) on; the blocks of rows grouped into strips of `per_strip`; tiles
 * numbered strip by strip, outer-major within a strip (one strip: outer-major) */
typedef struct tiling {
  int outer, mid;
  int z0, y0;     /* where block 0 starts */
  long nz, ny;    /* blocks along each */
  long per_strip; /* blocks of rows per strip (the last strip may have fewer) */
  long tiles;     /* strips x nz x per_strip (slots past the last block of rows are empty) */
} tiling_t;

static tiling_t tiling(const jac_pipe_t *p, const hk_field_layout_t *L, const hk_box_t *r0)
{
  tiling_t t = {.outer = L->dims == 3 ? 2 : 1, .ny = 1};
  t.mid = t.outer - 1;
  t.z0 = r0->lo[t.outer];
  t.y0 = r0->lo[t.mid];
  t.nz = (r0->hi[t.outer] - t.z0 + p->d.planes - 1) / p->d.planes;
  if (p->d.rows > 0)
    t.ny = (r0->hi[t.mid] - t.y0 + p->d.rows - 1) / p->d.rows;
  t.per_strip = p->d.strip > 0 && p->d.strip / p->d.rows < t.ny ? p->d.strip / p->d.rows : t.ny;
  t.tiles = (t.ny + t.per_strip - 1) / t.per_strip * t.nz * t.per_strip;
  return t;
}

/* [lo, hi) of block j of n of size `size` from `start`, moved by -shift; the first block
 * starts at the region's lower edge, the last ends at its upper edge (so the moved blocks
 * still cover it); 0 when empty (the regions shrink by a layer per sweep) */
static int block(int *lo, int *hi, int rlo, int rhi, int start, long j, long n, int size, int shift)
{
  long a = start + j * size - shift, b = a + size;
  *lo = j == 0 || a < rlo ? rlo : (int)a;
  *hi = j == n - 1 || b > rhi ? rhi : (int)b;
  return *lo < *hi;
}

/* tile k of stage s within its region R; 0 when empty */
static int tile(const jac_pipe_t *p, const tiling_t *t, const hk_box_t *R, int s, long k,
                hk_box_t *out)
{
  const int sh = p->d.shift ? s : 0;
  const long in_strip = t->nz * t->per_strip, r = k % in_strip;
  const long zb = r / t->per_strip, yb = k / in_strip * t->per_strip + r % t->per_strip;
  *out = *R;
  if (yb >= t->ny || !block(&out->lo[t->outer], &out->hi[t->outer], R->lo[t->outer],
                            R->hi[t->outer], t->z0, zb, t->nz, p->d.planes, sh))
    return 0;
  if (t->ny == 1)
    return 1;
  return block(&out->lo[t->mid], &out->hi[t->mid], R->lo[t->mid], R->hi[t->mid], t->y0, yb, t->ny,
               p->d.rows, sh);
}

void jac_pipe_run(jac_pipe_t *p, double **u, double **v, const hk_field_layout_t *L, int b,
                  const hk_box_t *region, hk_update_fn update)
{
  const tiling_t tl = tiling(p, L, &region[0]);
  const long tiles = tl.tiles;
  /* a thread's own consecutive stages: stage j lags `lag` tiles behind stage j - 1 (the
   * least the stencil allows: the unshifted blocks read the first plane of the next block) */
  const long lag = p->d.shift ? 0 : 1;
  double *level[2] = {*u, *v};
#pragma omp parallel num_threads(p->threads)
  {
    const int me = omp_get_thread_num(), nt = omp_get_num_threads();
    const int s0 = (int)((long)b * me / nt), s1 = (int)((long)b * (me + 1) / nt), m = s1 - s0;
    jac_sweep_t sw[HK_WAVE_MAX];
    for (int j = 0; j < m; j++) {
      const int s = s0 + j;
      hk_progress_reset_mine(&p->prog, s);
      sw[j] = (jac_sweep_t){.u = level[s & 1], .v = level[(s + 1) & 1], .L = *L,
                            .nt_stores = s == b - 1 && p->nt, .xwrap = p->xwrap};
    }
#pragma omp barrier
    /* a thread's own stages `lag` tiles apart (at tick t its stage j does tile t - j lag, in
     * the order of j); only its first and last stage wait, on the neighbouring threads'
     * stages */
    for (long t = 0; t < tiles + (m - 1) * lag; t++)
      for (int j = 0; j < m; j++) {
        const long k = t - j * lag;
        const int s = s0 + j;
        if (k < 0 || k >= tiles)
          continue;
        /* in tiles finished: the predecessor k + dl + 1 (it works on k + dl + 1 or later),
         * the successor k - du - 1 (it works on k - du - 1 or later) */
        hk_progress_wait_stage(&p->prog, j == 0 && s > 0 ? s - 1 : -1,
                               j == m - 1 && s < b - 1 ? s + 1 : -1, k, p->d.dl + 1L, p->d.du + 1L,
                               tiles);
        hk_box_t box;
        if (tile(p, &tl, &region[s], s, k, &box))
          update(&box, &sw[j]);
        hk_progress_post(&p->prog, s, k + 1);
      }
  }
  if (b & 1) {
    *u = level[1];
    *v = level[0];
  }
}
