/* src/coll/bcast.c: hk_bcast (issue 39): the decision (fallbacks, all from inputs
 * equal on every rank, as hk_reduce's and hk_allgather's) and the algorithms.
 *
 *   chunked          the message split in T chunks (aligned as hk_allreduce's);
 *                    thread t broadcasts chunk t from root on duplicate t
 *                    (thread-parallel pipelining of large messages)
 *   chunked-shifted  as chunked on the rotated communicators (communicator t numbers
 *                    rank r as (r - t) mod P, so the root there is (root - t) mod P)
 *   hierarchical     through the node window (contiguous types):
 *     -- node sync --      the previous call's readers of `result` are done
 *     1. copy in           root copies buffer into its node's `result` (its threads)
 *     -- node sync --
 *     2. inter-node        the leaders broadcast `result` from the leader of root's
 *                          node (its rank among the leaders is root's node number),
 *                          the bytes split in T 64-byte-aligned chunks moved on the
 *                          T leader duplicates
 *     -- node agreement -- (also agrees on a failed step 2)
 *     3. copy out          every rank but root copies `result` to buffer (its threads)
 *
 * Consecutive calls with the other users of the window (hk_allreduce, hk_reduce,
 * hk_reduce_scatter_block, hk_allgather, hk_alltoall): they write `result` only after
 * their first node sync and read slots only before their last, and this file writes
 * `result` only after the first sync of the same call and reads it only after the
 * last, so no call overwrites what another rank still reads.
 *
 * Order of the fallbacks: mpi chosen, count 0 or below the threshold (count x type
 * size bytes), inter-communicator, one rank, the model (auto), datatype (extent <= 0;
 * hierarchical: non-contiguous or more than INT_MAX bytes), thread level and fewer
 * than 2 useful chunks (chunked families), nodes (hierarchical: no node with two
 * ranks, HK_NODE_SIZE not dividing comm), a set-up that failed somewhere (agreed).
 * Inside a parallel region the team of the chunks is one thread (nested regions off):
 * the calling thread runs the same messages in the same order.
 *
 * auto: the kind's tuning-table row, else its environment, else mpi (measured: see the
 * decision).
 *
 * Datatypes: a contiguous type (count x extent bytes fitting an int) is moved as bytes,
 * so ranks may describe the message by different (count, datatype) pairs of one
 * signature, as MPI_Bcast allows.  A non-contiguous type is chunked by elements (the
 * chunked families; hierarchical falls back `datatype`): then every rank must pass the
 * same count and a non-contiguous type (the usual case: the same datatype everywhere);
 * mixing contiguous and non-contiguous descriptions across ranks needs algorithm mpi.
 */
#include <limits.h>
#include <stdlib.h>
#include "coll/coll_internal.h"

typedef struct bc_call {
  char *buf;
  int count;
  MPI_Datatype type;
  MPI_Aint extent;
  int root;
  int contiguous;         /* the type is contiguous and count x extent fits an int */
  hk__coll_cache_t *c;
} bc_call_t;

/* ---- chunked families ---- */
typedef struct {
  const bc_call_t *k;
  const MPI_Comm *comms;
  int rotate; /* > 0: the rotated family of that many ranks */
} chunk_arg_t;

static int bcast_chunk(void *arg, int t, long long lo, long long n)
{
  const chunk_arg_t *a = arg;
  const bc_call_t *k = a->k;
  int root = a->rotate > 0 ? ((k->root - t) % a->rotate + a->rotate) % a->rotate : k->root;
  return PMPI_Bcast(k->buf + lo * k->extent, (int)n, k->type, root, a->comms[t]);
}

static int run_chunks(const bc_call_t *k, int shifted, int nchunks)
{
  /* contiguous: the chunks are bytes (MPI_BYTE), so ranks that describe the same
   * bytes by different (count, datatype) pairs still move the same chunks */
  bc_call_t bytes = {k->buf, (int)(k->count * k->extent), MPI_BYTE, 1, k->root, 1, k->c};
  if (k->contiguous)
    k = &bytes;
  chunk_arg_t a = {k, shifted ? k->c->shifted : k->c->dup, shifted ? k->c->size : 0};
  int rc = hk__each_chunk_placed(shifted ? k->buf : NULL, k->count, k->extent, nchunks,
                                 bcast_chunk, &a); /* shifted: NUMA order (numa.c) */
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Bcast (chunk)");
}

/* ---- hierarchical ---- */
typedef struct {
  char *area;
  long long bytes;
  int root, chunks;
  const MPI_Comm *comms;
} leaders_t;

static int leaders_chunk(void *arg, int t, long long lo, long long n)
{
  const leaders_t *a = arg;
  return PMPI_Bcast(a->area + lo, (int)n, MPI_BYTE, a->root, a->comms[t]);
}

static int run_hierarchical(const bc_call_t *k, int threads)
{
  int err = HK_SUCCESS;
  hk__coll_cache_t *c = k->c;
  const size_t bytes = (size_t)k->count * (size_t)k->extent;
  HK_TRY(err, hk__coll_cache_window(c, bytes));
  if (c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS; /* agreed: the caller falls back, buffer untouched */
  const int root_node = hk__nodes_node_of(c->nodes, k->root);
  err = hk__coll_node_agree(c, HK_SUCCESS);
  if (err == HK_SUCCESS && c->rank == k->root)
    hk__parallel_copy(c->result, k->buf, bytes, threads);
  err = hk__coll_node_agree(c, err);
  if (err == HK_SUCCESS && c->local_rank == 0 && c->nnodes > 1) {
    int chunks = hk__chunks_useful((long long)bytes, HK_COLL_LINE, c->multiple ? threads : 1);
    leaders_t a = {c->result, (long long)bytes, root_node, chunks < 1 ? 1 : chunks,
                   c->leader_dup};
    /* units of one byte aligned to 64 (extent 1): chunk t on leader duplicate t */
    int rc = hk__each_chunk(a.bytes, 1, a.chunks, leaders_chunk, &a);
    if (rc != MPI_SUCCESS)
      err = HK_COLL_MPI(rc, "PMPI_Bcast (leaders)");
  }
  HK_TRY(err, hk__coll_node_agree(c, err));
  if (c->rank != k->root)
    hk__parallel_copy(k->buf, c->result, bytes, threads);
cleanup:
  return err;
}

static int run(const void *call, hk_allreduce_alg_t alg, int threads)
{
  const bc_call_t *k = call;
  if (alg == HK_ALLREDUCE_HIERARCHICAL)
    return run_hierarchical(k, threads);
  return run_chunks(k, alg == HK_ALLREDUCE_CHUNKED_SHIFTED, threads);
}

/* ---- the decision ---- */
/* auto without a table or environment: mpi (no model).  Measured on 2 cores (docs/coll.md,
 * "Broadcast"), 2 ranks x 1 thread on one node, Open MPI 4: a back-to-back loop with the
 * root rotating gave hierarchical 0.64-0.82x of PMPI_Bcast's time from 4 KiB to 256 KiB,
 * but osu_bcast (root 0, a barrier after each call) gives it 2.1-3.4x PMPI_Bcast's time
 * (avg and max over ranks alike, 16-256 KiB): Open MPI moves a one-node broadcast with one
 * copy the receiver makes while the root returns, hierarchical makes two and holds the
 * root until the readers are done.  Several nodes were not measured.  So auto never picks
 * hierarchical (the table or HK_BCAST_ALGORITHM can), and the chunked families need a
 * spare core per rank, which 2 cores only give oversubscribed.  The built-in threshold
 * (src/coll/config.c) keeps every broadcast off the decision path as well. */

static int check_chunked(const bc_call_t *k, hk_allreduce_alg_t alg, int *threads,
                         hk_allreduce_fallback_t *why)
{
  hk__coll_cache_t *c = k->c;
  *threads = k->contiguous ? hk__chunks_useful((long long)k->count * k->extent, HK_COLL_LINE,
                                               *threads)
                            : hk__chunks_useful(k->count, hk__chunk_granularity(k->extent),
                                                *threads);
  if (k->extent <= 0)
    *why = HK_FALLBACK_DATATYPE;
  else if (!c->multiple)
    *why = HK_FALLBACK_THREAD_LEVEL;
  else if (*threads < 2)
    *why = HK_FALLBACK_ONE_THREAD;
  if (*why != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  return hk__coll_cache_dups(c, alg == HK_ALLREDUCE_CHUNKED_SHIFTED);
}

static int check_hierarchical(const bc_call_t *k, int *threads, hk_allreduce_fallback_t *why)
{
  hk__coll_cache_t *c = k->c;
  if (!c->multiple)
    *threads = 1; /* the copies run on the calling thread: no MPI call in a team */
  if (!k->contiguous)
    *why = HK_FALLBACK_DATATYPE;
  return hk__coll_hier_nodes(c, 1, why);
}

/* the hybrid path, or the reason for the fallback in info->fallback */
static int hybrid(bc_call_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o, long long bytes,
                  hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS;
  HK_TRY(err, hk__coll_enter(comm, &k->c, info));
  hk__coll_cache_t *c = k->c;
  if (!c)
    return HK_SUCCESS; /* inter-communicator, one rank */
  MPI_Aint lb = 0;
  PMPI_Type_get_extent(k->type, &lb, &k->extent);
  k->contiguous = hk__coll_contiguous(k->type) && (long long)k->count * k->extent <= INT_MAX;
  hk__coll_choice_t ch = {.kind = HK__COLL_BCAST, .bytes = bytes, .fn = "hk_bcast"};
  hk__coll_choose(c, o, &ch);
  if (ch.why == HK_FALLBACK_NONE && ch.alg == HK_ALLREDUCE_HIERARCHICAL)
    HK_TRY(err, check_hierarchical(k, &ch.threads, &ch.why));
  else if (ch.why == HK_FALLBACK_NONE)
    HK_TRY(err, check_chunked(k, ch.alg, &ch.threads, &ch.why));
  return hk__coll_run(c, &ch, run, k, info);
cleanup:
  return err;
}

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

int hk_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
             const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o = opts ? opts : &defaults;
  hk_allreduce_info_t local = {HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = o->info ? o->info : &local;
  *info = local;
  int inter = 0, size = 0, tsize = 0, err = HK_SUCCESS;
  if (count < 0)
    return HK_ERROR(HK_ERR_ARG, "hk_bcast: count %d < 0", count);
  if ((int)o->algorithm < 0 || (int)o->algorithm >= HK_ALLREDUCE_ALG_COUNT)
    return HK_ERROR(HK_ERR_ARG, "hk_bcast: invalid algorithm %d", (int)o->algorithm);
  if (o->min_bytes < 0)
    return HK_ERROR(HK_ERR_ARG, "hk_bcast: min_bytes %lld < 0 (HK_DEFAULT: the default "
                    "threshold, 1: accelerate every message)", o->min_bytes);
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_size(comm, &size);
  if (!inter && (root < 0 || root >= size))
    return HK_ERROR(HK_ERR_ARG, "hk_bcast: root %d outside the %d ranks of comm", root, size);
  if (count > 0 && !buffer)
    return HK_ERROR(HK_ERR_ARG, "hk_bcast: buffer is NULL");
  PMPI_Type_size(datatype, &tsize);
  long long bytes = (long long)count * tsize;
  info->fallback = hk__coll_early(o, HK__COLL_BCAST, count, bytes);
  if (info->fallback == HK_FALLBACK_NONE) {
    bc_call_t k = {buffer, count, datatype, 0, root, 0, NULL};
    err = hybrid(&k, comm, o, bytes, info);
    if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
      return err;
  }
  int rc = PMPI_Bcast(buffer, count, datatype, root, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Bcast");
}
