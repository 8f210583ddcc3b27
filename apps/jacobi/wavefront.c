/* apps/jacobi/wavefront.c: b sweeps in one pass (see wavefront.h).
 *
 * Work is cut into strips of rows (y).  A strip walks through the planes (z):
 * at step t, sweep s updates plane t - s of the strip, from the three planes
 * sweep s - 1 produced.  Every level (level 0: a copy of the field's rows the
 * strip reads; level s: the output of sweep s, s < b - 1) is a ring of three
 * strip-sized planes that stays in the L2 cache; sweep b - 1 writes the field,
 * in place.  Redundant rows: sweep s also computes b - 1 - s rows beyond the
 * strip on each side (they are the next sweep's inputs), so strips are
 * independent of each other but for one thing: a strip's field rows are
 * overwritten while the next strip still needs the old values of the last b of
 * them, which are kept in a seam buffer as level 0 is loaded.  Threads own
 * contiguous row ranges of strips; the old rows just outside each range are
 * copied before any thread writes, so threads never wait for each other.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "wavefront.h"

/* level-ring and seam sizes follow the layout; the budget keeps a thread's
 * rings within about 3/4 of a 1 MiB L2 (AMD Zen, recent Intel server cores) */
#define WAVE_L2_BUDGET (768 * 1024)
/* when the rings of whole planes fit this much of the L3 cache, one strip per thread:
 * on a 256^2 plane with 4 sweeps (6.5 MB of rings) that ran ~10-25 % faster than
 * L2-sized strips on an AMD EPYC with 32 MiB L3 (the copies and redundant rows cost
 * more than L3 bandwidth) */
#define WAVE_L3_BUDGET (8LL * 1024 * 1024)

typedef struct plane_ref { /* rows of one plane: row j at p + (j - row0) * sy */
  double *p;
  int row0;
} plane_ref_t;

static int wave_rows(const hk_field_layout_t *L, int sweeps)
{
  long long row_bytes = L->sy * (long long)sizeof(double);
  long long all = L->n[1] + 2LL * L->width;
  if (3LL * sweeps * all * row_bytes <= WAVE_L3_BUDGET)
    return (int)all; /* whole planes: no redundant rows, no copies (measured faster here) */
  long long r = WAVE_L2_BUDGET / (3LL * sweeps * row_bytes) - 2LL * sweeps - 2;
  /* at least 4 (b - 1) rows: the redundant rows cost at most 1/4 more updates */
  long long least = 4LL * (sweeps - 1) > 8 ? 4LL * (sweeps - 1) : 8;
  return r < least ? (int)least : r > 256 ? 256 : (int)r;
}

int jac_wave_alloc(jac_wave_t *w, const hk_field_layout_t *L, int sweeps, int rows, int threads)
{
  memset(w, 0, sizeof *w);
  if (sweeps < 2)
    return HK_SUCCESS;
  w->sweeps = sweeps;
  w->rows = rows > 0 ? rows : wave_rows(L, sweeps);
  w->threads = threads;
  w->ring_rows = w->rows + 2 * sweeps + 2;
  w->planes = L->n[2] + 2 * L->width;
  w->ring_size = (size_t)sweeps * 3 * (size_t)w->ring_rows * (size_t)L->sy;
  w->seam_size = (size_t)sweeps * (size_t)w->planes * (size_t)L->sy;
  w->per_thread = w->ring_size + 3 * w->seam_size;
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

/* rows [jlo, jhi) x columns [ilo, ihi) of one plane */
static void plane_update(plane_ref_t zm, plane_ref_t c, plane_ref_t zp, plane_ref_t out,
                         long long sy, int jlo, int jhi, int ilo, int ihi)
{
  jac_rows3d(zm.p + (jlo - zm.row0) * sy, c.p + (jlo - c.row0) * sy, zp.p + (jlo - zp.row0) * sy,
             out.p + (jlo - out.row0) * sy, sy, jhi - jlo, ilo, ihi);
}

static inline int mod3(int z) { return ((z % 3) + 3) % 3; }

/* what one thread works with */
typedef struct wave_ctx {
  const jac_wave_t *w;
  const hk_field_layout_t *L;
  double *f0; /* the field's cell (0, 0, 0) */
  long long x0; /* offset of column 0 inside a row */
  int b;
  const hk_box_t *region;
  double *ring, *seam[3]; /* seam[0]: old rows below the current strip, [1]: saved for the next,
                             [2]: old rows above the thread's range */
} wave_ctx_t;

static double *field_row(const wave_ctx_t *c, int z, int j)
{
  return c->f0 - c->x0 + z * c->L->sz + j * c->L->sy;
}
/* old row j (j - lo in [0, b)) of plane z kept in a seam buffer */
static double *seam_row(const wave_ctx_t *c, double *seam, int z, int jrel)
{
  return seam + ((size_t)(z - c->region[0].lo[2] + 1) * (size_t)c->b + (size_t)jrel) * (size_t)c->L->sy;
}
static plane_ref_t ring_plane(const wave_ctx_t *c, int level, int z, int row0)
{
  size_t at = ((size_t)level * 3 + (size_t)mod3(z)) * (size_t)c->w->ring_rows * (size_t)c->L->sy;
  return (plane_ref_t){c->ring + at + c->x0, row0};
}
static plane_ref_t field_plane(const wave_ctx_t *c, int z)
{
  return (plane_ref_t){c->f0 + z * c->L->sz, 0};
}

/* one strip [jb, je) of the thread's rows, which end at jz */
static void strip(wave_ctx_t *c, int jb, int je, int jz)
{
  const hk_box_t *R = c->region;
  const int b = c->b, J0 = R[b - 1].lo[1], J1 = R[b - 1].hi[1];
  const long long sy = c->L->sy;
  const size_t rowbytes = (size_t)sy * sizeof(double);
  const int row0 = jb - b - 1;
  /* rows of sweep s: the strip's and b-1-s more on each side, within the region */
  int lo[HK_WAVE_MAX], hi[HK_WAVE_MAX];
  for (int s = 0; s < b; s++) {
    lo[s] = jb - (b - 1 - s) > R[s].lo[1] ? jb - (b - 1 - s) : R[s].lo[1];
    hi[s] = je + (b - 1 - s) < R[s].hi[1] ? je + (b - 1 - s) : R[s].hi[1];
  }
  const int z0 = R[0].lo[2], z1 = R[0].hi[2];
  /* one strip for all rows (so one thread): sweep 0 reads the field itself, whose
   * planes the last sweep overwrites only after sweep 0 read them for the last time */
  const int direct = jb == J0 && je == J1;
  for (int t = z0 - 2; t < z1 + b - 1; t++) {
    /* level 0 gets plane t + 1: rows [lo0 - 1, hi0 + 1), old values */
    int zl = t + 1;
    if (!direct && zl >= z0 - 1 && zl <= z1) {
      plane_ref_t dst = ring_plane(c, 0, zl, row0);
      for (int j = lo[0] - 1; j < hi[0] + 1; j++) {
        const double *src;
        if (j < jb && jb > J0)
          src = seam_row(c, c->seam[0], zl, j - (jb - b)); /* overwritten by the strip below */
        else if (j >= jz && jz < J1)
          src = seam_row(c, c->seam[2], zl, j - jz); /* another thread's rows */
        else
          src = field_row(c, zl, j);
        memcpy(dst.p - c->x0 + (j - row0) * sy, src, rowbytes);
      }
      if (je < jz) /* keep the old top rows for the next strip (from the copy: old values) */
        for (int j = je - b; j < je; j++)
          memcpy(seam_row(c, c->seam[1], zl, j - (je - b)),
                 j >= lo[0] - 1 ? dst.p - c->x0 + (j - row0) * sy : field_row(c, zl, j), rowbytes);
    }
    for (int s = 0; s < b; s++) {
      const int z = t - s;
      if (z < R[s].lo[2] || z >= R[s].hi[2])
        continue;
      plane_ref_t in[3];
      for (int d = -1; d <= 1; d++) {
        int zz = z + d;
        /* outside the planes the level below holds (a Dirichlet boundary): the field's
         * ghost plane, never written */
        in[d + 1] = (s == 0 && direct) || (s > 0 && (zz < R[s - 1].lo[2] || zz >= R[s - 1].hi[2]))
                        ? field_plane(c, zz)
                        : ring_plane(c, s, zz, row0);
      }
      plane_ref_t out = s == b - 1 ? field_plane(c, z) : ring_plane(c, s + 1, z, row0);
      plane_update(in[0], in[1], in[2], out, sy, lo[s], hi[s], R[s].lo[0], R[s].hi[0]);
      if (s < b - 1) {
        /* the frame around the rows and columns: where they stop at a Dirichlet
         * boundary the next sweep reads the boundary values (the field's ghosts,
         * never written); elsewhere the frame is never read */
        const double *f = field_row(c, z, 0) + c->x0;
        double *o = out.p;
        for (int j = lo[s]; j < hi[s]; j++) {
          o[(j - row0) * sy + R[s].lo[0] - 1] = f[j * sy + R[s].lo[0] - 1];
          o[(j - row0) * sy + R[s].hi[0]] = f[j * sy + R[s].hi[0]];
        }
        size_t len = (size_t)(R[s].hi[0] - R[s].lo[0] + 2) * sizeof(double);
        if (lo[s] == R[s].lo[1])
          memcpy(o + (lo[s] - 1 - row0) * sy + R[s].lo[0] - 1, f + (lo[s] - 1) * sy + R[s].lo[0] - 1, len);
        if (hi[s] == R[s].hi[1])
          memcpy(o + (hi[s] - row0) * sy + R[s].lo[0] - 1, f + hi[s] * sy + R[s].lo[0] - 1, len);
      }
    }
  }
  double *x = c->seam[0];
  c->seam[0] = c->seam[1];
  c->seam[1] = x;
}

void jac_wave3d(const jac_wave_t *w, double *u, const hk_field_layout_t *L, int b,
                const hk_box_t *region)
{
  const int J0 = region[b - 1].lo[1], J1 = region[b - 1].hi[1];
#pragma omp parallel num_threads(w->threads)
  {
    const int me = omp_get_thread_num(), nt = omp_get_num_threads();
    double *mine = w->mem + w->per_thread * (size_t)me;
    wave_ctx_t c = {.w = w, .L = L, .f0 = u + L->offset, .x0 = L->offset % L->sy, .b = b,
                    .region = region, .ring = mine};
    for (int k = 0; k < 3; k++)
      c.seam[k] = mine + w->ring_size + (size_t)k * w->seam_size;
    const int ja = J0 + (int)((long long)(J1 - J0) * me / nt);
    const int jz = J0 + (int)((long long)(J1 - J0) * (me + 1) / nt);
    /* old rows around the range, before anyone writes */
    for (int z = region[0].lo[2] - 1; z <= region[0].hi[2] && ja < jz; z++) {
      for (int j = ja - b; j < ja && ja > J0; j++)
        memcpy(seam_row(&c, c.seam[0], z, j - (ja - b)), field_row(&c, z, j),
               (size_t)L->sy * sizeof(double));
      for (int j = jz; j < jz + b && jz < J1; j++)
        memcpy(seam_row(&c, c.seam[2], z, j - jz), field_row(&c, z, j),
               (size_t)L->sy * sizeof(double));
    }
#pragma omp barrier
    for (int jb = ja; jb < jz; jb += w->rows)
      strip(&c, jb, jb + w->rows < jz ? jb + w->rows : jz, jz);
  }
}
