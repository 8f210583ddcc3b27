/* NPB-MZ numerics shared by the SP-MZ and BT-MZ zone solvers (hk-mz).
 *
 * CONTRACT between the multi-zone framework (hk-mz.c, zones, exchange, bt.c) and the shared
 * numerics (adi_common.c, sp.c). Skeleton written before either side: the owner of this file
 * may ADD fields and functions; existing names and meanings stay.
 *
 * A zone is NPB-MZ's zone: nx x ny x nz grid points including its boundary layer (the
 * reference's nx(zone), ny(zone), nz(zone); nz = gz_size for every zone). Point arrays are C
 * row-major [k][j][i] with the 5 components fastest for the 5-vectors:
 * u[((k*ny + j)*nx + i)*5 + m]. The framework's boundary exchange writes only the
 * i = 0, nx-1 and j = 0, ny-1 planes of u.
 *
 * Threading: every mz_adi_* and solver function opens its own OpenMP parallel region (the
 * inner level; the *_team variants are the exception: they run inside the caller's region);
 * the framework may call them from an outer parallel loop over zones (nested,
 * --zone-threads) or from serial code. Different zones never share memory, so zones may run
 * concurrently; one zone must not be used by two callers at once.
 *
 * How NPB-MZ 3.x defines the quantities (SP-MZ and BT-MZ set_constants.f, verify.f):
 *  - Grid spacing is the AVERAGE zone cell size of the aggregate grid, the same for every zone
 *    (also for BT-MZ's uneven zones):  dnxm1 = x_zones / (gx_size - 1),
 *    dnym1 = y_zones / (gy_size - 1), dnzm1 = 1 / (gz_size - 1).
 *    Every zone uses its LOCAL indices for the coordinates: xi = i*dnxm1, eta = j*dnym1,
 *    zeta = k*dnzm1, and initialize() puts the exact solution at xi = 0 / 1, eta = 0 / 1,
 *    zeta = 0 / 1 on the six faces of EVERY zone (the exchange then overwrites the x/y faces'
 *    inner parts, j or i = 1..n-2 and k = 1..nz-2, with the neighbours' values; the edges keep
 *    these). With one zone (x_zones = y_zones = 1) this is exactly single-zone NPB SP/BT.
 *  - dt is the per-class constant of the benchmark (npbparams.h dt_default), passed in; it
 *    is not derived from the grid.
 *  - Verification (verify.f): per zone, error_norm(u) is computed, then compute_rhs, then
 *    rhs_norm(rhs). Each per-zone norm is sqrt(sum of squares / ((nx-2)(ny-2)(nz-2))), the
 *    error sum taken over ALL points of the zone (boundary included), the residual sum over
 *    the interior. The framework forms xce[m] = SUM over zones and ranks of the per-zone
 *    error norms and xcr[m] = SUM over zones and ranks of (per-zone rhs norm / dt), then
 *    compares each with the class reference, relative tolerance 1e-8.
 *  - A time step of the reference: exchange boundary values (exch_qbc), then adi() per zone.
 *    The reference also does one untimed step before the timed loop and re-initialises u.
 */
#ifndef HK_MZ_ADI_COMMON_H
#define HK_MZ_ADI_COMMON_H

#include <stddef.h>

/* Constants of NPB's set_constants (both the BT and the SP sets; source cited in the .c).
 * Names are those of the reference so that code can be checked against it. */
typedef struct mz_consts {
  double dt;
  double ce[5][13];
  double c1, c2, c3, c4, c5;
  double dnxm1, dnym1, dnzm1;
  double bt, c1c2, c1c5, c3c4, c1345, conz1;
  double tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3;
  double dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4, dy5, dz1, dz2, dz3, dz4, dz5;
  double dxmax, dymax, dzmax, dssp, c4dssp, c5dssp, dtdssp;
  double dttx1, dttx2, dtty1, dtty2, dttz1, dttz2, c2dttx1, c2dtty1, c2dttz1;
  double comz1, comz4, comz5, comz6;
  double c3c4tx3, c3c4ty3, c3c4tz3;
  double dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1;
  double dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1;
  double dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1;
  double c2iv, con43, con16;
  double xxcon1, xxcon2, xxcon3, xxcon4, xxcon5;
  double yycon1, yycon2, yycon3, yycon4, yycon5;
  double zzcon1, zzcon2, zzcon3, zzcon4, zzcon5;
} mz_consts_t;

/* The aggregate grid and the zone counts: all set_constants needs besides dt. */
typedef struct mz_adi_grid {
  int gx_size, gy_size, gz_size; /* aggregate grid points (npbparams.h gx_size, ...) */
  int x_zones, y_zones;          /* zones in x and y (1 x 1: single-zone NPB) */
} mz_adi_grid_t;

struct mz_adi_zone;

/* A part of a zone (hk-mz --second-level mpi, mz_twolevel.c): the sub-ranks of a group each
 * hold the whole zone's arrays but compute only a part of every step: the interior rows
 * j in [jlo, jhi) for compute_rhs, the x lines and the z lines (and u += rhs), the interior
 * planes k in [klo, khi) for the y lines.  between(z, 0) runs after the x lines, between(z, 1)
 * after the y lines, by the team's master thread with the team waiting (it moves rhs between
 * the row and the plane owners).  A zone with part == NULL is computed whole (the default). */
typedef struct mz_adi_part {
  int jlo, jhi, klo, khi;
  void (*between)(struct mz_adi_zone *z, int phase);
  void *arg;
} mz_adi_part_t;

typedef struct mz_adi_zone {
  int nx, ny, nz;
  mz_adi_part_t *part;                    /* NULL: the whole zone */
  double *u, *rhs, *forcing;              /* 5-vectors per point, [k][j][i][5] */
  double *us, *vs, *ws, *qs, *rho_i, *square; /* per point, [k][j][i] */
  double *speed;                          /* SP only (NULL for BT): speed of sound */
  double *ainv;   /* unused, always NULL: SP-MZ divides by speed where it needs 1/speed */
  double *ut;     /* scratch of compute_rhs: u component-major, ut[m*nx*ny*nz + point] */
  mz_consts_t c;
  void *solver;                           /* solver-private work space, owned by the solver */
  void *placed;   /* arrays carved from one placed block (mz_adi_zone_attach; its owner frees it) */
  /* LU-MZ's x split (lu.h): this rank holds the zone's global i in [ilo + xoff, ihi + xoff)
   * of its interior, local i = global i - xoff, of gnx points; xs: the ranks sharing the zone
   * (NULL: not split; gnx = 0 means the whole zone: gnx = nx, xoff = 0) */
  int gnx, xoff, ilo, ihi;
  const struct mz_xsplit *xs;
} mz_adi_zone_t;

/* Allocate (64-byte aligned, first-touched in parallel with the static k schedule the kernels
 * use) the arrays of a zone, zeroed; with_speed for SP. nx, ny, nz >= 5 (the 4th-order
 * dissipation stencils need it). Returns 0, or -1 (bad size or out of memory; nothing stays
 * allocated). mz_adi_zone_free frees and NULLs every array (safe on a zeroed or freed zone);
 * it does not free z->solver (the solver's *_free does). */
int mz_adi_zone_alloc(mz_adi_zone_t *z, int nx, int ny, int nz, int with_speed);
void mz_adi_zone_free(mz_adi_zone_t *z);
/* Bytes mz_adi_zone_alloc allocates for a zone of this size (for memory reports): per point
 * 26 doubles (u, rhs, forcing, ut: 4 x 5; us, vs, ws, qs, rho_i, square), 27 with speed. */
size_t mz_adi_zone_bytes(int nx, int ny, int nz, int with_speed);
/* The arrays of a zone in one block (--layout, apps/mz/mz_layout.c): their byte offsets
 * (64-byte aligned) and components per point, *narr of them; returns the block's size (0 for
 * a bad size).  mz_adi_zone_attach points z's arrays into `base` and remembers `placed` (the
 * block's handle: mz_adi_zone_free then NULLs the arrays without freeing them). */
#define MZ_ADI_NARR 11
size_t mz_adi_zone_offsets(int nx, int ny, int nz, int with_speed, size_t off[MZ_ADI_NARR],
                           int comps[MZ_ADI_NARR], int *narr);
void mz_adi_zone_attach(mz_adi_zone_t *z, int nx, int ny, int nz, int with_speed, char *base,
                        void *placed);

/* set_constants: fill *c for time step dt and the aggregate grid g (spacing as above). The
 * constants are the same for every zone; compute them once and copy, or call per zone. */
void mz_adi_consts_init(mz_consts_t *c, double dt, const mz_adi_grid_t *g);
/* set_constants for this zone (dt and the grid spacing as the MZ reference defines them) */
void mz_adi_set_constants(mz_adi_zone_t *z, double dt, const mz_adi_grid_t *g);
/* The exact solution at (xi, eta, zeta) (NPB exact_solution). */
void mz_adi_exact_solution(const mz_consts_t *c, double xi, double eta, double zeta,
                           double out[5]);

void mz_adi_initialize(mz_adi_zone_t *z); /* initial u, exact boundary values */
void mz_adi_exact_rhs(mz_adi_zone_t *z);  /* forcing */
void mz_adi_compute_rhs(mz_adi_zone_t *z);/* rhs and the derived point arrays (+speed for SP) */
/* compute_rhs for use INSIDE a parallel region: every thread of the team calls it
 * (orphaned worksharing loops); it ends with a barrier. mz_adi_compute_rhs opens its own. */
void mz_adi_compute_rhs_team(mz_adi_zone_t *z);
/* The same with a hook called on every chunk of interior points of the finished
 * right-hand side before it is stored: rr[m*ld + c] is component m of point p0 + c
 * (c < n; the points lie on one interior row), already times dt; the hook may transform it
 * in place (SP applies txinvr there). */
typedef void mz_adi_row_fn(const mz_adi_zone_t *z, size_t p0, int n, double *rr, size_t ld);
void mz_adi_compute_rhs_team_hook(mz_adi_zone_t *z, mz_adi_row_fn *hook);
void mz_adi_add(mz_adi_zone_t *z);        /* u += rhs on the interior */
/* 4th-order dissipation stencil (offsets -2..2) of position p in 1..n-2 of a line of n >= 5
 * points, as rhs.f/exact_rhs.f apply it; SP's implicit (penta-diagonal) dissipation rows are
 * dtdssp times these (comz1 = dtdssp, comz4 = 4 dtdssp, ...). */
void mz_adi_dissipation_row(int p, int n, double c[5]);
/* Per-zone contributions to the verification norms, exactly as the reference's per-zone
 * error_norm / rhs_norm compute them (see the top of this file: rhs_norm is NOT divided by
 * dt and needs a compute_rhs on the current u first); the framework combines zones and ranks
 * as the reference does. */
void mz_adi_error_norm(const mz_adi_zone_t *z, double rms[5]);
void mz_adi_rhs_norm(const mz_adi_zone_t *z, double rms[5]);

/* Is interior row j computed here (compute_rhs, x and z lines)? */
static inline int mz_adi_row_mine(const mz_adi_zone_t *z, int j)
{
  return !z->part || (j >= z->part->jlo && j < z->part->jhi);
}

/* Is the line of direction d (0 x, 1 y, 2 z) whose position 0 is point p0 stored here? */
static inline int mz_adi_line_mine(const mz_adi_zone_t *z, int d, size_t p0)
{
  if (!z->part)
    return 1;
  const size_t plane = (size_t)z->nx * z->ny;
  if (d == 1) {
    const int k = (int)(p0 / plane);
    return k >= z->part->klo && k < z->part->khi;
  }
  return mz_adi_row_mine(z, (int)(p0 % plane / (size_t)z->nx));
}

/* the part's exchange between sweeps, inside the solver's parallel region (after a
 * worksharing loop's barrier): the master calls it, the team waits */
static inline void mz_adi_between(mz_adi_zone_t *z, int phase)
{
  if (!z->part)
    return;
#pragma omp barrier
#pragma omp master
  z->part->between(z, phase);
#pragma omp barrier
}

#endif
