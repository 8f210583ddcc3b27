/* apps/common/kernel.h: the Jacobi problem shared by hk-jacobi and its frozen
 * reference: initial values, Dirichlet boundary values and the update of one
 * cell, each a function of global indices only, so every decomposition, mode
 * and thread count computes the same numbers in the same order.
 *
 *   3D, 7 points:  v = (c + xm + xp + ym + yp + zm + zp) * (1/7)
 *   2D, 5 points:  v = (c + xm + xp + ym + yp) * (1/5)
 *   3D, 27 points (--stencil 27): the tensor product of [1 2 1]/4 in x, y and z
 *   (weights 8 centre, 4 faces, 2 edges, 1 corners, over 64), summed y, then z, then x:
 *     P(x, z') = (u(x, y-1, z') + 2 u(x, y, z')) + u(x, y+1, z')
 *     C(x)     = (P(x, z-1) + 2 P(x, z)) + P(x, z+1)
 *     v        = ((C(x-1) + 2 C(x)) + C(x+1)) * (1/64)
 *   (every weight a power of two: a fused multiply-add gives the same bits)
 * (the sum is taken in exactly this order everywhere).  With periodic
 * boundaries the update conserves the global sum; with Dirichlet boundaries
 * values stay between the smallest and largest initial/boundary value.
 */
#ifndef HK_JACOBI_KERNEL_H
#define HK_JACOBI_KERNEL_H

#include "hybridkit.h"

/* initial value of global cell (x, y, z): deterministic, in [0, 1) */
static inline double jac_initial(long long x, long long y, long long z)
{
  unsigned long long h = (unsigned long long)x * 73856093ULL ^ (unsigned long long)y * 19349663ULL ^
                         (unsigned long long)z * 83492791ULL;
  h ^= h >> 13;
  h *= 0x9E3779B97F4A7C15ULL;
  h ^= h >> 29;
  return (double)(h % 1000003ULL) / 1000003.0;
}

/* Dirichlet value of a global ghost cell (outside [0, G) in some dimension) */
static inline double jac_boundary(long long x, long long y, long long z)
{
  return x < 0 ? 1.0 : 0.25 * (double)((x + 2 * y + 3 * z) & 3) / 3.0;
}

/* the arguments of the update: sweep from u into v */
typedef struct jac_sweep {
  const double *u;
  double *v;
  hk_field_layout_t L;
  int nt_stores; /* 3D: write v with non-temporal stores (fields far larger than the caches) */
  int xwrap;     /* 3D: x periodic within the rank, the sweep wraps it (boxes span all of x) */
  long long layer_bytes; /* 3D: cache for the three plane slices of a block of rows (0: JAC_LAYER_BYTES) */
  int stream;    /* 3D: the plane above streams from memory: the lean row loop, the prefetch
                  * running on into the next slice (hk-jacobi's sweeps; 0: the pipeline's
                  * stages, in cache) */
} jac_sweep_t;

/* the 3D update of `rows` rows (sy apart) of one plane, columns [ilo, ihi): zm, c, zp
 * and out point at the first row of the plane below, the plane, the plane above and the
 * output (the plain and the wavefront 3D 7-point sweeps both go through it; the 2D update,
 * jac_rows27 and the serial reference in jacobi_ref.c spell out their own stencils, the
 * reference on purpose, as the independent check).  ahead: when the
 * plane above comes from memory, the distance in doubles at which to prefetch it
 * (0: none).  flags: JAC_NT, whole cache lines of out are written with non-temporal
 * stores (no read for ownership; the lines leave the caches), fenced before returning;
 * JAC_XWRAP, [ilo, ihi) is all of a periodic x: the left neighbour of ilo is ihi - 1
 * and the right neighbour of ihi - 1 is ilo (no x ghost is read) */
#define JAC_NT 1
#define JAC_XWRAP 2
/* cache sizes assumed where hwloc does not know them: one core's L2, a rank's L3 share */
#define JAC_L2_DEFAULT (1024LL * 1024)
#define JAC_L3_DEFAULT (16LL * 1024 * 1024)

/* 1 when jac_rows3d can write with non-temporal stores (an AVX-512 build) */
int jac_nt_available(void);

/* prefetch distance for a plane streamed from memory (see kernel.c, docs/performance.md) */
#ifndef JAC_PREFETCH
#define JAC_PREFETCH 1024
#endif

/* a run of memory another sweep will read soon: while an in-cache sweep computes,
 * jac_rows3d prefetches one cache line of [next, end) per vector it writes (next
 * advances), so the memory stream overlaps in-cache work instead of stalling the
 * sweep that reads it */
typedef struct jac_pf {
  const char *next, *end;
} jac_pf_t;

/* pf: NULL, or lines to prefetch meanwhile (see jac_pf_t) */
void jac_rows3d(const double *zm, const double *c, const double *zp, double *out, long long sy,
                int rows, int ilo, int ihi, long long ahead, jac_pf_t *pf, int flags);

/* the 27-point update of `rows` rows, as jac_rows3d (cached stores; no prefetching);
 * flags: JAC_XWRAP only */
void jac_rows27(const double *zm, const double *c, const double *zp, double *out, long long sy,
                int rows, int ilo, int ihi, int flags);

/* hk_update_fn: v = stencil(u) on the cells of box */
void jac_update3d(const hk_box_t *box, void *arg);
void jac_update27(const hk_box_t *box, void *arg);
void jac_update2d(const hk_box_t *box, void *arg);

#endif
