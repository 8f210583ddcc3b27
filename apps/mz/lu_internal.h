/* apps/mz/lu_internal.h: what lu.c (the residual, initial state, verification) and
 * lu_ssor.c (the blocks, the sweeps, one SSOR iteration) share beyond lu.h. */
#ifndef HK_MZ_LU_INTERNAL_H
#define HK_MZ_LU_INTERNAL_H
#include <stddef.h>
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
} lu_state_t;

#define IDX(z, i, j, k) \
  ((((size_t)(k) * (size_t)(z)->ny + (size_t)(j)) * (size_t)(z)->nx) + (size_t)(i))

/* out = (frct ? -frct : 0) + the flux, viscous and dissipation terms of uf on the interior
 * (rhs.f, erhs.f); inside a parallel region (every thread calls it; orphaned worksharing,
 * ends with a barrier).  Sets rho_i, qs from uf. */
void mz__lu_residual(mz_adi_zone_t *z, const lu_consts_t *c, const double *uf, double *out,
                     const double *frct);

#endif
