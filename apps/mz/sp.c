/* apps/mz/sp.c: the SP-MZ zone solver, one ADI time step of the scalar penta-diagonal scheme
 * (NPB 3.x SP / NPB3.x-MZ SP-MZ: adi.f, txinvr.f, x_solve.f, y_solve.f, z_solve.f, ninvr.f,
 * pinvr.f, tzetar.f, add.f), written from the published algorithm with our own structure:
 *
 *   compute_rhs -> x sweep -> y sweep -> z sweep, all inside ONE parallel region per step.
 * A sweep solves, for every interior line of its direction, the three scalar penta-diagonal
 * systems of the reference (lhs for components 1-3, lhsp for 4, lhsm for 5) with the Thomas
 * algorithm. Lines are solved SPW at a time: a batch is copied into line-major work arrays
 * [position][lane] so that every step of the elimination is a unit-stride loop over the SPW
 * lanes (vectorised), and copied back. The reference's point-wise block-diagonal transforms
 * are done on these lane arrays (vectorised) or, for txinvr, on compute_rhs' row buffer:
 *
 *      before the solves                 systems          after the solves (interior points)
 *   x  txinvr (compute_rhs row hook)     lhs/lhsp/lhsm    ninvr
 *   y  -                                 lhs/lhsp/lhsm    pinvr
 *   z  -                                 lhs/lhsp/lhsm    tzetar; u += rhs (add) at the copy-out
 *   batch of SPW lines (x sweep: lines j..j+7 at plane k; y, z sweeps: lines i..i+7)
 *     rhs[k][j][i][5] --copy in--> r0..r4[pos][lane], cv/rho/speed[pos][lane]
 *                                  lhs, lhsp, lhsm [pos][lane]  (built, then eliminated)
 *     rhs (and u) <--copy out-- r0..r4 after the block-diagonal transform
 *
 * Consecutive lines make the lanes affine (one point stride between lanes: vector loads); the
 * last batch of a direction is shifted back to stay full. One routine, three direction
 * descriptors (sp_dir_t). The arithmetic per line is the reference's, in its order; lanes are
 * independent, so a part of a zone (z->part) stores only its lines with the same result. */
#include "sp.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* lines per batch: one AVX-512 (two AVX2) vector of doubles per work-array row */
#define SPW 8

/* per-thread work space for SPW lines of up to nmax points; every array is [pos][SPW] */
enum { W_CV, W_RHO, W_SPD, W_A1, W_A2, W_A3, W_A4, W_A5, W_P2, W_P3, W_P4, W_P5,
       W_M2, W_M3, W_M4, W_M5, W_R0, W_R1, W_R2, W_R3, W_R4, W_NARR };

typedef struct sp_work {
  double *a[W_NARR];
  double *dl; /* implicit dissipation rows [pos][5] of the current direction */
} sp_work_t;

typedef struct sp_solver {
  int nmax, slots;
  sp_work_t **work; /* one per thread of the inner team, allocated by that thread */
} sp_solver_t;

static sp_work_t *work_alloc(int nmax)
{
  sp_work_t *w = calloc(1, sizeof *w);
  size_t per = (size_t)nmax * SPW;
  const size_t bytes = (per * W_NARR + 5 * (size_t)nmax) * sizeof(double);
  double *mem = w ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  if (!mem) {
    free(w);
    return NULL;
  }
  for (int n = 0; n < W_NARR; n++)
    w->a[n] = mem + n * per;
  w->dl = mem + W_NARR * per;
  return w;
}

static void work_free(sp_work_t *w)
{
  if (w)
    free(w->a[0]);
  free(w);
}

int mz_sp_setup(mz_adi_zone_t *z)
{
  if (!z->speed)
    return -1;
  sp_solver_t *s = calloc(1, sizeof *s);
  if (!s)
    return -1;
  s->nmax = z->nx > z->ny ? z->nx : z->ny;
  if (z->nz > s->nmax)
    s->nmax = z->nz;
  s->slots = omp_get_max_threads();
  s->work = calloc(s->slots, sizeof *s->work);
  if (!s->work) {
    free(s);
    return -1;
  }
  z->solver = s;
  return 0;
}

void mz_sp_free(mz_adi_zone_t *z)
{
  sp_solver_t *s = z->solver;
  if (!s)
    return;
  for (int t = 0; t < s->slots; t++)
    work_free(s->work[t]);
  free(s->work);
  free(s);
  z->solver = NULL;
}

double mz_sp_step_ops(int nx, int ny, int nz)
{
  /* NPB3.x-MZ SP-MZ sp.f, Mop/s count per zone and iteration */
  const double n3 = (double)nx * ny * nz;
  const double navg = (nx + ny + nz) / 3.0;
  const double nsur = ((double)nx * ny + (double)nx * nz + (double)ny * nz) / 3.0;
  return 881.174 * n3 - 4683.91 * nsur + 11484.5 * navg - 19272.4;
}

/* ---- one direction ---- */

typedef enum { SP_X, SP_Y, SP_Z } sp_axis_t;

typedef struct sp_dir {
  sp_axis_t axis;
  int n;                    /* points per line */
  ptrdiff_t s;              /* stride along the line, in points */
  int nouter, nlines;       /* interior outer index 1..nouter-2, lines 1..nlines-2 */
  double dtt1, dtt2, c2dtt1;/* dttx1, dttx2, c2dttx1 (y, z alike) */
  double da, d5, dmx, d1;   /* rho = max(da + con43 ru1, d5 + c1c5 ru1, dmx + ru1, d1) */
  const double *vel;        /* us, vs, ws */
} sp_dir_t;

static sp_dir_t sp_dir(const mz_adi_zone_t *z, sp_axis_t a)
{
  const mz_consts_t *c = &z->c;
  const ptrdiff_t plane = (ptrdiff_t)z->nx * z->ny;
  switch (a) {
  case SP_X:
    return (sp_dir_t){a, z->nx, 1, z->nz, z->ny, c->dttx1, c->dttx2, c->c2dttx1,
                      c->dx2, c->dx5, c->dxmax, c->dx1, z->us};
  case SP_Y:
    return (sp_dir_t){a, z->ny, z->nx, z->nz, z->nx, c->dtty1, c->dtty2, c->c2dtty1,
                      c->dy3, c->dy5, c->dymax, c->dy1, z->vs};
  default:
    return (sp_dir_t){a, z->nz, plane, z->ny, z->nx, c->dttz1, c->dttz2, c->c2dttz1,
                      c->dz4, c->dz5, c->dzmax, c->dz1, z->ws};
  }
}

/* point index of position 0 of line l (1..nlines-2) at outer index o */
static inline size_t line_base(const mz_adi_zone_t *z, sp_axis_t a, int o, int l)
{
  const size_t nx = z->nx, ny = z->ny;
  switch (a) {
  case SP_X: return ((size_t)o * ny + l) * nx;        /* o = k, l = j */
  case SP_Y: return (size_t)o * ny * nx + l;          /* o = k, l = i */
  default:   return (size_t)o * nx + l;               /* o = j, l = i */
  }
}

/* A batch: the SPW lines' first points. Normally the lanes are consecutive lines (point
 * stride ls between lanes: affine, so lane loads vectorise); the last batch of a direction is
 * shifted back to stay full, and its lanes below `fresh` (lines of the previous batch) neither
 * read nor store those lines' rhs. With fewer lines than SPW the spare lanes repeat the last
 * line (ls = 0). */
typedef struct sp_batch {
  size_t base[SPW];
  ptrdiff_t ls;
  int fresh, nstore; /* lanes fresh..nstore-1 are stored */
} sp_batch_t;

static void batch_lines(const mz_adi_zone_t *z, const sp_dir_t *d, int o, int b, sp_batch_t *B)
{
  const int lines = d->nlines - 2, first = 1 + b * SPW;
  if (lines >= SPW) {
    const int f = first + SPW - 1 > lines ? lines - SPW + 1 : first;
    B->fresh = first - f;
    B->nstore = SPW;
    for (int w = 0; w < SPW; w++)
      B->base[w] = line_base(z, d->axis, o, f + w);
    B->ls = (ptrdiff_t)(B->base[1] - B->base[0]);
  } else {
    B->fresh = 0;
    B->nstore = lines;
    for (int w = 0; w < SPW; w++)
      B->base[w] = line_base(z, d->axis, o, 1 + (w < lines ? w : lines - 1));
    B->ls = 0;
  }
}

/* txinvr.f on a chunk of an interior row (compute_rhs' hook, vectorised) */
static void txinvr_row(const mz_adi_zone_t *z, size_t p0, int n, double *rr, size_t ld)
{
  const double bt = z->c.bt, c2 = z->c.c2;
  const double *restrict ri = z->rho_i + p0, *restrict us = z->us + p0, *restrict vs = z->vs + p0,
                         *restrict ws = z->ws + p0, *restrict sp = z->speed + p0,
                         *restrict qs = z->qs + p0;
  double *restrict r0 = rr, *restrict r1 = rr + ld, *restrict r2 = rr + 2 * ld,
                   *restrict r3 = rr + 3 * ld, *restrict r4 = rr + 4 * ld;
#pragma omp simd
  for (int i = 0; i < n; i++) {
    const double ru1 = ri[i], uu = us[i], vv = vs[i], ww = ws[i], ac = sp[i];
    const double ac2inv = 1.0 / (ac * ac);
    const double a0 = r0[i], a1 = r1[i], a2 = r2[i], a3 = r3[i], a4 = r4[i];
    const double t1 = c2 * ac2inv * (qs[i] * a0 - uu * a1 - vv * a2 - ww * a3 + a4);
    const double t2 = bt * ru1 * (uu * a0 - a1);
    const double t3 = (bt * ru1 * ac) * t1;
    r0[i] = a0 - t1;
    r1[i] = -ru1 * (ww * a0 - a3);
    r2[i] = ru1 * (vv * a0 - a2);
    r3[i] = -t2 + t3;
    r4[i] = t2 + t3;
  }
}

/* the line quantities of lane x (point p): velocity, rho (the lhs' viscous bound), speed */
static inline void lane_in(const mz_adi_zone_t *z, const sp_dir_t *d, size_t p, int x,
                           double *restrict cv, double *restrict rho, double *restrict spd)
{
  const mz_consts_t *c = &z->c;
  const double ru1 = c->c3c4 * z->rho_i[p];
  double r = d->da + c->con43 * ru1;
  const double r2 = d->d5 + c->c1c5 * ru1, r3 = d->dmx + ru1;
  r = r > r2 ? r : r2;
  r = r > r3 ? r : r3;
  rho[x] = r > d->d1 ? r : d->d1;
  cv[x] = d->vel[p];
  spd[x] = z->speed[p];
}

/* copy a batch in: the rhs components (interleaved, so element by element), then the line
 * quantities (vector loads when the lanes are affine) */
static void gather(const mz_adi_zone_t *z, const sp_dir_t *d, const sp_batch_t *B, sp_work_t *W)
{
  double *const *a = W->a;
  double *restrict cv = a[W_CV], *restrict rho = a[W_RHO], *restrict spd = a[W_SPD];
  /* lanes below `fresh` belong to a batch another thread may be storing: they solve a copy
   * of the first fresh lane's right-hand side instead (their results are never stored) */
  for (int q = 0; q < d->n; q++)
    for (int w = 0; w < SPW; w++) {
      const double *r = z->rhs + 5 * (B->base[w < B->fresh ? B->fresh : w] + q * d->s);
      for (int m = 0; m < 5; m++)
        a[W_R0 + m][q * SPW + w] = r[m];
    }
  if (B->ls) {
    const size_t b0 = B->base[0], ls = B->ls;
    for (int q = 0; q < d->n; q++)
#pragma omp simd
      for (int w = 0; w < SPW; w++)
        lane_in(z, d, b0 + w * ls + q * d->s, q * SPW + w, cv, rho, spd);
  } else {
    for (int q = 0; q < d->n; q++)
      for (int w = 0; w < SPW; w++)
        lane_in(z, d, B->base[w] + q * d->s, q * SPW + w, cv, rho, spd);
  }
}

/* the three left-hand sides (x_solve.f etc.: lhsinit, the u-eigenvalue rows plus the
 * 4th-order dissipation rows, then lhsp/lhsm for u+c and u-c) */
static void build_lhs(const sp_dir_t *d, sp_work_t *W)
{
  double *restrict A1 = W->a[W_A1], *restrict A2 = W->a[W_A2], *restrict A3 = W->a[W_A3],
         *restrict A4 = W->a[W_A4], *restrict A5 = W->a[W_A5];
  double *restrict P2 = W->a[W_P2], *restrict P3 = W->a[W_P3], *restrict P4 = W->a[W_P4],
         *restrict P5 = W->a[W_P5];
  double *restrict M2 = W->a[W_M2], *restrict M3 = W->a[W_M3], *restrict M4 = W->a[W_M4],
         *restrict M5 = W->a[W_M5];
  const double *restrict cv = W->a[W_CV], *restrict rho = W->a[W_RHO], *restrict spd = W->a[W_SPD];
  const int n = d->n;
  for (int e = 0; e < 2; e++) { /* lhsinit: identity rows at both ends */
    const int q = e ? n - 1 : 0;
    for (int w = 0; w < SPW; w++) {
      const int x = q * SPW + w;
      A1[x] = A2[x] = A4[x] = A5[x] = 0.0;
      P2[x] = P4[x] = P5[x] = M2[x] = M4[x] = M5[x] = 0.0;
      A3[x] = P3[x] = M3[x] = 1.0;
    }
  }
  for (int q = 1; q < n - 1; q++) {
    const double *dl = W->dl + 5 * q;
#pragma omp simd
    for (int w = 0; w < SPW; w++) {
      const int x = q * SPW + w, xm = x - SPW, xp = x + SPW;
      const double a2 = -d->dtt2 * cv[xm] - d->dtt1 * rho[xm] + dl[1];
      const double a3 = 1.0 + d->c2dtt1 * rho[x] + dl[2];
      const double a4 = d->dtt2 * cv[xp] - d->dtt1 * rho[xp] + dl[3];
      A1[x] = dl[0];
      A2[x] = a2;
      A3[x] = P3[x] = M3[x] = a3;
      A4[x] = a4;
      A5[x] = P5[x] = M5[x] = dl[4];
      P2[x] = a2 - d->dtt2 * spd[xm];
      P4[x] = a4 + d->dtt2 * spd[xp];
      M2[x] = a2 + d->dtt2 * spd[xm];
      M4[x] = a4 - d->dtt2 * spd[xp];
    }
  }
}

/* Thomas algorithm for one penta-diagonal system (b1 two rows below the diagonal, b2 one
 * below, diagonal b3, b4 and b5 above) with nr right-hand sides r[0..nr-1], all [pos][SPW]:
 * forward elimination, the last row scaled immediately, back substitution (x_solve.f). */
static void penta_solve(int n, const double *restrict b1, double *restrict b2,
                        double *restrict b3, double *restrict b4, double *restrict b5, int nr,
                        double *const r[])
{
  for (int q = 0; q < n - 1; q++) {
    const int x = q * SPW, x1 = x + SPW, x2 = x1 + SPW;
    const int two = q < n - 2; /* row q+2 exists */
    double fac[SPW];
#pragma omp simd
    for (int w = 0; w < SPW; w++) {
      fac[w] = 1.0 / b3[x + w];
      b4[x + w] *= fac[w];
      b5[x + w] *= fac[w];
      b3[x1 + w] -= b2[x1 + w] * b4[x + w];
      b4[x1 + w] -= b2[x1 + w] * b5[x + w];
    }
    if (two)
#pragma omp simd
      for (int w = 0; w < SPW; w++) {
        b2[x2 + w] -= b1[x2 + w] * b4[x + w];
        b3[x2 + w] -= b1[x2 + w] * b5[x + w];
      }
    for (int c = 0; c < nr; c++) {
      double *restrict rc = r[c];
#pragma omp simd
      for (int w = 0; w < SPW; w++) {
        rc[x + w] *= fac[w];
        rc[x1 + w] -= b2[x1 + w] * rc[x + w];
      }
      if (two)
#pragma omp simd
        for (int w = 0; w < SPW; w++)
          rc[x2 + w] -= b1[x2 + w] * rc[x + w];
    }
  }
  const int xl = (n - 1) * SPW;
  for (int c = 0; c < nr; c++) {
    double *restrict rc = r[c];
#pragma omp simd
    for (int w = 0; w < SPW; w++)
      rc[xl + w] /= b3[xl + w];
#pragma omp simd
    for (int w = 0; w < SPW; w++)
      rc[xl - SPW + w] -= b4[xl - SPW + w] * rc[xl + w];
    for (int q = n - 3; q >= 0; q--) {
      const int x = q * SPW;
#pragma omp simd
      for (int w = 0; w < SPW; w++)
        rc[x + w] = rc[x + w] - b4[x + w] * rc[x + SPW + w] - b5[x + w] * rc[x + 2 * SPW + w];
    }
  }
}

/* tzetar.f for lane x at point p, in place on the work arrays */
static inline void tzetar_lane(const mz_adi_zone_t *z, size_t p, int x, double *restrict r0,
                               double *restrict r1, double *restrict r2, double *restrict r3,
                               double *restrict r4)
{
  const double bt = z->c.bt, c2iv = z->c.c2iv;
  const double xvel = z->us[p], yvel = z->vs[p], zvel = z->ws[p];
  const double ac = z->speed[p], ac2u = ac * ac;
  const double uzik1 = z->ut[p], btuz = bt * uzik1; /* ut: u's density, copied by compute_rhs */
  const double a0 = r0[x], a1 = r1[x], a2 = r2[x], a3 = r3[x], a4 = r4[x];
  const double t1 = btuz / ac * (a3 + a4);
  const double t2 = a2 + t1, t3 = btuz * (a3 - a4);
  r0[x] = t2;
  r1[x] = -uzik1 * a1 + xvel * t2;
  r2[x] = uzik1 * a0 + yvel * t2;
  r3[x] = zvel * t2 + t3;
  r4[x] = uzik1 * (-xvel * a1 + yvel * a0) + z->qs[p] * t2 + c2iv * ac2u * t1 + zvel * t3;
}

/* the direction's block-diagonal transform on the solved interior points of the batch:
 * ninvr.f after x, pinvr.f after y, tzetar.f after z */
static void post_transform(const mz_adi_zone_t *z, const sp_dir_t *d, const sp_batch_t *B,
                           sp_work_t *W)
{
  double *restrict r0 = W->a[W_R0], *restrict r1 = W->a[W_R1], *restrict r2 = W->a[W_R2],
                   *restrict r3 = W->a[W_R3], *restrict r4 = W->a[W_R4];
  const double bt = z->c.bt;
  const int lo = SPW, hi = (d->n - 1) * SPW;
  if (d->axis == SP_X) {
#pragma omp simd
    for (int x = lo; x < hi; x++) {
      const double a0 = r0[x], a1 = r1[x], a2 = r2[x], a3 = r3[x], a4 = r4[x];
      const double t1 = bt * a2, t2 = 0.5 * (a3 + a4);
      r0[x] = -a1;
      r1[x] = a0;
      r2[x] = bt * (a3 - a4);
      r3[x] = -t1 + t2;
      r4[x] = t1 + t2;
    }
  } else if (d->axis == SP_Y) {
#pragma omp simd
    for (int x = lo; x < hi; x++) {
      const double a0 = r0[x], a1 = r1[x], a2 = r2[x], a3 = r3[x], a4 = r4[x];
      const double t1 = bt * a0, t2 = 0.5 * (a3 + a4);
      r0[x] = bt * (a3 - a4);
      r1[x] = -a2;
      r2[x] = a1;
      r3[x] = -t1 + t2;
      r4[x] = t1 + t2;
    }
  } else if (B->ls) {
    const size_t b0 = B->base[0], ls = B->ls;
    for (int q = 1; q < d->n - 1; q++)
#pragma omp simd
      for (int w = 0; w < SPW; w++)
        tzetar_lane(z, b0 + w * ls + q * d->s, q * SPW + w, r0, r1, r2, r3, r4);
  } else {
    for (int q = 1; q < d->n - 1; q++)
      for (int w = 0; w < SPW; w++)
        tzetar_lane(z, B->base[w] + q * d->s, q * SPW + w, r0, r1, r2, r3, r4);
  }
}

/* copy a batch out: the interior points of its fresh lanes (the solves leave the end points
 * unchanged); the z sweep also adds the update to u (add.f) */
static void scatter(mz_adi_zone_t *z, const sp_dir_t *d, const sp_batch_t *B, const sp_work_t *W)
{
  const int add = d->axis == SP_Z;
  for (int q = 1; q < d->n - 1; q++)
    for (int w = B->fresh; w < B->nstore; w++) {
      if (!mz_adi_line_mine(z, d->axis, B->base[w]))
        continue;
      const size_t p = B->base[w] + q * d->s;
      for (int m = 0; m < 5; m++) {
        const double v = W->a[W_R0 + m][q * SPW + w];
        z->rhs[5 * p + m] = v;
        if (add)
          z->u[5 * p + m] += v;
      }
    }
}

/* one direction: every interior line, SPW lines per batch, batches shared by the team
 * (orphaned worksharing, ends with a barrier) */
static void sweep(mz_adi_zone_t *z, sp_axis_t axis, sp_work_t *W)
{
  const sp_dir_t d = sp_dir(z, axis);
  const int lines = d.nlines - 2, nb = (lines + SPW - 1) / SPW;
  for (int q = 1; q < d.n - 1; q++) {
    double row[5];
    mz_adi_dissipation_row(q, d.n, row);
    for (int o = 0; o < 5; o++)
      W->dl[5 * q + o] = z->c.dtdssp * row[o]; /* comz1, -comz4, comz5, comz6 */
  }
  double *const r012[3] = {W->a[W_R0], W->a[W_R1], W->a[W_R2]};
  double *const r3[1] = {W->a[W_R3]}, *const r4[1] = {W->a[W_R4]};
#pragma omp for collapse(2) schedule(static)
  for (int o = 1; o < d.nouter - 1; o++)
    for (int b = 0; b < nb; b++) {
      sp_batch_t B;
      batch_lines(z, &d, o, b, &B);
      int mine = 0; /* --second-level mpi: skip a batch of another sub-rank's lines */
      for (int w = B.fresh; w < B.nstore && !mine; w++)
        mine = mz_adi_line_mine(z, axis, B.base[w]);
      if (!mine)
        continue;
      gather(z, &d, &B, W);
      build_lhs(&d, W);
      penta_solve(d.n, W->a[W_A1], W->a[W_A2], W->a[W_A3], W->a[W_A4], W->a[W_A5], 3, r012);
      penta_solve(d.n, W->a[W_A1], W->a[W_P2], W->a[W_P3], W->a[W_P4], W->a[W_P5], 1, r3);
      penta_solve(d.n, W->a[W_A1], W->a[W_M2], W->a[W_M3], W->a[W_M4], W->a[W_M5], 1, r4);
      post_transform(z, &d, &B, W);
      scatter(z, &d, &B, W);
    }
}

int mz_sp_adi(mz_adi_zone_t *z)
{
  sp_solver_t *s = z->solver;
  int failed = 0;
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    sp_work_t *own = NULL, *W;
    if (t < s->slots) {
      if (!s->work[t])
        s->work[t] = work_alloc(s->nmax); /* first touch by its thread */
      W = s->work[t];
    } else {
      W = own = work_alloc(s->nmax); /* a team larger than at setup (nested levels) */
    }
    if (!W) {
#pragma omp atomic write
      failed = 1;
    }
    /* txinvr rides on compute_rhs; ends with a barrier: 'failed' is final after it */
    mz_adi_compute_rhs_team_hook(z, txinvr_row);
    int bad;
#pragma omp atomic read
    bad = failed;
    for (int a = SP_X; a <= SP_Z; a++) {
      if (!bad)
        sweep(z, (sp_axis_t)a, W);
      if (a < SP_Z)
        mz_adi_between(z, a); /* --second-level mpi: always, so that no sub-rank waits */
    }
    work_free(own);
  }
  return failed ? -1 : 0;
}
