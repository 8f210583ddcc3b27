/* src/coll/gather_node.c: hierarchical hk_allgather and hk_alltoall through
 * hk_allreduce's node window (src/coll/cache.c, src/coll/hierarchical.c).
 *
 *   allgather (P blocks of B bytes; `result` in the leader's segment holds P x B):
 *     -- node sync --      the previous call's readers of `result` are done
 *     1. copy in           rank r copies its block to position pos(r) of `result`
 *                          (its threads); positions in node order: node 0's ranks,
 *                          then node 1's, ... (a node's ranks need not be
 *                          consecutive in comm; real nodes often are, then pos(r) = r)
 *     -- node sync --
 *     2. inter-node        the leaders (local rank 0) allgather the nodes' runs in
 *                          place (PMPI_Allgatherv of bytes), each run split in T
 *                          64-byte-aligned chunks moved on the T leader duplicates
 *     -- node sync --
 *     3. copy out          every rank copies the P blocks to recvbuf (its threads)
 *
 *       comm ranks 0 1 2 3, nodes {0,2} {1,3}:  result [ b0 b2 | b1 b3 ]
 *                                                       node 0  node 1
 *
 *   alltoall (one node; P slots of P x B):
 *     1. copy in           rank l copies its P blocks to slot l
 *     -- node sync --
 *     2. copy out          rank r copies block r of every slot l to its block l
 *     -- node sync --      no rank writes a slot again before all have read them
 *
 * Consecutive calls with the other users of the window (hk_allreduce, hk_reduce,
 * hk_reduce_scatter_block): they write their own slot before their first node sync
 * and `result` only after it, and read slots only between their first two syncs.
 * This file writes `result` only after a sync of the same call and reads slots only
 * before its last sync, so no call overwrites what another rank still reads.
 *
 * Errors: a failed allocation (more than one node) is agreed over comm before the
 * first collective; a failed node synchronisation is agreed over the node and ends
 * the later steps there (as in hierarchical.c).
 */
#include <omp.h>
#include <stdlib.h>
#include "coll/coll_internal.h"

/* pos[r]: rank r's block position; run[n], first[n]: node n's blocks and first
 * position.  Nodes are numbered as the leaders are ordered (by their lowest rank). */
static void node_layout(const hk__coll_cache_t *c, int *pos, int *run, int *first)
{
  const int P = c->size, N = c->nnodes;
  for (int n = 0; n < N; n++)
    run[n] = 0;
  for (int r = 0; r < P; r++)
    run[hk__nodes_node_of(c->nodes, r)]++;
  first[0] = 0;
  for (int n = 1; n < N; n++)
    first[n] = first[n - 1] + run[n - 1];
  for (int n = 0; n < N; n++)
    run[n] = 0; /* refilled while the positions are handed out */
  for (int r = 0; r < P; r++) {
    int n = hk__nodes_node_of(c->nodes, r);
    pos[r] = first[n] + run[n]++;
  }
}

typedef struct {
  char *area;
  const int *run, *first; /* bytes per node and where its run starts */
  int nnodes, chunks;
  const MPI_Comm *comms;
} leaders_t;

/* chunk t of every node's run: an Allgatherv in place on leader duplicate t */
static int leaders_chunk(void *arg, int t, long long lo, long long n)
{
  const leaders_t *a = arg;
  (void)lo;
  (void)n;
  int *cnt = malloc((size_t)a->nnodes * 2 * sizeof *cnt);
  if (!cnt)
    return MPI_ERR_NO_MEM;
  for (int m = 0; m < a->nnodes; m++) {
    long long l, len;
    hk__chunk_range(a->run[m], HK_COLL_LINE, a->chunks, t, &l, &len);
    cnt[m] = (int)len;
    cnt[a->nnodes + m] = a->first[m] + (int)l;
  }
  int rc = PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, a->area, cnt, cnt + a->nnodes, MPI_BYTE,
                           a->comms[t]);
  free(cnt);
  return rc;
}

/* the leaders' step; every leader has the same run[] and chunks (agreed inputs) */
static int leaders_allgather(hk__coll_cache_t *c, const int *run_bytes, const int *first_bytes,
                             int threads)
{
  long long most = 0;
  for (int n = 0; n < c->nnodes; n++)
    most = run_bytes[n] > most ? run_bytes[n] : most;
  int chunks = hk__chunks_useful(most, HK_COLL_LINE, c->multiple ? threads : 1);
  leaders_t a = {c->result, run_bytes, first_bytes, c->nnodes, chunks < 1 ? 1 : chunks,
                 c->leader_dup};
  /* hk__each_chunk runs chunk t on thread t for t < a.chunks: units of one, extent 64 */
  int rc = hk__each_chunk(a.chunks, HK_COLL_LINE, a.chunks, leaders_chunk, &a);
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Allgatherv (leaders)");
}

int hk__allgather_hierarchical(const hk__ga_call_t *k, int threads)
{
  int err = HK_SUCCESS;
  hk__coll_cache_t *c = k->c;
  const int P = c->size, N = c->nnodes;
  const size_t B = (size_t)k->count * (size_t)k->rext;
  int *pos = NULL, *lay = NULL;
  if (N > 1) { /* agreed: N is the same on every rank */
    HK_ALLOC_LOCAL(err, pos, P);
    HK_ALLOC_LOCAL(err, lay, 4 * N);
    HK_AGREE(err, c->comm);
    node_layout(c, pos, lay, lay + N);
    for (int n = 0; n < N; n++) { /* bytes: P x B fits an int (the decision's check) */
      lay[2 * N + n] = (int)((size_t)lay[n] * B);
      lay[3 * N + n] = (int)((size_t)lay[N + n] * B);
    }
  }
  HK_TRY(err, hk__coll_cache_window(c, B * (size_t)P));
  if (c->failed[HK_ALLREDUCE_HIERARCHICAL])
    goto cleanup; /* agreed: the caller falls back, recvbuf untouched */
  /* one node: local rank = rank (hk_nodes orders a node's ranks by rank) */
  const size_t at = (size_t)(pos ? pos[c->rank] : c->rank) * B;
  const char *own = k->sbuf ? k->sbuf : k->rbuf + (size_t)c->rank * B;
  err = hk__coll_node_agree(c, HK_SUCCESS);
  if (err == HK_SUCCESS)
    hk__parallel_copy(c->result + at, own, B, threads);
  err = hk__coll_node_agree(c, err);
  if (err == HK_SUCCESS && c->local_rank == 0 && N > 1)
    err = leaders_allgather(c, lay + 2 * N, lay + 3 * N, threads);
  err = hk__coll_node_agree(c, err);
  if (err != HK_SUCCESS)
    goto cleanup;
  if (!pos) {
    hk__parallel_copy(k->rbuf, c->result, B * (size_t)P, threads);
  } else {
    for (int r = 0; r < P; r++)
      hk__parallel_copy(k->rbuf + (size_t)r * B, c->result + (size_t)pos[r] * B, B, threads);
  }
cleanup:
  free(pos);
  free(lay);
  return err;
}

int hk__alltoall_hierarchical(const hk__ga_call_t *k, int threads)
{
  int err = HK_SUCCESS;
  hk__coll_cache_t *c = k->c;
  const int P = c->size;
  const size_t B = (size_t)k->count * (size_t)k->rext;
  HK_TRY(err, hk__coll_cache_window(c, B * (size_t)P));
  if (c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS;
  const char *own = k->sbuf ? k->sbuf : k->rbuf;
  hk__parallel_copy(c->slot[c->local_rank], own, B * (size_t)P, threads);
  err = hk__coll_node_agree(c, HK_SUCCESS);
  /* one node: local rank l is rank l of comm */
  for (int j = 0; err == HK_SUCCESS && j < P; j++)
    hk__parallel_copy(k->rbuf + (size_t)j * B, c->slot[j] + (size_t)c->rank * B, B, threads);
  return hk__coll_node_agree(c, err);
cleanup:
  return err;
}
