/* apps/mz/lu_internal.h: what lu.c (the residual, initial state, verification) and
 * lu_ssor.c (the blocks, the sweeps, one SSOR iteration) share beyond lu.h. */
#ifndef HK_MZ_LU_INTERNAL_H
#define HK_MZ_LU_INTERNAL_H
#include <stddef.h>
#include <string.h>
#include "hk_progress.h"
#include "lu.h"

/* lu_data.f */
static const double c1 = 1.40, c2 = 0.40, c3 = 1.00e-01, c4 = 1.00, c5 = 1.40;
static const double omega = 1.2;

typedef struct lu_consts {
  double dt;
  double t1[3], t2[3], t3[3]; /* per direction x, y, z: 1/h^2, 1/(2h), 1/h */
  double d[3];                /* dx, dy, dz (the same for the five components) */
  double h[3];                /* dxi, deta, dzeta */
  double dssp;
} lu_consts_t;

typedef struct lu_state {
  lu_consts_t c;
  hk_progress_t prog;
  double *gbuf; /* x split: the ghost planes' send and receive buffers (4 x 2 planes) */
  /* LU_SOA: the sweeps' struct-of-arrays copies of u, rho_i, qs (us: 7 fields per plane) and
   * of rsd (vs: 5), per plane k field m row j at ((k nf + m) ny + j) nx + i (lu_ssor.c) */
  double *us, *vs;
} lu_state_t;

#define IDX(z, i, j, k) \
  ((((size_t)(k) * (size_t)(z)->ny + (size_t)(j)) * (size_t)(z)->nx) + (size_t)(i))

/* The columns [i0, i0 + ncols) of rows [j0, j1) of planes [k0, k1) of the 5-vector field v
 * copied to buf (out = 1) or from it (out = 0); returns the doubles copied. */
static inline size_t lu_cols(const mz_adi_zone_t *z, double *v, int i0, int ncols, int j0,
                             int j1, int k0, int k1, double *buf, int out)
{
  size_t n = 0, len = 5 * (size_t)ncols;
  for (int k = k0; k < k1; k++)
    for (int j = j0; j < j1; j++, n += len) {
      double *a = v + 5 * IDX(z, i0, j, k);
      if (out)
        memcpy(buf + n, a, len * sizeof *a);
      else
        memcpy(a, buf + n, len * sizeof *a);
    }
  return n;
}

/* MPI tags of the x split (on the zone group's communicator) */
enum { LU_TAG_GHOST = 1, LU_TAG_LOWER = 4096, LU_TAG_UPPER = 8192 };

/* out = (frct ? -frct : 0) + the flux, viscous and dissipation terms of uf on the interior
 * (rhs.f, erhs.f); inside a parallel region (every thread calls it; orphaned worksharing,
 * ends with a barrier).  Sets rho_i, qs from uf.  upd (only without the x split): first
 * uf += upd * (the interior of the rsd copy vs), plane by plane in the same loop (ssor.f's
 * update, one pass and one barrier fewer). */
void mz__lu_residual(mz_adi_zone_t *z, const lu_consts_t *c, double *uf, double *out,
                     const double *frct, double upd);

#endif
