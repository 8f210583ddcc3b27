/* apps/jacobi/kernel.c: the optimised sweep.  One contiguous x-run per row
 * with restrict pointers (vectorised); in 3D the rows are walked in blocks of
 * JAC_ROWS y-rows, k innermost over a block, so the three plane slices the
 * stencil touches (k-1, k, k+1) stay in the L2 cache ("layer condition") and
 * every value comes from memory once.  The per-cell sum order is the
 * reference's, so blocking changes no result. */
#include "kernel.h"

/* rows per block: 3 planes x JAC_ROWS rows x 8 B x NX stay well inside a 512 KiB-1 MiB
 * L2 for NX up to ~1000 */
#define JAC_ROWS 16

void jac_rows3d(const double *zm, const double *c, const double *zp, double *out, long long sy,
                int rows, int ilo, int ihi)
{
  const double c7 = 1.0 / 7.0;
  for (int j = 0; j < rows; j++) {
    const double *restrict x = c + j * sy, *restrict ym = x - sy, *restrict yp = x + sy;
    const double *restrict a = zm + j * sy, *restrict b = zp + j * sy;
    double *restrict o = out + j * sy;
#pragma omp simd
    for (int i = ilo; i < ihi; i++)
      o[i] = (x[i] + x[i - 1] + x[i + 1] + ym[i] + yp[i] + a[i] + b[i]) * c7;
  }
}

void jac_update3d(const hk_box_t *b, void *arg)
{
  const jac_sweep_t *s = arg;
  const long long sy = s->L.sy, sz = s->L.sz;
  for (int jb = b->lo[1]; jb < b->hi[1]; jb += JAC_ROWS) {
    int je = jb + JAC_ROWS < b->hi[1] ? jb + JAC_ROWS : b->hi[1];
    for (int k = b->lo[2]; k < b->hi[2]; k++) {
      const long long at = s->L.offset + jb * sy + k * sz;
      jac_rows3d(s->u + at - sz, s->u + at, s->u + at + sz, s->v + at, sy, je - jb, b->lo[0],
                 b->hi[0]);
    }
  }
}

void jac_update2d(const hk_box_t *b, void *arg)
{
  const jac_sweep_t *s = arg;
  const long long sy = s->L.sy;
  const double c5 = 1.0 / 5.0;
  for (int j = b->lo[1]; j < b->hi[1]; j++) {
    const double *restrict u = s->u + s->L.offset + j * sy;
    double *restrict v = s->v + s->L.offset + j * sy;
#pragma omp simd
    for (int i = b->lo[0]; i < b->hi[0]; i++)
      v[i] = (u[i] + u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy]) * c5;
  }
}
