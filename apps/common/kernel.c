/* apps/common/kernel.c: the optimised sweep.  One contiguous x-run per row
 * (AVX-512 on cache lines where the build has it, else auto-vectorised); in 3D
 * the rows are walked in blocks of y-rows, k innermost over a block, so the three
 * plane slices the stencil touches (k-1, k, k+1) stay in cache ("layer
 * condition") and every value comes from memory once.  The per-cell sum order is the
 * reference's, so blocking changes no result. */
#include <stdint.h>
#include "kernel.h"

/* rows per block: the three plane slices the stencil reads (k-1, k, k+1) fit this
 * much cache, so every value comes from memory once ("layer condition").  The default,
 * where the caller gives no layer_bytes, is an L3 share; hk-jacobi gives 2/5 of a core's
 * L2 (hwloc), where the plane below stays in the L2 while the plane above streams in
 * (1.15 against 1.04 G cells/s for whole 256^2 planes on a Xeon).  JAC_PREFETCH
 * (kernel.h) is the software prefetch distance, in doubles, for the plane above when it
 * streams from memory; only that stream is prefetched.  The measurements behind both:
 * docs/performance.md, "3D sweep" and "Issue 42".  Both may be set with -D to scan them. */
#ifndef JAC_LAYER_BYTES
#define JAC_LAYER_BYTES (4LL * 1024 * 1024)
#endif

/* the portable loop: any alignment, auto-vectorised */
static void rows3d_any(const double *zm, const double *c, const double *zp, double *out, long long sy,
                       int rows, int ilo, int ihi, int wrap)
{
  const double c7 = 1.0 / 7.0;
  const int from = wrap ? ilo + 1 : ilo, to = wrap ? ihi - 1 : ihi;
  for (int j = 0; j < rows; j++) {
    const double *restrict x = c + j * sy, *restrict ym = x - sy, *restrict yp = x + sy;
    const double *restrict a = zm + j * sy, *restrict b = zp + j * sy;
    double *restrict o = out + j * sy;
#pragma omp simd
    for (int i = from; i < to; i++)
      o[i] = (x[i] + x[i - 1] + x[i + 1] + ym[i] + yp[i] + a[i] + b[i]) * c7;
    if (wrap) { /* the x neighbours beyond the ends are the far ends */
      const int e = ihi - 1;
      o[ilo] = (x[ilo] + x[e] + x[ilo + 1 < ihi ? ilo + 1 : ilo] + ym[ilo] + yp[ilo] + a[ilo] + b[ilo]) *
               c7;
      if (e > ilo)
        o[e] = (x[e] + x[e - 1] + x[ilo] + ym[e] + yp[e] + a[e] + b[e]) * c7;
    }
  }
}

#if defined(__AVX512F__)
#include <immintrin.h>


/* AVX-512 on cache-line aligned vectors: each row is walked in the 8-double
 * vectors of its cache lines, the x neighbours come from the vectors before and
 * after by valignq (one load per vector instead of three, none split across two
 * lines), head and tail vectors are stored under a mask.  Masked loads cost
 * several times a plain load on AMD Zen, so there are none: a vector holding any
 * cell the stencil reads lies inside that cell's row (rows start on lines and
 * their stride is a whole number of lines), and the x neighbour outside the range
 * that is not read is taken as 0.  Same sum order as the reference. */
/* a macro: valignq takes an immediate, which an unoptimised build does not propagate */
#define xshift(hi, lo, n)                                                                      \
  _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(hi), _mm512_castpd_si512(lo), n))
static inline __mmask8 lanes(long long a, long long b, long long i) /* a <= i + l < b */
{
  long long lo = a - i < 0 ? 0 : a - i > 8 ? 8 : a - i, hi = b - i < 0 ? 0 : b - i > 8 ? 8 : b - i;
  return (__mmask8)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}
static inline __m512d update8(const double *ym, const double *yp, const double *a, const double *b,
                              long long i, __m512d prev, __m512d cur, __m512d next, __m512d c7)
{
  __m512d s = _mm512_add_pd(cur, xshift(cur, prev, 7));
  s = _mm512_add_pd(s, xshift(next, cur, 1));
  s = _mm512_add_pd(s, _mm512_load_pd(ym + i));
  s = _mm512_add_pd(s, _mm512_load_pd(yp + i));
  s = _mm512_add_pd(s, _mm512_load_pd(a + i));
  s = _mm512_add_pd(s, _mm512_load_pd(b + i));
  return _mm512_mul_pd(s, c7);
}
static inline void rows3d_lines(const double *zm, const double *c, const double *zp, double *out,
                                long long sy, int rows, int ilo, int ihi, long long ahead,
                                jac_pf_t *pf, int nt, int wrap)
{
  const __m512d c7 = _mm512_set1_pd(1.0 / 7.0), zero = _mm512_setzero_pd();
  const char *pn = pf ? pf->next : NULL, *const pe = pf ? pf->end : NULL;
  const long long i0 = ilo - (long long)(((uintptr_t)(c + ilo) >> 3) & 7);
  const long long iend = i0 + ((ihi - i0 + 7) & ~7LL);
  for (int j = 0; j < rows; j++) {
    const double *x = c + j * sy, *ym = x - sy, *yp = x + sy, *a = zm + j * sy, *b = zp + j * sy;
    double *o = out + j * sy;
    long long i = i0;
    /* wrap (ilo on a line): the left neighbour of the first cell is the last */
    __m512d prev = wrap ? _mm512_set1_pd(x[ihi - 1]) : i0 == ilo ? _mm512_load_pd(x + i0 - 8) : zero,
            cur = _mm512_load_pd(x + i0), next;
    if (i0 < ilo && i0 + 8 < iend) { /* a head vector with cells before ilo */
      next = _mm512_load_pd(x + i + 8);
      _mm512_mask_store_pd(o + i, lanes(ilo, ihi, i), update8(ym, yp, a, b, i, prev, cur, next, c7));
      prev = cur;
      cur = next;
      i += 8;
    }
    for (; i + 8 < iend; i += 8) {
      if (pn < pe) { /* a line another sweep will read from memory */
        _mm_prefetch(pn, _MM_HINT_T0);
        pn += 64;
      }
      if (ahead) /* the plane above comes from memory: fetch a line `ahead` on */
        _mm_prefetch((const char *)(b + i + ahead), _MM_HINT_T0);
      next = _mm512_load_pd(x + i + 8);
      if (nt) /* whole lines, straight to memory: no read for ownership */
        _mm512_stream_pd(o + i, update8(ym, yp, a, b, i, prev, cur, next, c7));
      else
        _mm512_store_pd(o + i, update8(ym, yp, a, b, i, prev, cur, next, c7));
      prev = cur;
      cur = next;
    }
    /* wrap: the right neighbour of the last cell is the first (put in the lane after it,
     * which is past ihi: only the x+1 neighbour of the last cell reads it) */
    __m512d after = wrap ? _mm512_set1_pd(x[ilo]) : ihi == iend ? _mm512_load_pd(x + iend) : zero;
    if (wrap && ihi < iend)
      cur = _mm512_mask_blend_pd((__mmask8)(1u << (ihi - i)), cur, after);
    if (ihi == iend && i >= ilo)
      _mm512_store_pd(o + i, update8(ym, yp, a, b, i, prev, cur, after, c7));
    else
      _mm512_mask_store_pd(o + i, lanes(ilo, ihi, i), update8(ym, yp, a, b, i, prev, cur, after, c7));
  }
  if (pf)
    pf->next = pn;
  if (nt) /* streaming stores are weakly ordered: done before anyone reads them */
    _mm_sfence();
}
#endif


/* ---- the streaming sweep: one lean loop per row (AVX-512 or AVX) ----
 * What bounds one core streaming the plane above from memory is how many of its lines
 * are in flight at once, and that is how many loop iterations the out-of-order core holds:
 * a loop of ~20 instructions (every x neighbour an unaligned load, the stores and the
 * prefetch decided per call, not per vector) reaches 1.11-1.13 G cells/s where the line
 * walk above, with its per-vector tests and spills, reaches 0.91-0.93 on the same Xeon
 * (docs/performance.md, "Issue 42").  Rows of whole vectors only, out on a vector;
 * x wrapped: the first and last vector of a row take their outer x neighbour from the
 * other end through a small buffer. */
#if defined(__AVX512F__)
#define JV 8
typedef __m512d jv_t;
#define JV_LOAD _mm512_loadu_pd
#define JV_ADD _mm512_add_pd
#define JV_MUL _mm512_mul_pd
#define JV_SET1 _mm512_set1_pd
#define JV_STREAM _mm512_stream_pd
#define JV_STORE _mm512_store_pd
#elif defined(__AVX__)
#include <immintrin.h>
#define JV 4
typedef __m256d jv_t;
#define JV_LOAD _mm256_loadu_pd
#define JV_ADD _mm256_add_pd
#define JV_MUL _mm256_mul_pd
#define JV_SET1 _mm256_set1_pd
#define JV_STREAM _mm256_stream_pd
#define JV_STORE _mm256_store_pd
#endif

#ifdef JV
/* the cells [i, i + JV) of a row, x neighbours from xm and xp (the reference's sum order) */
static inline jv_t lean_vec(const double *x, const double *xm, const double *xp, const double *ym,
                            const double *yp, const double *a, const double *b, long long i, jv_t c7)
{
  jv_t s = JV_ADD(JV_ADD(JV_LOAD(x + i), JV_LOAD(xm)), JV_LOAD(xp));
  s = JV_ADD(JV_ADD(JV_ADD(s, JV_LOAD(ym + i)), JV_LOAD(yp + i)), JV_LOAD(a + i));
  return JV_MUL(JV_ADD(s, JV_LOAD(b + i)), c7);
}

/* rows [0, rows) of one slice, cells [ilo, ihi); the plane above prefetched `ahead`
 * doubles on, past the slice's end into `next` (the slice its stream reads next; NULL:
 * straight on); lines (jac_pf_t), one line of it prefetched per vector written.  pf
 * (prefetch the plane above at all), nt and wrap are constants where it is inlined. */
static inline void lean_rows(const double *zm, const double *c, const double *zp, double *out,
                             long long sy, int rows, int ilo, int ihi, long long ahead,
                             const double *next, jac_pf_t *lines, int pf, int nt, int wrap)
{
  const jv_t c7 = JV_SET1(1.0 / 7.0);
  const long long len = rows * sy;
  const int from = wrap ? ilo + JV : ilo, to = wrap ? ihi - JV : ihi;
  const char *pn = lines ? lines->next : NULL, *const pe = lines ? lines->end : NULL;
  for (int j = 0; j < rows; j++) {
    const double *x = c + j * sy, *ym = x - sy, *yp = x + sy, *a = zm + j * sy, *b = zp + j * sy;
    double *o = out + j * sy;
    /* where the prefetch leaves this slice: from there on it fetches the next slice */
    const long long turn = next ? len - ahead - j * sy : (long long)ihi;
    const char *pa = (const char *)(b + ahead),
               *pb = next ? (const char *)(next + (ahead - len + j * sy)) : pa;
    for (long long i = from; i < to; i += JV) {
      if (pf)
        _mm_prefetch((i < turn ? pa : pb) + 8 * i, _MM_HINT_T0);
      if (lines && pn < pe) { /* a line another sweep will read from memory */
        _mm_prefetch(pn, _MM_HINT_T0);
        pn += 64;
      }
      jv_t v = lean_vec(x, x + i - 1, x + i + 1, ym, yp, a, b, i, c7);
      if (nt)
        JV_STREAM(o + i, v);
      else
        JV_STORE(o + i, v);
    }
    if (wrap) { /* the x neighbours beyond the ends are the far ends */
      double lm[JV], rp[JV];
      lm[0] = x[ihi - 1];
      rp[JV - 1] = x[ilo];
      for (int l = 1; l < JV; l++) {
        lm[l] = x[ilo + l - 1];
        rp[l - 1] = x[ihi - JV + l];
      }
      const long long e = ihi - JV;
      jv_t vl = lean_vec(x, lm, x + ilo + 1, ym, yp, a, b, ilo, c7);
      jv_t vr = lean_vec(x, x + e - 1, rp, ym, yp, a, b, e, c7);
      if (nt) {
        JV_STREAM(o + ilo, vl);
        JV_STREAM(o + e, vr);
      } else {
        JV_STORE(o + ilo, vl);
        JV_STORE(o + e, vr);
      }
    }
  }
  if (lines)
    lines->next = pn;
  if (nt) /* streaming stores are weakly ordered: done before anyone reads them */
    _mm_sfence();
}
#endif

/* 1 when lean_rows takes these rows: whole vectors, out on a vector, a wrapped row two
 * vectors at least */
static int lean_fits(const double *out, int ilo, int ihi, int wrap)
{
#ifdef JV
  return (ihi - ilo) % JV == 0 && ((uintptr_t)(out + ilo) & (8 * JV - 1)) == 0 &&
         (!wrap || ihi - ilo >= 2 * JV);
#else
  (void)out, (void)ilo, (void)ihi, (void)wrap;
  return 0;
#endif
}

/* lean_rows with the prefetch, the lines, nt and wrap as constants (one loop each) */
static void lean_dispatch(const double *zm, const double *c, const double *zp, double *out,
                          long long sy, int rows, int ilo, int ihi, long long ahead,
                          const double *next, jac_pf_t *lines, int flags)
{
#ifdef JV
  const int code = (ahead ? 4 : 0) | (flags & JAC_NT ? 2 : 0) | (flags & JAC_XWRAP ? 1 : 0);
#define LEAN(P, N, W)                                                                          \
  (lines ? lean_rows(zm, c, zp, out, sy, rows, ilo, ihi, ahead, next, lines, P, N, W)          \
         : lean_rows(zm, c, zp, out, sy, rows, ilo, ihi, ahead, next, NULL, P, N, W))
  switch (code) {
  case 7: LEAN(1, 1, 1); break;
  case 6: LEAN(1, 1, 0); break;
  case 5: LEAN(1, 0, 1); break;
  case 4: LEAN(1, 0, 0); break;
  case 3: LEAN(0, 1, 1); break;
  case 2: LEAN(0, 1, 0); break;
  case 1: LEAN(0, 0, 1); break;
  default: LEAN(0, 0, 0); break;
  }
#undef LEAN
#else
  (void)zm, (void)c, (void)zp, (void)out, (void)sy, (void)rows, (void)ilo, (void)ihi;
  (void)ahead, (void)next, (void)lines, (void)flags;
#endif
}

int jac_nt_available(void)
{
#if defined(__AVX512F__) || defined(__AVX__)
  return 1;
#else
  return 0;
#endif
}

/* the line walk (AVX-512, aligned loads only), else the portable loop: in cache, where
 * another core's tiles arrive (the pipeline's stages), it beat the lean loop (1x2 256^3
 * pipeline w=8: 3017-3094 against 2497-2521 MLUP/s, docs/performance.md "Issue 42") */
static void rows3d_walk(const double *zm, const double *c, const double *zp, double *out,
                        long long sy, int rows, int ilo, int ihi, long long ahead, jac_pf_t *pf,
                        int flags)
{
  const int nt = flags & JAC_NT, wrap = (flags & JAC_XWRAP) != 0;
#if defined(__AVX512F__)
  /* the line walk needs every array in the same place inside a cache line and
   * whole-line row strides, as hk_halo_field_alloc's fields and the wavefront's
   * rings have */
  uintptr_t phase = (uintptr_t)c & 63;
  if (sy % 8 == 0 && phase % 8 == 0 && ((uintptr_t)zm & 63) == phase &&
      ((uintptr_t)zp & 63) == phase && ((uintptr_t)out & 63) == phase &&
      (!wrap || (((uintptr_t)(c + ilo)) & 63) == 0)) {
    if (wrap)
      rows3d_lines(zm, c, zp, out, sy, rows, ilo, ihi, ahead, pf, nt, 1);
    else if (nt)
      rows3d_lines(zm, c, zp, out, sy, rows, ilo, ihi, ahead, pf, 1, 0);
    else if (ahead)
      rows3d_lines(zm, c, zp, out, sy, rows, ilo, ihi, ahead, pf, 0, 0);
    else
      rows3d_lines(zm, c, zp, out, sy, rows, ilo, ihi, 0, pf, 0, 0);
    return;
  }
#endif
  /* the portable loop leaves prefetching and the choice of stores to the compiler */
  (void)ahead;
  (void)pf;
  (void)nt;
  rows3d_any(zm, c, zp, out, sy, rows, ilo, ihi, wrap);
}

void jac_rows3d(const double *zm, const double *c, const double *zp, double *out, long long sy,
                int rows, int ilo, int ihi, long long ahead, jac_pf_t *pf, int flags)
{
  if (ilo >= ihi || rows <= 0)
    return;
  if (lean_fits(out, ilo, ihi, (flags & JAC_XWRAP) != 0))
    lean_dispatch(zm, c, zp, out, sy, rows, ilo, ihi, ahead, NULL, pf, flags);
  else
    rows3d_walk(zm, c, zp, out, sy, rows, ilo, ihi, ahead, pf, flags);
}

/* cell i (0 or n - 1) of `rows` rows with x periodic of period n (no x ghost read) */
static void wrap_cells(const double *zm, const double *c, const double *zp, double *out, long long sy,
                       int rows, int i, int n)
{
  const double c7 = 1.0 / 7.0;
  const int l = i > 0 ? i - 1 : n - 1, r = i < n - 1 ? i + 1 : 0;
  for (int j = 0; j < rows; j++) {
    const double *x = c + j * sy;
    out[j * sy + i] = (x[i] + x[l] + x[r] + x[i - sy] + x[i + sy] + zm[j * sy + i] + zp[j * sy + i]) * c7;
  }
}

/* one slice (rows [jb, je) of plane k) of the blocked 3D sweep.  The plane above streams
 * from memory: its rows are prefetched `JAC_PREFETCH` doubles ahead, and the last rows of
 * the slice, instead of prefetching past the block, prefetch the head of the slice the
 * sweep reads next (`next`: the plane above's next slice), so the memory stream runs on
 * across the jump from slice to slice (docs/performance.md, "Issue 42") */
static void slice3d(const jac_sweep_t *s, long long at, int rows, int ilo, int ihi, int flags,
                    const double *next)
{
  const long long sy = s->L.sy, sz = s->L.sz;
  const double *zm = s->u + at - sz, *c = s->u + at, *zp = s->u + at + sz;
  double *o = s->v + at;
  if (lean_fits(o, ilo, ihi, flags & JAC_XWRAP)) {
    lean_dispatch(zm, c, zp, o, sy, rows, ilo, ihi, JAC_PREFETCH, next, NULL, flags);
    return;
  }
  const int tail = next ? (int)((JAC_PREFETCH + sy - 1) / sy) : 0;
  const int head = rows > tail ? rows - tail : 0;
  if (head > 0)
    jac_rows3d(zm, c, zp, o, sy, head, ilo, ihi, JAC_PREFETCH, NULL, flags);
  if (head < rows) {
    long long want = JAC_PREFETCH < rows * sy ? JAC_PREFETCH : rows * sy;
    jac_pf_t pf = {(const char *)next, (const char *)(next + want)};
    const long long d = head * sy;
    jac_rows3d(zm + d, c + d, zp + d, o + d, sy, rows - head, ilo, ihi, next ? 0 : JAC_PREFETCH,
               next ? &pf : NULL, flags);
  }
}

void jac_update3d(const hk_box_t *b, void *arg)
{
  const jac_sweep_t *s = arg;
  const long long sy = s->L.sy, sz = s->L.sz;
  const int n = s->L.n[0];
  const long long layer = s->layer_bytes > 0 ? s->layer_bytes : JAC_LAYER_BYTES;
  long long fit = layer / (3 * sy * (long long)sizeof(double));
  const int block = fit < 4 ? 4 : fit > b->hi[1] - b->lo[1] ? b->hi[1] - b->lo[1] : (int)fit;
  /* x wrapped by the sweep: a box of all of x in one go; a part of x (the engine may
   * split boxes in x) has its cells at the ends of x done apart */
  const int whole = b->lo[0] == 0 && b->hi[0] == n;
  const int ilo = !s->xwrap || whole || b->lo[0] > 0 ? b->lo[0] : 1;
  const int ihi = !s->xwrap || whole || b->hi[0] < n ? b->hi[0] : n - 1;
  const int flags = (s->nt_stores ? JAC_NT : 0) | (s->xwrap && whole ? JAC_XWRAP : 0);
  for (int jb = b->lo[1]; jb < b->hi[1]; jb += block) {
    int je = jb + block < b->hi[1] ? jb + block : b->hi[1];
    for (int k = b->lo[2]; k < b->hi[2]; k++) {
      const long long at = s->L.offset + jb * sy + k * sz;
      /* the slice the plane above's stream reads next: the next plane's, or the first
       * plane's of the next block (none after the last) */
      const double *next = k + 1 < b->hi[2] ? s->u + at + 2 * sz
                           : je < b->hi[1] ? s->u + s->L.offset + je * sy + (b->lo[2] + 1) * sz
                                           : NULL;
      if (ilo < ihi && s->stream)
        slice3d(s, at, je - jb, ilo, ihi, flags, next);
      else if (ilo < ihi)
        rows3d_walk(s->u + at - sz, s->u + at, s->u + at + sz, s->v + at, sy, je - jb, ilo, ihi,
                    JAC_PREFETCH, NULL, flags);
      const double *zm = s->u + at - sz, *c = s->u + at, *zp = s->u + at + sz;
      double *o = s->v + at;
      if (s->xwrap && !whole && b->lo[0] == 0)
        wrap_cells(zm, c, zp, o, sy, je - jb, 0, n);
      if (s->xwrap && !whole && b->hi[0] == n && n > 1)
        wrap_cells(zm, c, zp, o, sy, je - jb, n - 1, n);
    }
  }
}

void jac_update2d(const hk_box_t *b, void *arg)
{
  const jac_sweep_t *s = arg;
  const long long sy = s->L.sy;
  const double c5 = 1.0 / 5.0;
  for (int j = b->lo[1]; j < b->hi[1]; j++) {
    const double *restrict u = s->u + s->L.offset + j * sy;
    double *restrict v = s->v + s->L.offset + j * sy;
#pragma omp simd
    for (int i = b->lo[0]; i < b->hi[0]; i++)
      v[i] = (u[i] + u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy]) * c5;
  }
}

/* ---- the 27-point stencil (kernel.h): y and z first, per column, then x ----
 * A row is done in chunks of columns: the column sums C(i) of the chunk and the one
 * column beside each end go to a buffer on the stack (9 loads a column, aligned
 * vectors), then v(i) = ((C(i-1) + 2 C(i)) + C(i+1)) / 64 reads only the buffer: 12 loads
 * a cell instead of the 27 of the direct sum, and the same bits (the same order). */
#define JAC27_CHUNK 512

/* C(i): the 3 x 3 column of (y, z) neighbours of column i */
static inline double col27(const double *zm, const double *c, const double *zp, long long sy,
                           long long i)
{
  const double pm = (zm[i - sy] + 2.0 * zm[i]) + zm[i + sy];
  const double pc = (c[i - sy] + 2.0 * c[i]) + c[i + sy];
  const double pp = (zp[i - sy] + 2.0 * zp[i]) + zp[i + sy];
  return (pm + 2.0 * pc) + pp;
}

void jac_rows27(const double *zm, const double *c, const double *zp, double *out, long long sy,
                int rows, int ilo, int ihi, int flags)
{
  const int wrap = (flags & JAC_XWRAP) != 0;
  const double k = 1.0 / 64.0;
  double buf[JAC27_CHUNK + 2];
  if (ilo >= ihi || rows <= 0)
    return;
  for (int j = 0; j < rows; j++) {
    const double *restrict a = zm + j * sy, *restrict x = c + j * sy, *restrict b = zp + j * sy;
    double *restrict o = out + j * sy;
    for (int i0 = ilo; i0 < ihi; i0 += JAC27_CHUNK) {
      const int i1 = ihi - i0 < JAC27_CHUNK ? ihi : i0 + JAC27_CHUNK;
      double *restrict C = buf + 1 - i0; /* C[i] for i in [i0 - 1, i1] */
      /* wrap: the columns beside the ends of x are the far ends (no ghost column read) */
      const int from = wrap && i0 == ilo ? i0 : i0 - 1, to = wrap && i1 == ihi ? i1 : i1 + 1;
#pragma omp simd
      for (int i = from; i < to; i++)
        C[i] = col27(a, x, b, sy, i);
      if (wrap && i0 == ilo)
        C[i0 - 1] = col27(a, x, b, sy, ihi - 1);
      if (wrap && i1 == ihi)
        C[i1] = col27(a, x, b, sy, ilo);
#pragma omp simd
      for (int i = i0; i < i1; i++)
        o[i] = ((C[i - 1] + 2.0 * C[i]) + C[i + 1]) * k;
    }
  }
}

void jac_update27(const hk_box_t *b, void *arg)
{
  const jac_sweep_t *s = arg;
  const long long sy = s->L.sy, sz = s->L.sz;
  const int n = s->L.n[0];
  /* x wrapped by the sweep: a box of all of x in one go; a part of x has the cells at the
   * ends of x done one by one */
  const int whole = b->lo[0] == 0 && b->hi[0] == n;
  const int ilo = !s->xwrap || whole || b->lo[0] > 0 ? b->lo[0] : 1;
  const int ihi = !s->xwrap || whole || b->hi[0] < n ? b->hi[0] : n - 1;
  const int flags = s->xwrap && whole ? JAC_XWRAP : 0;
  /* blocks of rows whose three plane slices fit the cache (as jac_update3d) */
  long long fit = JAC_LAYER_BYTES / (3 * sy * (long long)sizeof(double));
  const int block = fit < 4 ? 4 : fit > b->hi[1] - b->lo[1] ? b->hi[1] - b->lo[1] : (int)fit;
  for (int jb = b->lo[1]; jb < b->hi[1]; jb += block) {
    const int rows = (jb + block < b->hi[1] ? jb + block : b->hi[1]) - jb;
    for (int k = b->lo[2]; k < b->hi[2]; k++) {
      const long long at = s->L.offset + jb * sy + k * sz;
      const double *zm = s->u + at - sz, *c = s->u + at, *zp = s->u + at + sz;
      double *o = s->v + at;
      if (ilo < ihi)
        jac_rows27(zm, c, zp, o, sy, rows, ilo, ihi, flags);
      for (int e = 0; s->xwrap && !whole && e < 2; e++) {
        const int i = e ? n - 1 : 0;
        if ((e && (b->hi[0] != n || n < 2)) || (!e && b->lo[0] != 0))
          continue;
        const int l = i > 0 ? i - 1 : n - 1, r = i < n - 1 ? i + 1 : 0;
        for (int j = 0; j < rows; j++) {
          const double *a = zm + j * sy, *x = c + j * sy, *p = zp + j * sy;
          o[j * sy + i] = ((col27(a, x, p, sy, l) + 2.0 * col27(a, x, p, sy, i)) +
                           col27(a, x, p, sy, r)) * (1.0 / 64.0);
        }
      }
    }
  }
}
