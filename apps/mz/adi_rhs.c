/* apps/mz/adi_rhs.c: the right-hand side of the NPB-MZ ADI solvers (rhs.f of SP-MZ and
 * BT-MZ, see adi_common.c): forcing, the x/y/z flux differences and the 4th-order
 * dissipation, times dt, in one fused pass per point in the reference's order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "adi_common.h"
#include "adi_internal.h"

/* points per chunk of a row in compute_rhs (fixed, so the compiler sees the row buffer's
 * layout and needs no run-time alias checks) */
#define MZ_CHUNK 64

/* compute_rhs reads u through a component-major copy (z->ut, made in its first pass) so that
 * the flux loop runs over i with unit stride in every array and vectorises; the row's result
 * goes to a component-major row buffer and is interleaved into rhs ([..][5]) afterwards. */
typedef struct rhs_src {
  const double *u[5], *vel[3], *sq, *qs, *ri;
  double c1, c2, dssp;
} rhs_src_t;

/* rhs.f's flux differences in one direction (descriptor D, velocity component v, stride s in
 * points) at point p, added to r. v is a literal at every call so the branches fold. */
static inline void add_flux(double r[5], const rhs_src_t *S, const mz_dir_t *D, int v, size_t p,
                            size_t s)
{
  const double *const *U = S->u, *sq = S->sq, *qs = S->qs, *ri = S->ri;
  const double c1 = S->c1, c2 = S->c2;
  const double *w = S->vel[v - 1];
  const double wp = w[p + s], w0 = w[p], wm = w[p - s];
  r[0] += D->dt1[0] * (U[0][p + s] - 2.0 * U[0][p] + U[0][p - s]) - D->t2 * (U[v][p + s] - U[v][p - s]);
  for (int m = 1; m < 4; m++) {
    double t = D->dt1[m] * (U[m][p + s] - 2.0 * U[m][p] + U[m][p - s]);
    if (m == v)
      t += D->con2_43 * (wp - 2.0 * w0 + wm) -
           D->t2 * (U[m][p + s] * wp - U[m][p - s] * wm +
                    (U[4][p + s] - sq[p + s] - U[4][p - s] + sq[p - s]) * c2);
    else
      t += D->con2 * (S->vel[m - 1][p + s] - 2.0 * S->vel[m - 1][p] + S->vel[m - 1][p - s]) -
           D->t2 * (U[m][p + s] * wp - U[m][p - s] * wm);
    r[m] += t;
  }
  r[4] += D->dt1[4] * (U[4][p + s] - 2.0 * U[4][p] + U[4][p - s]) +
          D->con3 * (qs[p + s] - 2.0 * qs[p] + qs[p - s]) +
          D->con4 * (wp * wp - 2.0 * w0 * w0 + wm * wm) +
          D->con5 * (U[4][p + s] * ri[p + s] - 2.0 * U[4][p] * ri[p] + U[4][p - s] * ri[p - s]) -
          D->t2 * ((c1 * U[4][p + s] - c2 * sq[p + s]) * wp - (c1 * U[4][p - s] - c2 * sq[p - s]) * wm);
}

/* 4th-order dissipation at point p: stencil weights w0..w4 at point offsets off (an offset
 * whose weight is 0 may be anything that stays inside the zone: its value is multiplied by 0) */
static inline void add_dissipation(double r[5], const rhs_src_t *S, size_t p, const ptrdiff_t off[5],
                                   double w0, double w1, double w2, double w3, double w4)
{
  for (int m = 0; m < 5; m++) {
    const double *u = S->u[m];
    r[m] -= S->dssp * (w0 * u[p + off[0]] + w1 * u[p + off[1]] + w2 * u[p] + w3 * u[p + off[3]] +
                       w4 * u[p + off[4]]);
  }
}

/* the stencil of position q on a line of n points with stride s; zero-weight offsets point at
 * the centre so that no read leaves the zone */
static void dissipation_stencil(int q, int n, ptrdiff_t s, double w[5], ptrdiff_t off[5])
{
  mz_adi_dissipation_row(q, n, w);
  for (int o = 0; o < 5; o++)
    off[o] = w[o] != 0.0 ? (o - 2) * s : 0;
}

/* first pass, one plane: the component-major copy of u and the derived point quantities */
static void derived_plane(mz_adi_zone_t *z, int k)
{
  const size_t plane = (size_t)z->nx * z->ny, npts = plane * z->nz, p0 = k * plane;
  const double *restrict u = z->u;
  double *restrict U0 = z->ut, *restrict U1 = U0 + npts, *restrict U2 = U1 + npts,
                   *restrict U3 = U2 + npts, *restrict U4 = U3 + npts;
  for (size_t p = p0; p < p0 + plane; p++) {
    U0[p] = u[5 * p];
    U1[p] = u[5 * p + 1];
    U2[p] = u[5 * p + 2];
    U3[p] = u[5 * p + 3];
    U4[p] = u[5 * p + 4];
  }
  double *restrict ri = z->rho_i, *restrict us = z->us, *restrict vs = z->vs,
                   *restrict ws = z->ws, *restrict sq = z->square, *restrict qs = z->qs;
#pragma omp simd
  for (size_t p = p0; p < p0 + plane; p++) {
    const double rho_inv = 1.0 / U0[p];
    ri[p] = rho_inv;
    us[p] = U1[p] * rho_inv;
    vs[p] = U2[p] * rho_inv;
    ws[p] = U3[p] * rho_inv;
    sq[p] = 0.5 * (U1[p] * U1[p] + U2[p] * U2[p] + U3[p] * U3[p]) * rho_inv;
    qs[p] = sq[p] * rho_inv;
  }
  if (z->speed) {
    double *restrict sp = z->speed;
    const double c1c2 = z->c.c1c2;
#pragma omp simd
    for (size_t p = p0; p < p0 + plane; p++)
      sp[p] = sqrt(c1c2 * ri[p] * (U4[p] - sq[p]));
  }
}

void mz_adi_compute_rhs_team(mz_adi_zone_t *z) { mz_adi_compute_rhs_team_hook(z, NULL); }

void mz_adi_compute_rhs_team_hook(mz_adi_zone_t *z, mz_adi_row_fn *hook)
{
  const mz_consts_t *c = &z->c;
  const int nx = z->nx, ny = z->ny, nz = z->nz;
  const size_t plane = (size_t)nx * ny, npts = plane * nz;
#pragma omp for schedule(static)
  for (int k = 0; k < nz; k++)
    derived_plane(z, k);
  /* x-dissipation weights per i; the x offsets -2..2 never leave the zone for interior rows */
  double wx[5][nx];
  const ptrdiff_t offx[5] = {-2, -1, 0, 1, 2};
  for (int i = 1; i < nx - 1; i++) {
    double w[5];
    mz_adi_dissipation_row(i, nx, w);
    for (int o = 0; o < 5; o++)
      wx[o][i] = w[o];
  }
  mz_dir_t dir[3];
  mz__adi_dir_init(c, dir);
  const rhs_src_t S = {{z->ut, z->ut + npts, z->ut + 2 * npts, z->ut + 3 * npts, z->ut + 4 * npts},
                       {z->us, z->vs, z->ws}, z->square, z->qs, z->rho_i, c->c1, c->c2, c->dssp};
  /* rows, not planes, are shared out: zones have few planes */
#pragma omp for collapse(2) schedule(static)
  for (int k = 0; k < nz; k++) {
    for (int j = 0; j < ny; j++) {
      const size_t row = pt(z, 0, j, k);
      double *restrict rhs = z->rhs + 5 * row;
      const double *restrict f = z->forcing + 5 * row;
      if (k == 0 || k == nz - 1 || j == 0 || j == ny - 1) {
        memcpy(rhs, f, 5 * nx * sizeof(double));
        continue;
      }
      if (!mz_adi_row_mine(z, j))
        continue;
      double wy[5], wz[5];
      ptrdiff_t offy[5], offz[5];
      dissipation_stencil(j, ny, nx, wy, offy);
      dissipation_stencil(k, nz, (ptrdiff_t)plane, wz, offz);
      memcpy(rhs, f, 5 * sizeof(double));
      memcpy(rhs + 5 * (nx - 1), f + 5 * (nx - 1), 5 * sizeof(double));
      for (int i0 = 1; i0 < nx - 1; i0 += MZ_CHUNK) {
        const int cnt = nx - 1 - i0 < MZ_CHUNK ? nx - 1 - i0 : MZ_CHUNK;
        double rr[5][MZ_CHUNK];
        for (int q = 0; q < cnt; q++) {
          const int i = i0 + q;
          const size_t p = row + i;
          double r[5] = {0, 0, 0, 0, 0};
          add_flux(r, &S, &dir[0], 1, p, 1);
          add_dissipation(r, &S, p, offx, wx[0][i], wx[1][i], wx[2][i], wx[3][i], wx[4][i]);
          add_flux(r, &S, &dir[1], 2, p, nx);
          add_dissipation(r, &S, p, offy, wy[0], wy[1], wy[2], wy[3], wy[4]);
          add_flux(r, &S, &dir[2], 3, p, plane);
          add_dissipation(r, &S, p, offz, wz[0], wz[1], wz[2], wz[3], wz[4]);
          for (int m = 0; m < 5; m++)
            rr[m][q] = r[m];
        }
        /* interior: (forcing + fluxes + dissipation) * dt, through the hook if any */
        double *restrict out = rhs + 5 * i0;
        const double *restrict fi = f + 5 * i0;
        if (hook) { /* a second buffer: rr must not escape, or the loop above stays scalar */
          double hb[5][MZ_CHUNK];
          for (int q = 0; q < cnt; q++)
            for (int m = 0; m < 5; m++)
              hb[m][q] = (fi[5 * q + m] + rr[m][q]) * c->dt;
          hook(z, row + i0, cnt, &hb[0][0], MZ_CHUNK);
          for (int q = 0; q < cnt; q++)
            for (int m = 0; m < 5; m++)
              out[5 * q + m] = hb[m][q];
        } else {
          for (int q = 0; q < cnt; q++)
            for (int m = 0; m < 5; m++)
              out[5 * q + m] = (fi[5 * q + m] + rr[m][q]) * c->dt;
        }
      }
    }
  }
}

void mz_adi_compute_rhs(mz_adi_zone_t *z)
{
#pragma omp parallel
  mz_adi_compute_rhs_team(z);
}

