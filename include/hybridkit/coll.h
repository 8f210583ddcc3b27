/* hybridkit/coll.h: hybrid collectives.
 *
 * An MPI+OpenMP program usually calls MPI_Allreduce outside parallel regions,
 * so all threads but one sleep during the collective.  hk_allreduce lets the
 * idle threads take part:
 *
 *   chunked          vector split in T chunks (aligned to the datatype extent
 *                    and to 64-byte cache lines); thread t reduces chunk t on
 *                    its own duplicate of comm.  Needs MPI_THREAD_MULTIPLE.
 *
 *       rank 0: [ c0 | c1 | c2 ]    thread t: PMPI_Allreduce(c_t, dup[t])
 *       rank 1: [ c0 | c1 | c2 ]    (T reductions run concurrently)
 *
 *   chunked-shifted  as chunked, but communicator t numbers the ranks rotated
 *                    by t (rank r is (r - t) mod P there), so the T concurrent
 *                    reductions have different roots and partners per step.
 *   hierarchical     node level through an MPI-3 shared-memory window: every
 *                    rank copies its vector in, all threads of all ranks of the
 *                    node reduce one chunk each, the node leaders run chunked
 *                    among themselves, every rank copies the result out.  Works
 *                    with real and virtual (HK_NODE_SIZE) nodes.  Needs a
 *                    contiguous datatype (size == extent).
 *   mpi              PMPI_Allreduce: the baseline and the fallback.
 *
 * Falls back to `mpi` (and says why in hk_allreduce_info_t) for: count below
 * the tiny-message threshold, non-commutative ops, inter-communicators, a
 * communicator of one rank, MPI thread level below MULTIPLE (chunked families;
 * hierarchical then runs with one thread per rank), one thread, for
 * hierarchical non-contiguous datatypes and nodes of one rank (or virtual nodes
 * that cannot be formed), `auto` where its model says MPI wins, and a failed
 * set-up (agreed by all ranks).  The result is never different from what
 * PMPI_Allreduce computes, except for the order of floating-point operations
 * (docs/coll.md: sums of T chunks are reduced in the same order per element,
 * but hierarchical reduces node-first).
 *
 * Every decision uses only inputs that are equal on all ranks (count, datatype,
 * op, options, the configuration and machine facts agreed when comm was first
 * used), never the calling thread or per-process history, so all ranks send
 * the same messages.  Called inside an active parallel region, the chosen
 * algorithm runs with the calling thread alone (the same messages, one after
 * the other).  Per communicator, duplicates are created at first use
 * (collectively), cached with an attribute and freed with the communicator (or
 * at MPI_Finalize).  Every MPI call hybridkit makes here goes to PMPI_.
 *
 * Environment (read once per process):
 *   HK_COLL_TUNING=FILE        tuning table written by `hybridkit tune` (one table per
 *                              collective; `hybridkit tune allreduce`'s older format is
 *                              the allreduce's)
 *   HK_ALLREDUCE_ALGORITHM=A   algorithm for HK_ALLREDUCE_AUTO when the table has no row
 *                              (auto|mpi|chunked|chunked-shifted|hierarchical)
 *   HK_ALLREDUCE_THREADS=T     threads for the hybrid algorithms
 *   HK_ALLREDUCE_MIN_BYTES=B   tiny-message threshold (default 16384)
 *   HK_<KIND>_ALGORITHM, _THREADS, _MIN_BYTES  the same for KIND = REDUCE,
 *                              REDUCE_SCATTER, BCAST, ALLGATHER, ALLTOALL, SCAN, EXSCAN,
 *                              ALLTOALLV
 *                              (hk_reduce, hk_reduce_scatter_block, hk_bcast, ...)
 *   HK_COLL_ALGORITHM, HK_COLL_THREADS, HK_COLL_MIN_BYTES  for every kind (the
 *                              allreduce too) without its own HK_<KIND>_ variable
 * Threshold: HK_<KIND>_MIN_BYTES, else HK_COLL_MIN_BYTES, else the kind's table,
 * else the built-in default (docs/coll.md: the message size of each collective).
 * A missing, unreadable or corrupt file, an unknown name or a thread count above
 * the cores: one warning line (rank 0 of MPI_COMM_WORLD) and the safe default.
 */
#ifndef HYBRIDKIT_COLL_H
#define HYBRIDKIT_COLL_H

#include <mpi.h>
#include "hybridkit/error.h"
#include "hybridkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hk_allreduce_alg {
  HK_ALLREDUCE_AUTO = 0,        /* tuning table, else HK_ALLREDUCE_ALGORITHM, else the model */
  HK_ALLREDUCE_MPI = 1,
  HK_ALLREDUCE_CHUNKED = 2,
  HK_ALLREDUCE_CHUNKED_SHIFTED = 3,
  HK_ALLREDUCE_HIERARCHICAL = 4,
  HK_ALLREDUCE_ALG_COUNT
} hk_allreduce_alg_t;

/* Why `mpi` ran instead of a hybrid algorithm. */
typedef enum hk_allreduce_fallback {
  HK_FALLBACK_NONE = 0,          /* the hybrid algorithm ran */
  HK_FALLBACK_CHOSEN,            /* mpi was asked for (options, table, environment) */
  HK_FALLBACK_SMALL,             /* message below the tiny-message threshold */
  HK_FALLBACK_NONCOMMUTATIVE,    /* op is not commutative */
  HK_FALLBACK_IN_PARALLEL,       /* no longer reported (kept for the numbering): inside a
                                    parallel region the algorithm runs on the calling thread */
  HK_FALLBACK_THREAD_LEVEL,      /* MPI provides less than MPI_THREAD_MULTIPLE */
  HK_FALLBACK_ONE_THREAD,        /* only one thread (or one chunk) available */
  HK_FALLBACK_DATATYPE,          /* hierarchical needs a contiguous datatype */
  HK_FALLBACK_INTERCOMM,         /* inter-communicators are passed through */
  HK_FALLBACK_ONE_RANK,          /* a communicator of one rank (MPI only copies) */
  HK_FALLBACK_NODES,             /* hierarchical: every node has one rank, or HK_NODE_SIZE
                                    cannot group this communicator */
  HK_FALLBACK_MODEL,             /* auto: the model of the node says MPI wins (one rank per
                                    node and one usable core, oversubscribed cores) */
  HK_FALLBACK_SETUP,             /* creating duplicates / the node window failed on a rank
                                    (agreed by all ranks; the algorithm stays off on comm) */
  HK_FALLBACK_UNAVAILABLE,       /* the collective has no such algorithm (hk_scan, hk_exscan:
                                    chunked-shifted and hierarchical) */
  HK_FALLBACK_COUNT
} hk_allreduce_fallback_t;

typedef struct hk_allreduce_info {
  hk_allreduce_alg_t algorithm;     /* what ran (never AUTO) */
  int threads;                      /* threads that took part (1 for mpi) */
  hk_allreduce_fallback_t fallback; /* HK_FALLBACK_NONE unless mpi replaced a hybrid one */
  int mpi_error;                    /* MPI's code when the PMPI_Allreduce that ran as `mpi`
                                       failed (its error handler was called), else 0 */
} hk_allreduce_info_t;

typedef struct hk_allreduce_opts {
  hk_allreduce_alg_t algorithm;  /* AUTO (default) or a fixed algorithm */
  int threads;                   /* HK_DEFAULT: table / HK_ALLREDUCE_THREADS / OMP max threads */
  long long min_bytes;           /* tiny-message threshold: messages of fewer bytes go to MPI;
                                    HK_DEFAULT: table / HK_ALLREDUCE_MIN_BYTES / 16384;
                                    1 accelerates every message; < 0 is HK_ERR_ARG */
  hk_allreduce_info_t *info;     /* out, may be NULL: what ran */
} hk_allreduce_opts_t;

/* Designated-initialiser defaults: hk_allreduce_opts_t o = HK_ALLREDUCE_OPTS_DEFAULT; */
#define HK_ALLREDUCE_OPTS_DEFAULT {HK_ALLREDUCE_AUTO, HK_DEFAULT, HK_DEFAULT, NULL}

/* hk_allreduce: MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm) by
 * the algorithm of opts (NULL: defaults).  sendbuf may be MPI_IN_PLACE.  Any
 * datatype and op MPI_Allreduce takes; see the file comment for fallbacks.
 * opts must be the same on all ranks.  Works without hk_init (only MPI needed).
 * Returns HK_SUCCESS, HK_ERR_ARG (count < 0, NULL buffers with count > 0),
 * HK_ERR_MPI (an MPI call of the algorithm failed: recvbuf is then undefined),
 * HK_ERR_NOMEM.  Set-up failures are agreed and become HK_FALLBACK_SETUP.
 * Collective: comm.  Threads: any thread (inside a parallel region the
 * algorithm runs on the calling thread alone); one call at a time per
 * communicator; with more than one thread the algorithms need
 * MPI_THREAD_MULTIPLE (agreed per communicator: fallback otherwise).
 * Errors: see above. */
HK_EXPORT int hk_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, const hk_allreduce_opts_t *opts);

/* hk_reduce: MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm) by the
 * algorithm of opts (NULL: defaults), with hk_allreduce's options, info and
 * fallback reasons (one set of types for the reductions: the fields mean the
 * same).  sendbuf may be MPI_IN_PLACE at the root (the root's operand is then in
 * recvbuf); recvbuf matters at the root only (NULL elsewhere is fine).
 *   chunked          thread t: PMPI_Reduce of chunk t to root on duplicate t
 *                    (rank order kept: also for non-commutative ops)
 *   chunked-shifted  as chunked on the rotated communicators (root (root - t) mod P
 *                    there): commutative ops only
 *   hierarchical     hk_allreduce's node phase (window, L x T workers), the node
 *                    leaders reduce chunked to the leader of root's node, root
 *                    copies the result out: contiguous types, commutative ops
 *   auto             the collective's tuning-table row, else HK_REDUCE(_SCATTER)_ALGORITHM
 *                    / HK_COLL_ALGORITHM, else the model: oversubscribed -> mpi; MULTIPLE, spare cores and 2 useful
 *                    chunks -> chunked; else mpi (hierarchical only when asked
 *                    for: it did not beat PMPI_Reduce, docs/coll.md)
 * Threads: opts, else the table row's, else HK_REDUCE(_SCATTER)_THREADS /
 * HK_COLL_THREADS, else the agreed OpenMP threads; threshold: opts, else
 * HK_REDUCE(_SCATTER)_MIN_BYTES / HK_COLL_MIN_BYTES / the table's / 16384 (bytes
 * of count elements).  info->mpi_error: PMPI_Reduce's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (count < 0, root outside comm: arguments equal
 * on all ranks), HK_ERR_MPI, HK_ERR_NOMEM.  recvbuf at the root is not checked
 * (a check on one rank alone would leave the others waiting): MPI's rule.
 * Collective: comm.  Threads: any thread, as hk_allreduce (same thread-level
 * rules, agreed per communicator).  Errors: see above. */
HK_EXPORT int hk_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, const hk_allreduce_opts_t *opts);

/* hk_reduce_scatter_block: MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount,
 * datatype, op, comm): sendbuf holds P blocks of recvcount elements, rank r
 * receives the reduction of block r.  MPI_IN_PLACE: the P blocks are in recvbuf,
 * the result replaces its first block.  Options and info as hk_reduce.
 *   chunked          every block split in T chunks alike; thread t packs chunk
 *                    t of the P blocks (a per-communicator scratch buffer, grown
 *                    with one agreement) and runs PMPI_Reduce_scatter_block of
 *                    it on duplicate t (rank order kept)
 *   chunked-shifted  as chunked on the rotated communicators (blocks packed in
 *                    their rank order): commutative ops only
 *   hierarchical     the node phase over all P x recvcount elements, then (more
 *                    than one node) the leaders allreduce the vector chunked;
 *                    each rank copies its block out.  auto takes it (commutative
 *                    op, contiguous type) on one node only (across nodes the
 *                    leaders move the whole vector), else chunked as hk_reduce
 * The chunked families need a datatype with extent > 0 whose data lie within
 * its extent (true extent <= extent), else fallback `datatype`.  Threshold:
 * bytes of the P x recvcount elements.  info->mpi_error: the code of
 * PMPI_Reduce_scatter_block when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (recvcount < 0, NULL recvbuf with recvcount > 0),
 * HK_ERR_MPI, HK_ERR_NOMEM.  Collective: comm.  Threads: as hk_reduce.
 * Errors: see above. */
HK_EXPORT int hk_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const hk_allreduce_opts_t *opts);

/* Data-movement collectives (issue 39): hk_bcast, hk_allgather, hk_alltoall take
 * hk_allreduce's options, info and fallback reasons; the algorithm names keep their
 * meaning (chunked: T chunks moved concurrently by T threads on the duplicates;
 * chunked-shifted: on the rotated communicators; hierarchical: through the node's
 * shared-memory window, the copies by the threads).  MPI lets ranks describe one
 * message by different (count, datatype) pairs of one signature: the hybrid paths
 * decide from the bytes and the contiguity of the type, so ranks must not mix a
 * contiguous and a non-contiguous description (or, for allgather/alltoall, different
 * send/receive counts) -- such a program needs algorithm mpi (HK_<KIND>_ALGORITHM=mpi
 * under the preload). */
/* hk_bcast: MPI_Bcast of count elements of datatype from root over comm by the
 * algorithm of opts (NULL: defaults), with hk_allreduce's options, info and fallback
 * reasons.  Root may be any rank.
 *   chunked          the message split in T chunks (64-byte aligned), broadcast
 *                    concurrently by T threads on T duplicates of comm
 *   chunked-shifted  as chunked on the rotated communicators (root rotated with them)
 *   hierarchical     through the node's shared-memory window: root copies in (its
 *                    threads), the node leaders broadcast among themselves (chunked on
 *                    their duplicates when more than one node), every other rank copies
 *                    out (its threads); contiguous types only (else fallback `datatype`)
 *   auto             the bcast row of the tuning table, else HK_BCAST_ALGORITHM /
 *                    HK_COLL_ALGORITHM, else hierarchical from 4 KiB to below 1 MiB when
 *                    comm is one node that is not oversubscribed, else mpi (`model`)
 * Threshold: messages of fewer than min_bytes bytes (count x type size; HK_DEFAULT:
 * HK_BCAST_MIN_BYTES / HK_COLL_MIN_BYTES / table / built-in) go to MPI (`small`).
 * Datatypes: a contiguous type is moved as bytes, so ranks may describe the message by
 * different (count, datatype) pairs of one signature, as MPI_Bcast allows; with a
 * non-contiguous type (chunked by elements) every rank must pass the same count and a
 * non-contiguous type -- a mix of contiguous and non-contiguous descriptions across
 * ranks needs algorithm mpi.
 * Inside a parallel region the calling thread alone runs the same messages.
 * Returns HK_SUCCESS, HK_ERR_ARG (negative count, root outside comm, NULL buffer with
 * count > 0, invalid algorithm, min_bytes < 0), HK_ERR_MPI, HK_ERR_NOMEM.
 * Collective: comm.  Threads: as hk_reduce (at FUNNELED / SERIALIZED the chunked
 * families fall back `thread-level`, hierarchical copies on the calling thread).
 * Errors: see above; set-up failures anywhere become fallback `setup` on every rank. */
HK_EXPORT int hk_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       const hk_allreduce_opts_t *opts);
/* hk_allgather: MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
 * recvtype, comm) by the algorithm of opts (NULL: defaults), with hk_allreduce's
 * options, info and fallback reasons.  sendbuf may be MPI_IN_PLACE (the rank's block
 * is then in recvbuf already).  A block is one rank's sendcount elements.
 *   chunked          every block split in T chunks alike; thread t allgathers chunk
 *                    t of every block on duplicate t (one element of a type of the
 *                    chunk's elements resized to a block's extent: no packing)
 *   chunked-shifted  as chunked on the rotated communicators (PMPI_Allgatherv with
 *                    the blocks' displacements rotated back)
 *   hierarchical     each rank copies its block into the node's shared window (its
 *                    threads), the node leaders allgather the nodes' blocks (chunked
 *                    over their threads), every rank copies the P blocks out (its
 *                    threads); real and virtual (HK_NODE_SIZE) nodes
 *   auto             the tuning table's / environment's algorithm for allgather,
 *                    else mpi (no gain measured on 2 cores: docs/coll.md)
 * Fallback `datatype`: chunked families for sendcount != recvcount (sendtype and
 * recvtype may differ when the counts are equal) or an extent <= 0; hierarchical
 * for a non-contiguous sendtype or recvtype.  Threshold: bytes of the P blocks.
 * info->mpi_error: PMPI_Allgather's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (negative counts, NULL recvbuf with recvcount > 0,
 * an invalid algorithm, min_bytes < 0), HK_ERR_MPI, HK_ERR_NOMEM.
 * Collective: comm.  Threads: any thread, as hk_reduce (the chunked families need
 * MPI_THREAD_MULTIPLE, agreed per communicator: fallback thread-level otherwise).
 * Errors: see above. */
HK_EXPORT int hk_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           const hk_allreduce_opts_t *opts);
/* hk_alltoall: MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
 * recvtype, comm) by the algorithm of opts (NULL: defaults), options, info and
 * fallbacks as hk_allgather.  sendbuf may be MPI_IN_PLACE (the send data are then in
 * recvbuf).
 *   chunked          thread t: PMPI_Alltoall of chunk t of every block on
 *                    duplicate t (resized types, as hk_allgather)
 *   chunked-shifted  as chunked on the rotated communicators (PMPI_Alltoallv)
 *   hierarchical     one node only (fallback `nodes` across nodes): each rank copies
 *                    its P blocks into its slot of the node window, rank r copies
 *                    block r of every slot out (the copies by its threads)
 *   auto             the tuning table's / environment's algorithm for alltoall,
 *                    else mpi (no gain measured on 2 cores: docs/coll.md)
 * Datatypes as hk_allgather.  info->mpi_error: PMPI_Alltoall's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (as hk_allgather), HK_ERR_MPI, HK_ERR_NOMEM.
 * Collective: comm.  Threads: any thread, as hk_allgather.  Errors: see above. */
HK_EXPORT int hk_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          const hk_allreduce_opts_t *opts);

/* hk_allgatherv: MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
 * displs, recvtype, comm) by the algorithm of opts (NULL: defaults), options, info and
 * fallbacks as hk_allgather.  sendbuf may be MPI_IN_PLACE (the rank's block is then at
 * its displacement in recvbuf).  Block j: recvcounts[j] elements at displs[j].
 *   chunked          every block split in T parts alike (part t of recvcounts[j]
 *                    elements, aligned as hk_allreduce's chunks); thread t allgathers
 *                    part t of every block on duplicate t (PMPI_Allgatherv with the
 *                    parts' counts and displacements: no packing; empty parts too)
 *   chunked-shifted  as chunked on the rotated communicators (counts and
 *                    displacements rotated with them)
 *   hierarchical     not available (fallback `unavailable`)
 *   auto             the allgather row of the tuning table / HK_ALLGATHER_ALGORITHM /
 *                    HK_COLL_ALGORITHM, else mpi (as hk_allgather: no gain measured)
 * Fallback `datatype`: sendtype and recvtype of different sizes (not in place; decided
 * from the types, not the counts, so a rank sending nothing decides as the others), an
 * extent <= 0.
 * Threshold: HK_ALLGATHER_MIN_BYTES's kind, bytes of all blocks (sum of recvcounts x
 * the recvtype size).  info->mpi_error: PMPI_Allgatherv's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (NULL recvcounts or displs, a negative count, an
 * invalid algorithm, min_bytes < 0), HK_ERR_MPI, HK_ERR_NOMEM.
 * Collective: comm.  Threads: any thread, as hk_allgather.  Errors: see above. */
HK_EXPORT int hk_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int *recvcounts, const int *displs,
                            MPI_Datatype recvtype, MPI_Comm comm, const hk_allreduce_opts_t *opts);
/* hk_alltoallv: MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
 * recvcounts, rdispls, recvtype, comm) by the algorithm of opts (NULL: defaults),
 * options, info and fallbacks as hk_allgather.  sendbuf may be MPI_IN_PLACE (MPI-2.2:
 * the data are in recvbuf, described by recvcounts and rdispls; sendcounts, sdispls and
 * sendtype are ignored).  Block (i, j): what rank i sends rank j, known to i and j only.
 *   chunked          every block split in T parts alike (part t of its count, aligned
 *                    as hk_allreduce's chunks); thread t exchanges part t of every
 *                    block on duplicate t (PMPI_Alltoallv with the parts' counts and
 *                    displacements: no packing; empty parts too; in place too)
 *   chunked-shifted  as chunked on the rotated communicators
 *   hierarchical     not available (fallback `unavailable`)
 *   auto             the alltoallv row of the tuning table / HK_ALLTOALLV_ALGORITHM /
 *                    HK_COLL_ALGORITHM, else mpi (as hk_alltoall: no gain measured)
 * Threshold: HK_ALLTOALLV_MIN_BYTES's kind, the most bytes any rank sends or receives;
 * built in: never (LLONG_MAX), so by default this is PMPI_Alltoallv.  With a threshold
 * in force (or opts->min_bytes) every call first agrees on the size, the largest count,
 * the datatype verdict and the chunk granularity (one PMPI_Allreduce of 4 long longs
 * over comm): ranks know only their own counts.
 * Fallback `datatype`: on some rank sendtype and recvtype of different sizes (not in
 * place), an extent <= 0 or a displacement + count beyond INT_MAX (agreed).
 * info->mpi_error: PMPI_Alltoallv's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (a NULL count or displacement array, a negative count,
 * an invalid algorithm, min_bytes < 0), HK_ERR_MPI, HK_ERR_NOMEM.
 * Collective: comm.  Threads: any thread, as hk_allgather.  Errors: see above. */
HK_EXPORT int hk_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                           MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                           const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                           const hk_allreduce_opts_t *opts);
/* hk_reduce_scatter: MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
 * comm): sendbuf holds P consecutive blocks, block j of recvcounts[j] elements; rank r
 * receives the reduction of block r.  MPI_IN_PLACE: the blocks are in recvbuf, the
 * result replaces its beginning.  Options, info and fallbacks as hk_reduce.
 *   chunked          part t of every block (as hk_allgatherv's parts) packed into column
 *                    t of a per-communicator scratch buffer (every column packed before
 *                    any is reduced), PMPI_Reduce_scatter of column t on duplicate t
 *                    (rank order kept: any op)
 *   chunked-shifted  as chunked on the rotated communicators: commutative ops only
 *   hierarchical     not available (fallback `unavailable`)
 *   auto             the reduce_scatter row of the tuning table / HK_REDUCE_SCATTER_* /
 *                    HK_COLL_*, else chunked when comm is not oversubscribed, MPI provides
 *                    MULTIPLE and spare cores give 2 useful parts, else mpi
 * Fallback `datatype`: an extent <= 0 or data outside the extent.  Threshold:
 * HK_REDUCE_SCATTER_MIN_BYTES's kind, bytes of all blocks.  info->mpi_error:
 * PMPI_Reduce_scatter's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (NULL recvcounts, a negative count, an invalid
 * algorithm, min_bytes < 0), HK_ERR_MPI, HK_ERR_NOMEM.
 * Collective: comm.  Threads: any thread, as hk_reduce.  Errors: see above. */
HK_EXPORT int hk_reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                const hk_allreduce_opts_t *opts);
/* hk_scan: MPI_Scan(sendbuf, recvbuf, count, datatype, op, comm) by the algorithm of
 * opts (NULL: defaults), with hk_allreduce's options, info and fallback reasons: rank r
 * receives the reduction of ranks 0..r, in rank order.  sendbuf may be MPI_IN_PLACE
 * (the operand is then in recvbuf).  Any datatype and op MPI_Scan takes, user ops and
 * non-commutative ones included.
 *   chunked          the vector split in T chunks (aligned as hk_allreduce's), thread t
 *                    scans chunk t on duplicate t: every op is elementwise, so this is
 *                    MPI's result in rank order for every op
 *   chunked-shifted, hierarchical   not available for a scan (fallback `unavailable`:
 *                    a rotated communicator changes the prefix order; docs/coll.md)
 *   auto             the scan row of the tuning table, else HK_SCAN_ALGORITHM /
 *                    HK_COLL_ALGORITHM, else chunked when comm is not oversubscribed,
 *                    MPI provides MULTIPLE and spare cores give 2 useful chunks, else mpi
 * Fallback `datatype`: an extent <= 0.  Threshold: bytes of count elements (HK_DEFAULT:
 * HK_SCAN_MIN_BYTES / HK_COLL_MIN_BYTES / the table's / 16384).  info->mpi_error:
 * PMPI_Scan's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (count < 0, NULL recvbuf with count > 0, an invalid
 * algorithm, min_bytes < 0), HK_ERR_MPI, HK_ERR_NOMEM.
 * Collective: comm.  Threads: any thread, as hk_reduce (chunked needs
 * MPI_THREAD_MULTIPLE, agreed per communicator: fallback thread-level otherwise).
 * Errors: see above. */
HK_EXPORT int hk_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, const hk_allreduce_opts_t *opts);
/* hk_exscan: MPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm): rank r > 0
 * receives the reduction of ranks 0..r-1; rank 0's recvbuf is undefined, as in MPI
 * (hybridkit writes nothing there; MPI's PMPI_Exscan per chunk decides).  Algorithms,
 * options, fallbacks and threshold as hk_scan, with HK_EXSCAN_* and the table's exscan
 * row.  info->mpi_error: PMPI_Exscan's code when `mpi` ran.
 * Returns HK_SUCCESS, HK_ERR_ARG (as hk_scan; recvbuf is not checked), HK_ERR_MPI,
 * HK_ERR_NOMEM.  Collective: comm.  Threads: any thread, as hk_scan.  Errors: see above. */
HK_EXPORT int hk_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, const hk_allreduce_opts_t *opts);

/* Names: "auto", "mpi", "chunked", "chunked-shifted", "hierarchical".
 * Collective: local.  Threads: any thread.  Errors: none (an unknown value gives "invalid"). */
HK_EXPORT const char *hk_allreduce_alg_name(hk_allreduce_alg_t alg);
/* hk_allreduce_alg_parse: a name above -> alg; HK_ERR_ARG listing them otherwise.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG naming the known names. */
HK_EXPORT int hk_allreduce_alg_parse(const char *name, hk_allreduce_alg_t *alg);
/* Names: "none", "chosen", "small", "non-commutative", "in-parallel",
 * "thread-level", "one-thread", "datatype", "intercomm", "one-rank", "nodes",
 * "model", "setup", "unavailable".
 * Collective: local.  Threads: any thread.  Errors: none (an unknown value gives "invalid"). */
HK_EXPORT const char *hk_allreduce_fallback_name(hk_allreduce_fallback_t reason);

/* hk_coll_config: the process-wide configuration read from the environment and
 * the tuning table (loaded at the first call; warnings printed then).
 * table_rows is 0 without a usable table; source names the file or "defaults".
 * Collective: local.  Threads: any thread. */
typedef struct hk_coll_config {
  const char *source;           /* tuning file path, or "defaults" */
  int table_rows;
  hk_allreduce_alg_t algorithm; /* HK_ALLREDUCE_ALGORITHM, else HK_COLL_ALGORITHM (AUTO when
                                   unset/invalid) */
  int threads;                  /* HK_ALLREDUCE_THREADS, else HK_COLL_THREADS, 0 when unset
                                   (clamped to the cores per call) */
  long long min_bytes;          /* the tiny-message threshold in force */
  int nwarnings;                /* warnings issued while loading */
  /* the thresholds in force for the other collectives (bytes as docs/coll.md defines
   * each one's message size); min_bytes above is the allreduce's */
  long long reduce_min_bytes, reduce_scatter_min_bytes, bcast_min_bytes, allgather_min_bytes,
      alltoall_min_bytes, scan_min_bytes, exscan_min_bytes;
  long long alltoallv_min_bytes; /* LLONG_MAX built in: never (hk_alltoallv) */
} hk_coll_config_t;
/* hk_coll_config: Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_coll_config(hk_coll_config_t *config);

#ifdef __cplusplus
}
#endif
#endif
