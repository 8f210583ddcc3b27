/* apps/mz/mz_twolevel.h: hk-mz --second-level mpi (the AKIE analogue of Jin et al.): the
 * first level spreads the zones over groups of processes, the second splits every zone of a
 * group over the group's sub-ranks (an MPI sub-communicator) instead of OpenMP threads.
 *
 * The numerics are those of --second-level omp, bit for bit.  The split is 1-D in j with
 * replicated storage: every sub-rank holds the whole zone and, per step,
 *   1. takes part in the zone boundary exchange (the first level, once per sub-rank index:
 *      sub-rank s of every group exchanges with sub-rank s of the others, all hold the same u)
 *   2. computes rhs and solves the x lines of its interior rows j (block split)
 *   3. transposes rhs (rows of its j block -> planes of its k block; MPI_Alltoallv), solves
 *      the y lines of its planes k, transposes back (the j lines cross the split: they are
 *      solved whole by one sub-rank, hence the same arithmetic)
 *   4. solves the z lines of its rows and adds the update to u
 *   5. all-gathers the updated rows of u (the zone's halo exchange: every sub-rank needs the
 *      whole u for the next step's derived quantities, y lines and boundary exchange).
 * Costs per step: three times the zone's 5-vectors moved within the group; memory: the
 * whole zone per sub-rank.  LU-MZ is not supported. */
#ifndef HK_MZ_TWOLEVEL_H
#define HK_MZ_TWOLEVEL_H

#include "mz.h"

/* the communicators: groups of cfg->sub_ranks consecutive ranks; r->rank and r->nprocs
 * become the group and the number of groups (the first level), r->comm1 links sub-rank s
 * of every group.  --second-level omp: comm1 = MPI_COMM_WORLD, one sub-rank.  Collective:
 * MPI_COMM_WORLD. */
int mz_twolevel_comms(mz_run_t *r);
/* the sizes: every zone needs at least one interior row j and plane k per sub-rank.
 * HK_ERR_ARG (one line) otherwise.  Local. */
int mz_twolevel_check(const mz_run_t *r);
/* the parts of my zones, attached (after the zones are set up).  Local. */
int mz_twolevel_setup(mz_run_t *r);
/* step 5 above for every zone of this process.  Collective: r->comm2. */
int mz_twolevel_gather(mz_run_t *r);
/* the zones whole again (the norms are then computed by every sub-rank alike) */
void mz_twolevel_detach(mz_run_t *r);
void mz_twolevel_free(mz_run_t *r);

#endif
