/* src/coll/gather.c: hk_allgather and hk_alltoall (issue 39): the decision (fallbacks,
 * all from inputs equal on every rank, as hk_reduce's) and the algorithms.
 *
 * A block is one rank's sendcount elements; P blocks of B bytes in recvbuf.
 *
 *   chunked          every block split in T chunks alike (aligned as hk_allreduce's);
 *                    thread t moves chunk t of every block on duplicate t with one
 *                    PMPI_Allgather / PMPI_Alltoall of 1 element of a datatype that
 *                    is n_t elements of the user's type resized to one block's extent
 *                    (no packing: MPI reads and writes the user's buffers)
 *
 *       recvbuf  [ b0.c0 | b0.c1 | b1.c0 | b1.c1 ]   thread t: one element of chunk
 *                  \-- block 0 --/ \-- block 1 --/   type t (c_t's elements, extent one
 *                                                    block) per rank, on dup[t]
 *
 *   chunked-shifted  as chunked on the rotated communicators (rank j of communicator
 *                    t is rank (j + t) mod P): PMPI_Allgatherv / PMPI_Alltoallv with
 *                    displacements (j + t) mod P blocks, so blocks land in comm's order
 *   hierarchical     through the node window (gather_node.c): allgather copies each
 *                    block in, the node leaders allgather the nodes' runs, every rank
 *                    copies the P blocks out; alltoall on one node only (a transpose:
 *                    one copy in, one copy out per rank), fallback `nodes` across nodes
 *
 * sendtype / recvtype: the chunked families need sendcount == recvcount (then the
 * two types have equal size and signature, and a chunk of n elements of either
 * matches) and extents > 0; hierarchical needs both contiguous (size == extent, no
 * lower bound; in place: recvtype).  Otherwise fallback `datatype`.
 *
 * Order of the fallbacks: mpi chosen, count 0 or below the threshold (bytes of the
 * P blocks), inter-communicator, one rank, the model (auto), datatype, thread level
 * and fewer than 2 useful chunks (chunked families), nodes (hierarchical), a set-up
 * that failed somewhere (agreed).
 *
 * auto: the kind's tuning-table row, else its environment, else mpi (measured: see the decision).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll_internal.h"

typedef struct facts {
  int same_count;   /* sendcount == recvcount (or in place) */
  int extents;      /* extents > 0 */
  int contiguous;   /* both (in place: recvtype) contiguous */
  int fits;         /* the P blocks' bytes fit an int (hierarchical) */
  long long gran;
} facts_t;

/* ---- chunked families ---- */
typedef struct {
  const hk__ga_call_t *k;
  const MPI_Comm *comms;
  int shifted;
} chunk_arg_t;

/* n elements of type, resized to the extent of `block` elements */
static int chunk_type(MPI_Datatype type, long long n, MPI_Aint extent, int block,
                      MPI_Datatype *out)
{
  MPI_Datatype contig;
  MPI_Aint lb = 0, ext = 0;
  int rc = PMPI_Type_contiguous((int)n, type, &contig);
  if (rc != MPI_SUCCESS)
    return rc;
  PMPI_Type_get_extent(contig, &lb, &ext);
  rc = PMPI_Type_create_resized(contig, lb, (MPI_Aint)block * extent, out);
  PMPI_Type_free(&contig);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Type_commit(out);
  return rc;
}

static int move_chunk(void *arg, int c, long long lo, long long n)
{
  const chunk_arg_t *a = arg;
  const hk__ga_call_t *k = a->k;
  const int P = k->c->size;
  MPI_Datatype st = MPI_DATATYPE_NULL, rt = MPI_DATATYPE_NULL;
  int *ones = NULL, *displs = NULL;
  int rc = chunk_type(k->rtype, n, k->rext, k->count, &rt);
  if (rc == MPI_SUCCESS && k->sbuf)
    rc = chunk_type(k->stype, n, k->sext, k->count, &st);
  if (rc != MPI_SUCCESS)
    goto done;
  const void *s = k->sbuf ? (const void *)(k->sbuf + lo * k->sext) : MPI_IN_PLACE;
  char *r = k->rbuf + lo * k->rext;
  if (!a->shifted) {
    rc = k->kind == HK__GA_ALLGATHER ? PMPI_Allgather(s, 1, st, r, 1, rt, a->comms[c])
                                 : PMPI_Alltoall(s, 1, st, r, 1, rt, a->comms[c]);
    goto done;
  }
  /* communicator c numbers rank r as (r - c) mod P: its rank j's block is block
   * (j + c) mod P of comm's order */
  ones = malloc((size_t)P * sizeof *ones);
  displs = malloc((size_t)P * sizeof *displs);
  if (!ones || !displs) {
    rc = MPI_ERR_NO_MEM;
    goto done;
  }
  for (int j = 0; j < P; j++) {
    ones[j] = 1;
    displs[j] = (j + c % P) % P;
  }
  rc = k->kind == HK__GA_ALLGATHER
           ? PMPI_Allgatherv(s, 1, st, r, ones, displs, rt, a->comms[c])
           : PMPI_Alltoallv(s, ones, displs, st, r, ones, displs, rt, a->comms[c]);
done:
  free(ones);
  free(displs);
  if (st != MPI_DATATYPE_NULL)
    PMPI_Type_free(&st);
  if (rt != MPI_DATATYPE_NULL)
    PMPI_Type_free(&rt);
  return rc;
}

static int run_chunks(const hk__ga_call_t *k, int shifted, int nchunks)
{
  chunk_arg_t a = {k, shifted ? k->c->shifted : k->c->dup, shifted};
  int rc = hk__each_chunk(k->count, k->rext, nchunks, move_chunk, &a);
  return rc == MPI_SUCCESS ? HK_SUCCESS
                           : HK_COLL_MPI(rc, k->kind == HK__GA_ALLGATHER ? "PMPI_Allgather (chunk)"
                                                                     : "PMPI_Alltoall (chunk)");
}

static int run(const void *call, hk_allreduce_alg_t alg, int threads)
{
  const hk__ga_call_t *k = call;
  if (alg == HK_ALLREDUCE_HIERARCHICAL)
    return k->kind == HK__GA_ALLGATHER ? hk__allgather_hierarchical(k, threads)
                                   : hk__alltoall_hierarchical(k, threads);
  return run_chunks(k, alg == HK_ALLREDUCE_CHUNKED_SHIFTED, threads);
}

/* ---- the decision ---- */
/* auto without a table or environment: mpi (no model).  Measured on 2 cores (docs/coll.md,
 * "Allgather and alltoall"), 2 ranks x 1 thread, min of 5 interleaved rounds under chrt:
 * hierarchical 0.32-0.71x PMPI_Allgather and 0.36-0.61x PMPI_Alltoall from 32 KiB to
 * 16 MiB; chunked needs 2 threads per rank, which only an oversubscribed 2 x 2 gives
 * (0.16-0.94x).  No gain shown anywhere, so auto keeps MPI (fallback `model`) until a
 * machine with spare cores per rank shows one; the table and the environment can still
 * name an algorithm. */

static int check_chunked(const hk__ga_call_t *k, const facts_t *f, hk_allreduce_alg_t alg,
                         int *threads, hk_allreduce_fallback_t *why)
{
  hk__coll_cache_t *c = k->c;
  *threads = hk__chunks_useful(k->count, f->gran, *threads);
  if (!f->same_count || !f->extents)
    *why = HK_FALLBACK_DATATYPE;
  else if (!c->multiple)
    *why = HK_FALLBACK_THREAD_LEVEL;
  else if (*threads < 2)
    *why = HK_FALLBACK_ONE_THREAD;
  if (*why != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  return hk__coll_cache_dups(c, alg == HK_ALLREDUCE_CHUNKED_SHIFTED);
}

static int check_hierarchical(const hk__ga_call_t *k, const facts_t *f, int *threads,
                              hk_allreduce_fallback_t *why)
{
  hk__coll_cache_t *c = k->c;
  if (!c->multiple)
    *threads = 1; /* the copies run on the calling thread: no MPI call in a team */
  if (!f->contiguous || !f->fits || !f->same_count)
    *why = HK_FALLBACK_DATATYPE;
  /* the alltoall's transpose is one node's only */
  return hk__coll_hier_nodes(c, k->kind != HK__GA_ALLTOALL, why);
}

static void type_facts(hk__ga_call_t *k, int scount, facts_t *f)
{
  MPI_Aint lb = 0;
  PMPI_Type_get_extent(k->rtype, &lb, &k->rext);
  if (k->sbuf)
    PMPI_Type_get_extent(k->stype, &lb, &k->sext);
  f->same_count = !k->sbuf || scount == k->count;
  f->extents = k->rext > 0 && (!k->sbuf || k->sext > 0);
  f->contiguous = hk__coll_contiguous(k->rtype) && (!k->sbuf || hk__coll_contiguous(k->stype));
  f->fits = (long long)k->c->size * k->count * (long long)k->rext <= INT_MAX;
  f->gran = hk__chunk_granularity(k->rext);
}

/* the hybrid path, or the reason for the fallback in info->fallback */
static int hybrid(hk__ga_call_t *k, int scount, MPI_Comm comm, const hk_allreduce_opts_t *o,
                  hk__coll_kind_t kind, long long bytes, hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS;
  facts_t f = {1, 1, 0, 1, 1};
  HK_TRY(err, hk__coll_enter(comm, &k->c, info));
  hk__coll_cache_t *c = k->c;
  if (!c)
    return HK_SUCCESS; /* inter-communicator, one rank */
  type_facts(k, scount, &f);
  /* auto: the kind's table row, else its environment, else the model (a configuration
   * that differs between ranks is not used on this communicator) */
  hk__coll_choice_t ch = {.kind = kind, .bytes = bytes, .fn = "hk_allgather/hk_alltoall"};
  hk__coll_choose(c, o, &ch);
  if (ch.why == HK_FALLBACK_NONE && ch.alg == HK_ALLREDUCE_HIERARCHICAL)
    HK_TRY(err, check_hierarchical(k, &f, &ch.threads, &ch.why));
  else if (ch.why == HK_FALLBACK_NONE)
    HK_TRY(err, check_chunked(k, &f, ch.alg, &ch.threads, &ch.why));
  return hk__coll_run(c, &ch, run, k, info);
cleanup:
  return err;
}

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

/* both collectives: arguments, threshold, the hybrid path; HK_SUCCESS with
 * info->fallback set when MPI is to run */
static int decide(hk__ga_call_t *k, const void *sendbuf, int sendcount, int recvcount, MPI_Comm comm,
                  const hk_allreduce_opts_t *o, hk__coll_kind_t kind, hk_allreduce_info_t *info,
                  const char *fn)
{
  int size = 0, tsize = 0;
  /* in place the send count and type are ignored (MPI 4.0 6.9.6): MPICH's alltoall1 passes -1 */
  if ((sendbuf != MPI_IN_PLACE && sendcount < 0) || recvcount < 0)
    return HK_ERROR(HK_ERR_ARG, "%s: counts %d, %d: negative", fn, sendcount, recvcount);
  if ((int)o->algorithm < 0 || (int)o->algorithm >= HK_ALLREDUCE_ALG_COUNT)
    return HK_ERROR(HK_ERR_ARG, "%s: invalid algorithm %d", fn, (int)o->algorithm);
  if (o->min_bytes < 0)
    return HK_ERROR(HK_ERR_ARG, "%s: min_bytes %lld < 0 (HK_DEFAULT: the default threshold, "
                    "1: accelerate every message)", fn, o->min_bytes);
  if (recvcount > 0 && !k->rbuf)
    return HK_ERROR(HK_ERR_ARG, "%s: recvbuf is NULL", fn);
  PMPI_Comm_size(comm, &size);
  PMPI_Type_size(k->rtype, &tsize);
  long long bytes = (long long)size * recvcount * tsize;
  k->sbuf = sendbuf == MPI_IN_PLACE ? NULL : sendbuf;
  info->fallback = hk__coll_early(o, kind, recvcount, bytes);
  return info->fallback == HK_FALLBACK_NONE ? hybrid(k, sendcount, comm, o, kind, bytes, info)
                                            : HK_SUCCESS;
}

static hk_allreduce_info_t *start(const hk_allreduce_opts_t **o, const hk_allreduce_opts_t *opts,
                                  hk_allreduce_info_t *local)
{
  *o = opts ? opts : &defaults;
  *local = (hk_allreduce_info_t){HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = (*o)->info ? (*o)->info : local;
  *info = *local;
  return info;
}

int hk_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                 const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o;
  hk_allreduce_info_t local, *info = start(&o, opts, &local);
  hk__ga_call_t k = {HK__GA_ALLGATHER, NULL, recvcount, sendtype, recvtype, 0, 0, recvbuf, NULL};
  int err = decide(&k, sendbuf, sendcount, recvcount, comm, o, HK__COLL_ALLGATHER, info,
                   "hk_allgather");
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Allgather");
}

int hk_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o;
  hk_allreduce_info_t local, *info = start(&o, opts, &local);
  hk__ga_call_t k = {HK__GA_ALLTOALL, NULL, recvcount, sendtype, recvtype, 0, 0, recvbuf, NULL};
  int err = decide(&k, sendbuf, sendcount, recvcount, comm, o, HK__COLL_ALLTOALL, info,
                   "hk_alltoall");
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Alltoall");
}
