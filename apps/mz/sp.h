/* SP-MZ zone solver (scalar penta-diagonal ADI), see adi_common.h for the zone contract. */
#ifndef HK_MZ_SP_H
#define HK_MZ_SP_H
#include "adi_common.h"
/* Allocate solver work space in z->solver (after mz_adi_zone_alloc with with_speed = 1).
 * Returns 0, or -1 (z has no speed array, or out of memory). */
int mz_sp_setup(mz_adi_zone_t *z);
/* One time step: compute_rhs, txinvr, x/y/z solves, add (one parallel region). Returns 0,
 * or -1 if work space could not be allocated (then u is unchanged). */
int mz_sp_adi(mz_adi_zone_t *z);
void mz_sp_free(mz_adi_zone_t *z);   /* frees z->solver and sets it to NULL */
/* Floating-point operations of one mz_sp_adi step on an nx x ny x nz zone, as NPB-MZ counts
 * them for Mop/s (SP-MZ sp.f: 881.174 n3 - 4683.91 nsur + 11484.5 navg - 19272.4). */
double mz_sp_step_ops(int nx, int ny, int nz);
#endif
