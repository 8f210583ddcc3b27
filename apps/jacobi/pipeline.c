/* apps/jacobi/pipeline.c: b sweeps as a pipeline of thread stages (see pipeline.h). */
#include <omp.h>
#include "kernel.h"
#include "pipeline.h"
#include "wavefront.h"

int jac_pipe_init(jac_pipe_t *p, int stages, int threads, int dl, int du, int planes, int nt,
                  int xwrap)
{
  *p = (jac_pipe_t){.threads = threads, .stages = stages, .dl = dl, .du = du,
                    .planes = planes, .nt = nt, .xwrap = xwrap};
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

/* tile k of a stage: its region R within planes [z0 + k P, z0 + (k + 1) P) of the outer
 * dimension; 0 when empty (the regions shrink by a layer per sweep) */
static int tile(const jac_pipe_t *p, const hk_box_t *R, int outer, int z0, long k, hk_box_t *out)
{
  long lo = z0 + k * p->planes, hi = lo + p->planes;
  *out = *R;
  out->lo[outer] = lo > R->lo[outer] ? (int)lo : R->lo[outer];
  out->hi[outer] = hi < R->hi[outer] ? (int)hi : R->hi[outer];
  return out->lo[outer] < out->hi[outer];
}

void jac_pipe_run(jac_pipe_t *p, double **u, double **v, const hk_field_layout_t *L, int b,
                  const hk_box_t *region, hk_update_fn update)
{
  const int outer = L->dims == 3 ? 2 : 1;
  const int z0 = region[0].lo[outer];
  const long tiles = (region[0].hi[outer] - z0 + p->planes - 1) / p->planes;
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
    /* a thread's own stages one tile apart (at tick t its stage j does tile t - j, in the
     * order of j: the stage before has finished the tile after); only its first and last
     * stage wait, on the neighbouring threads' stages */
    for (long t = 0; t < tiles + m - 1; t++)
      for (int j = 0; j < m; j++) {
        const long k = t - j;
        const int s = s0 + j;
        if (k < 0 || k >= tiles)
          continue;
        /* in tiles finished: the predecessor k + dl + 1 (it works on k + dl + 1 or later),
         * the successor k - du - 1 (it works on k - du - 1 or later) */
        hk_progress_wait_stage(&p->prog, j == 0 && s > 0 ? s - 1 : -1,
                               j == m - 1 && s < b - 1 ? s + 1 : -1, k, p->dl + 1L, p->du + 1L,
                               tiles);
        hk_box_t box;
        if (tile(p, &region[s], outer, z0, k, &box))
          update(&box, &sw[j]);
        hk_progress_post(&p->prog, s, k + 1);
      }
  }
  if (b & 1) {
    *u = level[1];
    *v = level[0];
  }
}
