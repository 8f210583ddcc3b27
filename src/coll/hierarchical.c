/* src/coll/hierarchical.c: node-aware allreduce through an MPI-3 shared window.
 *
 *   node with L ranks x T threads, window: slot[0..L-1] (one per rank) + result
 *
 *   1. copy in     rank l copies its vector into slot[l] (its T threads), all but
 *                  its own chunks l*T..l*T+T-1, which only it reads (step 2)
 *   -- node sync --
 *   2. reduce      worker w = l*T + t of the L*T workers of the node reduces
 *                  chunk w: result = slot[0] op slot[1] op ... op slot[L-1], its
 *                  own rank's operand read from sendbuf (recvbuf in place), not
 *                  slot[l]: the same operands in the same order, 1/L less copied
 *                  (docs/performance.md, "Preload pass-through and the
 *                  hierarchical crossover")
 *   -- node sync --
 *   3. inter-node  the node leaders (local rank 0) allreduce `result` in place,
 *                  chunked over their T threads on duplicates of the leader comm
 *   -- node sync --
 *   4. copy out    every rank copies result into its recvbuf
 *
 * Why three syncs suffice across consecutive calls: `result` is written only in
 * step 2, after the first sync of the next call, which no rank passes before
 * every rank has finished step 4 of this one; slots are read only in step 2.
 * A sync is MPI_Win_sync + barrier on the node communicator + MPI_Win_sync
 * (the unified-memory idiom for passive-target shared windows); the second and
 * third also agree on errors over the node (node_agree: a one-int PMPI_Allreduce
 * instead of the barrier), so a failed step returns on every rank of the node.
 */
#include <omp.h>
#include <string.h>
#include "coll/coll_internal.h"

/* bytes a worker reduces at a time (node_reduce) */
#define REDUCE_BLOCK 16384

static int node_sync(hk__coll_cache_t *c)
{
  int rc = PMPI_Win_sync(c->win);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Barrier(hk_nodes_comm(c->nodes));
  if (rc == MPI_SUCCESS)
    rc = PMPI_Win_sync(c->win);
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "node synchronisation");
}

/* node_sync that agrees on err over the node (the lowest code wins; the barrier is the
 * PMPI_Allreduce, unguarded like node_sync's: hk_allreduce may run on any thread): a failed
 * local step returns on every rank of the node alike */
static int node_agree(hk__coll_cache_t *c, int err)
{
  int rc = PMPI_Win_sync(c->win), all = err;
  if (rc != MPI_SUCCESS) /* agreed like a failed step: every rank still joins the reduction */
    HK_LOCAL(err, HK_COLL_MPI(rc, "node synchronisation"));
  rc = PMPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MIN, hk_nodes_comm(c->nodes));
  if (rc == MPI_SUCCESS)
    rc = PMPI_Win_sync(c->win);
  if (rc != MPI_SUCCESS)
    return HK_COLL_MPI(rc, "node synchronisation");
  if (all == HK_SUCCESS || err != HK_SUCCESS)
    return all;
  return HK_ERROR(all, "another rank of this node failed in the node reduction (%s)",
                  hk_strerror(all));
}

/* the bytes [*lo, *hi) of rank l's own chunks l*T..l*T+T-1 (step 1 skips them) */
static void own_range(const hk__coll_cache_t *c, int count, MPI_Aint extent, int threads,
                      size_t *lo, size_t *hi)
{
  long long gran = hk__chunk_granularity(extent), a, n, b, m;
  int workers = c->local_size * threads, w = c->local_rank * threads;
  hk__chunk_range(count, gran, workers, w, &a, &n);
  hk__chunk_range(count, gran, workers, w + threads - 1, &b, &m);
  *lo = (size_t)(a * extent);
  *hi = (size_t)((b + m) * extent);
}

/* step 2: the node's L*T workers reduce one chunk each into result; own: this
 * rank's operand (sendbuf, or recvbuf in place), read where slot[l] would be; direct
 * (one node: the chunk is final): this rank's recvbuf, which gets its chunks from the
 * L1 right away, so step 4 copies only the others' */
static int node_reduce(hk__coll_cache_t *c, const char *own, char *direct, int count,
                       MPI_Datatype type, MPI_Aint extent, MPI_Op op, int threads)
{
  int first = MPI_SUCCESS, L = c->local_size;
  int workers = L * threads;
  long long gran = hk__chunk_granularity(extent);
  const long long block = extent > 0 && extent < REDUCE_BLOCK ? REDUCE_BLOCK / extent : 1;
#pragma omp parallel num_threads(threads)
  {
    int nt = omp_get_num_threads();
    for (int t = omp_get_thread_num(); t < threads; t += nt) {
      long long lo, n;
      hk__chunk_range(count, gran, workers, c->local_rank * threads + t, &lo, &n);
      if (n == 0)
        continue;
      /* in blocks that stay in the L1 between the copy and the reductions: the result
       * is then written once to the L2 instead of three times (docs/performance.md,
       * "Preload pass-through and the hierarchical crossover") */
      for (long long b = 0; b < n; b += block) {
        const long long m = n - b < block ? n - b : block;
        size_t off = (size_t)((lo + b) * extent);
        const char *in0 = c->local_rank == 0 ? own : c->slot[0];
        memcpy(c->result + off, in0 + off, (size_t)(m * extent));
        for (int s = 1; s < L; s++) {
          const char *in = s == c->local_rank ? own : c->slot[s];
          int rc = PMPI_Reduce_local(in + off, c->result + off, (int)m, type, op);
          if (rc != MPI_SUCCESS) {
#pragma omp critical(hk_coll_error)
            if (first == MPI_SUCCESS)
              first = rc;
          }
        }
        if (direct) /* own (recvbuf in place) is read no more at [off, off + m) */
          memcpy(direct + off, c->result + off, (size_t)(m * extent));
      }
    }
  }
  return first == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(first, "PMPI_Reduce_local");
}

int hk__allreduce_hierarchical(const char *sbuf, char *rbuf, int count, MPI_Datatype type,
                               MPI_Aint extent, MPI_Op op, hk__coll_cache_t *c, int threads)
{
  int err = HK_SUCCESS;
  size_t bytes = (size_t)count * (size_t)extent;
  /* nodes and leaders were made by the caller (hk_allreduce's decision) */
  HK_TRY(err, hk__coll_cache_window(c, bytes));
  if (c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS; /* agreed: the caller falls back, recvbuf untouched */
  const char *own = sbuf ? sbuf : rbuf;
  size_t lo = 0, hi = 0;
  own_range(c, count, extent, threads, &lo, &hi);
  hk__parallel_copy(c->slot[c->local_rank], own, lo, threads);
  hk__parallel_copy(c->slot[c->local_rank] + hi, own + hi, bytes - hi, threads);
  HK_TRY(err, node_sync(c));
  /* PMPI_Reduce_local fails alike on every node (the same op, type and count everywhere,
   * hk_allreduce's contract), so the nodes' agreements agree */
  char *direct = c->nnodes == 1 ? rbuf : NULL;
  HK_LOCAL(err, node_reduce(c, own, direct, count, type, extent, op, threads));
  HK_TRY(err, node_agree(c, err));
  if (c->local_rank == 0 && c->nnodes > 1) {
    int chunks = hk__chunks_useful(count, hk__chunk_granularity(extent), threads);
    HK_LOCAL(err, hk__run_chunks(NULL, c->result, count, type, extent, op, c->leader_dup,
                                 chunks < 1 ? 1 : chunks));
  }
  /* a leader's failed step 3 returns on every rank of its node (a jump past the sync
   * would leave them waiting in it) */
  HK_TRY(err, node_agree(c, err));
  if (direct) { /* this rank's own chunks are in recvbuf already */
    hk__parallel_copy(rbuf, c->result, lo, threads);
    hk__parallel_copy(rbuf + hi, c->result + hi, bytes - hi, threads);
  } else {
    hk__parallel_copy(rbuf, c->result, bytes, threads);
  }
cleanup:
  return err;
}

/* Steps 1-2 of the file comment (copy in, node sync, the L x T workers reduce into
 * `result`, agreement over the node) for the other reductions (src/coll/reduce_node.c);
 * the window holds count elements already.  own: this rank's operand. */
int hk__coll_node_phase(hk__coll_cache_t *c, const char *own, int count, MPI_Datatype type,
                        MPI_Aint extent, MPI_Op op, int threads)
{
  int err = HK_SUCCESS;
  size_t bytes = (size_t)count * (size_t)extent, lo = 0, hi = 0;
  own_range(c, count, extent, threads, &lo, &hi);
  hk__parallel_copy(c->slot[c->local_rank], own, lo, threads);
  hk__parallel_copy(c->slot[c->local_rank] + hi, own + hi, bytes - hi, threads);
  HK_TRY(err, node_sync(c));
  HK_LOCAL(err, node_reduce(c, own, NULL, count, type, extent, op, threads));
  HK_TRY(err, node_agree(c, err));
cleanup:
  return err;
}

int hk__coll_node_agree(hk__coll_cache_t *c, int err) { return node_agree(c, err); }
