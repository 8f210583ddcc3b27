/* NPB-MZ numerics shared by the SP-MZ and BT-MZ zone solvers (hk-mz).
 *
 * CONTRACT between the multi-zone framework (hk-mz.c, zones, exchange, bt.c) and the shared
 * numerics (adi_common.c, sp.c). Skeleton written before either side: the owner of this file
 * may ADD fields and functions; existing names and meanings stay.
 *
 * A zone is NPB-MZ's zone: nx x ny x nz grid points including its boundary layer (the
 * reference's nx(zone), ny(zone), nz(zone)). Point arrays are C row-major [k][j][i] with the
 * 5 components fastest for the 5-vectors: u[((k*ny + j)*nx + i)*5 + m]. The framework's
 * boundary exchange writes only the i = 0, nx-1 and j = 0, ny-1 planes of u.
 *
 * Threading: every mz_adi_* and solver function opens its own OpenMP parallel region (the
 * inner level); the framework may call them from an outer parallel loop over zones (nested,
 * --zone-threads) or from serial code.
 */
#ifndef HK_MZ_ADI_COMMON_H
#define HK_MZ_ADI_COMMON_H

#include <stddef.h>

/* Constants of NPB's set_constants (both the BT and the SP sets; source cited in the .c). */
typedef struct mz_consts {
  double dt;
  double ce[5][13];
  double c1, c2, c3, c4, c5;
  double dnxm1, dnym1, dnzm1;
  /* ... the owner of adi_common.c adds every further constant (tx1, dx1, dssp, bt, ...) */
} mz_consts_t;

typedef struct mz_adi_zone {
  int nx, ny, nz;
  double *u, *rhs, *forcing;              /* 5-vectors per point, [k][j][i][5] */
  double *us, *vs, *ws, *qs, *rho_i, *square; /* per point, [k][j][i] */
  double *speed, *ainv;                   /* SP only (NULL for BT) */
  mz_consts_t c;
  void *solver;                           /* solver-private work space, owned by the solver */
} mz_adi_zone_t;

/* Allocate (aligned, first-touched in parallel) the arrays of a zone; with_speed for SP. */
int mz_adi_zone_alloc(mz_adi_zone_t *z, int nx, int ny, int nz, int with_speed);
void mz_adi_zone_free(mz_adi_zone_t *z);
/* set_constants for this zone (dt and the grid spacing as the MZ reference defines them) */
void mz_adi_set_constants(mz_adi_zone_t *z, double dt /*, ... as the reference needs */);
void mz_adi_initialize(mz_adi_zone_t *z); /* initial u, exact boundary values */
void mz_adi_exact_rhs(mz_adi_zone_t *z);  /* forcing */
void mz_adi_compute_rhs(mz_adi_zone_t *z);/* rhs and the derived point arrays (+speed, ainv for SP) */
void mz_adi_add(mz_adi_zone_t *z);        /* u += rhs on the interior */
/* Per-zone contributions to the verification norms, exactly as the reference's per-zone
 * error_norm / rhs_norm compute them; the framework combines zones and ranks as the
 * reference does. */
void mz_adi_error_norm(const mz_adi_zone_t *z, double rms[5]);
void mz_adi_rhs_norm(const mz_adi_zone_t *z, double rms[5]);

#endif
