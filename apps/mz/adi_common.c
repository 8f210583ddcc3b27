/* apps/mz/adi_common.c: the NPB-MZ numerics SP-MZ and BT-MZ share (see adi_common.h for
 * the contract): constants, exact solution, initial and boundary values, forcing, the
 * right-hand side with its 4th-order artificial dissipation, the update and the per-zone norms.
 *
 * Written from the NPB 3.x / NPB3.x-MZ specification and reference (set_constants.f,
 * exact_solution.f, initialize.f, exact_rhs.f, rhs.f, add.f, error.f of SP-MZ and BT-MZ);
 * the arithmetic is the reference's, the code structure is ours:
 *  - the three directions share one flux routine driven by a direction descriptor
 *    (mz_dir_t), and one dissipation stencil table (dis_row) that also gives the
 *    penta-diagonal dissipation rows of the SP solver;
 *  - compute_rhs is one fused pass per point (forcing + x/y/z fluxes + x/y/z dissipation,
 *    times dt, in the reference's order) instead of seven passes over rhs (adi_rhs.c).
 */
#include "adi_common.h"
#include "adi_internal.h"
#include "hybridkit/ckd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Coefficients of the exact solution ce(m, 1..13): NPB 3.x set_constants.f (the same in SP,
 * BT, SP-MZ and BT-MZ). */
static const double mz_ce[5][13] = {
  {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
  {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
  {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
  {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
  {5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2}};

static inline double dmax(double a, double b) { return a > b ? a : b; }

void mz_adi_consts_init(mz_consts_t *c, double dt, const mz_adi_grid_t *g)
{
  memset(c, 0, sizeof *c);
  c->dt = dt;
  memcpy(c->ce, mz_ce, sizeof mz_ce);
  /* NPB 3.x set_constants.f: gas constants, SP's bt = sqrt(1/2) */
  c->c1 = 1.4; c->c2 = 0.4; c->c3 = 0.1; c->c4 = 1.0; c->c5 = 1.4;
  c->bt = sqrt(0.5);
  /* NPB3.x-MZ set_constants.f: spacing from the AVERAGE zone cell size */
  c->dnxm1 = 1.0 / ((double)(g->gx_size - 1) / (double)g->x_zones);
  c->dnym1 = 1.0 / ((double)(g->gy_size - 1) / (double)g->y_zones);
  c->dnzm1 = 1.0 / (double)(g->gz_size - 1);

  c->c1c2 = c->c1 * c->c2;
  c->c1c5 = c->c1 * c->c5;
  c->c3c4 = c->c3 * c->c4;
  c->c1345 = c->c1c5 * c->c3c4;
  c->conz1 = 1.0 - c->c1c5;

  c->tx1 = 1.0 / (c->dnxm1 * c->dnxm1); c->tx2 = 1.0 / (2.0 * c->dnxm1); c->tx3 = 1.0 / c->dnxm1;
  c->ty1 = 1.0 / (c->dnym1 * c->dnym1); c->ty2 = 1.0 / (2.0 * c->dnym1); c->ty3 = 1.0 / c->dnym1;
  c->tz1 = 1.0 / (c->dnzm1 * c->dnzm1); c->tz2 = 1.0 / (2.0 * c->dnzm1); c->tz3 = 1.0 / c->dnzm1;

  /* second-order dissipation weights: 0.75 in x and y, 1.0 in z (set_constants.f) */
  c->dx1 = c->dx2 = c->dx3 = c->dx4 = c->dx5 = 0.75;
  c->dy1 = c->dy2 = c->dy3 = c->dy4 = c->dy5 = 0.75;
  c->dz1 = c->dz2 = c->dz3 = c->dz4 = c->dz5 = 1.0;
  c->dxmax = dmax(c->dx3, c->dx4);
  c->dymax = dmax(c->dy2, c->dy4);
  c->dzmax = dmax(c->dz2, c->dz3);
  c->dssp = 0.25 * dmax(c->dx1, dmax(c->dy1, c->dz1));
  c->c4dssp = 4.0 * c->dssp;
  c->c5dssp = 5.0 * c->dssp;

  c->dttx1 = dt * c->tx1; c->dttx2 = dt * c->tx2;
  c->dtty1 = dt * c->ty1; c->dtty2 = dt * c->ty2;
  c->dttz1 = dt * c->tz1; c->dttz2 = dt * c->tz2;
  c->c2dttx1 = 2.0 * c->dttx1; c->c2dtty1 = 2.0 * c->dtty1; c->c2dttz1 = 2.0 * c->dttz1;
  c->dtdssp = dt * c->dssp;
  c->comz1 = c->dtdssp;
  c->comz4 = 4.0 * c->dtdssp;
  c->comz5 = 5.0 * c->dtdssp;
  c->comz6 = 6.0 * c->dtdssp;

  c->c3c4tx3 = c->c3c4 * c->tx3; c->c3c4ty3 = c->c3c4 * c->ty3; c->c3c4tz3 = c->c3c4 * c->tz3;
  c->dx1tx1 = c->dx1 * c->tx1; c->dx2tx1 = c->dx2 * c->tx1; c->dx3tx1 = c->dx3 * c->tx1;
  c->dx4tx1 = c->dx4 * c->tx1; c->dx5tx1 = c->dx5 * c->tx1;
  c->dy1ty1 = c->dy1 * c->ty1; c->dy2ty1 = c->dy2 * c->ty1; c->dy3ty1 = c->dy3 * c->ty1;
  c->dy4ty1 = c->dy4 * c->ty1; c->dy5ty1 = c->dy5 * c->ty1;
  c->dz1tz1 = c->dz1 * c->tz1; c->dz2tz1 = c->dz2 * c->tz1; c->dz3tz1 = c->dz3 * c->tz1;
  c->dz4tz1 = c->dz4 * c->tz1; c->dz5tz1 = c->dz5 * c->tz1;

  c->c2iv = 2.5;
  c->con43 = 4.0 / 3.0;
  c->con16 = 1.0 / 6.0;
  c->xxcon1 = c->c3c4tx3 * c->con43 * c->tx3;
  c->xxcon2 = c->c3c4tx3 * c->tx3;
  c->xxcon3 = c->c3c4tx3 * c->conz1 * c->tx3;
  c->xxcon4 = c->c3c4tx3 * c->con16 * c->tx3;
  c->xxcon5 = c->c3c4tx3 * c->c1c5 * c->tx3;
  c->yycon1 = c->c3c4ty3 * c->con43 * c->ty3;
  c->yycon2 = c->c3c4ty3 * c->ty3;
  c->yycon3 = c->c3c4ty3 * c->conz1 * c->ty3;
  c->yycon4 = c->c3c4ty3 * c->con16 * c->ty3;
  c->yycon5 = c->c3c4ty3 * c->c1c5 * c->ty3;
  c->zzcon1 = c->c3c4tz3 * c->con43 * c->tz3;
  c->zzcon2 = c->c3c4tz3 * c->tz3;
  c->zzcon3 = c->c3c4tz3 * c->conz1 * c->tz3;
  c->zzcon4 = c->c3c4tz3 * c->con16 * c->tz3;
  c->zzcon5 = c->c3c4tz3 * c->c1c5 * c->tz3;
}

void mz_adi_set_constants(mz_adi_zone_t *z, double dt, const mz_adi_grid_t *g)
{
  mz_adi_consts_init(&z->c, dt, g);
}

void mz_adi_exact_solution(const mz_consts_t *c, double xi, double eta, double zeta,
                           double out[5])
{
  for (int m = 0; m < 5; m++) {
    const double *e = c->ce[m];
    out[m] = e[0] + xi * (e[1] + xi * (e[4] + xi * (e[7] + xi * e[10]))) +
             eta * (e[2] + eta * (e[5] + eta * (e[8] + eta * e[11]))) +
             zeta * (e[3] + zeta * (e[6] + zeta * (e[9] + zeta * e[12])));
  }
}

/* ---- allocation ---- */

/* the point arrays of a zone in one table: where each pointer lives, components per point;
 * the last one (speed) only for SP */
enum { MZ_NARR = MZ_ADI_NARR, MZ_NARR_BT = 10 };
static const int mz_comps[MZ_NARR] = {5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1};

static void zone_table(mz_adi_zone_t *z, double **tab[MZ_NARR])
{
  double **t[MZ_NARR] = {&z->u, &z->rhs, &z->forcing, &z->ut, &z->us, &z->vs,
                         &z->ws, &z->qs, &z->rho_i, &z->square, &z->speed};
  memcpy(tab, t, sizeof t);
}

size_t mz_adi_zone_bytes(int nx, int ny, int nz, int with_speed)
{
  size_t per_point = 0, points, bytes;
  for (int n = 0; n < (with_speed ? MZ_NARR : MZ_NARR_BT); n++)
    per_point += mz_comps[n];
  if (hk_ckd_mul3(&points, nx, ny, nz) || hk_ckd_mulz(&bytes, points, per_point * sizeof(double)))
    return SIZE_MAX; /* cannot be allocated */
  return bytes;
}

void mz_adi_zone_free(mz_adi_zone_t *z)
{
  double **tab[MZ_NARR];
  zone_table(z, tab);
  for (int n = 0; n < MZ_NARR; n++) {
    if (!z->placed)
      free(*tab[n]);
    *tab[n] = NULL;
  }
  z->placed = NULL;
}

size_t mz_adi_zone_offsets(int nx, int ny, int nz, int with_speed, size_t off[MZ_ADI_NARR],
                           int comps[MZ_ADI_NARR], int *narr)
{
  if (nx < 5 || ny < 5 || nz < 5 || mz_adi_zone_bytes(nx, ny, nz, with_speed) == SIZE_MAX)
    return 0;
  const size_t points = (size_t)nx * ny * nz;
  size_t at = 0;
  *narr = with_speed ? MZ_NARR : MZ_NARR_BT;
  for (int n = 0; n < *narr; n++) {
    off[n] = at;
    comps[n] = mz_comps[n];
    at += (points * mz_comps[n] * sizeof(double) + 63) / 64 * 64;
  }
  return at;
}

void mz_adi_zone_attach(mz_adi_zone_t *z, int nx, int ny, int nz, int with_speed, char *base,
                        void *placed)
{
  double **tab[MZ_NARR];
  size_t off[MZ_NARR];
  int comps[MZ_NARR], narr = 0;
  zone_table(z, tab);
  for (int n = 0; n < MZ_NARR; n++)
    *tab[n] = NULL;
  z->ainv = NULL;
  z->nx = nx;
  z->ny = ny;
  z->nz = nz;
  mz_adi_zone_offsets(nx, ny, nz, with_speed, off, comps, &narr);
  for (int n = 0; n < narr; n++)
    *tab[n] = (double *)(void *)(base + off[n]);
  z->placed = placed;
}

int mz_adi_zone_alloc(mz_adi_zone_t *z, int nx, int ny, int nz, int with_speed)
{
  double **tab[MZ_NARR];
  const int narr = with_speed ? MZ_NARR : MZ_NARR_BT;
  zone_table(z, tab);
  for (int n = 0; n < MZ_NARR; n++)
    *tab[n] = NULL;
  z->ainv = NULL;
  z->placed = NULL;
  z->part = NULL; /* the whole zone unless the caller attaches a part */
  z->nx = nx;
  z->ny = ny;
  z->nz = nz;
  if (nx < 5 || ny < 5 || nz < 5 || mz_adi_zone_bytes(nx, ny, nz, with_speed) == SIZE_MAX)
    return -1;
  const size_t plane = (size_t)nx * ny;
  for (int n = 0; n < narr; n++) {
    size_t bytes = plane * nz * mz_comps[n] * sizeof(double); /* <= the checked total */
    *tab[n] = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!*tab[n]) {
      mz_adi_zone_free(z);
      return -1;
    }
  }
  /* first touch by the thread that will work on plane k (static schedule over k) */
#pragma omp parallel for schedule(static)
  for (int k = 0; k < nz; k++)
    for (int n = 0; n < narr; n++)
      memset(*tab[n] + k * plane * mz_comps[n], 0, plane * mz_comps[n] * sizeof(double));
  return 0;
}

/* ---- shared stencil pieces ---- */

/* 4th-order dissipation stencil of position p (1..n-2) of a line of n points, offsets -2..2:
 * the reference applies its five cases (p = 1, p = 2, 3..n-4, p = n-3, p = n-2) one after
 * the other, so for n = 5 position 2 gets two of them; summing the cases reproduces that.
 * The SP solver's penta-diagonal dissipation rows are dtdssp times the same rows. */
void mz_adi_dissipation_row(int p, int n, double c[5])
{
  static const double first[5] = {0, 0, 5, -4, 1}, second[5] = {0, -4, 6, -4, 1},
                      inner[5] = {1, -4, 6, -4, 1}, penult[5] = {1, -4, 6, -4, 0},
                      last[5] = {1, -4, 5, 0, 0};
  for (int o = 0; o < 5; o++)
    c[o] = (p == 1 ? first[o] : 0.0) + (p == 2 ? second[o] : 0.0) +
           (p >= 3 && p <= n - 4 ? inner[o] : 0.0) + (p == n - 3 ? penult[o] : 0.0) +
           (p == n - 2 ? last[o] : 0.0);
}

void mz__adi_dir_init(const mz_consts_t *c, mz_dir_t d[3])
{
  d[0] = (mz_dir_t){1, c->tx2, c->xxcon1, c->xxcon2, c->xxcon2 * c->con43, c->xxcon3, c->xxcon4,
                    c->xxcon5, {c->dx1tx1, c->dx2tx1, c->dx3tx1, c->dx4tx1, c->dx5tx1}};
  d[1] = (mz_dir_t){2, c->ty2, c->yycon1, c->yycon2, c->yycon2 * c->con43, c->yycon3, c->yycon4,
                    c->yycon5, {c->dy1ty1, c->dy2ty1, c->dy3ty1, c->dy4ty1, c->dy5ty1}};
  d[2] = (mz_dir_t){3, c->tz2, c->zzcon1, c->zzcon2, c->zzcon2 * c->con43, c->zzcon3, c->zzcon4,
                    c->zzcon5, {c->dz1tz1, c->dz2tz1, c->dz3tz1, c->dz4tz1, c->dz5tz1}};
}

/* ---- initial values ---- */

/* exact values on face (axis, side) of the zone: xi (eta, zeta) = side on that face, the
 * other coordinates from the local indices. Orphaned: called by every thread of a team. */
static void set_face(mz_adi_zone_t *z, int axis, int side)
{
  const mz_consts_t *c = &z->c;
  const int n[3] = {z->nx, z->ny, z->nz};
  const double d[3] = {c->dnxm1, c->dnym1, c->dnzm1};
  int lo[3] = {0, 0, 0}, hi[3] = {n[0], n[1], n[2]};
  lo[axis] = side ? n[axis] - 1 : 0;
  hi[axis] = lo[axis] + 1;
#pragma omp for collapse(2) schedule(static)
  for (int k = lo[2]; k < hi[2]; k++)
    for (int j = lo[1]; j < hi[1]; j++)
      for (int i = lo[0]; i < hi[0]; i++) {
        double x[3] = {i * d[0], j * d[1], k * d[2]};
        x[axis] = side;
        mz_adi_exact_solution(c, x[0], x[1], x[2], z->u + 5 * pt(z, i, j, k));
      }
}

/* initialize.f: tri-linear transfinite interpolation of the exact face values everywhere,
 * then the exact values on the six faces, in the reference's order (west, east, south, north,
 * bottom, top: with MZ's average spacing the faces disagree on shared edges, the later wins). */
void mz_adi_initialize(mz_adi_zone_t *z)
{
  const mz_consts_t *c = &z->c;
  const int nx = z->nx, ny = z->ny, nz = z->nz;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int k = 0; k < nz; k++) {
      const double zeta = k * c->dnzm1;
      for (int j = 0; j < ny; j++) {
        const double eta = j * c->dnym1;
        for (int i = 0; i < nx; i++) {
          const double xi = i * c->dnxm1;
          double f[3][2][5];
          for (int s = 0; s < 2; s++) {
            mz_adi_exact_solution(c, s, eta, zeta, f[0][s]);
            mz_adi_exact_solution(c, xi, s, zeta, f[1][s]);
            mz_adi_exact_solution(c, xi, eta, s, f[2][s]);
          }
          double *u = z->u + 5 * pt(z, i, j, k);
          for (int m = 0; m < 5; m++) {
            const double px = xi * f[0][1][m] + (1.0 - xi) * f[0][0][m];
            const double py = eta * f[1][1][m] + (1.0 - eta) * f[1][0][m];
            const double pz = zeta * f[2][1][m] + (1.0 - zeta) * f[2][0][m];
            u[m] = px + py + pz - px * py - px * pz - py * pz + px * py * pz;
          }
        }
      }
    }
    for (int f = 0; f < 6; f++)
      set_face(z, f / 2, f % 2);
  }
}

/* ---- forcing ---- */

/* exact_rhs.f along one line of direction d (0 x, 1 y, 2 z) through the point with indices
 * idx (idx[d] ignored): the flux differences and the dissipation of the exact solution. */
typedef struct line_buf {
  double (*ue)[5], (*buf)[5], *cuf, *q;
} line_buf_t;

static void forcing_line(mz_adi_zone_t *z, const mz_dir_t *D, int d, int idx[3],
                         const line_buf_t *L)
{
  const mz_consts_t *c = &z->c;
  const int n[3] = {z->nx, z->ny, z->nz};
  const double h[3] = {c->dnxm1, c->dnym1, c->dnzm1};
  const int len = n[d], v = D->v;
  double x[3];
  for (int a = 0; a < 3; a++)
    x[a] = idx[a] * h[a];
  for (int p = 0; p < len; p++) {
    x[d] = p * h[d];
    double *e = L->ue[p], *b = L->buf[p];
    mz_adi_exact_solution(c, x[0], x[1], x[2], e);
    const double dtpp = 1.0 / e[0];
    for (int m = 1; m < 5; m++)
      b[m] = dtpp * e[m];
    L->cuf[p] = b[v] * b[v];
    b[0] = L->cuf[p];
    for (int m = 1; m < 4; m++)
      if (m != v)
        b[0] += b[m] * b[m];
    L->q[p] = 0.5 * (b[1] * e[1] + b[2] * e[2] + b[3] * e[3]);
  }
  const double c1 = c->c1, c2 = c->c2, *q = L->q, *cuf = L->cuf;
  for (int p = 1; p < len - 1; p++) {
    idx[d] = p;
    double *f = z->forcing + 5 * pt(z, idx[0], idx[1], idx[2]);
    const double *ep = L->ue[p + 1], *e0 = L->ue[p], *em = L->ue[p - 1];
    const double *bp = L->buf[p + 1], *b0 = L->buf[p], *bm = L->buf[p - 1];
    f[0] = f[0] - D->t2 * (ep[v] - em[v]) + D->dt1[0] * (ep[0] - 2.0 * e0[0] + em[0]);
    for (int m = 1; m < 4; m++) {
      const double adv = m == v ? (ep[m] * bp[v] + c2 * (ep[4] - q[p + 1])) -
                                      (em[m] * bm[v] + c2 * (em[4] - q[p - 1]))
                                : ep[m] * bp[v] - em[m] * bm[v];
      f[m] = f[m] - D->t2 * adv + (m == v ? D->con1 : D->con2) * (bp[m] - 2.0 * b0[m] + bm[m]) +
             D->dt1[m] * (ep[m] - 2.0 * e0[m] + em[m]);
    }
    f[4] = f[4] - D->t2 * (bp[v] * (c1 * ep[4] - c2 * q[p + 1]) - bm[v] * (c1 * em[4] - c2 * q[p - 1])) +
           0.5 * D->con3 * (bp[0] - 2.0 * b0[0] + bm[0]) + D->con4 * (cuf[p + 1] - 2.0 * cuf[p] + cuf[p - 1]) +
           D->con5 * (bp[4] - 2.0 * b0[4] + bm[4]) + D->dt1[4] * (ep[4] - 2.0 * e0[4] + em[4]);
    double w[5];
    mz_adi_dissipation_row(p, len, w);
    for (int m = 0; m < 5; m++) {
      double s = 0.0;
      for (int o = 0; o < 5; o++)
        if (w[o] != 0.0)
          s += w[o] * L->ue[p + o - 2][m];
      f[m] = f[m] - c->dssp * s;
    }
  }
}

/* exact_rhs.f: forcing = -(flux differences + dissipation) of the exact solution on the
 * interior, 0 on the boundary. */
void mz_adi_exact_rhs(mz_adi_zone_t *z)
{
  const int n[3] = {z->nx, z->ny, z->nz};
  const int nmax = n[0] > n[1] ? (n[0] > n[2] ? n[0] : n[2]) : (n[1] > n[2] ? n[1] : n[2]);
  const size_t plane5 = (size_t)5 * n[0] * n[1];
  mz_dir_t dir[3];
  mz__adi_dir_init(&z->c, dir);
#pragma omp parallel
  {
    double ue[nmax][5], buf[nmax][5], cuf[nmax], q[nmax];
    const line_buf_t L = {ue, buf, cuf, q};
#pragma omp for schedule(static)
    for (int k = 0; k < n[2]; k++)
      memset(z->forcing + k * plane5, 0, plane5 * sizeof(double));
    for (int d = 0; d < 3; d++) {
      const int a1 = d == 0 ? 1 : 0, a2 = d == 2 ? 1 : 2; /* the other two axes */
#pragma omp for collapse(2) schedule(static)
      for (int b = 1; b < n[a2] - 1; b++)
        for (int a = 1; a < n[a1] - 1; a++) {
          int idx[3] = {0, 0, 0};
          idx[a1] = a;
          idx[a2] = b;
          forcing_line(z, &dir[d], d, idx, &L);
        }
    }
#pragma omp for schedule(static)
    for (int k = 1; k < n[2] - 1; k++)
      for (int j = 1; j < n[1] - 1; j++)
        for (int i = 1; i < n[0] - 1; i++)
          for (int m = 0; m < 5; m++)
            z->forcing[5 * pt(z, i, j, k) + m] = -z->forcing[5 * pt(z, i, j, k) + m];
  }
}

/* ---- update and norms ---- */

void mz_adi_add(mz_adi_zone_t *z)
{
  const int nx = z->nx, ny = z->ny, nz = z->nz;
#pragma omp parallel for schedule(static)
  for (int k = 1; k < nz - 1; k++)
    for (int j = 1; j < ny - 1; j++) {
      const size_t row = 5 * pt(z, 0, j, k);
      double *restrict u = z->u + row;
      const double *restrict r = z->rhs + row;
      for (int q = 5; q < 5 * (nx - 1); q++)
        u[q] += r[q];
    }
}

static void finish_norm(const mz_adi_zone_t *z, const double sum[5], double rms[5])
{
  const double interior = (double)(z->nz - 2) * (double)(z->ny - 2) * (double)(z->nx - 2);
  for (int m = 0; m < 5; m++)
    rms[m] = sqrt(sum[m] / interior);
}

/* error.f error_norm: over ALL points of the zone, normalised by the interior count */
void mz_adi_error_norm(const mz_adi_zone_t *z, double rms[5])
{
  const mz_consts_t *c = &z->c;
  const int nx = z->nx, ny = z->ny, nz = z->nz;
  double sum[5] = {0, 0, 0, 0, 0};
#pragma omp parallel for schedule(static) reduction(+ : sum[:5])
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        double e[5];
        mz_adi_exact_solution(c, i * c->dnxm1, j * c->dnym1, k * c->dnzm1, e);
        const double *u = z->u + 5 * pt(z, i, j, k);
        for (int m = 0; m < 5; m++)
          sum[m] += (u[m] - e[m]) * (u[m] - e[m]);
      }
  finish_norm(z, sum, rms);
}

/* error.f rhs_norm: over the interior (not divided by dt: verify.f does that) */
void mz_adi_rhs_norm(const mz_adi_zone_t *z, double rms[5])
{
  const int nx = z->nx, ny = z->ny, nz = z->nz;
  double sum[5] = {0, 0, 0, 0, 0};
#pragma omp parallel for schedule(static) reduction(+ : sum[:5])
  for (int k = 1; k < nz - 1; k++)
    for (int j = 1; j < ny - 1; j++)
      for (int i = 1; i < nx - 1; i++) {
        const double *r = z->rhs + 5 * pt(z, i, j, k);
        for (int m = 0; m < 5; m++)
          sum[m] += r[m] * r[m];
      }
  finish_norm(z, sum, rms);
}
