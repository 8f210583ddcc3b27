/* apps/mz/lu_ssor.c: one SSOR iteration of the LU-MZ zone solver (see lu.h, lu.c): the
 * 5x5 blocks of jacld.f / jacu.f applied where they are used, the sweeps of blts.f / buts.f,
 * ssor.f's iteration with the sweeps pipelined over the team's j-row blocks (and, with the
 * x split, over the ranks holding the zone's x pieces: lu.h). */
#include <omp.h>
#include <stddef.h>
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

typedef struct lu_v5 {
  double m[5];
} lu_v5_t;

/* (sgn dt t2 J - dt t1 (V + d I)) x, the block of direction dir at (u, rho, qs); the
 * components of u and x are fields fs apart (u[m * fs], x[m * fs]: the sweeps' struct of
 * arrays, LU_SOA) */
static inline lu_v5_t off_apply(const lu_consts_t *c, int dir, double sgn, const double *up,
                                double rho, double qs, const double *xp, ptrdiff_t fs)
{
  const double u[5] = {up[0], up[fs], up[2 * fs], up[3 * fs], up[4 * fs]};
  const double x[5] = {xp[0], xp[fs], xp[2 * fs], xp[3 * fs], xp[4 * fs]};
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
  lu_v5_t y;
  for (int m = 0; m < 5; m++)
    y.m[m] = a * J[m] - b * V[m] - bd * x[m];
  return y;
}

/* the factors of the diagonal block I + 2 dt sum_dir t1 (V + d I) at the point (u, rho):
 * f[n * fs] for n = d00, d10 d20 d30, d11 d22 d33, d41 d42 d43, d40, d44 (the rest is 0) */
enum { LU_NF = 12 };
static inline void diag_factors(const lu_consts_t *c, const double *up, ptrdiff_t uf,
                                double rho, double *f, ptrdiff_t fs)
{
  const double u[5] = {up[0], up[uf], up[2 * uf], up[3 * uf], up[4 * uf]};
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
    f[(1 + m) * fs] = dm0[m];
    f[(4 + m) * fs] = dmm[m];
    f[(7 + m) * fs] = d4m[m];
  }
  f[10 * fs] = d40;
  f[11 * fs] = d44;
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

/* The sweeps work on struct-of-arrays copies of the zone (lu_internal.h, LU_SOA): per
 * plane k, field m of row j at ((k nf + m) ny + j) nx + i, nf = 7 for u (u0..u4, rho_i, qs;
 * constant during the sweeps) and 5 for rsd.  Unit stride over i lets the row-independent
 * terms below vectorise over i; each point's arithmetic is the same as on the zone arrays.
 *
 * Per point of a row, what does not depend on the row's own new values (independent over i,
 * off the recurrence's critical path) goes first into w: the k- and j-neighbour terms and the
 * diagonal factors (row_terms); the recurrence along i then only applies the i-neighbour
 * block and substitutes.  w is a struct of arrays over the row too, w[m * nx + i]. */
enum { LU_NW = 10 + LU_NF };

/* one row of the copies: U (u fields, then rho_i, qs) and V (rsd) at row j of plane k, F the
 * field stride (nx ny) */
typedef struct lu_row {
  const double *U;
  double *V;
  ptrdiff_t F, uz, vz, sy; /* field stride; plane strides of U, V; row stride */
  int ilo, ihi, nx;
} lu_row_t;

static inline lu_row_t lu_row(const mz_adi_zone_t *z, const lu_state_t *s, int j, int k)
{
  const ptrdiff_t nx = z->nx, F = nx * z->ny;
  lu_row_t r = {s->us + (7 * k * F + j * nx), s->vs + (5 * k * F + j * nx), F, 7 * F, 5 * F, nx,
                z->ilo, z->ihi, z->nx};
  return r;
}

/* The row-independent part of row r for both sweeps (sgn -1: the lower sweep's k-1 and j-1
 * neighbours, +1: the upper sweep's k+1 and j+1): per i, w[0..4] the z-neighbour term,
 * w[5..9] the y-neighbour term, then the diagonal factors. */
static void row_terms(const lu_consts_t *c, const lu_row_t *r, double sgn, double *restrict w)
{
  const int nx = r->nx;
  const ptrdiff_t F = r->F, uz = sgn < 0 ? -r->uz : r->uz, vz = sgn < 0 ? -r->vz : r->vz,
                  sy = sgn < 0 ? -r->sy : r->sy;
  const double *restrict U = r->U;
  const double *restrict V = r->V;
  /* all nx columns, not only the interior [ilo, ihi): whole vectors, no remainder loop (W:
   * 16 lanes for 14; u is set at every point, the extra lanes are finite and unused) */
#pragma omp simd
  for (int i = 0; i < nx; i++) {
    const double *a = U + uz + i, *b = U + sy + i;
    lu_v5_t tz = off_apply(c, 2, sgn, a, a[5 * F], a[6 * F], V + vz + i, F);
    lu_v5_t ty = off_apply(c, 1, sgn, b, b[5 * F], b[6 * F], V + sy + i, F);
    for (int m = 0; m < 5; m++) {
      w[m * nx + i] = tz.m[m];
      w[(5 + m) * nx + i] = ty.m[m];
    }
    diag_factors(c, U + i, F, U[5 * F + i], w + 10 * nx + i, nx);
  }
}

/* blts.f on row r: v -= omega (Lz v(k-1) + Ly v(j-1) + Lx v(i-1)); v = D^-1 v */
static void lower_row(const lu_consts_t *c, const lu_row_t *r, double *restrict w)
{
  const int nx = r->nx;
  const ptrdiff_t F = r->F;
  const double *U = r->U;
  double *V = r->V;
  row_terms(c, r, -1.0, w);
  for (int i = r->ilo; i < r->ihi; i++) {
    double x[5], f[LU_NF];
    const double *a = U + i - 1;
    lu_v5_t tx = off_apply(c, 0, -1.0, a, a[5 * F], a[6 * F], V + i - 1, F);
    for (int m = 0; m < 5; m++)
      x[m] = (V[m * F + i] - omega * w[m * nx + i]) - omega * (w[(5 + m) * nx + i] + tx.m[m]);
    for (int m = 0; m < LU_NF; m++)
      f[m] = w[(10 + m) * nx + i];
    diag_subst(f, x);
    for (int m = 0; m < 5; m++)
      V[m * F + i] = x[m];
  }
}

/* buts.f on row r, i descending: t = D^-1 omega (Uz v(k+1) + Uy v(j+1) + Ux v(i+1));
 * v -= t */
static void upper_row(const lu_consts_t *c, const lu_row_t *r, double *restrict w)
{
  const int nx = r->nx;
  const ptrdiff_t F = r->F;
  const double *U = r->U;
  double *V = r->V;
  row_terms(c, r, 1.0, w);
  for (int i = r->ihi - 1; i >= r->ilo; i--) {
    double x[5], f[LU_NF];
    const double *a = U + i + 1;
    lu_v5_t tx = off_apply(c, 0, 1.0, a, a[5 * F], a[6 * F], V + i + 1, F);
    for (int m = 0; m < 5; m++)
      x[m] = omega * w[m * nx + i] + omega * (w[(5 + m) * nx + i] + tx.m[m]);
    for (int m = 0; m < LU_NF; m++)
      f[m] = w[(10 + m) * nx + i];
    diag_subst(f, x);
    for (int m = 0; m < 5; m++)
      V[m * F + i] -= x[m];
  }
}

/* ---- SSOR (ssor.f) with the sweeps pipelined over the team's j-row blocks ---- */

/* x split (lu.h): thread t's column of rows [jlo, jhi) of plane k of the rsd copy at local i,
 * received from (in = 1) or sent to x neighbour `who` (MPI_PROC_NULL: nothing); from inside
 * the parallel region, MPI_THREAD_MULTIPLE */
static void edge_column(const mz_adi_zone_t *z, const lu_state_t *s, int i, int jlo, int jhi,
                        int k, int who, int tag, int in)
{
  if (who == MPI_PROC_NULL || jhi <= jlo)
    return;
  double buf[5 * (jhi - jlo)];
  int n = 5 * (jhi - jlo);
  for (int m = 0, p = 0; m < 5 && !in; m++)
    for (int j = jlo; j < jhi; j++)
      buf[p++] = lu_row(z, s, j, k).V[m * lu_row(z, s, j, k).F + i];
  if (in)
    MPI_Recv(buf, n, MPI_DOUBLE, who, tag, z->xs->comm, MPI_STATUS_IGNORE);
  else
    MPI_Send(buf, n, MPI_DOUBLE, who, tag, z->xs->comm);
  for (int m = 0, p = 0; m < 5 && in; m++)
    for (int j = jlo; j < jhi; j++)
      lu_row(z, s, j, k).V[m * lu_row(z, s, j, k).F + i] = buf[p++];
}

/* the copies (LU_SOA): u and rsd, rsd *= dt on the interior (ssor.f); rho_i and qs are
 * in us already (the residual put them there with u; the exchange changes only u).  A
 * worksharing loop of the calling team. */
static void copy_in(const mz_adi_zone_t *z, const lu_state_t *s, const lu_consts_t *c)
{
  const int nx = z->nx, ny = z->ny, nz = z->nz, ilo = z->ilo, ihi = z->ihi;
  const double *rsd = z->rhs, *u = z->u;
#pragma omp for schedule(static)
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++) {
      const lu_row_t r = lu_row(z, s, j, k);
      double *U = (double *)r.U;
      const size_t q0 = IDX(z, 0, j, k);
      const int inner = k > 0 && k < nz - 1 && j > 0 && j < ny - 1;
      for (int i = 0; i < nx; i++) {
        const size_t q = q0 + (size_t)i;
        const int scale = inner && i >= ilo && i < ihi;
        for (int m = 0; m < 5; m++) {
          U[m * r.F + i] = u[5 * q + m];
          r.V[m * r.F + i] = scale ? rsd[5 * q + m] * c->dt : rsd[5 * q + m];
        }
      }
    }
}

/* thread t of nt: its rows [jlo, jhi) through the lower sweep (planes 1..K, after thread
 * t - 1 is done with the plane) and then the upper sweep (planes K..1, after thread t + 1);
 * with the x split, the edge columns from and to the x neighbours west and east */
static void sweeps(const mz_adi_zone_t *z, lu_state_t *s, const lu_consts_t *c, int t, int nt,
                   int west, int east, double *restrict w)
{
  const int ny = z->ny, nz = z->nz, K = nz - 2, ilo = z->ilo, ihi = z->ihi;
  const mz_xsplit_t *xs = z->xs;
  const int rows = ny - 2, jlo = 1 + t * rows / nt, jhi = 1 + (t + 1) * rows / nt;
  for (int st = 1; st <= K; st++) {
    int k = st;
    if (t > 0)
      hk_progress_wait(&s->prog, t - 1, st);
    if (xs)
      edge_column(z, s, ilo - 1, jlo, jhi, k, west, LU_TAG_LOWER + t, 1);
    for (int j = jlo; j < jhi; j++) {
      const lu_row_t r = lu_row(z, s, j, k);
      lower_row(c, &r, w);
    }
    if (xs)
      edge_column(z, s, ihi - 1, jlo, jhi, k, east, LU_TAG_LOWER + t, 0);
    hk_progress_post(&s->prog, t, st);
  }
  for (int st = 1; st <= K; st++) {
    int k = nz - 1 - st;
    if (t < nt - 1)
      hk_progress_wait(&s->prog, t + 1, K + st);
    if (xs)
      edge_column(z, s, ihi, jlo, jhi, k, east, LU_TAG_UPPER + t, 1);
    for (int j = jhi - 1; j >= jlo; j--) {
      const lu_row_t r = lu_row(z, s, j, k);
      upper_row(c, &r, w);
    }
    if (xs)
      edge_column(z, s, ilo, jlo, jhi, k, west, LU_TAG_UPPER + t, 0);
    hk_progress_post(&s->prog, t, K + st);
  }
}

/* x split: u += tmp rsd on the interior (a worksharing loop of the calling team) */
static void update_u(const mz_adi_zone_t *z, const lu_state_t *s, double tmp)
{
  const int ny = z->ny, nz = z->nz, ilo = z->ilo, ihi = z->ihi;
  double *u = z->u;
#pragma omp for schedule(static)
  for (int k = 1; k < nz - 1; k++)
    for (int j = 1; j < ny - 1; j++) {
      const lu_row_t r = lu_row(z, s, j, k);
      const size_t q0 = IDX(z, 0, j, k);
      for (int i = ilo; i < ihi; i++)
        for (int m = 0; m < 5; m++)
          u[5 * (q0 + (size_t)i) + m] += tmp * r.V[m * r.F + i];
    }
}

int mz_lu_ssor(mz_adi_zone_t *z)
{
  lu_state_t *s = z->solver;
  const lu_consts_t *c = &s->c;
  const int nx = z->nx;
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
    copy_in(z, s, c);
    /* (the barrier above also orders the counter resets before any wait) */
    double w[LU_NW * nx]; /* the row's work space (lower_row, upper_row) */
    sweeps(z, s, c, t, nt, west, east, w);
#pragma omp barrier
    /* u += rsd / (omega (2 - omega)), then rsd = rhs(u); without the x split in the
     * residual's first loop (the ghost planes of u must be exchanged after the update) */
    if (xs)
      update_u(z, s, tmp);
    mz__lu_residual(z, c, z->u, z->rhs, z->forcing, xs ? 0.0 : tmp);
  }
  return 0;
}
