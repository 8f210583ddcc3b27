/* src/coll/coll_internal.h: private to the hybrid collectives (never installed).
 *
 *   config.c        environment + tuning table (HK_COLL_TUNING), loaded once
 *   cache.c         per-communicator state cached as an attribute: the agreed
 *                   configuration and the duplicates / rotated communicators /
 *                   node window, created at first use, freed with the comm
 *   allreduce.c     hk_allreduce: the decision (fallbacks) and the dispatch table
 *   chunked.c       chunk ranges and the thread-parallel chunk reduction
 *   hierarchical.c  node-level reduction through a shared-memory window
 *   reduce.c        hk_reduce, hk_reduce_scatter_block: decisions, chunked runs
 *   reduce_node.c   their hierarchical variants
 *   bcast.c         hk_bcast
 *   gather.c        hk_allgather, hk_alltoall
 *   gather_node.c   their hierarchical variants
 *   decide.c        the steps the decisions of the collectives share, and the
 *                   bookkeeping of their MPI fallback
 *   numa.c          chunked-shifted's NUMA-aware order of the chunks over the threads
 *   scan.c          hk_scan, hk_exscan
 *   vcoll.c         hk_allgatherv, hk_reduce_scatter (per-rank counts)
 *   alltoallv.c     hk_alltoallv (per-pair counts, an agreed decision)
 *
 * Every MPI call here goes to PMPI_*, so the preload library's MPI_Allreduce
 * can call hk_allreduce without recursion.
 */
#ifndef HK_COLL_INTERNAL_H
#define HK_COLL_INTERNAL_H

#include <stddef.h>
#include "internal/hk_internal.h"

#define HK_COLL_MAX_ROWS 64
#define HK_COLL_MAX_THREADS 64
#define HK_COLL_DEFAULT_MIN_BYTES 16384LL
#define HK_COLL_LINE 64

typedef struct hk__tune_row {
  long long max_bytes;        /* -1: no limit */
  hk_allreduce_alg_t alg;
  int threads;
} hk__tune_row_t;

typedef struct hk__coll_config {
  char source[512];           /* tuning file or "defaults" */
  int nrows;
  hk__tune_row_t rows[HK_COLL_MAX_ROWS];
  long long table_min_bytes;  /* -1 when the table gives none */
  hk_allreduce_alg_t env_alg; /* AUTO when unset or unknown */
  int env_threads;            /* 0 when unset or invalid */
  long long min_bytes;        /* in force: env, else table, else the default */
  unsigned hash;              /* of everything above: ranks must agree */
  int nwarnings;
} hk__coll_config_t;

/* The process's configuration (loaded at the first call, thread-safe). */
const hk__coll_config_t *hk__coll_config(void);
/* The row for a message of `bytes`, NULL without a table. */
const hk__tune_row_t *hk__coll_row(const hk__coll_config_t *cfg, long long bytes);
/* Per collective: the knobs of the configuration for one kind of collective
 * (environment and tuning table).  Every decision of a collective takes its
 * threshold, table row, algorithm and threads from these. */
typedef enum hk__coll_kind {
  HK__COLL_ALLREDUCE = 0,
  HK__COLL_REDUCE,
  HK__COLL_REDUCE_SCATTER,
  HK__COLL_BCAST,
  HK__COLL_ALLGATHER,
  HK__COLL_ALLTOALL,
  HK__COLL_SCAN,
  HK__COLL_EXSCAN,
  HK__COLL_ALLTOALLV,
  HK__COLL_KINDS
} hk__coll_kind_t;
/* The row of the kind's table for a message of `bytes`, NULL without one. */
const hk__tune_row_t *hk__coll_row_of(const hk__coll_config_t *cfg, hk__coll_kind_t kind,
                                      long long bytes);
/* The algorithm named by the environment for the kind (AUTO: none). */
hk_allreduce_alg_t hk__coll_env_alg(const hk__coll_config_t *cfg, hk__coll_kind_t kind);
/* The threads named by the environment for the kind (0: none). */
int hk__coll_env_threads(const hk__coll_config_t *cfg, hk__coll_kind_t kind);
/* The tiny-message threshold in force for the kind. */
long long hk__coll_min_bytes(const hk__coll_config_t *cfg, hk__coll_kind_t kind);
/* The fallback fixed before any hybrid step, alike on every rank (decide.c): chosen when
 * o asks for mpi, small when nothing moves (count 0) or bytes is below the threshold
 * (o->min_bytes; HK_DEFAULT: the kind's), else none. */
hk_allreduce_fallback_t hk__coll_early(const hk_allreduce_opts_t *o, hk__coll_kind_t kind,
                                       long long count, long long bytes);
/* One warning line "hybridkit: warning: ..." from rank 0 of MPI_COMM_WORLD. */
void hk__coll_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a tuning table from text; HK_ERR_ARG with the reason in `why`. */
int hk__coll_parse_table(const char *text, hk__coll_config_t *cfg, char *why, size_t nwhy);

typedef struct hk__coll_cache {
  MPI_Comm comm;
  int rank, size;
  int cores;              /* agreed: min over ranks of the CPUs in the affinity mask */
  int usable;             /* agreed: min over ranks of the usable cores (the affinity
                             mask, at most the online CPUs / ranks sharing the node) */
  int oversubscribed;     /* agreed: some node has more ranks than CPUs */
  int default_threads;    /* agreed: min over ranks of omp_get_max_threads() */
  int ncomms;             /* duplicates per family: max(cores, default_threads) */
  int multiple;           /* agreed: every rank has MPI_THREAD_MULTIPLE */
  int config_ok;          /* every rank has the same configuration */
  MPI_Comm *dup;          /* chunked: ncomms duplicates (created at first use) */
  MPI_Comm *shifted;      /* chunked-shifted: ranks rotated by t */
  int failed[HK_ALLREDUCE_ALG_COUNT]; /* agreed: set-up of that algorithm failed somewhere */
  /* hierarchical (and the model of auto) */
  int nodes_state;        /* 0 not made yet, 1 made, -1 cannot be made (agreed) */
  hk_nodes_t *nodes;
  int local_rank, local_size, nnodes, max_local;
  int leaders_made;       /* leaders and leader_dup made (on every rank alike) */
  MPI_Comm leaders;       /* node leaders (MPI_COMM_NULL elsewhere) */
  MPI_Comm *leader_dup;   /* ncomms duplicates of leaders */
  MPI_Win win;
  size_t cap;             /* bytes of one slot */
  char **slot;            /* local_size pointers into the window */
  char *result;           /* the node's result area (in the leader's segment) */
  char *scratch;          /* chunked packing and per-part counts (reduce.c, vcoll.c) */
  size_t scratch_cap;     /* its bytes; grown with one agreement, freed with the cache */
  struct hk__coll_cache *next;
} hk__coll_cache_t;

/* The cache of comm, created (collectively over comm) on first use. */
int hk__coll_cache_get(MPI_Comm comm, hk__coll_cache_t **cache);
/* Make the duplicates of one family (collective over comm at first use). */
int hk__coll_cache_dups(hk__coll_cache_t *c, int shifted);
/* The nodes of comm (collective at first use); nodes_state -1 when they cannot
 * be made (HK_NODE_SIZE does not divide comm: agreed, not an error). */
int hk__coll_cache_nodes(hk__coll_cache_t *c);
/* Leader communicator and its duplicates (collective at first use). */
int hk__coll_cache_leaders(hk__coll_cache_t *c);
/* The window holds at least `bytes` per slot (collective over the node). */
int hk__coll_cache_window(hk__coll_cache_t *c, size_t bytes);
/* All ranks of c->comm learn whether every one has ok != 0 (one PMPI_Allreduce):
 * set-up failures become a fallback agreed by all, never a hang. */
int hk__coll_agree_ok(hk__coll_cache_t *c, int ok, int *all_ok);

/* chunked.c: the element range [*lo, *lo + *n) of chunk c of nchunks, chunks
 * aligned to `gran` elements; the number of chunks worth running for count. */
void hk__chunk_range(long long count, long long gran, int nchunks, int c, long long *lo,
                     long long *n);
long long hk__chunk_granularity(MPI_Aint extent);
int hk__chunks_useful(long long count, long long gran, int threads);
/* fn(arg, c, lo, n) for every non-empty chunk c of nchunks of [0, count) (hk__chunk_range),
 * by a team of nchunks threads (with fewer, a thread takes c, c + team, ... in increasing
 * order); the first MPI error code fn returned, else MPI_SUCCESS. */
typedef int (*hk__chunk_fn)(void *arg, int c, long long lo, long long n);
int hk__each_chunk(long long count, MPI_Aint extent, int nchunks, hk__chunk_fn fn, void *arg);
/* The same with a team of exactly nchunks threads on a machine with several NUMA domains
 * (buf not NULL): thread t runs the chunk hk__numa_assign gives it (numa.c), chunk c still
 * on whatever fn does with c; buf NULL or one domain: hk__each_chunk's order. */
int hk__each_chunk_placed(const char *buf, long long count, MPI_Aint extent, int nchunks,
                          hk__chunk_fn fn, void *arg);
/* Reduce chunk t of [rbuf] (in place when sbuf is NULL) on comms[t], t < nchunks,
 * by a team of nchunks threads. */
int hk__run_chunks(const char *sbuf, char *rbuf, int count, MPI_Datatype type, MPI_Aint extent,
                   MPI_Op op, const MPI_Comm *comms, int nchunks);
/* hk__run_chunks with the NUMA placement of the chunks of sbuf (rbuf in place) when place != 0
 * (chunked-shifted) */
int hk__run_chunks_placed(int place, const char *sbuf, char *rbuf, int count, MPI_Datatype type,
                          MPI_Aint extent, MPI_Op op, const MPI_Comm *comms, int nchunks);
/* numa.c: of[t] = the chunk thread t takes, n <= HK_COLL_MAX_THREADS chunks and threads:
 * one on the thread's domain (chunk_dom[c] == thread_dom[t]) where one is left, the
 * lowest such first; the rest in increasing order; -1 domains match nothing.  One domain
 * for all: the identity. */
void hk__numa_assign(int n, const int *chunk_dom, const int *thread_dom, int *of);
/* NUMA domains of this machine (hwloc, cached; 1 when unknown). */
int hk__numa_nodes(void);
/* dom[c]: the logical NUMA domain holding most pages of chunk c of buf (-1: unknown). */
void hk__numa_chunk_domains(const char *buf, long long count, MPI_Aint extent, int nchunks,
                            int *dom);
/* The logical NUMA domain of the core the calling thread last ran on (-1: unknown). */
int hk__numa_thread_domain(void);
/* Thread-parallel copy of n bytes (a team of `threads`). */
void hk__parallel_copy(char *dst, const char *src, size_t n, int threads);

/* hierarchical.c */
int hk__allreduce_hierarchical(const char *sbuf, char *rbuf, int count, MPI_Datatype type,
                               MPI_Aint extent, MPI_Op op, hk__coll_cache_t *c, int threads);

/* hierarchical.c, for the other reductions: steps 1-2 (copy in, node reduction into
 * c->result, agreed over the node; the window must hold count elements), and a node
 * synchronisation that agrees on err (the lowest code wins on every rank of the node). */
int hk__coll_node_phase(hk__coll_cache_t *c, const char *own, int count, MPI_Datatype type,
                        MPI_Aint extent, MPI_Op op, int threads);
int hk__coll_node_agree(hk__coll_cache_t *c, int err);

/* reduce.c: grow c->scratch to `bytes` (kept, freed with the cache): the same call on
 * every rank (same bytes, same history on comm), so the agreement after it is
 * collective; *ok 0 when it failed somewhere (then freed everywhere alike) */
int hk__coll_scratch_grow(hk__coll_cache_t *c, size_t bytes, int *ok);

/* reduce.c / reduce_node.c: hk_reduce and hk_reduce_scatter_block.  One call: */
typedef enum hk__red_kind { HK__RED_REDUCE, HK__RED_SCATTER } hk__red_kind_t;
typedef struct hk__red_call {
  hk__red_kind_t kind;
  const char *sbuf;       /* NULL: MPI_IN_PLACE (the operand is in rbuf) */
  char *rbuf;             /* reduce: NULL or ignored at ranks other than root */
  int count;              /* elements chunked: count (reduce), recvcount (scatter) */
  MPI_Datatype type;
  MPI_Aint extent, tlb, textent;
  MPI_Op op;
  int root;               /* reduce only */
  hk__coll_cache_t *c;
} hk__red_call_t;
/* Thread-parallel PMPI_Reduce of chunk t of [out] (from `in`, NULL: MPI_IN_PLACE, at
 * the root only) to `root` on comms[t]; rotate > 0: comms[t] numbers rank r as
 * (r - t) mod rotate (the rotated family), so the root there is (root - t) mod rotate. */
int hk__reduce_chunks(const char *in, char *out, int count, MPI_Datatype type, MPI_Aint extent,
                      MPI_Op op, int root, const MPI_Comm *comms, int rotate, int nchunks);
/* PMPI_Reduce, except that under MPICH a root other than 0 that passes MPI_IN_PLACE
 * gives a copy of its operand instead (MPICH 4.0.2 crashes there: reduce.c) */
int hk__pmpi_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm);
/* PMPI_Reduce_scatter, except that under MPICH MPI_IN_PLACE gives a copy of the `total`
 * elements of the operand instead (MPICH 4.0.2 aborts there: reduce.c) */
int hk__pmpi_reduce_scatter(const void *sbuf, void *rbuf, const int *counts, long long total,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm);
/* reduce_node.c: hierarchical variants (nodes, leaders made by the caller) */
int hk__reduce_hierarchical(const hk__red_call_t *k, int threads);
int hk__reduce_scatter_hierarchical(const hk__red_call_t *k, int threads);

/* gather.c / gather_node.c: hk_allgather and hk_alltoall.  One call: */
typedef enum hk__ga_kind { HK__GA_ALLGATHER, HK__GA_ALLTOALL } hk__ga_kind_t;
typedef struct hk__ga_call {
  hk__ga_kind_t kind;
  const char *sbuf;       /* NULL: MPI_IN_PLACE */
  int count;              /* elements per block (sendcount == recvcount on hybrid paths) */
  MPI_Datatype stype, rtype;
  MPI_Aint sext, rext;
  char *rbuf;
  hk__coll_cache_t *c;
} hk__ga_call_t;
/* gather_node.c: hierarchical variants (contiguous types; nodes, leaders made by the
 * caller; alltoall on one node only) */
int hk__allgather_hierarchical(const hk__ga_call_t *k, int threads);
int hk__alltoall_hierarchical(const hk__ga_call_t *k, int threads);

/* decide.c: the shared steps of the collectives' decisions (see there) */
hk_allreduce_alg_t hk__coll_pick(const hk__coll_cache_t *c, const hk_allreduce_opts_t *o,
                                 hk__coll_kind_t kind, long long bytes, int *t_table);
int hk__coll_threads(const hk__coll_cache_t *c, const hk_allreduce_opts_t *o, int t_table,
                     hk__coll_kind_t kind, const char *fn);
int hk__coll_hier_nodes(hk__coll_cache_t *c, int across_nodes, hk_allreduce_fallback_t *why);
int hk__coll_enter(MPI_Comm comm, hk__coll_cache_t **c, hk_allreduce_info_t *info);
int hk__coll_contiguous(MPI_Datatype type);
/* hk__coll_choose: after hk__coll_early, the algorithm and threads of a call.  model:
 * auto's own choice for `call`, mpi or a hybrid algorithm (*threads in: the threads in
 * force, out: those to use); NULL: auto is mpi.  A model that makes a collective (that
 * may fail) is called by its file instead (reduce.c: lint.agree sees no collective
 * behind a function pointer). */
typedef hk_allreduce_alg_t (*hk__coll_model_fn)(const void *call, int *threads);
typedef struct hk__coll_choice {
  /* in */
  hk__coll_kind_t kind;
  long long bytes;            /* the table row's key */
  const char *fn;             /* named in the thread warning */
  hk__coll_model_fn model;
  const void *call;           /* model's argument */
  /* out */
  hk_allreduce_alg_t alg;     /* never AUTO */
  int threads;
  hk_allreduce_fallback_t why; /* alg mpi: model (auto's model) or chosen; else none */
} hk__coll_choice_t;
void hk__coll_choose(const hk__coll_cache_t *c, const hk_allreduce_opts_t *o,
                     hk__coll_choice_t *ch);
/* The chunked algorithms' set-up of one call (nothing when *why is set): the duplicates
 * (rotated for chunked-shifted) and `scratch` bytes of scratch (0: none); scratch that
 * cannot grow makes *why HK_FALLBACK_SETUP for this call only. */
int hk__coll_chunked_setup(hk__coll_cache_t *c, hk_allreduce_alg_t alg, size_t scratch,
                           hk_allreduce_fallback_t *why);
/* hk__coll_run: the choice (after the caller's own checks set its threads and why) ->
 * run(call, alg, threads), or the fallback in info */
typedef int (*hk__coll_run_fn)(const void *call, hk_allreduce_alg_t alg, int threads);
int hk__coll_run(hk__coll_cache_t *c, const hk__coll_choice_t *ch, hk__coll_run_fn run,
                 const void *call, hk_allreduce_info_t *info);

/* An MPI return code as HK_ERR_MPI with MPI's text. */
#define HK_COLL_MPI(rc, what) hk__mpi_error((rc), __FILE__, __LINE__, __func__, (what))

/* decide.c: the bookkeeping after a collective handed the call to MPI (its PMPI_* call
 * returned rc): info says algorithm mpi, 1 thread, mpi_error rc (info->fallback is
 * the caller's); HK_SUCCESS, or HK_ERR_MPI naming `call` and the caller's place. */
int hk__coll_mpi_done(hk_allreduce_info_t *info, int rc, const char *call, const char *file,
                      int line, const char *func);
#define HK_COLL_MPI_DONE(info, rc, call)                                                    \
  hk__coll_mpi_done((info), (rc), (call), __FILE__, __LINE__, __func__)

#endif
