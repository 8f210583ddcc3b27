/* LU-MZ zone solver (SSOR with lower and upper triangular sweeps), hk-mz.
 *
 * Uses the zone arrays of adi_common.h (mz_adi_zone_t: u, rhs as LU's rsd, forcing as frct,
 * qs, rho_i, ut as scratch; [k][j][i][5]) and its contract with the framework (the exchange
 * writes the i = 0, nx-1 and j = 0, ny-1 planes of u).  Differences to SP/BT, as NPB3.4-MZ
 * LU-MZ defines them (files named in lu.c):
 *  - every zone has its own coordinates xi = i/(nx-1), eta = j/(ny-1), zeta = k/(nz-1);
 *  - one iteration (ssor.f): rsd *= dt; lower sweep (jacld, blts) per k-plane ascending;
 *    upper sweep (jacu, buts) descending; u += rsd / (omega (2 - omega)); rsd = rhs(u);
 *  - verification: xcr = l2norm(rsd) (not divided by dt), xce = error(u), xci = pintgr(u),
 *    each summed over zones.
 * The sweeps are pipelined over the team: each thread owns a block of j-rows and, per
 * k-plane, waits until its neighbour row block has finished that plane (hk_progress.h).
 */
#ifndef HK_MZ_LU_H
#define HK_MZ_LU_H
#include <mpi.h>
#include "adi_common.h"

/* The x split of NPB3.4-MZ's 2-D process grid (z->xs): the nxp ranks of a zone group hold
 * pieces of each zone's x range (two ghost planes either side, exchange.h).  Once per SSOR
 * iteration the residual takes the ghost planes of u from the x neighbours; in the sweeps
 * each thread receives the new values of its rows at the piece's edge, per k-plane, from the
 * upstream neighbour (the west one in the lower sweep, the east one in the upper) and sends
 * its last column downstream: MPI from inside the parallel region (MPI_THREAD_MULTIPLE).
 *
 *   rank xpos 0: thread t  rows [jlo, jhi)  plane k: ....... send col --> rank xpos 1: recv,
 *                                                                          then its rows
 * Norms and the surface integral are reduced over comm (mz_lu_norms). */
typedef struct mz_xsplit {
  int nxp, xpos;   /* ranks over x, mine (= my rank in comm) */
  MPI_Comm comm;   /* the zone group's ranks */
  int team;        /* threads of the sweeps: the same on all ranks of comm (their minimum) */
} mz_xsplit_t;

/* Work space (the pipeline counters) in z->solver; z->c.dt must be LU's dt.  0 or -1. */
int mz_lu_setup(mz_adi_zone_t *z);
/* setbv + setiv (+ erhs when first) + rhs: the initial state */
void mz_lu_init(mz_adi_zone_t *z, int first);
/* One SSOR iteration (one parallel region).  Returns 0. */
int mz_lu_ssor(mz_adi_zone_t *z);
void mz_lu_free(mz_adi_zone_t *z);
/* Per-zone verification quantities: l2norm of rsd, error norm of u, surface integral. */
void mz_lu_norms(mz_adi_zone_t *z, double xcr[5], double xce[5], double *xci);

#endif
