/* apps/mz/exchange.h: the per-step exchange of zone boundary values (NPB-MZ's exch_qbc).
 *
 * Every zone sends its first and last interior planes in x and y to its four (periodic)
 * neighbours, which store them in their boundary planes:
 *
 *     zone W            zone Z             zone E          i = 1 of Z   -> i = nx-1 of W
 *   .. [nx-2] [nx-1] | [0] [1] .. [nx-2] [nx-1] | [0] [1]  i = nx-2 of Z -> i = 0 of E
 *
 * (k = 1..nz-2 and the other in-plane index 1..n-2; edges and the k planes stay fixed.)
 * A link whose two zones live in this process is a direct copy; the others are packed per
 * peer process into one message each way (links in the order zone, side on both ends).
 *
 * LU-MZ's x split (NPB3.4-MZ): with nxp > 1 the map assigns zones to groups of nxp ranks
 * (rank = group * nxp + xpos) and each rank holds the piece mz_xpiece of the zone's x points,
 * stored with two ghost planes on either side (mz_xlocal).  Only the ranks holding an x end
 * exchange that x face; the y faces link piece xpos of a zone to piece xpos of its neighbour
 * and cover the interior points of the piece:
 *
 *     zone Z, nxp = 2:   xpos 0: i = 0..2        xpos 1: i = 3..5
 *       west face i = 1 -> W (xpos 1)            east face i = nx-2 -> E (xpos 0)
 *       south face, i = 1..2 -> S (xpos 0)       south face, i = 3..4 -> S (xpos 1)
 */
#ifndef HK_MZ_EXCHANGE_H
#define HK_MZ_EXCHANGE_H

#include <mpi.h>
#include "mz_problem.h"

typedef struct mz_exchange mz_exchange_t;

typedef struct mz_exchange_stats {
  long long bytes_copy;   /* per exchange: copied inside this process */
  long long bytes_sent;   /* per exchange: sent to other processes */
  int peers;              /* processes this one exchanges messages with */
} mz_exchange_stats_t;

/* mz_xlocal: how a rank at xpos of nxp stores its piece of a zone of n x points: *width
 * points, local i = global i - *xoff (nxp = 1: the whole zone, xoff 0; else the piece and two
 * ghost planes on either side). */
void mz_xlocal(int n, int nxp, int xpos, int *width, int *xoff);

/* mz_exchange_create: the plan of rank `rank` for the map m of zones to groups of nxp ranks
 * (nxp = 1: to ranks).  Returns HK_SUCCESS or HK_ERR_NOMEM.  Collective: local. */
int mz_exchange_create(const mz_zones_t *z, const mz_map_t *m, int nxp, int rank, MPI_Comm comm,
                       mz_exchange_t **ex);
/* mz_exchange_run: one exchange; u[zone] is the 5-vector field of every zone this rank owns
 * ([k][j][i][5], NULL for the others).  Collective: the peers.  Threads: outside parallel
 * regions (opens its own for the copies). */
int mz_exchange_run(mz_exchange_t *ex, double *const *u);
void mz_exchange_get_stats(const mz_exchange_t *ex, mz_exchange_stats_t *st);
void mz_exchange_destroy(mz_exchange_t **ex);

#endif
