/* apps/jacobi/wavefront.c: b sweeps in one pass (see wavefront.h).
 *
 * Work is cut into strips of rows (y).  A strip walks through the planes (z): at step
 * t, sweep s updates plane t - s of the strip.  Sweep 0 reads the field u; sweep s
 * (s < b-1) writes level s + 1, a ring of three strip-sized planes that stays in the
 * L2 cache; sweep b - 1 writes the field v.  The strips are skewed: sweep s works on
 * the strip's rows shifted up by b-1-s, so a strip finds all it needs in its own rings
 * but the two rows below its own of each level, which the strip before it left in a
 * seam buffer.  A thread's first strip computes the rows below instead (b-1-s extra
 * rows at sweep s, as does its last strip above), so threads never wait for each
 * other: u is only read and every strip writes its own rows of v.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "hybridkit/ckd.h"
#include "kernel.h"
#include "wavefront.h"

/* strip heights, from the caches of the cores a rank runs on (hwloc; defaults: a
 * 1 MiB L2 and a 16 MiB L3 share).  Strips whose pass keeps within 3/4 of the L2 (all it
 * touches: the rings, the planes of u that sweep 0 reads and the one prefetched for it, the
 * plane of v being written), when that is at least WAVE_MIN_ROWS rows (below
 * that the seams, 2 rows a strip, and the first strip's extra rows weigh; 8, not 16: w = 8
 * on the Xeon's 2 MiB L2 fits 12 rows, 2x faster there than whole planes in the L3); else
 * strips of WAVE_MIN_ROWS while their pass needs at most twice the L2 (w = 8 at 512^3 on the
 * Xeon: 1.2x, 1.9x faster than whole planes, and faster than 12 or 16 rows; the speed falls
 * with the overflow: at 256^3 w = 8 0.61-0.66 of the in-L2 strips' at 1.3-1.7x, 0.53 at 3x);
 * else one strip per thread when the rings of whole planes (all threads) fit the rank's share
 * of the L3, else the tallest strips that do.  The strips are skewed rather than computing
 * redundant rows, and the sweeps of a step are not advanced together in chunks.  What
 * overlaps the memory stream of sweep 0 with the in-cache sweeps instead: those sweeps
 * prefetch the rows of u that sweep 0 reads at the next step (jac_pf_t), a share each.
 * The measurements behind each choice: docs/performance.md, "Wavefront". */
#define WAVE_MIN_ROWS 8

typedef struct plane_ref { /* rows of one plane: row j at p + (j - row0) * sy */
  double *p;
  int row0;
} plane_ref_t;

static int wave_rows(const hk_field_layout_t *L, int sweeps, int threads, long long l2, long long l3)
{
  long long row_bytes = L->sy * (long long)sizeof(double), b = sweeps;
  long long all = L->n[1] + 2LL * L->width, mine = (all + threads - 1) / threads;
  /* L2 strips of R rows: 3 (b - 1) ring planes of R + 2b + 2 rows, 4 planes of u of R + 2
   * rows (sweep 0's three and the next, prefetched), 1 plane of v of R rows, within 3/4 of
   * the L2: (3b + 2) R + 6 (b^2 - 1) + 8 rows */
  long long in_l2 = (l2 * 3 / 4 / row_bytes - 6 * (b * b - 1) - 8) / (3 * b + 2);
  if (in_l2 >= WAVE_MIN_ROWS)
    return (int)(in_l2 < mine ? in_l2 : mine);
  /* else the smallest strips while their pass overflows the L2 at most twice over (it keeps
   * most of a step's planes) */
  if ((3 * b + 2) * WAVE_MIN_ROWS + 6 * (b * b - 1) + 8 <= 2 * l2 / row_bytes)
    return (int)(WAVE_MIN_ROWS < mine ? WAVE_MIN_ROWS : mine);
  /* else the tallest strips whose rings (all threads) fit the L3 share */
  long long in_l3 = l3 / (3LL * (sweeps - 1) * row_bytes * threads) - 2LL * sweeps - 2;
  if (in_l3 >= mine)
    return (int)mine;
  return (int)(in_l3 > WAVE_MIN_ROWS ? in_l3 : in_l2 > 1 ? in_l2 : 1);
}

int jac_wave_alloc(jac_wave_t *w, const hk_field_layout_t *L, int sweeps, int rows, int threads,
                   long long l2, long long l3, int nt, int xwrap)
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
  w->xwrap = xwrap;
  /* a strip taller than the block (ghost rows included) is the block: one strip */
  long long all = L->n[1] + 2LL * L->width;
  if (w->rows > all)
    w->rows = (int)all;
  w->planes = L->n[2] + 2 * L->width;
  /* seams only where a thread has more than one strip */
  int seams = w->rows < (all + threads - 1) / threads;
  long long ring_rows = (long long)w->rows + 2 * sweeps + 2;
  size_t ring = 0, seam = 0, seams_all = 0, per = 0, n = 0, bytes = 0;
  if (ring_rows > INT_MAX || hk_ckd_mul3(&ring, (long long)(sweeps - 1) * 3, ring_rows, L->sy) ||
      hk_ckd_mul3(&seam, seams ? 2 : 0, w->planes, L->sy) ||
      hk_ckd_mulz(&seams_all, seam, (size_t)(sweeps - 1) * 2) || hk_ckd_addz(&per, ring, seams_all) ||
      hk_ckd_mulz(&n, per, (size_t)threads) || hk_ckd_mulz(&bytes, n, sizeof(double)))
    return hk_error_set(HK_ERR_NOMEM, "the wavefront buffers of %d sweeps x %d rows x %d threads "
                        "do not fit in the address space", sweeps, w->rows, threads);
  w->ring_rows = (int)ring_rows;
  w->ring_size = ring;
  w->seam_size = seam;
  w->per_thread = per;
  if (posix_memalign((void **)&w->mem, 64, bytes))
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
  double *seam[HK_WAVE_MAX][2]; /* per level: the two rows below the next strip's, all
                                   planes ([0] read by this strip, [1] written for the next) */
} wave_ctx_t;

/* rows j0, j0 + 1 of level `level`, plane z, in a seam buffer */
static double *seam_rows(const wave_ctx_t *c, int level, int which, int z)
{
  return c->seam[level][which] + (size_t)(z + c->L->width) * 2 * (size_t)c->L->sy;
}

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
                         long long sy, int jlo, int jhi, int ilo, int ihi, long long ahead,
                         jac_pf_t *pf, int flags, int stencil27)
{
  if (stencil27) {
    jac_rows27(zm.p + (jlo - zm.row0) * sy, c.p + (jlo - c.row0) * sy, zp.p + (jlo - zp.row0) * sy,
               out.p + (jlo - out.row0) * sy, sy, jhi - jlo, ilo, ihi, flags & JAC_XWRAP);
    return;
  }
  jac_rows3d(zm.p + (jlo - zm.row0) * sy, c.p + (jlo - c.row0) * sy, zp.p + (jlo - zp.row0) * sy,
             out.p + (jlo - out.row0) * sy, sy, jhi - jlo, ilo, ihi, ahead, pf, flags);
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

/* one strip: rows [jb, je) of v, of the thread's rows [ja, jz).  Sweep s works b-1-s
 * rows ahead of the last (skewed), so a strip needs from the one before it only the two
 * rows below its own of each level, kept in a seam; the thread's first strip instead
 * computes the rows below (redundantly, the trapezoid of the region's edge or of the
 * neighbouring thread's range), its last the rows above. */
static void strip(wave_ctx_t *c, int jb, int je, int ja, int jz)
{
  const hk_box_t *R = c->region;
  const int b = c->b, row0 = jb - b - 1, first = jb == ja, last = je == jz;
  const long long sy = c->L->sy;
  const size_t rowbytes = (size_t)sy * sizeof(double);
  int lo[HK_WAVE_MAX], hi[HK_WAVE_MAX];
  const int wrap = c->w->xwrap ? JAC_XWRAP : 0;
  for (int s = 0; s < b; s++) { /* clipped alike, so that the strips' rows tile each level */
    const int A = R[s].lo[1], B = R[s].hi[1];
    hi[s] = (last ? jz : je) + (b - 1 - s);
    hi[s] = hi[s] < B ? hi[s] : B;
    lo[s] = first ? ja - (b - 1 - s) : jb + (b - 1 - s);
    lo[s] = lo[s] > A ? lo[s] : A;
    lo[s] = lo[s] < hi[s] ? lo[s] : hi[s];
  }
  for (int t = R[0].lo[2]; t < R[0].hi[2] + b - 1; t++) {
    /* sweep 0 of the next step reads plane t + 2 of u from memory (its rows and the
     * one beside each end, which it reads later as the plane's y neighbours): the
     * in-cache sweeps of this step fetch it meanwhile, a share each */
    const char *pf_at = NULL;
    size_t pf_bytes = 0;
    if (t + 1 < R[0].hi[2] && lo[0] < hi[0]) { /* (t starts at R[0].lo[2]) */
      pf_at = (const char *)(c->u0 + (t + 2) * c->L->sz - c->x0 + (lo[0] - 1) * sy);
      pf_bytes = (size_t)(hi[0] - lo[0] + 2) * rowbytes;
    }
    jac_pf_t pf = {pf_at, pf_at};
    for (int s = 0; s < b; s++) {
      const int z = t - s;
      if (s > 0 && pf_at)
        pf.end = pf_at + pf_bytes * (size_t)s / (size_t)(b - 1);
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
      /* the two rows below, from the strip before (also when this strip has no rows of
       * this level left: the next sweep may still read them) */
      if (s < b - 1 && !first)
        memcpy(out.p - c->x0 + (lo[s] - 2 - row0) * sy, seam_rows(c, s + 1, 0, z), 2 * rowbytes);
      /* sweep 0 reads the next plane of u from memory: prefetched; the last writes v,
       * non-temporal when the sweeps do */
      plane_update(in[0], in[1], in[2], out, sy, lo[s], hi[s], R[s].lo[0], R[s].hi[0],
                   s == 0 ? JAC_PREFETCH : 0, s > 0 && pf_at ? &pf : NULL,
                   (s == b - 1 && c->w->nt ? JAC_NT : 0) | wrap, c->w->stencil27);
      if (s < b - 1) {
        frame(c, &R[s], out, z, lo[s], hi[s]);
        if (!last) /* the two top rows, for the strip after */
          memcpy(seam_rows(c, s + 1, 1, z), out.p - c->x0 + (hi[s] - 2 - row0) * sy, 2 * rowbytes);
      }
    }
  }
  for (int l = 1; l < b; l++) {
    double *x = c->seam[l][0];
    c->seam[l][0] = c->seam[l][1];
    c->seam[l][1] = x;
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
    double *mine = w->mem + w->per_thread * (size_t)me;
    wave_ctx_t c = {.w = w, .L = L, .u0 = u + L->offset, .v0 = v + L->offset,
                    .x0 = L->offset % L->sy, .b = b, .region = region, .ring = mine};
    for (int l = 1; l < b; l++)
      for (int k = 0; k < 2; k++)
        c.seam[l][k] = mine + w->ring_size + ((size_t)(l - 1) * 2 + (size_t)k) * w->seam_size;
    /* strips split as evenly as they go; a thread with fewer strips than others
     * makes its rows into strips as tall as theirs */
    const int sa = (int)((long long)strips * me / nt), sz = (int)((long long)strips * (me + 1) / nt);
    const int ja = J0 + (int)((long long)(J1 - J0) * sa / strips);
    const int jz = J0 + (int)((long long)(J1 - J0) * sz / strips);
    for (int q = sa; q < sz; q++) {
      int jb = ja + (int)((long long)(jz - ja) * (q - sa) / (sz - sa));
      int je = ja + (int)((long long)(jz - ja) * (q - sa + 1) / (sz - sa));
      if (jb < je)
        strip(&c, jb, je, ja, jz);
    }
  }
}
