/* src/modes/modes_internal.h: what the engine shares with the library's data structures
 * (never installed). */
#ifndef HK_MODES_INTERNAL_H
#define HK_MODES_INTERNAL_H

#include "internal/hk_internal.h"
#include "hybridkit/modes.h"

/* the row of a mode, NULL for an invalid one */
const hk_mode_info_t *hk__mode_row(hk_mode_t mode);
/* piece `piece` of `pieces` of [0, n): [*lo, *hi), the first n % pieces pieces one longer
 * (OpenMP's static schedule) */
static inline void hk__mode_split(long long n, int pieces, int piece, long long *lo, long long *hi)
{
  long long q = n / pieces, r = n % pieces;
  *lo = piece * q + (piece < r ? piece : r);
  *hi = *lo + q + (piece < r);
}

#endif
