/* hybridkit/ckd.h: overflow-checked size arithmetic, in one place (the library, the
 * hk-* binaries and programs that use hybridkit include it; src/internal/hk_ckd.h is
 * this header under its old name).
 *
 * Every size that feeds an allocation or an MPI count goes through these: they
 * follow C23's ckd_add/ckd_mul (<stdckdint.h>): the result is stored in *r and the
 * return value is 1 when it did not fit (then *r holds the wrapped value, which the
 * caller must not use), 0 otherwise.  Built on the GCC/Clang __builtin_*_overflow,
 * which also reject negative values converted to size_t.  All static inline.
 * Collective: local.  Threads: any thread.
 *
 *   size_t bytes;
 *   if (hk_ckd_mul3(&bytes, nx, ny, nz) || hk_ckd_mul(&bytes, bytes, sizeof(double)))
 *     return HK_ERROR(HK_ERR_NOMEM, "%lldx%lldx%lld doubles do not fit in memory", ...);
 */
#ifndef HYBRIDKIT_CKD_H
#define HYBRIDKIT_CKD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* size_t products of long long operands (negative ones count as overflow) */
static inline int hk_ckd_mul(size_t *r, long long a, long long b)
{
  if (a < 0 || b < 0) {
    *r = 0;
    return 1;
  }
  return __builtin_mul_overflow((unsigned long long)a, (unsigned long long)b, r);
}

static inline int hk_ckd_mul3(size_t *r, long long a, long long b, long long c)
{
  size_t ab;
  if (a < 0 || b < 0 || c < 0 ||
      __builtin_mul_overflow((unsigned long long)a, (unsigned long long)b, &ab)) {
    *r = 0;
    return 1;
  }
  return __builtin_mul_overflow(ab, (unsigned long long)c, r);
}

static inline int hk_ckd_mulz(size_t *r, size_t a, size_t b)
{
  return __builtin_mul_overflow(a, b, r);
}

static inline int hk_ckd_addz(size_t *r, size_t a, size_t b)
{
  return __builtin_add_overflow(a, b, r);
}

/* signed long long (cell indices and strides) */
static inline int hk_ckd_mul_ll(long long *r, long long a, long long b)
{
  return __builtin_mul_overflow(a, b, r);
}

/* an element count that must also fit MPI's int count argument */
static inline int hk_ckd_mpi_count(int *r, size_t n)
{
  if (n > (size_t)INT32_MAX) {
    *r = 0;
    return 1;
  }
  *r = (int)n;
  return 0;
}

/* bytes printed for people: "17.2 GB", "3.4e+04 EB" (decimal units), for messages */
static inline const char *hk_fmt_bytes(char *buf, size_t len, double bytes)
{
  static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 6) {
    bytes /= 1000.0;
    u++;
  }
  snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", bytes, unit[u]);
  return buf;
}

#endif
