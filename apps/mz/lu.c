/* apps/mz/lu.c: the LU-MZ zone solver of hk-mz (see lu.h).
 *
 * Our own C, written from reading NPB3.4-MZ-MPI LU-MZ (github.com/LLNL/NPB,
 * NPB3.4-MZ/NPB3.4-MZ-MPI/LU-MZ): the constants are those of setcoeff.f and lu_data.f
 * (c1..c5, omega = 1.2, dx = dy = 0.75, dz = 1, dssp = 1/4, the ce table of the exact
 * solution), the operators those of rhs.f / erhs.f (flux differences, viscous terms,
 * 4th-order dissipation), jacld.f / jacu.f (the 5x5 blocks), blts.f / buts.f (the sweeps),
 * ssor.f (one iteration), setbv.f / setiv.f / exact.f (initial state), l2norm.f, error.f,
 * pintgr.f (verification quantities).  With NPB3.4-MZ's x split (lu.h) a rank holds a piece
 * of the zone's x range: coordinates, the one-sided dissipation rows and the norms use the
 * global i, the residual first takes the ghost planes of u from the x neighbours.
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
#include <stddef.h>
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

/* exact.f: the exact solution at the zone's point (gi, j, k) (gi: the global i of a split
 * zone), zone-local coordinates */
static void exact(const mz_adi_zone_t *z, int gi, int j, int k, double out[5])
{
  double xi = (double)gi / (z->gnx - 1), eta = (double)j / (z->ny - 1),
         zeta = (double)k / (z->nz - 1);
  for (int m = 0; m < 5; m++)
    out[m] = ce[m][0] + (ce[m][1] + (ce[m][4] + (ce[m][7] + ce[m][10] * xi) * xi) * xi) * xi +
             (ce[m][2] + (ce[m][5] + (ce[m][8] + ce[m][11] * eta) * eta) * eta) * eta +
             (ce[m][3] + (ce[m][6] + (ce[m][9] + ce[m][12] * zeta) * zeta) * zeta) * zeta;
}

int mz_lu_setup(mz_adi_zone_t *z)
{
  if (z->gnx == 0) { /* the whole zone */
    z->gnx = z->nx;
    z->xoff = 0;
    z->ilo = 1;
    z->ihi = z->nx - 1;
  }
  lu_state_t *s = calloc(1, sizeof *s);
  if (!s || hk_progress_init(&s->prog, omp_get_max_threads()) != 0) {
    free(s);
    return -1;
  }
  const size_t npts = (size_t)z->nx * z->ny * z->nz;
  s->us = malloc(7 * npts * sizeof *s->us);
  s->vs = malloc(5 * npts * sizeof *s->vs);
  if (!s->us || !s->vs ||
      (z->xs && !(s->gbuf = malloc(40 * (size_t)z->ny * z->nz * sizeof *s->gbuf)))) {
    hk_progress_free(&s->prog);
    free(s->us);
    free(s->vs);
    free(s);
    return -1;
  }
  /* setcoeff.f: dxi = 1 / (gx/x_zones - 1), i.e. 1/(nx - 1) for LU-MZ's equal zones */
  int n[3] = {z->gnx, z->ny, z->nz};
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
  if (s) {
    hk_progress_free(&s->prog);
    free(s->gbuf);
    free(s->us);
    free(s->vs);
  }
  free(s);
  z->solver = NULL;
}

/* ---- residual: rsd = -frct + the flux, viscous and dissipation terms (rhs.f, erhs.f) ---- */

/* 4th-order dissipation of point p (global index g of a line of gn points) of the line a,
 * the one-sided rows next to the ends (x pieces of a split zone) */
static inline double dissipation(const double *a, int p, int g, int gn)
{
  if (g == 1)
    return 5.0 * a[p] - 4.0 * a[p + 1] + a[p + 2];
  if (g == 2)
    return -4.0 * a[p - 1] + 6.0 * a[p] - 4.0 * a[p + 1] + a[p + 2];
  if (g == gn - 3)
    return a[p - 2] - 4.0 * a[p - 1] + 6.0 * a[p] - 4.0 * a[p + 1];
  if (g == gn - 2)
    return a[p - 2] - 4.0 * a[p - 1] + 5.0 * a[p];
  return a[p - 2] - 4.0 * a[p - 1] + 6.0 * a[p] - 4.0 * a[p + 1] + a[p + 2];
}

/* The terms of a bundle of L parallel grid lines of n points in direction dir, added to the
 * residual r for points p in [plo, phi) of each line (the whole line: 1..n-2; a split zone's x
 * line: its piece, point p being global p + goff of gn).  Field m (0..4 the components, 5
 * rho_i, 6 qs) of point p of line l is w[m wf + p wps + l], the residual's r[m rf + p rps + l];
 * f: 5 n L scratch.  The lines of a bundle are independent and adjacent in memory (the x
 * direction: one line, L = 1, its points adjacent; y and z: lines over i), so the innermost
 * loop is unit stride and vectorises; each point's arithmetic is that of one line. */
static inline void line_terms(const lu_consts_t *c, int dir, int n, int plo, int phi, int goff,
                              int gn, const double *restrict w, ptrdiff_t wf, ptrdiff_t wps,
                              double *restrict r, ptrdiff_t rf, ptrdiff_t rps, int L,
                              double *restrict f)
{
  const int nc = dir + 1;
  const double t1 = c->t1[dir], t2 = c->t2[dir], t3 = c->t3[dir], dd = c->d[dir];
  const ptrdiff_t ff = (ptrdiff_t)n * L;
#define WV(m, p, l) w[(m) * wf + (ptrdiff_t)(p) * wps + (l)]
#define RV(m, p, l) r[(m) * rf + (ptrdiff_t)(p) * rps + (l)]
#define FV(m, p, l) f[(m) * ff + (ptrdiff_t)(p) * L + (l)]
  /* convective flux */
  for (int p = 0; p < n; p++)
    for (int l = 0; l < L; l++) {
      const double rho = WV(5, p, l), un = WV(nc, p, l), u4 = WV(4, p, l), q = WV(6, p, l);
      double uu = un * rho;
      FV(0, p, l) = un;
      for (int m = 1; m <= 3; m++)
        FV(m, p, l) = WV(m, p, l) * uu + (m == nc ? c2 * (u4 - q) : 0.0);
      FV(4, p, l) = (c1 * u4 - c2 * q) * uu;
    }
  for (int m = 0; m < 5; m++)
    for (int p = plo; p < phi; p++)
      for (int l = 0; l < L; l++)
        RV(m, p, l) -= t2 * (FV(m, p + 1, l) - FV(m, p - 1, l));
  /* viscous flux between p-1 and p */
  for (int p = 1; p < n; p++)
    for (int l = 0; l < L; l++) {
      double v[4], vp[4];
      for (int m = 1; m <= 4; m++) {
        v[m - 1] = WV(5, p, l) * WV(m, p, l);
        vp[m - 1] = WV(5, p - 1, l) * WV(m, p - 1, l);
      }
      for (int m = 1; m <= 3; m++)
        FV(m, p, l) = (m == nc ? (4.0 / 3.0) * t3 : t3) * (v[m - 1] - vp[m - 1]);
      FV(4, p, l) = 0.5 * (1.0 - c1 * c5) * t3 *
                        ((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) -
                         (vp[0] * vp[0] + vp[1] * vp[1] + vp[2] * vp[2])) +
                    (1.0 / 6.0) * t3 * (v[nc - 1] * v[nc - 1] - vp[nc - 1] * vp[nc - 1]) +
                    c1 * c5 * t3 * (v[3] - vp[3]);
    }
  for (int p = plo; p < phi; p++)
    for (int l = 0; l < L; l++)
      RV(0, p, l) += dd * t1 * (WV(0, p - 1, l) - 2.0 * WV(0, p, l) + WV(0, p + 1, l));
  for (int m = 1; m < 5; m++)
    for (int p = plo; p < phi; p++)
      for (int l = 0; l < L; l++)
        RV(m, p, l) += t3 * c3 * c4 * (FV(m, p + 1, l) - FV(m, p, l)) +
                       dd * t1 * (WV(m, p - 1, l) - 2.0 * WV(m, p, l) + WV(m, p + 1, l));
  /* 4th-order dissipation, one-sided rows next to the ends */
  const double ds = c->dssp;
  if (goff != 0 || plo != 1 || phi != n - 1) { /* a piece of a split x line (L = 1) */
    for (int m = 0; m < 5; m++)
      for (int p = plo; p < phi; p++)
        RV(m, p, 0) -= ds * dissipation(w + m * wf, p, p + goff, gn);
    return;
  }
  for (int m = 0; m < 5; m++)
    for (int l = 0; l < L; l++) {
      RV(m, 1, l) -= ds * (5.0 * WV(m, 1, l) - 4.0 * WV(m, 2, l) + WV(m, 3, l));
      RV(m, 2, l) -= ds * (-4.0 * WV(m, 1, l) + 6.0 * WV(m, 2, l) - 4.0 * WV(m, 3, l) + WV(m, 4, l));
    }
  for (int m = 0; m < 5; m++)
    for (int p = 3; p < n - 3; p++)
      for (int l = 0; l < L; l++)
        RV(m, p, l) -= ds * (WV(m, p - 2, l) - 4.0 * WV(m, p - 1, l) + 6.0 * WV(m, p, l) -
                             4.0 * WV(m, p + 1, l) + WV(m, p + 2, l));
  for (int m = 0; m < 5; m++)
    for (int l = 0; l < L; l++) {
      RV(m, n - 3, l) -= ds * (WV(m, n - 5, l) - 4.0 * WV(m, n - 4, l) + 6.0 * WV(m, n - 3, l) -
                               4.0 * WV(m, n - 2, l));
      RV(m, n - 2, l) -= ds * (WV(m, n - 4, l) - 4.0 * WV(m, n - 3, l) + 5.0 * WV(m, n - 2, l));
    }
#undef WV
#undef RV
#undef FV
}

/* x split: the two ghost planes either side of uf (all j, k) from the x neighbours; one
 * thread (lu.h) */
static void ghost_planes(mz_adi_zone_t *z, double *uf)
{
  const mz_xsplit_t *xs = z->xs;
  lu_state_t *s = z->solver;
  const int nx = z->nx, ny = z->ny, nz = z->nz;
  const size_t n = 10 * (size_t)ny * nz;
  double *sw = s->gbuf, *se = sw + n, *rw = se + n, *re = rw + n;
  int w = xs->xpos > 0 ? xs->xpos - 1 : MPI_PROC_NULL;
  int e = xs->xpos < xs->nxp - 1 ? xs->xpos + 1 : MPI_PROC_NULL;
  lu_cols(z, uf, 2, 2, 0, ny, 0, nz, sw, 1);
  lu_cols(z, uf, nx - 4, 2, 0, ny, 0, nz, se, 1);
  MPI_Sendrecv(se, (int)n, MPI_DOUBLE, e, LU_TAG_GHOST, rw, (int)n, MPI_DOUBLE, w, LU_TAG_GHOST,
               xs->comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(sw, (int)n, MPI_DOUBLE, w, LU_TAG_GHOST, re, (int)n, MPI_DOUBLE, e, LU_TAG_GHOST,
               xs->comm, MPI_STATUS_IGNORE);
  if (w != MPI_PROC_NULL)
    lu_cols(z, uf, 0, 2, 0, ny, 0, nz, rw, 0);
  if (e != MPI_PROC_NULL)
    lu_cols(z, uf, nx - 2, 2, 0, ny, 0, nz, re, 0);
}

/* at most this many lines per bundle (line_terms; the scratch f is 5 n of them) */
enum { LU_LANES = 32 };

/* the residual of uf (lu_internal.h), on struct-of-arrays copies: uf, rho_i, qs into the
 * sweeps' us (LU_SOA: per plane 7 fields), the residual accumulated in vs (5 fields), then
 * copied to out */
void mz__lu_residual(mz_adi_zone_t *z, const lu_consts_t *c, double *uf, double *out,
                     const double *frct, double upd)
{
  lu_state_t *s = z->solver;
  const int nx = z->nx, ny = z->ny, nz = z->nz, ilo = z->ilo, ihi = z->ihi;
  if (z->xs) {
#pragma omp master
    ghost_planes(z, uf);
#pragma omp barrier
  }
  int nmax = nx > ny ? nx : ny;
  nmax = nmax > nz ? nmax : nz;
  double f[5 * LU_LANES * nmax];
  const ptrdiff_t F = (ptrdiff_t)nx * ny, UP = 7 * F, RP = 5 * F;
  double *W = s->us, *R = s->vs;
  /* the y and z lines of all nx columns (whole vectors, no remainder loops; the extra lines
   * at i < ilo, i >= ihi change R there after it went to out, harmless) in bundles of at
   * most LU_LANES lines, near-equal */
  const int ni = nx, nb = (ni + LU_LANES - 1) / LU_LANES;
#pragma omp for schedule(static)
  for (int k = 0; k < nz; k++) {
    for (int j = 0; j < ny; j++) {
      const size_t q0 = IDX(z, 0, j, k);
      double *Wr = W + k * UP + (ptrdiff_t)j * nx, *Rr = R + k * RP + (ptrdiff_t)j * nx;
      /* out of the interior, out stays -frct (0) */
      const int face = k == 0 || k == nz - 1 || j == 0 || j == ny - 1;
      if (upd != 0.0 && !face)
        for (int i = ilo; i < ihi; i++)
          for (int m = 0; m < 5; m++)
            uf[5 * (q0 + (size_t)i) + m] += upd * Rr[m * F + i];
      for (int i = 0; i < nx; i++) {
        const size_t q = q0 + (size_t)i;
        const int edge = face || i < ilo || i >= ihi;
        for (int m = 0; m < 5; m++) {
          Rr[m * F + i] = frct ? -frct[5 * q + m] : 0.0;
          Wr[m * F + i] = uf[5 * q + m];
          if (edge)
            out[5 * q + m] = Rr[m * F + i];
        }
        double rho = 1.0 / uf[5 * q];
        double qs = 0.5 * (uf[5 * q + 1] * uf[5 * q + 1] + uf[5 * q + 2] * uf[5 * q + 2] +
                           uf[5 * q + 3] * uf[5 * q + 3]) * rho;
        z->rho_i[q] = Wr[5 * F + i] = rho;
        z->qs[q] = Wr[6 * F + i] = qs;
      }
    }
    if (k == 0 || k == nz - 1)
      continue;
    for (int j = 1; j < ny - 1; j++)
      line_terms(c, 0, nx, ilo, ihi, z->xoff, z->gnx, W + k * UP + (ptrdiff_t)j * nx, F, 1,
                 R + k * RP + (ptrdiff_t)j * nx, F, 1, 1, f);
    for (int b = 0; b < nb; b++) {
      const int i0 = b * ni / nb, i1 = (b + 1) * ni / nb;
      line_terms(c, 1, ny, 1, ny - 1, 0, ny, W + k * UP + i0, F, nx, R + k * RP + i0, F, nx,
                 i1 - i0, f);
    }
  }
  /* z lines, then the row's interior points (all terms done) to out */
#pragma omp for schedule(static)
  for (int j = 1; j < ny - 1; j++) {
    for (int b = 0; b < nb; b++) {
      const int i0 = b * ni / nb, i1 = (b + 1) * ni / nb;
      const ptrdiff_t o = (ptrdiff_t)j * nx + i0;
      line_terms(c, 2, nz, 1, nz - 1, 0, nz, W + o, F, UP, R + o, F, RP, i1 - i0, f);
    }
    for (int k = 1; k < nz - 1; k++) {
      const size_t q0 = IDX(z, 0, j, k);
      const double *Rr = R + k * RP + (ptrdiff_t)j * nx;
      for (int i = ilo; i < ihi; i++)
        for (int m = 0; m < 5; m++)
          out[5 * (q0 + (size_t)i) + m] = Rr[m * F + i];
    }
  }
}

/* ---- initial state (setbv.f, setiv.f, erhs.f) ---- */

void mz_lu_init(mz_adi_zone_t *z, int first)
{
  lu_state_t *s = z->solver;
  const int nx = z->nx, ny = z->ny, nz = z->nz, gnx = z->gnx, xoff = z->xoff;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int k = 0; k < nz; k++)
      for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
          double *p = z->u + 5 * IDX(z, i, j, k);
          const int gi = i + xoff; /* (a split zone's ghost planes may lie outside: exact) */
          int face = gi <= 0 || gi >= gnx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1;
          if (face) { /* setbv: exact values on the six faces */
            exact(z, gi, j, k, p);
            continue;
          }
          /* setiv: transfinite interpolation of the face values */
          double xi = (double)gi / (gnx - 1), eta = (double)j / (ny - 1),
                 zeta = (double)k / (nz - 1);
          double e1[5], e2[5], e3[5], e4[5], e5[5], e6[5];
          exact(z, 0, j, k, e1);
          exact(z, gnx - 1, j, k, e2);
          exact(z, gi, 0, k, e3);
          exact(z, gi, ny - 1, k, e4);
          exact(z, gi, j, 0, e5);
          exact(z, gi, j, nz - 1, e6);
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
            exact(z, i + xoff, j, k, z->ut + 5 * IDX(z, i, j, k));
      mz__lu_residual(z, &s->c, z->ut, z->forcing, NULL, 0.0);
    }
    mz__lu_residual(z, &s->c, z->u, z->rhs, z->forcing, 0.0);
  }
}

/* ---- verification quantities (l2norm.f, error.f, pintgr.f) ---- */

static double phi(const double *u)
{
  return c2 * (u[4] - 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0]);
}

/* the zone's norms and surface sums from its x pieces: sums of squares and surface sums
 * added over the zone group (v: sr[5], se[5], f1, f2, f3), in place */
static void group_sums(const mz_adi_zone_t *z, double *v, int n)
{
  if (z->xs)
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, z->xs->comm);
}

void mz_lu_norms(mz_adi_zone_t *z, double xcr[5], double xce[5], double *xci)
{
  const lu_state_t *s = z->solver;
  const int nx = z->nx, ny = z->ny, nz = z->nz, gnx = z->gnx, xoff = z->xoff;
  /* v: sums of squares of the residual and of the error, then the three surface sums */
  double v[13] = {0}, *sr = v, *se = v + 5;
  for (int k = 1; k < nz - 1; k++)
    for (int j = 1; j < ny - 1; j++)
      for (int i = z->ilo; i < z->ihi; i++) {
        size_t q = IDX(z, i, j, k);
        double e[5];
        exact(z, i + xoff, j, k, e);
        for (int m = 0; m < 5; m++) {
          double r = z->rhs[5 * q + m], d = e[m] - z->u[5 * q + m];
          sr[m] += r * r;
          se[m] += d * d;
        }
      }
  /* pintgr.f: trapezoid sums of phi over three pairs of inner surfaces.  Each pair: the
   * value at the four corners of every cell, both surfaces.  Surfaces: k = 2 and nz-2
   * (i 1..nx-2, j 1..ny-3); j = 1 and ny-3 (i 1..nx-2, k 2..nz-2); i = 1 and nx-2
   * (j 1..ny-3, k 2..nz-2), cells up to the last-but-one point of each range (global i; a
   * piece of a split zone sums the cells that start on its points). */
  const double *u = z->u;
  const int own_lo = z->xs ? 2 : 0, own_hi = z->xs ? nx - 2 : nx;
  const int i0 = 1 - xoff > own_lo ? 1 - xoff : own_lo;
  const int i1 = gnx - 3 - xoff < own_hi - 1 ? gnx - 3 - xoff : own_hi - 1;
  const int iw = 1 - xoff, ie = gnx - 2 - xoff;
  const int hw = iw >= own_lo && iw < own_hi, he = ie >= own_lo && ie < own_hi;
  double f1 = 0, f2 = 0, f3 = 0;
#define PHI(i, j, k) phi(u + 5 * IDX(z, i, j, k))
  for (int j = 1; j <= ny - 4; j++)
    for (int i = i0; i <= i1; i++)
      f1 += PHI(i, j, 2) + PHI(i + 1, j, 2) + PHI(i, j + 1, 2) + PHI(i + 1, j + 1, 2) +
            PHI(i, j, nz - 2) + PHI(i + 1, j, nz - 2) + PHI(i, j + 1, nz - 2) +
            PHI(i + 1, j + 1, nz - 2);
  for (int k = 2; k <= nz - 3; k++)
    for (int i = i0; i <= i1; i++)
      f2 += PHI(i, 1, k) + PHI(i + 1, 1, k) + PHI(i, 1, k + 1) + PHI(i + 1, 1, k + 1) +
            PHI(i, ny - 3, k) + PHI(i + 1, ny - 3, k) + PHI(i, ny - 3, k + 1) +
            PHI(i + 1, ny - 3, k + 1);
  for (int k = 2; k <= nz - 3; k++)
    for (int j = 1; j <= ny - 4; j++) {
      if (hw)
        f3 += PHI(iw, j, k) + PHI(iw, j + 1, k) + PHI(iw, j, k + 1) + PHI(iw, j + 1, k + 1);
      if (he)
        f3 += PHI(ie, j, k) + PHI(ie, j + 1, k) + PHI(ie, j, k + 1) + PHI(ie, j + 1, k + 1);
    }
#undef PHI
  v[10] = f1;
  v[11] = f2;
  v[12] = f3;
  group_sums(z, v, 13);
  /* one piece of a split zone reports the zone's quantities (the others 0) */
  const int report = !z->xs || z->xs->xpos == 0;
  double npts = (double)(nz - 2) * (double)(ny - 2) * (double)(gnx - 2);
  for (int m = 0; m < 5; m++) {
    xcr[m] = report ? sqrt(sr[m] / npts) : 0.0;
    xce[m] = report ? sqrt(se[m] / npts) : 0.0;
  }
  f1 = v[10] * s->c.h[0] * s->c.h[1];
  f2 = v[11] * s->c.h[0] * s->c.h[2];
  f3 = v[12] * s->c.h[1] * s->c.h[2];
  *xci = report ? 0.25 * (f1 + f2 + f3) : 0.0;
}
