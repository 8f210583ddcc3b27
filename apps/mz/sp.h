/* SP-MZ zone solver (scalar penta-diagonal ADI), see adi_common.h for the zone contract. */
#ifndef HK_MZ_SP_H
#define HK_MZ_SP_H
#include "adi_common.h"
int mz_sp_setup(mz_adi_zone_t *z);   /* allocate solver work space in z->solver */
void mz_sp_adi(mz_adi_zone_t *z);    /* one time step: compute_rhs, txinvr, x/y/z solves, add */
void mz_sp_free(mz_adi_zone_t *z);
#endif
