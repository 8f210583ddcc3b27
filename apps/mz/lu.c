/* apps/mz/lu.c: the LU-MZ zone solver of hk-mz (see lu.h).
 *
 * Our own C, written from reading NPB3.4-MZ-MPI LU-MZ (github.com/LLNL/NPB,
 * NPB3.4-MZ/NPB3.4-MZ-MPI/LU-MZ): the constants are those of setcoeff.f and lu_data.f
 * (c1..c5, omega = 1.2, dx = dy = 0.75, dz = 1, dssp = 1/4, the ce table of the exact
 * solution), the operators those of rhs.f / erhs.f (flux differences, viscous terms,
 * 4th-order dissipation), jacld.f / jacu.f (the 5x5 blocks), blts.f / buts.f (the sweeps),
 * ssor.f (one iteration), setbv.f / setiv.f / exact.f (initial state), l2norm.f, error.f,
 * pintgr.f (verification quantities).  Only the zone-only process grid (no x split).
 *
 * Differences in form, not in value: the three directions of the residual share one line
 * routine; the 5x5 blocks come from the flux Jacobian J and the viscous Jacobian V of a
 * direction (lower block -dt t2 J - dt t1 (V + d I), upper +dt t2 J - dt t1 (V + d I),
 * diagonal I + 2 dt sum t1 (V + d I)), applied at the point where they are used (sparse,
 * never stored) instead of a stored plane of blocks.
 *
 * This file: the residual, the initial state and the verification quantities; the blocks,
 * the sweeps and the SSOR iteration are in lu_ssor.c.
 */
#include "lu_internal.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>

/* setcoeff.f: exact solution coefficients ce(m, n) */
static const double ce[5][13] = {
  {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
  {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
  {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
  {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
  {5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2},
};

/* exact.f: the exact solution at the zone's point (i, j, k), zone-local coordinates */
static void exact(const mz_adi_zone_t *z, int i, int j, int k, double out[5])
{
  double xi = (double)i / (z->nx - 1), eta = (double)j / (z->ny - 1),
         zeta = (double)k / (z->nz - 1);
  for (int m = 0; m < 5; m++)
    out[m] = ce[m][0] + (ce[m][1] + (ce[m][4] + (ce[m][7] + ce[m][10] * xi) * xi) * xi) * xi +
             (ce[m][2] + (ce[m][5] + (ce[m][8] + ce[m][11] * eta) * eta) * eta) * eta +
             (ce[m][3] + (ce[m][6] + (ce[m][9] + ce[m][12] * zeta) * zeta) * zeta) * zeta;
}

int mz_lu_setup(mz_adi_zone_t *z)
{
  lu_state_t *s = calloc(1, sizeof *s);
  if (!s || hk_progress_init(&s->prog, omp_get_max_threads()) != 0) {
    free(s);
    return -1;
  }
  /* setcoeff.f: dxi = 1 / (gx/x_zones - 1), i.e. 1/(nx - 1) for LU-MZ's equal zones */
  int n[3] = {z->nx, z->ny, z->nz};
  s->c.dt = z->c.dt;
  for (int d = 0; d < 3; d++) {
    double h = 1.0 / (double)(n[d] - 1);
    s->c.h[d] = h;
    s->c.t1[d] = 1.0 / (h * h);
    s->c.t2[d] = 1.0 / (2.0 * h);
    s->c.t3[d] = 1.0 / h;
  }
  s->c.d[0] = s->c.d[1] = 0.75;
  s->c.d[2] = 1.0;
  s->c.dssp = 1.0 / 4.0; /* max(dx1, dy1, dz1) / 4 */
  z->solver = s;
  return 0;
}

void mz_lu_free(mz_adi_zone_t *z)
{
  lu_state_t *s = z->solver;
  if (s)
    hk_progress_free(&s->prog);
  free(s);
  z->solver = NULL;
}

/* ---- residual: rsd = -frct + the flux, viscous and dissipation terms (rhs.f, erhs.f) ---- */

/* The terms of one grid line of n points in direction dir, added to r[m*n + p] for p = 1..n-2.
 * w[m*n + p]: the 5 components, w[5n + p] = 1/u0 (rho_i), q[p] = qs; f: 5n scratch. */
static void line_terms(const lu_consts_t *c, int dir, int n, const double *restrict w,
                       const double *restrict q, double *restrict r, double *restrict f)
{
  const int nc = dir + 1;
  const double t1 = c->t1[dir], t2 = c->t2[dir], t3 = c->t3[dir], dd = c->d[dir];
  const double *rho = w + 5 * n, *un = w + nc * n, *u4 = w + 4 * n;
  /* convective flux */
  for (int p = 0; p < n; p++) {
    double uu = un[p] * rho[p];
    f[p] = un[p];
    for (int m = 1; m <= 3; m++)
      f[m * n + p] = w[m * n + p] * uu + (m == nc ? c2 * (u4[p] - q[p]) : 0.0);
    f[4 * n + p] = (c1 * u4[p] - c2 * q[p]) * uu;
  }
  for (int m = 0; m < 5; m++)
    for (int p = 1; p < n - 1; p++)
      r[m * n + p] -= t2 * (f[m * n + p + 1] - f[m * n + p - 1]);
  /* viscous flux between p-1 and p */
  for (int p = 1; p < n; p++) {
    double v[4], vp[4];
    for (int m = 1; m <= 4; m++) {
      v[m - 1] = rho[p] * w[m * n + p];
      vp[m - 1] = rho[p - 1] * w[m * n + p - 1];
    }
    for (int m = 1; m <= 3; m++)
      f[m * n + p] = (m == nc ? (4.0 / 3.0) * t3 : t3) * (v[m - 1] - vp[m - 1]);
    f[4 * n + p] = 0.5 * (1.0 - c1 * c5) * t3 *
                       ((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) -
                        (vp[0] * vp[0] + vp[1] * vp[1] + vp[2] * vp[2])) +
                   (1.0 / 6.0) * t3 * (v[nc - 1] * v[nc - 1] - vp[nc - 1] * vp[nc - 1]) +
                   c1 * c5 * t3 * (v[3] - vp[3]);
  }
  for (int p = 1; p < n - 1; p++)
    r[p] += dd * t1 * (w[p - 1] - 2.0 * w[p] + w[p + 1]);
  for (int m = 1; m < 5; m++)
    for (int p = 1; p < n - 1; p++)
      r[m * n + p] += t3 * c3 * c4 * (f[m * n + p + 1] - f[m * n + p]) +
                      dd * t1 * (w[m * n + p - 1] - 2.0 * w[m * n + p] + w[m * n + p + 1]);
  /* 4th-order dissipation, one-sided rows next to the ends */
  const double ds = c->dssp;
  for (int m = 0; m < 5; m++) {
    const double *a = w + m * n;
    double *rr = r + m * n;
    rr[1] -= ds * (5.0 * a[1] - 4.0 * a[2] + a[3]);
    rr[2] -= ds * (-4.0 * a[1] + 6.0 * a[2] - 4.0 * a[3] + a[4]);
    for (int p = 3; p < n - 3; p++)
      rr[p] -= ds * (a[p - 2] - 4.0 * a[p - 1] + 6.0 * a[p] - 4.0 * a[p + 1] + a[p + 2]);
    rr[n - 3] -= ds * (a[n - 5] - 4.0 * a[n - 4] + 6.0 * a[n - 3] - 4.0 * a[n - 2]);
    rr[n - 2] -= ds * (a[n - 4] - 4.0 * a[n - 3] + 5.0 * a[n - 2]);
  }
}

/* all lines of direction dir through the interior point row starting at point index p0 with
 * point stride st; gather, terms, scatter */
static void line_apply(const mz_adi_zone_t *z, const lu_consts_t *c, int dir, const double *uf,
                       double *out, size_t p0, size_t st, int n, double *w, double *r, double *f)
{
  for (int p = 0; p < n; p++) {
    size_t q = p0 + (size_t)p * st;
    for (int m = 0; m < 5; m++) {
      w[m * n + p] = uf[5 * q + m];
      r[m * n + p] = out[5 * q + m];
    }
    w[5 * n + p] = z->rho_i[q];
    w[6 * n + p] = z->qs[q];
  }
  line_terms(c, dir, n, w, w + 6 * n, r, f);
  for (int p = 1; p < n - 1; p++) {
    size_t q = p0 + (size_t)p * st;
    for (int m = 0; m < 5; m++)
      out[5 * q + m] = r[m * n + p];
  }
}

/* the residual of uf (lu_internal.h) */
void mz__lu_residual(mz_adi_zone_t *z, const lu_consts_t *c, const double *uf, double *out,
                     const double *frct)
{
  const int nx = z->nx, ny = z->ny, nz = z->nz;
  int nmax = nx > ny ? nx : ny;
  nmax = nmax > nz ? nmax : nz;
  double w[7 * nmax], r[5 * nmax], f[5 * nmax];
  const size_t plane = (size_t)nx * ny;
#pragma omp for schedule(static)
  for (int k = 0; k < nz; k++) {
    for (size_t q = k * plane; q < (k + 1) * plane; q++) {
      for (int m = 0; m < 5; m++)
        out[5 * q + m] = frct ? -frct[5 * q + m] : 0.0;
      double rho = 1.0 / uf[5 * q];
      z->rho_i[q] = rho;
      z->qs[q] = 0.5 * (uf[5 * q + 1] * uf[5 * q + 1] + uf[5 * q + 2] * uf[5 * q + 2] +
                        uf[5 * q + 3] * uf[5 * q + 3]) * rho;
    }
    if (k == 0 || k == nz - 1)
      continue;
    for (int j = 1; j < ny - 1; j++)
      line_apply(z, c, 0, uf, out, IDX(z, 0, j, k), 1, nx, w, r, f);
    for (int i = 1; i < nx - 1; i++)
      line_apply(z, c, 1, uf, out, IDX(z, i, 0, k), (size_t)nx, ny, w, r, f);
  }
#pragma omp for schedule(static)
  for (int j = 1; j < ny - 1; j++)
    for (int i = 1; i < nx - 1; i++)
      line_apply(z, c, 2, uf, out, IDX(z, i, j, 0), plane, nz, w, r, f);
}

/* ---- initial state (setbv.f, setiv.f, erhs.f) ---- */

void mz_lu_init(mz_adi_zone_t *z, int first)
{
  lu_state_t *s = z->solver;
  const int nx = z->nx, ny = z->ny, nz = z->nz;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int k = 0; k < nz; k++)
      for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
          double *p = z->u + 5 * IDX(z, i, j, k);
          int face = i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1;
          if (face) { /* setbv: exact values on the six faces */
            exact(z, i, j, k, p);
            continue;
          }
          /* setiv: transfinite interpolation of the face values */
          double xi = (double)i / (nx - 1), eta = (double)j / (ny - 1),
                 zeta = (double)k / (nz - 1);
          double e1[5], e2[5], e3[5], e4[5], e5[5], e6[5];
          exact(z, 0, j, k, e1);
          exact(z, nx - 1, j, k, e2);
          exact(z, i, 0, k, e3);
          exact(z, i, ny - 1, k, e4);
          exact(z, i, j, 0, e5);
          exact(z, i, j, nz - 1, e6);
          for (int m = 0; m < 5; m++) {
            double px = (1.0 - xi) * e1[m] + xi * e2[m];
            double py = (1.0 - eta) * e3[m] + eta * e4[m];
            double pz = (1.0 - zeta) * e5[m] + zeta * e6[m];
            p[m] = px + py + pz - px * py - py * pz - pz * px + px * py * pz;
          }
        }
    if (first) {
      /* erhs: the forcing is the operator applied to the exact solution (in ut) */
#pragma omp for schedule(static)
      for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
          for (int i = 0; i < nx; i++)
            exact(z, i, j, k, z->ut + 5 * IDX(z, i, j, k));
      mz__lu_residual(z, &s->c, z->ut, z->forcing, NULL);
    }
    mz__lu_residual(z, &s->c, z->u, z->rhs, z->forcing);
  }
}

/* ---- verification quantities (l2norm.f, error.f, pintgr.f) ---- */

static double phi(const double *u)
{
  return c2 * (u[4] - 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0]);
}

void mz_lu_norms(mz_adi_zone_t *z, double xcr[5], double xce[5], double *xci)
{
  const lu_state_t *s = z->solver;
  const int nx = z->nx, ny = z->ny, nz = z->nz;
  double sr[5] = {0}, se[5] = {0};
  for (int k = 1; k < nz - 1; k++)
    for (int j = 1; j < ny - 1; j++)
      for (int i = 1; i < nx - 1; i++) {
        size_t q = IDX(z, i, j, k);
        double e[5];
        exact(z, i, j, k, e);
        for (int m = 0; m < 5; m++) {
          double r = z->rhs[5 * q + m], d = e[m] - z->u[5 * q + m];
          sr[m] += r * r;
          se[m] += d * d;
        }
      }
  double npts = (double)(nz - 2) * (double)(ny - 2) * (double)(nx - 2);
  for (int m = 0; m < 5; m++) {
    xcr[m] = sqrt(sr[m] / npts);
    xce[m] = sqrt(se[m] / npts);
  }
  /* pintgr.f: trapezoid sums of phi over three pairs of inner surfaces.  Each pair: the
   * value at the four corners of every cell, both surfaces.  Surfaces: k = 2 and nz-2
   * (i 1..nx-2, j 1..ny-3); j = 1 and ny-3 (i 1..nx-2, k 2..nz-2); i = 1 and nx-2
   * (j 1..ny-3, k 2..nz-2), cells up to the last-but-one point of each range. */
  const double *u = z->u;
  double f1 = 0, f2 = 0, f3 = 0;
#define PHI(i, j, k) phi(u + 5 * IDX(z, i, j, k))
  for (int j = 1; j <= ny - 4; j++)
    for (int i = 1; i <= nx - 3; i++)
      f1 += PHI(i, j, 2) + PHI(i + 1, j, 2) + PHI(i, j + 1, 2) + PHI(i + 1, j + 1, 2) +
            PHI(i, j, nz - 2) + PHI(i + 1, j, nz - 2) + PHI(i, j + 1, nz - 2) +
            PHI(i + 1, j + 1, nz - 2);
  for (int k = 2; k <= nz - 3; k++)
    for (int i = 1; i <= nx - 3; i++)
      f2 += PHI(i, 1, k) + PHI(i + 1, 1, k) + PHI(i, 1, k + 1) + PHI(i + 1, 1, k + 1) +
            PHI(i, ny - 3, k) + PHI(i + 1, ny - 3, k) + PHI(i, ny - 3, k + 1) +
            PHI(i + 1, ny - 3, k + 1);
  for (int k = 2; k <= nz - 3; k++)
    for (int j = 1; j <= ny - 4; j++)
      f3 += PHI(1, j, k) + PHI(1, j + 1, k) + PHI(1, j, k + 1) + PHI(1, j + 1, k + 1) +
            PHI(nx - 2, j, k) + PHI(nx - 2, j + 1, k) + PHI(nx - 2, j, k + 1) +
            PHI(nx - 2, j + 1, k + 1);
#undef PHI
  f1 *= s->c.h[0] * s->c.h[1];
  f2 *= s->c.h[0] * s->c.h[2];
  f3 *= s->c.h[1] * s->c.h[2];
  *xci = 0.25 * (f1 + f2 + f3);
}
