/* apps/jacobi/wavefront.c: b sweeps in one pass over the planes (see wavefront.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "wavefront.h"

int jac_wave_alloc(jac_wave_t *w, const hk_field_layout_t *L, int sweeps, int threads)
{
  w->ring = NULL;
  w->sweeps = sweeps;
  if (sweeps < 2)
    return HK_SUCCESS;
  size_t n = (size_t)(sweeps - 1) * 3 * (size_t)L->sz;
  if (posix_memalign((void **)&w->ring, 64, n * sizeof(double)))
    return hk_error_set(HK_ERR_NOMEM, "no memory for the wavefront ring (%zu doubles)", n);
  /* first touch in the row split the pass uses: plane by plane, rows by thread */
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p += 512)
    memset(w->ring + p, 0, (n - p < 512 ? n - p : 512) * sizeof(double));
  return HK_SUCCESS;
}

void jac_wave_free(jac_wave_t *w)
{
  free(w->ring);
  w->ring = NULL;
}

/* one plane of the stencil: out(i, j) for the rows and columns of box b, from
 * the planes below (zm), at (c) and above (zp); the reference's sum order */
static void plane_update(const double *restrict zm, const double *restrict c,
                         const double *restrict zp, double *restrict out, long long sy, int jlo,
                         int jhi, int ilo, int ihi)
{
  const double c7 = 1.0 / 7.0;
  for (int j = jlo; j < jhi; j++) {
    const double *restrict x = c + j * sy, *restrict ym = c + (j - 1) * sy,
                           *restrict yp = c + (j + 1) * sy;
    const double *restrict a = zm + j * sy, *restrict b = zp + j * sy;
    double *restrict o = out + j * sy;
#pragma omp simd
    for (int i = ilo; i < ihi; i++)
      o[i] = (x[i] + x[i - 1] + x[i + 1] + ym[i] + yp[i] + a[i] + b[i]) * c7;
  }
}

static inline int mod3(int z) { return ((z % 3) + 3) % 3; }

void jac_wave3d(const jac_wave_t *w, double *u, const hk_field_layout_t *L, int b,
                const hk_box_t *region, int threads)
{
  const long long sy = L->sy, sz = L->sz;
  /* plane z of the field and of a ring slot, both indexed [i + j * sy] */
  double *const f0 = u + L->offset;
  const long long inplane = L->offset % sz;
  const int t0 = region[0].lo[2], t1 = region[0].hi[2] + b - 1;
#pragma omp parallel num_threads(threads)
  {
    const int me = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int t = t0; t < t1; t++)
      for (int s = 0; s < b; s++) {
        const hk_box_t *R = &region[s];
        const int z = t - s;
        if (z < R->lo[2] || z >= R->hi[2])
          continue; /* the same on every thread: barriers stay matched */
        const double *in[3];
        for (int d = -1; d <= 1; d++) {
          int zz = z + d;
          /* sweep s reads what sweep s - 1 wrote; outside that sweep's planes (a
           * Dirichlet boundary) and for the first sweep: the field itself */
          if (s == 0 || zz < region[s - 1].lo[2] || zz >= region[s - 1].hi[2])
            in[d + 1] = f0 + zz * sz;
          else
            in[d + 1] = w->ring + ((size_t)(s - 1) * 3 + (size_t)mod3(zz)) * (size_t)sz + inplane;
        }
        double *out = s == b - 1 ? f0 + z * sz
                                 : w->ring + ((size_t)s * 3 + (size_t)mod3(z)) * (size_t)sz + inplane;
        const int rows = R->hi[1] - R->lo[1];
        const int jlo = R->lo[1] + (int)((long long)rows * me / nt);
        const int jhi = R->lo[1] + (int)((long long)rows * (me + 1) / nt);
        plane_update(in[0], in[1], in[2], out, sy, jlo, jhi, R->lo[0], R->hi[0]);
        if (s < b - 1) {
          /* the frame around the box: where the box stops at a Dirichlet boundary
           * the next sweep reads the boundary values, kept in the field's ghosts
           * (elsewhere the frame is never read) */
          const double *f = f0 + z * sz;
          for (int j = jlo; j < jhi; j++) {
            out[j * sy + R->lo[0] - 1] = f[j * sy + R->lo[0] - 1];
            out[j * sy + R->hi[0]] = f[j * sy + R->hi[0]];
          }
          const size_t rowlen = (size_t)(R->hi[0] - R->lo[0] + 2) * sizeof(double);
          if (me == 0)
            memcpy(out + (R->lo[1] - 1) * sy + R->lo[0] - 1, f + (R->lo[1] - 1) * sy + R->lo[0] - 1,
                   rowlen);
          if (me == nt - 1)
            memcpy(out + R->hi[1] * sy + R->lo[0] - 1, f + R->hi[1] * sy + R->lo[0] - 1, rowlen);
        }
#pragma omp barrier
      }
  }
}
