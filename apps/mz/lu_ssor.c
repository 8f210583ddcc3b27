/* apps/mz/lu_ssor.c: one SSOR iteration of the LU-MZ zone solver (see lu.h, lu.c): the
 * 5x5 blocks of jacld.f / jacu.f applied where they are used, the sweeps of blts.f / buts.f,
 * ssor.f's iteration with the sweeps pipelined over the team's j-row blocks (and, with the
 * x split, over the ranks holding the zone's x pieces: lu.h). */
#include <omp.h>
#include <string.h>
#include "lu_internal.h"

/* ---- the 5x5 blocks (jacld.f, jacu.f), applied without being stored ----
 *
 * A block of direction dir at a neighbour point is sgn dt t2 J - dt t1 (V + d I) (sgn -1
 * below, +1 above), J the flux Jacobian, V the viscous one.  Both are sparse (J: row 0 one
 * entry, rows 1..3 three or five, row 4 five; V: column 0, the diagonal, row 4), so the
 * block is applied directly to a vector.  The diagonal block I + 2 dt sum t1 (V + d I) is
 * lower triangular (column 0, the diagonal, row 4): forward substitution solves it (the
 * reference's Gaussian elimination does the same arithmetic on its zeros). */

/* y += (sgn dt t2 J - dt t1 (V + d I)) x, the block of direction dir at (u, rho, qs) */
static inline void off_apply(const lu_consts_t *c, int dir, double sgn, const double *u,
                             double rho, double qs, const double *x, double *y)
{
  const double r43 = 4.0 / 3.0, c34 = c3 * c4, c1345 = c1 * c3 * c4 * c5;
  const int nc = dir + 1;
  const double a = sgn * c->dt * c->t2[dir], b = c->dt * c->t1[dir], bd = b * c->d[dir];
  const double t2 = rho * rho, t3 = rho * t2, un = u[nc] * rho;
  double J[5], V[5];
  J[0] = x[nc];
  V[0] = 0.0;
  double jn = (-un * un + c2 * qs * rho) * x[0] + (2.0 - c2) * un * x[nc] + c2 * x[4];
  double j4 = (c2 * 2.0 * qs - c1 * u[4]) * u[nc] * t2 * x[0] +
              (c1 * (u[4] * rho) - c2 * (qs * rho + u[nc] * u[nc] * t2)) * x[nc] + c1 * un * x[4];
  double v4 = c1345 * rho * x[4], s = 0.0;
  for (int m = 1; m <= 3; m++) {
    double f = m == nc ? r43 * c34 : c34, g = f - c1345;
    V[m] = -f * t2 * u[m] * x[0] + f * rho * x[m];
    v4 += g * t2 * u[m] * x[m];
    s += g * u[m] * u[m];
    if (m != nc) {
      J[m] = -(u[m] * u[nc]) * t2 * x[0] + un * x[m] + u[m] * rho * x[nc];
      jn -= c2 * (u[m] * rho) * x[m];
      j4 -= c2 * (u[m] * u[nc]) * t2 * x[m];
    }
  }
  J[nc] = jn;
  J[4] = j4;
  V[4] = v4 + (-s * t3 - c1345 * t2 * u[4]) * x[0];
  for (int m = 0; m < 5; m++)
    y[m] += a * J[m] - b * V[m] - bd * x[m];
}

/* the factors of the diagonal block I + 2 dt sum_dir t1 (V + d I) at the point (u, rho):
 * f = d00, d10 d20 d30, d11 d22 d33, d41 d42 d43, d40, d44 (the rest is 0) */
enum { LU_NF = 12 };
static inline void diag_factors(const lu_consts_t *c, const double *u, double rho, double *f)
{
  const double r43 = 4.0 / 3.0, c34 = c3 * c4, c1345 = c1 * c3 * c4 * c5;
  const double t2 = rho * rho, t3 = rho * t2;
  double d00 = 1.0, dm0[3] = {0}, dmm[3] = {1.0, 1.0, 1.0}, d4m[3] = {0}, d40 = 0.0, d44 = 1.0;
  for (int dir = 0; dir < 3; dir++) {
    const double b = 2.0 * c->dt * c->t1[dir], bd = b * c->d[dir];
    double s = 0.0;
    for (int m = 1; m <= 3; m++) {
      double g = (m == dir + 1 ? r43 * c34 : c34), h = g - c1345;
      dm0[m - 1] += b * (-g * t2 * u[m]);
      dmm[m - 1] += b * (g * rho) + bd;
      d4m[m - 1] += b * (h * t2 * u[m]);
      s += h * u[m] * u[m];
    }
    d00 += bd;
    d40 += b * (-s * t3 - c1345 * t2 * u[4]);
    d44 += b * (c1345 * rho) + bd;
  }
  f[0] = d00;
  for (int m = 0; m < 3; m++) {
    f[1 + m] = dm0[m];
    f[4 + m] = dmm[m];
    f[7 + m] = d4m[m];
  }
  f[10] = d40;
  f[11] = d44;
}

/* solve the (lower triangular) diagonal block with factors f: v = D^-1 v */
static inline void diag_subst(const double *f, double *v)
{
  v[0] /= f[0];
  double r4 = v[4] - f[10] * v[0];
  for (int m = 1; m <= 3; m++) {
    v[m] = (v[m] - f[m] * v[0]) / f[3 + m];
    r4 -= f[6 + m] * v[m];
  }
  v[4] = r4 / f[11];
}

/* Per point of a row, what does not depend on the row's own new values (independent over i,
 * off the recurrence's critical path) goes first into w (LU_NW doubles per i): the k- and
 * j-neighbour terms and the diagonal factors (row_terms); the recurrence along i then only
 * applies the i-neighbour block and substitutes. */
enum { LU_NW = 10 + LU_NF };

/* y += the block of direction dir (sgn -1 below, +1 above) at the neighbour point qn, times
 * v there */
static inline void off_at(const mz_adi_zone_t *z, const lu_consts_t *c, int dir, double sgn,
                          size_t qn, const double *v, double *y)
{
  off_apply(c, dir, sgn, z->u + 5 * qn, z->rho_i[qn], z->qs[qn], v + 5 * qn, y);
}

/* The row-independent part of row (j, k) for both sweeps (sgn -1: the lower sweep's k-1 and
 * j-1 neighbours, +1: the upper sweep's k+1 and j+1): per i, w[0..4] the z-neighbour term,
 * w[5..9] the y-neighbour term, then the diagonal factors. */
static void row_terms(const mz_adi_zone_t *z, const lu_consts_t *c, const double *v, int j, int k,
                      double sgn, double *restrict w)
{
  const int nx = z->nx;
  const size_t sy = (size_t)nx, sz = (size_t)nx * z->ny, q0 = IDX(z, 0, j, k);
  for (int i = z->ilo; i < z->ihi; i++) {
    size_t q = q0 + (size_t)i;
    double *wi = w + LU_NW * i;
    for (int m = 0; m < 10; m++)
      wi[m] = 0.0;
    off_at(z, c, 2, sgn, sgn < 0 ? q - sz : q + sz, v, wi);
    off_at(z, c, 1, sgn, sgn < 0 ? q - sy : q + sy, v, wi + 5);
    diag_factors(c, z->u + 5 * q, z->rho_i[q], wi + 10);
  }
}

/* blts.f on row (j, k): v -= omega (Lz v(k-1) + Ly v(j-1) + Lx v(i-1)); v = D^-1 v */
static void lower_row(const mz_adi_zone_t *z, const lu_consts_t *c, double *v, int j, int k,
                      double *restrict w)
{
  const size_t q0 = IDX(z, 0, j, k);
  row_terms(z, c, v, j, k, -1.0, w);
  for (int i = z->ilo; i < z->ihi; i++) {
    size_t q = q0 + (size_t)i;
    double *wi = w + LU_NW * i, x[5];
    off_at(z, c, 0, -1.0, q - 1, v, wi + 5);
    for (int m = 0; m < 5; m++)
      x[m] = (v[5 * q + m] - omega * wi[m]) - omega * wi[5 + m];
    diag_subst(wi + 10, x);
    memcpy(v + 5 * q, x, sizeof x);
  }
}

/* buts.f on row (j, k), i descending: t = D^-1 omega (Uz v(k+1) + Uy v(j+1) + Ux v(i+1));
 * v -= t */
static void upper_row(const mz_adi_zone_t *z, const lu_consts_t *c, double *v, int j, int k,
                      double *restrict w)
{
  const size_t q0 = IDX(z, 0, j, k);
  row_terms(z, c, v, j, k, 1.0, w);
  for (int i = z->ihi - 1; i >= z->ilo; i--) {
    size_t q = q0 + (size_t)i;
    double *wi = w + LU_NW * i, x[5];
    off_at(z, c, 0, 1.0, q + 1, v, wi + 5);
    for (int m = 0; m < 5; m++)
      x[m] = omega * wi[m] + omega * wi[5 + m];
    diag_subst(wi + 10, x);
    for (int m = 0; m < 5; m++)
      v[5 * q + m] -= x[m];
  }
}

/* ---- SSOR (ssor.f) with the sweeps pipelined over the team's j-row blocks ---- */

/* x split (lu.h): thread t's column of rows [jlo, jhi) of plane k of v at local i, received
 * from (in = 1) or sent to x neighbour `who` (MPI_PROC_NULL: nothing); from inside the
 * parallel region, MPI_THREAD_MULTIPLE */
static void edge_column(const mz_adi_zone_t *z, double *v, int i, int jlo, int jhi, int k,
                        int who, int tag, int in)
{
  if (who == MPI_PROC_NULL || jhi <= jlo)
    return;
  double buf[5 * (jhi - jlo)];
  int n = 5 * (jhi - jlo);
  if (in) {
    MPI_Recv(buf, n, MPI_DOUBLE, who, tag, z->xs->comm, MPI_STATUS_IGNORE);
    lu_cols(z, v, i, 1, jlo, jhi, k, k + 1, buf, 0);
  } else {
    lu_cols(z, v, i, 1, jlo, jhi, k, k + 1, buf, 1);
    MPI_Send(buf, n, MPI_DOUBLE, who, tag, z->xs->comm);
  }
}

int mz_lu_ssor(mz_adi_zone_t *z)
{
  lu_state_t *s = z->solver;
  const lu_consts_t *c = &s->c;
  const int nx = z->nx, ny = z->ny, nz = z->nz, K = nz - 2, ilo = z->ilo, ihi = z->ihi;
  double *rsd = z->rhs, *u = z->u;
  const double tmp = 1.0 / (omega * (2.0 - omega));
  int team = s->prog.nthreads < omp_get_max_threads() ? s->prog.nthreads : omp_get_max_threads();
  /* x split: the row blocks (and so the messages) must match the neighbours' */
  const mz_xsplit_t *xs = z->xs;
  if (xs && xs->team < team)
    team = xs->team;
  const int west = xs && xs->xpos > 0 ? xs->xpos - 1 : MPI_PROC_NULL;
  const int east = xs && xs->xpos < xs->nxp - 1 ? xs->xpos + 1 : MPI_PROC_NULL;
#pragma omp parallel num_threads(team)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    hk_progress_reset_mine(&s->prog, t);
#pragma omp for schedule(static)
    for (int k = 1; k < nz - 1; k++)
      for (int j = 1; j < ny - 1; j++)
        for (size_t q = IDX(z, ilo, j, k); q < IDX(z, ihi, j, k); q++)
          for (int m = 0; m < 5; m++)
            rsd[5 * q + m] *= c->dt;
    /* (the barrier above also orders the counter resets before any wait) */
    double w[LU_NW * nx]; /* the row's work space (lower_row, upper_row) */
    /* my rows [jlo, jhi) */
    const int rows = ny - 2, jlo = 1 + t * rows / nt, jhi = 1 + (t + 1) * rows / nt;
    for (int st = 1; st <= K; st++) {
      int k = st;
      if (t > 0)
        hk_progress_wait(&s->prog, t - 1, st);
      if (xs)
        edge_column(z, rsd, ilo - 1, jlo, jhi, k, west, LU_TAG_LOWER + t, 1);
      for (int j = jlo; j < jhi; j++)
        lower_row(z, c, rsd, j, k, w);
      if (xs)
        edge_column(z, rsd, ihi - 1, jlo, jhi, k, east, LU_TAG_LOWER + t, 0);
      hk_progress_post(&s->prog, t, st);
    }
    for (int st = 1; st <= K; st++) {
      int k = nz - 1 - st;
      if (t < nt - 1)
        hk_progress_wait(&s->prog, t + 1, K + st);
      if (xs)
        edge_column(z, rsd, ihi, jlo, jhi, k, east, LU_TAG_UPPER + t, 1);
      for (int j = jhi - 1; j >= jlo; j--)
        upper_row(z, c, rsd, j, k, w);
      if (xs)
        edge_column(z, rsd, ilo, jlo, jhi, k, west, LU_TAG_UPPER + t, 0);
      hk_progress_post(&s->prog, t, K + st);
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (int k = 1; k < nz - 1; k++)
      for (int j = 1; j < ny - 1; j++)
        for (size_t q = IDX(z, ilo, j, k); q < IDX(z, ihi, j, k); q++)
          for (int m = 0; m < 5; m++)
            u[5 * q + m] += tmp * rsd[5 * q + m];
    mz__lu_residual(z, c, u, rsd, z->forcing);
  }
  return 0;
}
