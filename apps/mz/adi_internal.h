/* apps/mz/adi_internal.h: what adi_common.c and adi_rhs.c share beyond adi_common.h. */
#ifndef MZ_ADI_INTERNAL_H
#define MZ_ADI_INTERNAL_H

#include <stddef.h>
#include "adi_common.h"

/* the index of point (i, j, k) of a zone */
static inline size_t pt(const mz_adi_zone_t *z, int i, int j, int k)
{
  return ((size_t)k * z->ny + j) * z->nx + i;
}

/* A direction's coefficients: velocity component v (1: x, 2: y, 3: z) and the reference's
 * tx2, xxcon1..5, dx1tx1..dx5tx1 family (and the y and z ones). */
typedef struct mz_dir {
  int v;
  double t2, con1, con2, con2_43, con3, con4, con5, dt1[5];
} mz_dir_t;

void mz__adi_dir_init(const mz_consts_t *c, mz_dir_t d[3]);

#endif
