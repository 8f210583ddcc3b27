/* apps/mz/bt.c: the BT-MZ zone solver, one ADI time step per call.
 *
 *   compute_rhs (adi_common.c)  ->  x, y, z line solves  ->  u += rhs (interior)
 *
 * all in one parallel region per step and zone (the last sweep adds to u directly).
 *
 * Each line solve is the block tri-diagonal system of NPB BT (Beam-Warming approximate
 * factorisation, NAS reports 95-020 and 99-011): along a grid line of n points
 *
 *     AA(p) dU(p-1) + BB(p) dU(p) + CC(p) dU(p+1) = rhs(p),   p = 1 .. n-2,
 *
 * with 5x5 blocks from the flux Jacobian F and the viscous Jacobian N of the neighbouring
 * points (AA(p) from point p-1, BB(p) from p, CC(p) from p+1), and identity rows at the two
 * boundary points.  Block Gauss elimination without pivoting (Gauss-Jordan on each diagonal
 * block), then back substitution.
 *
 * Vectorisation: LANES lines are solved together, structure of arrays with the line index
 * fastest ([point][row][col][lane]); a `lanes_t` (GCC vector extension) holds one value of
 * the LANES lines, so every block operation is straight-line SIMD code.
 * A batch is gathered from the zone, solved and scattered back; a last partial batch repeats
 * its last line in the spare lanes (computed, never written back).
 *
 * Constants (dt, tx1, tx2, dx1..dx5, c3c4, c1345, con43, ...) are the set_constants values in
 * z->c (adi_common.c, after NPB3.3-MZ BT-MZ/set_constants.f).
 */
#include "bt.h"
#include <stdlib.h>
#include <string.h>

#define LANES 8
#define NB 25 /* entries of a 5x5 block */

/* one value of each of the LANES lines of a batch */
typedef double lanes_t __attribute__((vector_size(LANES * sizeof(double))));

typedef struct bt_dir {
  double tmp1, tmp2;   /* dt * t?1, dt * t?2 of the sweep direction */
  double diff[5];      /* d?1 .. d?5 */
  double c1, c2, c3c4, c1345, con43;
  int normal;          /* momentum component along the line: 1, 2 or 3 */
} bt_dir_t;

/* Line work space of one thread: LANES lines of at most n points. */
typedef struct bt_work {
  lanes_t *u, *r;                /* gathered [point][5] */
  lanes_t *rho, *qs, *sq;        /* gathered [point] */
  lanes_t *cc;                   /* CC blocks [point][25] (row-major), C' after elimination */
} bt_work_t;

static void bt_dir_init(const mz_adi_zone_t *z, int d, bt_dir_t *b)
{
  const mz_consts_t *c = &z->c;
  const double t1[3] = {c->tx1, c->ty1, c->tz1}, t2[3] = {c->tx2, c->ty2, c->tz2};
  const double diff[3][5] = {{c->dx1, c->dx2, c->dx3, c->dx4, c->dx5},
                             {c->dy1, c->dy2, c->dy3, c->dy4, c->dy5},
                             {c->dz1, c->dz2, c->dz3, c->dz4, c->dz5}};
  b->tmp1 = c->dt * t1[d];
  b->tmp2 = c->dt * t2[d];
  for (int m = 0; m < 5; m++)
    b->diff[m] = diff[d][m];
  b->c1 = c->c1;
  b->c2 = c->c2;
  b->c3c4 = c->c3c4;
  b->c1345 = c->c1345;
  b->con43 = c->con43;
  b->normal = 1 + d;
}

/* Work space of the calling thread, kept between calls (OpenMP threads persist) and grown
 * on demand: a few hundred KiB per thread, independent of the number of zones. */
static _Thread_local bt_work_t tls_work;
static _Thread_local int tls_points;

static void work_free(bt_work_t *w)
{
  free(w->u);
  free(w->r);
  free(w->rho);
  free(w->qs);
  free(w->sq);
  free(w->cc);
  memset(w, 0, sizeof *w);
}

static bt_work_t *work_get(int n)
{
  bt_work_t *w = &tls_work;
  if (n <= tls_points)
    return w;
  size_t pts = (size_t)n * sizeof(lanes_t);
  work_free(w);
  tls_points = 0;
  w->u = aligned_alloc(64, 5 * pts);
  w->r = aligned_alloc(64, 5 * pts);
  w->rho = aligned_alloc(64, pts);
  w->qs = aligned_alloc(64, pts);
  w->sq = aligned_alloc(64, pts);
  w->cc = aligned_alloc(64, NB * pts);
  if (!(w->u && w->r && w->rho && w->qs && w->sq && w->cc)) {
    work_free(w);
    return NULL;
  }
  tls_points = n;
  return w;
}

/* F (flux Jacobian) and N (viscous Jacobian) of point p for all lanes, then the point's
 * contributions to AA(p+1), BB(p) and CC(p-1) (each output may be NULL).  nm, the momentum
 * component along the line, is a constant in each of the three instances, so the zero
 * entries cost nothing. */
static inline __attribute__((always_inline)) void
point_blocks_nm(const bt_dir_t *b, const bt_work_t *w, int p, lanes_t *restrict a,
                lanes_t *restrict bb, lanes_t *restrict cc, const int nm)
{
  lanes_t F[NB], N[NB];
  const lanes_t *u = w->u + (size_t)p * 5;
  const lanes_t t1 = w->rho[p], t2 = t1 * t1, t3 = t1 * t2, qs = w->qs[p], sq = w->sq[p];
  const lanes_t un = u[nm], u4 = u[4];
  const double c1 = b->c1, c2 = b->c2, c1345 = b->c1345;
  const lanes_t zero = {0};
#pragma GCC unroll 25
  for (int e = 0; e < NB; e++)
    F[e] = N[e] = zero;
  F[nm] = zero + 1.0;
  lanes_t n40 = -c1345 * t2 * u4;
#pragma GCC unroll 3
  for (int r = 1; r <= 3; r++) {
    const lanes_t ur = u[r];
    const double kr = r == nm ? b->con43 * b->c3c4 : b->c3c4;
    if (r == nm) {
      F[r * 5] = -(un * un * t2) + c2 * qs;
#pragma GCC unroll 3
      for (int c = 1; c <= 3; c++)
        F[r * 5 + c] = c == nm ? (2.0 - c2) * un * t1 : -c2 * u[c] * t1;
      F[r * 5 + 4] = zero + c2;
      F[20 + r] = c1 * u4 * t1 - c2 * (qs + un * un * t2);
    } else {
      F[r * 5] = -(ur * un) * t2;
      F[r * 5 + r] = un * t1;
      F[r * 5 + nm] = ur * t1;
      F[20 + r] = -c2 * (ur * un) * t2;
    }
    N[r * 5] = -kr * t2 * ur;
    N[r * 5 + r] = kr * t1;
    N[20 + r] = (kr - c1345) * t2 * ur;
    n40 -= (kr - c1345) * t3 * (ur * ur);
  }
  F[20] = (c2 * 2.0 * sq - c1 * u4) * (un * t2);
  F[24] = c1 * (un * t1);
  N[20] = n40;
  N[24] = c1345 * t1;
  const double tmp1 = b->tmp1, tmp2 = b->tmp2;
  if (a) {
#pragma GCC unroll 25
    for (int e = 0; e < NB; e++)
      a[e] = -tmp2 * F[e] - tmp1 * N[e] - (e % 6 == 0 ? tmp1 * b->diff[e / 6] : 0.0);
  }
  if (bb) {
#pragma GCC unroll 25
    for (int e = 0; e < NB; e++)
      bb[e] = (e % 6 == 0 ? 1.0 : 0.0) + tmp1 * 2.0 * N[e] +
              (e % 6 == 0 ? tmp1 * 2.0 * b->diff[e / 6] : 0.0);
  }
  if (cc) {
#pragma GCC unroll 25
    for (int e = 0; e < NB; e++)
      cc[e] = tmp2 * F[e] - tmp1 * N[e] - (e % 6 == 0 ? tmp1 * b->diff[e / 6] : 0.0);
  }
}

static void point_blocks(const bt_dir_t *b, const bt_work_t *w, int p, lanes_t *a, lanes_t *bb,
                         lanes_t *cc)
{
  switch (b->normal) {
  case 1: point_blocks_nm(b, w, p, a, bb, cc, 1); break;
  case 2: point_blocks_nm(b, w, p, a, bb, cc, 2); break;
  default: point_blocks_nm(b, w, p, a, bb, cc, 3); break;
  }
}

/* r -= A * x */
static inline void matvec_sub(const lanes_t *restrict A, const lanes_t *restrict x,
                              lanes_t *restrict r)
{
#pragma GCC unroll 5
  for (int m = 0; m < 5; m++) {
    lanes_t s = r[m];
#pragma GCC unroll 5
    for (int c = 0; c < 5; c++)
      s -= A[m * 5 + c] * x[c];
    r[m] = s;
  }
}

/* B -= A * C */
static inline void matmul_sub(const lanes_t *restrict A, const lanes_t *restrict C,
                              lanes_t *restrict B)
{
#pragma GCC unroll 5
  for (int m = 0; m < 5; m++)
#pragma GCC unroll 5
    for (int c = 0; c < 5; c++) {
      lanes_t s = B[m * 5 + c];
#pragma GCC unroll 5
      for (int k = 0; k < 5; k++)
        s -= A[m * 5 + k] * C[k * 5 + c];
      B[m * 5 + c] = s;
    }
}

/* Gauss-Jordan on B: C := B^-1 C, r := B^-1 r (B destroyed), without pivoting. */
static inline void binvcrhs(lanes_t *restrict B, lanes_t *restrict C, lanes_t *restrict r)
{
#pragma GCC unroll 5
  for (int p = 0; p < 5; p++) {
    const lanes_t piv = 1.0 / B[p * 5 + p];
#pragma GCC unroll 5
    for (int c = p + 1; c < 5; c++)
      B[p * 5 + c] *= piv;
#pragma GCC unroll 5
    for (int c = 0; c < 5; c++)
      C[p * 5 + c] *= piv;
    r[p] *= piv;
#pragma GCC unroll 5
    for (int m = 0; m < 5; m++) {
      if (m == p)
        continue;
      const lanes_t coeff = B[m * 5 + p];
#pragma GCC unroll 5
      for (int c = p + 1; c < 5; c++)
        B[m * 5 + c] -= coeff * B[p * 5 + c];
#pragma GCC unroll 5
      for (int c = 0; c < 5; c++)
        C[m * 5 + c] -= coeff * C[p * 5 + c];
      r[m] -= coeff * r[p];
    }
  }
}

/* Solve the LANES lines in w (n points each, boundary rows identity); result in w->r.
 * The blocks are built while eliminating: row p needs AA(p) and BB(p) (kept in small
 * rotating buffers) and CC(p), built from point p+1 into the C' array that the back
 * substitution reads.  Point 0: identity row, so C'(0) = 0 and r'(0) = r(0); point n-1:
 * identity row, r(n-1) unchanged. */
static void solve_lines(const bt_dir_t *b, bt_work_t *w, int n)
{
  lanes_t A[3][NB], B[2][NB];
  point_blocks(b, w, 0, A[1], NULL, NULL);
  point_blocks(b, w, 1, n - 2 >= 2 ? A[2] : NULL, B[1], NULL);
  for (int p = 1; p <= n - 2; p++) {
    lanes_t *c = w->cc + (size_t)p * NB, *r = w->r + (size_t)p * 5;
    point_blocks(b, w, p + 1, p + 2 <= n - 2 ? A[(p + 2) % 3] : NULL,
                 p + 1 <= n - 2 ? B[(p + 1) % 2] : NULL, c);
    matvec_sub(A[p % 3], r - 5, r);
    if (p > 1)
      matmul_sub(A[p % 3], c - NB, B[p % 2]);
    binvcrhs(B[p % 2], c, r);
  }
  for (int p = n - 2; p >= 1; p--)
    matvec_sub(w->cc + (size_t)p * NB, w->r + (size_t)(p + 1) * 5, w->r + (size_t)p * 5);
}

/* A line: the offset (in points) of its first point and the point stride along it. */
typedef struct line_set {
  int n;             /* points per line */
  int nlines;        /* lines: nfast * nslow */
  int nfast;         /* lines batched together run along the fast index */
  long long fast_stride, slow_stride, stride, base;
} line_set_t;

static line_set_t lines_of(const mz_adi_zone_t *z, int d)
{
  long long sx = 1, sy = z->nx, sz = (long long)z->nx * z->ny;
  line_set_t s;
  if (d == 0) {        /* x lines: j fast, k slow */
    s = (line_set_t){z->nx, (z->ny - 2) * (z->nz - 2), z->ny - 2, sy, sz, sx, sy + sz};
  } else if (d == 1) { /* y lines: i fast, k slow */
    s = (line_set_t){z->ny, (z->nx - 2) * (z->nz - 2), z->nx - 2, sx, sz, sy, sx + sz};
  } else {             /* z lines: i fast, j slow */
    s = (line_set_t){z->nz, (z->nx - 2) * (z->ny - 2), z->nx - 2, sx, sy, sz, sx + sy};
  }
  return s;
}

/* first point of line `line` (lines counted fast index first) */
static long long line_start(const line_set_t *s, int line)
{
  return s->base + (long long)(line % s->nfast) * s->fast_stride +
         (long long)(line / s->nfast) * s->slow_stride;
}

static void gather(const mz_adi_zone_t *z, const line_set_t *s, const long long *start, bt_work_t *w)
{
  for (int p = 0; p < s->n; p++)
    for (int l = 0; l < LANES; l++) {
      long long at = start[l] + p * s->stride;
      for (int m = 0; m < 5; m++) {
        w->u[p * 5 + m][l] = z->u[at * 5 + m];
        w->r[p * 5 + m][l] = z->rhs[at * 5 + m];
      }
      w->rho[p][l] = z->rho_i[at];
      w->qs[p][l] = z->qs[at];
      w->sq[p][l] = z->square[at];
    }
}

/* the solution back into rhs, or for the last direction (z) added to u directly: the
 * z lines cover exactly the interior, where the reference's add() does u += rhs */
static void scatter(const mz_adi_zone_t *z, int d, const line_set_t *s, const long long *start,
                    int nl, const bt_work_t *w, int add)
{
  double *dst = add ? z->u : z->rhs;
  for (int p = 1; p <= s->n - 2; p++)
    for (int l = 0; l < nl; l++) {
      if (!mz_adi_line_mine(z, d, (size_t)start[l]))
        continue;
      long long at = start[l] + p * s->stride;
      for (int m = 0; m < 5; m++)
        dst[at * 5 + m] = (add ? dst[at * 5 + m] : 0.0) + w->r[p * 5 + m][l];
    }
}

/* one direction's line solves, by the team of the enclosing parallel region (ends with a
 * barrier); w NULL: this thread has no work space and skips its batches */
static void solve_direction(mz_adi_zone_t *z, int d, bt_work_t *w)
{
  bt_dir_t b;
  bt_dir_init(z, d, &b);
  line_set_t s = lines_of(z, d);
  int nbatch = (s.nlines + LANES - 1) / LANES;
#pragma omp for schedule(static)
  for (int bi = 0; bi < nbatch; bi++) {
    long long start[LANES];
    int first = bi * LANES, nl = s.nlines - first < LANES ? s.nlines - first : LANES;
    for (int l = 0; l < LANES; l++)
      start[l] = line_start(&s, first + (l < nl ? l : nl - 1));
    int mine = 0;
    for (int l = 0; l < nl; l++)
      mine |= mz_adi_line_mine(z, d, (size_t)start[l]);
    if (!w || !mine) /* !mine: --second-level mpi, another sub-rank's lines */
      continue;
    gather(z, &s, start, w);
    solve_lines(&b, w, s.n);
    scatter(z, d, &s, start, nl, w, d == 2);
  }
}

int mz_bt_setup(mz_adi_zone_t *z)
{
  z->solver = NULL;
  return 0;
}

int mz_bt_adi(mz_adi_zone_t *z)
{
  int n = z->nx > z->ny ? z->nx : z->ny, failed = 0;
  n = n > z->nz ? n : z->nz;
#pragma omp parallel reduction(| : failed)
  {
    bt_work_t *w = work_get(n);
    failed |= !w;
    mz_adi_compute_rhs_team(z);
    for (int d = 0; d < 3; d++) {
      solve_direction(z, d, w);
      if (d < 2)
        mz_adi_between(z, d); /* --second-level mpi: rhs rows <-> planes */
    }
  }
  return failed ? -1 : 0;
}

void mz_bt_free(mz_adi_zone_t *z) { z->solver = NULL; }
