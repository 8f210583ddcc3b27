/* apps/jacobi/kernel.c: the optimised sweep (one contiguous x-run per row,
 * restrict pointers so it vectorises; the per-cell sum order is the reference's). */
#include "kernel.h"

void jac_update3d(const hk_box_t *b, void *arg)
{
  const jac_sweep_t *s = arg;
  const long long sy = s->L.sy, sz = s->L.sz;
  const double c7 = 1.0 / 7.0;
  for (int k = b->lo[2]; k < b->hi[2]; k++)
    for (int j = b->lo[1]; j < b->hi[1]; j++) {
      const double *restrict u = s->u + s->L.offset + j * sy + k * sz;
      double *restrict v = s->v + s->L.offset + j * sy + k * sz;
#pragma omp simd
      for (int i = b->lo[0]; i < b->hi[0]; i++)
        v[i] = (u[i] + u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz]) * c7;
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
