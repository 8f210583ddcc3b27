/* apps/jacobi/wavefront.c: b sweeps in one pass (see wavefront.h).
 *
 * Work is cut into strips of rows (y).  A strip walks through the planes (z):
 * at step t, sweep s updates plane t - s of the strip.  Sweep 0 reads the field
 * u; sweep s (0 < s < b-1) writes level s + 1, a ring of three strip-sized planes
 * that stays in the L2 cache; sweep b - 1 writes the field v.  Redundant rows:
 * sweep s also computes b - 1 - s rows beyond the strip on each side (they are
 * the next sweep's inputs), so strips, and the threads that own them, never
 * depend on each other: u is only read and every strip writes its own rows of v.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "wavefront.h"

/* strip heights, from the caches of the cores a rank runs on (hwloc; defaults: a
 * 1 MiB L2 and a 16 MiB L3 share).  When the rings of whole planes (all threads)
 * fit the rank's share of the L3, one strip per thread: no redundant rows, and
 * every row of u is read from memory once.  Else the tallest strips whose rings fit
 * the L3 share, as long as that is at least 8 b rows.  Else strips whose rings and
 * the planes of u that sweep 0 reads keep within 3/4 of the L2.  One core of an
 * AMD EPYC (Zen 5, 1 MiB L2, 32 MiB L3 for 2 cores), 2 MiB pages, 4 sweeps, 256^3:
 * whole planes 2.40-2.45 GLUP/s, strips of 128 rows 2.36, 64: 2.18, 24: 2.17 (the
 * redundant rows are read from memory again: 2b per strip); 8 sweeps (12.6 MB of
 * rings): whole planes 2.16, L2 strips 1.83; 512^3, 4 sweeps: L2 strips (12 rows)
 * 1.89, L3 strips (2 per plane) 2.08-2.10.  Tried and dropped: advancing the sweeps
 * of a step together in chunks of 4-32 rows (to overlap the memory streams with the
 * in-cache sweeps): 2.0-2.3 against 2.4 for whole planes. */

typedef struct plane_ref { /* rows of one plane: row j at p + (j - row0) * sy */
  double *p;
  int row0;
} plane_ref_t;

static int wave_rows(const hk_field_layout_t *L, int sweeps, int threads, long long l2, long long l3)
{
  long long row_bytes = L->sy * (long long)sizeof(double);
  long long all = L->n[1] + 2LL * L->width, mine = (all + threads - 1) / threads;
  /* the tallest strips whose rings (all threads) fit the L3 share */
  long long in_l3 = l3 / (3LL * (sweeps - 1) * row_bytes * threads) - 2LL * sweeps - 2;
  if (in_l3 >= mine)
    return (int)mine;
  if (in_l3 >= 8LL * sweeps) /* redundant rows read again: at most 1/4 more */
    return (int)in_l3;
  /* 3 planes of each of the sweeps - 1 rings and of u, strip + 2 sweeps rows */
  long long r = l2 * 3 / 4 / (3LL * sweeps * row_bytes) - 2LL * sweeps - 2;
  /* at least 4 (b - 1) rows: the redundant rows cost at most 1/4 more updates */
  long long least = 4LL * (sweeps - 1) > 8 ? 4LL * (sweeps - 1) : 8;
  return r < least ? (int)least : r > 256 ? 256 : (int)r;
}

int jac_wave_alloc(jac_wave_t *w, const hk_field_layout_t *L, int sweeps, int rows, int threads,
                   long long l2, long long l3, int nt)
{
  memset(w, 0, sizeof *w);
  if (sweeps < 2)
    return HK_SUCCESS;
  w->sweeps = sweeps;
  w->rows = rows > 0 ? rows
                    : wave_rows(L, sweeps, threads, l2 > 0 ? l2 : JAC_L2_DEFAULT,
                                l3 > 0 ? l3 : JAC_L3_DEFAULT);
  w->threads = threads;
  w->nt = nt;
  w->ring_rows = w->rows + 2 * sweeps + 2;
  w->per_thread = (size_t)(sweeps - 1) * 3 * (size_t)w->ring_rows * (size_t)L->sy;
  size_t n = w->per_thread * (size_t)threads;
  if (posix_memalign((void **)&w->mem, 64, n * sizeof(double)))
    return hk_error_set(HK_ERR_NOMEM, "no memory for the wavefront buffers (%zu doubles)", n);
#pragma omp parallel num_threads(threads)
  memset(w->mem + w->per_thread * (size_t)omp_get_thread_num(), 0, w->per_thread * sizeof(double));
  return HK_SUCCESS;
}

void jac_wave_free(jac_wave_t *w)
{
  free(w->mem);
  w->mem = NULL;
}

/* what one thread works with */
typedef struct wave_ctx {
  const jac_wave_t *w;
  const hk_field_layout_t *L;
  const double *u0; /* u's cell (0, 0, 0) */
  double *v0;       /* v's */
  long long x0;     /* offset of column 0 inside a row */
  int b;
  const hk_box_t *region;
  double *ring;
} wave_ctx_t;

static inline int mod3(int z) { return ((z % 3) + 3) % 3; }

/* level (1 .. b-1) ring plane z */
static plane_ref_t ring_plane(const wave_ctx_t *c, int level, int z, int row0)
{
  size_t at = ((size_t)(level - 1) * 3 + (size_t)mod3(z)) * (size_t)c->w->ring_rows * (size_t)c->L->sy;
  return (plane_ref_t){c->ring + at + c->x0, row0};
}
static plane_ref_t field_plane(const double *f0, const wave_ctx_t *c, int z)
{
  return (plane_ref_t){(double *)f0 + z * c->L->sz, 0};
}

/* rows [jlo, jhi) x columns [ilo, ihi) of one plane */
static void plane_update(plane_ref_t zm, plane_ref_t c, plane_ref_t zp, plane_ref_t out,
                         long long sy, int jlo, int jhi, int ilo, int ihi, long long ahead, int nt)
{
  jac_rows3d(zm.p + (jlo - zm.row0) * sy, c.p + (jlo - c.row0) * sy, zp.p + (jlo - zp.row0) * sy,
             out.p + (jlo - out.row0) * sy, sy, jhi - jlo, ilo, ihi, ahead, nt);
}

/* where sweep s's output stops at a Dirichlet boundary the next sweep reads the
 * boundary values, u's ghosts: copy them around rows [lo, hi) of the ring plane
 * (elsewhere the frame is never read) */
static void frame(const wave_ctx_t *c, const hk_box_t *R, plane_ref_t out, int z, int lo, int hi)
{
  const long long sy = c->L->sy;
  const double *f = c->u0 + z * c->L->sz;
  double *o = out.p;
  for (int j = lo; j < hi; j++) {
    o[(j - out.row0) * sy + R->lo[0] - 1] = f[j * sy + R->lo[0] - 1];
    o[(j - out.row0) * sy + R->hi[0]] = f[j * sy + R->hi[0]];
  }
  size_t len = (size_t)(R->hi[0] - R->lo[0] + 2) * sizeof(double);
  if (lo == R->lo[1])
    memcpy(o + (lo - 1 - out.row0) * sy + R->lo[0] - 1, f + (lo - 1) * sy + R->lo[0] - 1, len);
  if (hi == R->hi[1])
    memcpy(o + (hi - out.row0) * sy + R->lo[0] - 1, f + hi * sy + R->lo[0] - 1, len);
}

/* one strip: rows [jb, je) of v */
static void strip(const wave_ctx_t *c, int jb, int je)
{
  const hk_box_t *R = c->region;
  const int b = c->b, row0 = jb - b - 1;
  const long long sy = c->L->sy;
  /* rows of sweep s: the strip's and b-1-s more on each side, within the region */
  int lo[HK_WAVE_MAX], hi[HK_WAVE_MAX];
  for (int s = 0; s < b; s++) {
    lo[s] = jb - (b - 1 - s) > R[s].lo[1] ? jb - (b - 1 - s) : R[s].lo[1];
    hi[s] = je + (b - 1 - s) < R[s].hi[1] ? je + (b - 1 - s) : R[s].hi[1];
  }
  for (int t = R[0].lo[2]; t < R[0].hi[2] + b - 1; t++)
    for (int s = 0; s < b; s++) {
      const int z = t - s;
      if (z < R[s].lo[2] || z >= R[s].hi[2])
        continue;
      plane_ref_t in[3];
      for (int d = -1; d <= 1; d++) {
        int zz = z + d;
        /* sweep 0, and planes outside those the level below holds (a Dirichlet
         * boundary): u, whose ghost planes hold the boundary values */
        in[d + 1] = s == 0 || zz < R[s - 1].lo[2] || zz >= R[s - 1].hi[2]
                        ? field_plane(c->u0, c, zz)
                        : ring_plane(c, s, zz, row0);
      }
      plane_ref_t out = s == b - 1 ? field_plane(c->v0, c, z) : ring_plane(c, s + 1, z, row0);
      /* sweep 0 reads the next plane of u from memory: prefetched; the last writes v,
       * non-temporal when the sweeps do */
      plane_update(in[0], in[1], in[2], out, sy, lo[s], hi[s], R[s].lo[0], R[s].hi[0],
                   s == 0 ? JAC_PREFETCH : 0, s == b - 1 && c->w->nt);
      if (s < b - 1)
        frame(c, &R[s], out, z, lo[s], hi[s]);
    }
}

void jac_wave3d(const jac_wave_t *w, const double *u, double *v, const hk_field_layout_t *L, int b,
                const hk_box_t *region)
{
  const int J0 = region[b - 1].lo[1], J1 = region[b - 1].hi[1];
  const int strips = (J1 - J0 + w->rows - 1) / w->rows;
  if (strips <= 0)
    return;
#pragma omp parallel num_threads(w->threads)
  {
    const int me = omp_get_thread_num(), nt = omp_get_num_threads();
    wave_ctx_t c = {.w = w, .L = L, .u0 = u + L->offset, .v0 = v + L->offset,
                    .x0 = L->offset % L->sy, .b = b, .region = region,
                    .ring = w->mem + w->per_thread * (size_t)me};
    /* strips split as evenly as they go; a thread with fewer strips than others
     * makes its rows into strips as tall as theirs */
    const int sa = (int)((long long)strips * me / nt), sz = (int)((long long)strips * (me + 1) / nt);
    const int ja = J0 + (int)((long long)(J1 - J0) * sa / strips);
    const int jz = J0 + (int)((long long)(J1 - J0) * sz / strips);
    for (int q = sa; q < sz; q++) {
      int jb = ja + (int)((long long)(jz - ja) * (q - sa) / (sz - sa));
      int je = ja + (int)((long long)(jz - ja) * (q - sa + 1) / (sz - sa));
      if (jb < je)
        strip(&c, jb, je);
    }
  }
}
