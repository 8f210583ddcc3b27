/* BT-MZ zone solver (block tri-diagonal ADI), see adi_common.h for the zone contract. */
#ifndef HK_MZ_BT_H
#define HK_MZ_BT_H
#include "adi_common.h"
/* No per-zone state (the line work space is per thread): returns 0. */
int mz_bt_setup(mz_adi_zone_t *z);
/* One time step: compute_rhs, x/y/z block tri-diagonal solves, add.  Returns 0, or -1 when
 * a thread could not allocate its line work space (then the step is incomplete). */
int mz_bt_adi(mz_adi_zone_t *z);
void mz_bt_free(mz_adi_zone_t *z);
#endif
