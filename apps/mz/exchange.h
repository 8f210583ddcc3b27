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

/* mz_exchange_create: the plan of rank `rank` for the map m.  Returns HK_SUCCESS or
 * HK_ERR_NOMEM.  Collective: local. */
int mz_exchange_create(const mz_zones_t *z, const mz_map_t *m, int rank, MPI_Comm comm,
                       mz_exchange_t **ex);
/* mz_exchange_run: one exchange; u[zone] is the 5-vector field of every zone this rank owns
 * ([k][j][i][5], NULL for the others).  Collective: the peers.  Threads: outside parallel
 * regions (opens its own for the copies). */
int mz_exchange_run(mz_exchange_t *ex, double *const *u);
void mz_exchange_get_stats(const mz_exchange_t *ex, mz_exchange_stats_t *st);
void mz_exchange_destroy(mz_exchange_t **ex);

#endif
