/* apps/mz/mz_split.h: mesh splitting (the OVERFLOW practice of Jin et al.): every zone cut
 * into K sub-zones, each then solved as a zone of its own.  Pure functions (no MPI).
 *
 * All zones are cut the same way, along the larger of the average zone dimensions (x when
 * the zones' nx add up to at least their ny), so that the result is again a tensor grid of
 * zones whose faces match one to one and the zone boundary exchange (exchange.c) serves the
 * cuts too.  A zone of nx points (interior nx-2, one boundary layer each side) cut K ways:
 *
 *     parent  [0] [1 .. e1] [e1+1 .. e2] ... [.. nx-2] [nx-1]      e_k = k (nx-2) / K
 *     sub k   [0] [1 .. w_k] [w_k+1]                               w_k = e_k - e_(k-1)
 *
 * so sub-zone k has nx_k = w_k + 2 points; its boundary layers at a cut are ghost points
 * that the neighbouring sub-zone fills each step: 2 (K-1) ny nz ghosts per zone.  Like every
 * NPB-MZ zone, a sub-zone uses its own local coordinates (adi_common.h). */
#ifndef HK_MZ_SPLIT_H
#define HK_MZ_SPLIT_H

#include <stddef.h>
#include "mz_problem.h"

/* smallest sub-zone interior width (the zone solvers need n >= 5 points) */
enum { MZ_SPLIT_MIN_WIDTH = 3 };

/* mz_zones_split: *out = the zones of `in` each cut into k sub-zones (k = 1: a copy).
 * Returns 0; -1 out of memory; -2 bad k (why: one line saying what is wrong). */
int mz_zones_split(const mz_zones_t *in, int k, mz_zones_t *out, char *why, size_t len);
/* the direction mz_zones_split cuts along: 0 x, 1 y */
int mz_split_axis(const mz_zones_t *in);
/* points of all zones, boundary layers (ghosts) included */
long long mz_zones_total_points(const mz_zones_t *z);
/* ghost points the cuts add: 2 (k-1) x (cross-section) x nz per zone (the formula above) */
long long mz_split_ghosts(const mz_zones_t *in, int k);

#endif
