/* src/coll/reduce_node.c: hierarchical hk_reduce and hk_reduce_scatter_block,
 * through hk_allreduce's node window (src/coll/hierarchical.c).
 *
 *   node with L ranks x T threads, window: slot[0..L-1] + result (leader's segment)
 *
 *   1-2. node phase   (hk__coll_node_phase) every rank copies its operand into its
 *                     slot, the L x T workers reduce one chunk each into `result`
 *   3.   inter-node   reduce:  the leaders reduce `result` chunked (T threads, the
 *                              leader duplicates) to the leader of root's node (its
 *                              rank among the leaders is root's node number: both
 *                              are ordered by the nodes' lowest ranks)
 *                     scatter: the leaders allreduce `result` chunked (every node
 *                              needs the blocks of its ranks, which need not be
 *                              consecutive): the whole vector crosses the network,
 *                              so auto takes this only on one node
 *   -- node agreement (a sync that also agrees on a failed step 3) --
 *   4.   copy out     reduce: root copies `result`; scatter: rank r copies block r
 *
 * The three node synchronisations are hk_allreduce's, so the argument there for
 * consecutive calls (`result` is written only after the first sync of the next
 * call) holds for any mix of the three collectives on one communicator.
 */
#include "coll/coll_internal.h"

int hk__reduce_hierarchical(const hk__red_call_t *k, int threads)
{
  int err = HK_SUCCESS;
  hk__coll_cache_t *c = k->c;
  size_t bytes = (size_t)k->count * (size_t)k->extent;
  HK_TRY(err, hk__coll_cache_window(c, bytes));
  if (c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS; /* agreed: the caller falls back, recvbuf untouched */
  /* sbuf is NULL (MPI_IN_PLACE) at the root only: its operand is in rbuf */
  const char *own = k->sbuf ? k->sbuf : k->rbuf;
  HK_TRY(err, hk__coll_node_phase(c, own, k->count, k->type, k->extent, k->op, threads));
  if (c->local_rank == 0 && c->nnodes > 1) {
    int root_node = hk__nodes_node_of(c->nodes, k->root);
    int my_node = hk__nodes_node_of(c->nodes, c->rank);
    int chunks = hk__chunks_useful(k->count, hk__chunk_granularity(k->extent), threads);
    HK_LOCAL(err, hk__reduce_chunks(my_node == root_node ? NULL : c->result, c->result,
                                    k->count, k->type, k->extent, k->op, root_node,
                                    c->leader_dup, 0, chunks < 1 ? 1 : chunks));
  }
  HK_TRY(err, hk__coll_node_agree(c, err));
  if (c->rank == k->root)
    hk__parallel_copy(k->rbuf, c->result, bytes, threads);
cleanup:
  return err;
}

int hk__reduce_scatter_hierarchical(const hk__red_call_t *k, int threads)
{
  int err = HK_SUCCESS;
  hk__coll_cache_t *c = k->c;
  int total = c->size * k->count; /* fits: checked by the decision */
  size_t block = (size_t)k->count * (size_t)k->extent;
  HK_TRY(err, hk__coll_cache_window(c, block * (size_t)c->size));
  if (c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS;
  const char *own = k->sbuf ? k->sbuf : k->rbuf;
  HK_TRY(err, hk__coll_node_phase(c, own, total, k->type, k->extent, k->op, threads));
  if (c->local_rank == 0 && c->nnodes > 1) {
    int chunks = hk__chunks_useful(total, hk__chunk_granularity(k->extent), threads);
    HK_LOCAL(err, hk__run_chunks(NULL, c->result, total, k->type, k->extent, k->op,
                                 c->leader_dup, chunks < 1 ? 1 : chunks));
  }
  HK_TRY(err, hk__coll_node_agree(c, err));
  hk__parallel_copy(k->rbuf, c->result + (size_t)c->rank * block, block, threads);
cleanup:
  return err;
}
