/* src/coll/reduce.c: hk_reduce and hk_reduce_scatter_block (issue 39): the
 * decision (fallbacks, all from inputs equal on every rank, as hk_allreduce's)
 * and the chunked runs.  The hierarchical variants are in reduce_node.c.
 *
 *   reduce, chunked:      rank r [ c0 | c1 | c2 ]  thread t: PMPI_Reduce(c_t, root, dup[t])
 *   reduce-scatter, chunked (P = 2 blocks of recvcount, T = 2 chunks per block):
 *     sendbuf  [ b0.c0 | b0.c1 | b1.c0 | b1.c1 ]
 *     scratch  [ b0.c0 | b1.c0 | b0.c1 | b1.c1 ]   thread t packs column t, then
 *              \--- chunk 0 --/ \--- chunk 1 --/   PMPI_Reduce_scatter_block(column t,
 *                                                  recvbuf + c_t, |c_t|, dup[t])
 *   chunked-shifted: communicator t numbers rank r as (r - t) mod P, so its root is
 *   (root - t) mod P and its block j is rank (j + t) mod P's (packed in that order).
 *
 * Order of the fallbacks: mpi chosen, count 0 or below min_bytes, inter-communicator,
 * non-commutative op (shifted and hierarchical: they reorder; chunked keeps MPI's rank
 * order on a duplicate), one rank, the model (auto), then per algorithm: datatype
 * (scatter chunked: data outside the extent; hierarchical: not contiguous), thread
 * level and fewer than 2 useful chunks (chunked families), nodes (hierarchical), a
 * set-up that failed somewhere (agreed).
 *
 * auto's model: oversubscribed -> mpi; scatter with a commutative op, a contiguous
 * type, one node with 2+ ranks -> hierarchical; MULTIPLE and 2 useful chunks
 * (scatter: a packable type) -> chunked; else mpi.  Reduce never takes hierarchical
 * on its own (measured: see model()).  Before the model, as hk_allreduce's auto: the
 * kind's row of the tuning table (its algorithm and threads), else HK_REDUCE_ALGORITHM /
 * HK_REDUCE_SCATTER_ALGORITHM (else HK_COLL_ALGORITHM); threads and threshold the
 * kind's too (config.c), all only where the ranks agree on the configuration.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll_internal.h"

typedef struct {
  const char *in;
  char *out;
  MPI_Datatype type;
  MPI_Aint extent;
  MPI_Op op;
  int root, rotate;
  const MPI_Comm *comms;
} reduce_chunk_t;

#ifdef MPICH_VERSION
/* MPICH 4.0.2 (Debian 12) fails inside two collectives given MPI_IN_PLACE (plain MPICH, no
 * hybridkit): MPI_Reduce segfaults at a root other than rank 0 from about a thousand ints
 * on (tests/coll/reduce_conformance.c's in-place cases at the last rank), and
 * MPI_Reduce_scatter aborts with unequal counts at 65537 elements on 3-4 ranks ("memcpy
 * argument memory ranges overlap" in typerep_yaksa_pack.c: tests/coll/vcoll_conformance.c).
 * Both get a copy of the operand as the send buffer instead: *sbuf is the copy's element 0,
 * the return the memory to free; NULL (no memory, extent <= 0, nothing to copy): the call
 * as made.  MPI_IN_PLACE is a local property there (the root's, or every rank's), so the
 * calls of the other ranks are unchanged. */
static char *operand_copy(const void *buf, long long count, MPI_Datatype type, const void **sbuf)
{
  MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
  if (count <= 0 || PMPI_Type_get_extent(type, &lb, &ext) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS || ext <= 0 || text <= 0)
    return NULL;
  size_t span = (size_t)(count - 1) * (size_t)ext + (size_t)text;
  char *copy = malloc(span);
  if (copy) {
    memcpy(copy, (const char *)buf + tlb, span);
    *sbuf = copy - tlb;
  }
  return copy;
}
#endif

int hk__pmpi_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm)
{
  char *copy = NULL;
#ifdef MPICH_VERSION
  if (sbuf == MPI_IN_PLACE && root != 0)
    copy = operand_copy(rbuf, count, type, &sbuf);
#endif
  int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
  free(copy);
  return rc;
}

int hk__pmpi_reduce_scatter(const void *sbuf, void *rbuf, const int *counts, long long total,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  char *copy = NULL;
#ifdef MPICH_VERSION
  if (sbuf == MPI_IN_PLACE)
    copy = operand_copy(rbuf, total, type, &sbuf);
#else
  (void)total;
#endif
  int rc = PMPI_Reduce_scatter(sbuf, rbuf, counts, type, op, comm);
  free(copy);
  return rc;
}

static int reduce_chunk(void *arg, int c, long long lo, long long n)
{
  const reduce_chunk_t *a = arg;
  const void *s = a->in ? (const void *)(a->in + lo * a->extent) : MPI_IN_PLACE;
  void *r = a->out ? (void *)(a->out + lo * a->extent) : NULL;
  int rt = a->rotate > 0 ? (a->root - c % a->rotate + a->rotate) % a->rotate : a->root;
  return hk__pmpi_reduce(s, r, (int)n, a->type, a->op, rt, a->comms[c]);
}

int hk__reduce_chunks(const char *in, char *out, int count, MPI_Datatype type, MPI_Aint extent,
                      MPI_Op op, int root, const MPI_Comm *comms, int rotate, int nchunks)
{
  reduce_chunk_t a = {in, out, type, extent, op, root, rotate, comms};
  const char *at = rotate > 0 ? (in ? in : out) : NULL; /* shifted: NUMA order (numa.c) */
  int rc = hk__each_chunk_placed(at, count, extent, nchunks, reduce_chunk, &a);
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Reduce (chunk)");
}

/* scratch bytes for P blocks of count elements, and where element 0 sits in it */
static size_t scratch_need(const hk__red_call_t *k, size_t *base)
{
  size_t below = k->tlb < 0 ? (size_t)(-k->tlb) : 0, above = k->tlb > 0 ? (size_t)k->tlb : 0;
  *base = below;
  return below + (size_t)k->c->size * (size_t)k->count * (size_t)k->extent + above;
}

int hk__coll_scratch_grow(hk__coll_cache_t *c, size_t bytes, int *ok)
{
  int mine = 1, err;
  *ok = 1;
  if (bytes <= c->scratch_cap)
    return HK_SUCCESS;
  free(c->scratch);
  c->scratch = malloc(bytes);
  c->scratch_cap = c->scratch ? bytes : 0;
  mine = c->scratch != NULL;
  err = hk__coll_agree_ok(c, mine, ok);
  if (err == HK_SUCCESS && !*ok) { /* freed on every rank alike: the next call tries again */
    free(c->scratch);
    c->scratch = NULL;
    c->scratch_cap = 0;
  }
  return err;
}

typedef struct {
  const hk__red_call_t *k;
  const MPI_Comm *comms;
  char *scratch;
  const char *src;
  int shifted;
} scatter_chunk_t;

static int scatter_chunk(void *arg, int c, long long lo, long long n)
{
  const scatter_chunk_t *a = arg;
  const hk__red_call_t *k = a->k;
  const int P = k->c->size;
  const MPI_Aint ext = k->extent;
  /* the chunks before c hold P x lo elements; an element's data lie in
   * [tlb, tlb + textent) of its extent, so n elements span (n-1) ext + textent */
  char *col = a->scratch + (size_t)P * (size_t)lo * (size_t)ext;
  size_t span = (size_t)(n - 1) * (size_t)ext + (size_t)k->textent;
  int rot = a->shifted ? c % P : 0;
  for (int j = 0; j < P; j++) {
    long long blk = (j + rot) % P;
    memcpy(col + (size_t)j * (size_t)n * (size_t)ext + k->tlb,
           a->src + (size_t)(blk * k->count + lo) * (size_t)ext + k->tlb, span);
  }
  return PMPI_Reduce_scatter_block(col, k->rbuf + lo * ext, (int)n, k->type, k->op, a->comms[c]);
}

/* chunk t of the P blocks packed contiguously (in communicator t's rank order), then
 * reduce-scattered on comms[t] into recvbuf's chunk t */
static int scatter_chunks(const hk__red_call_t *k, const MPI_Comm *comms, int shifted,
                          int nchunks)
{
  size_t base = 0;
  scratch_need(k, &base);
  scatter_chunk_t a = {k, comms, k->c->scratch + base, k->sbuf ? k->sbuf : k->rbuf, shifted};
  int rc = hk__each_chunk(k->count, k->extent, nchunks, scatter_chunk, &a);
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Reduce_scatter_block (chunk)");
}

static int run(const void *call, hk_allreduce_alg_t alg, int threads)
{
  const hk__red_call_t *k = call;
  hk__coll_cache_t *c = k->c;
  int shifted = alg == HK_ALLREDUCE_CHUNKED_SHIFTED;
  const MPI_Comm *comms = shifted ? c->shifted : c->dup;
  if (alg == HK_ALLREDUCE_HIERARCHICAL)
    return k->kind == HK__RED_REDUCE ? hk__reduce_hierarchical(k, threads)
                                     : hk__reduce_scatter_hierarchical(k, threads);
  if (k->kind == HK__RED_SCATTER)
    return scatter_chunks(k, comms, shifted, threads);
  return hk__reduce_chunks(k->sbuf, k->rbuf, k->count, k->type, k->extent, k->op, k->root,
                           comms, shifted ? c->size : 0, threads);
}

/* what the decision knows about the call besides k */
typedef struct facts {
  int commute;
  int contiguous;   /* size == extent, no lower bound: hierarchical copies bytes */
  int packable;     /* extent > 0, data within the extent: the scatter's packing */
  int fits;         /* scatter hierarchical: P x recvcount elements fit an int */
  long long gran;
} facts_t;

static hk__coll_kind_t kind_of(const hk__red_call_t *k)
{
  return k->kind == HK__RED_REDUCE ? HK__COLL_REDUCE : HK__COLL_REDUCE_SCATTER;
}

/* t: opts', else the table row's (auto), else the kind's environment */
/* auto: the model of the file comment; *threads in, capped out */
static int model(const hk__red_call_t *k, const facts_t *f, hk_allreduce_alg_t *alg,
                 int *threads)
{
  int err = HK_SUCCESS;
  hk__coll_cache_t *c = k->c;
  int t = *threads < c->usable ? *threads : c->usable;
  *alg = HK_ALLREDUCE_MPI;
  if (c->oversubscribed)
    return HK_SUCCESS;
  /* reduce: hierarchical is never auto's (2 ranks x 1 thread: even with MPI at 1 MiB,
   * 2.5x slower at 64 KiB; reduce-scatter 1.1-4x faster: docs/coll.md, "Reduce and
   * reduce-scatter") */
  if (k->kind == HK__RED_SCATTER && f->commute && f->contiguous && f->fits &&
      !c->failed[HK_ALLREDUCE_HIERARCHICAL]) {
    HK_TRY(err, hk__coll_cache_nodes(c));
    if (k->kind == HK__RED_SCATTER && c->nodes_state > 0 && c->max_local >= 2 &&
        c->nnodes == 1) {
      *alg = HK_ALLREDUCE_HIERARCHICAL;
      *threads = c->multiple ? t : 1;
      return HK_SUCCESS;
    }
  }
  if (c->multiple && (k->kind == HK__RED_REDUCE || f->packable) &&
      hk__chunks_useful(k->count, f->gran, t) >= 2) {
    *alg = HK_ALLREDUCE_CHUNKED;
    *threads = t;
  }
cleanup:
  return err;
}

/* chunked families: the reason they cannot run, or their set-up */
static int check_chunked(const hk__red_call_t *k, const facts_t *f, hk_allreduce_alg_t alg,
                         int *threads, hk_allreduce_fallback_t *why)
{
  hk__coll_cache_t *c = k->c;
  size_t base;
  *threads = hk__chunks_useful(k->count, f->gran, *threads);
  if (k->kind == HK__RED_SCATTER && !f->packable)
    *why = HK_FALLBACK_DATATYPE;
  else if (!c->multiple)
    *why = HK_FALLBACK_THREAD_LEVEL;
  else if (*threads < 2)
    *why = HK_FALLBACK_ONE_THREAD;
  if (*why != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  return hk__coll_chunked_setup(c, alg, k->kind == HK__RED_SCATTER ? scratch_need(k, &base) : 0,
                                why);
}

static int check_hierarchical(const hk__red_call_t *k, const facts_t *f, int *threads,
                              hk_allreduce_fallback_t *why)
{
  hk__coll_cache_t *c = k->c;
  if (!c->multiple)
    *threads = 1; /* the node-level reduction wins with one thread per rank too */
  if (!f->commute)
    *why = HK_FALLBACK_NONCOMMUTATIVE;
  else if (!f->contiguous || !f->fits)
    *why = HK_FALLBACK_DATATYPE;
  return hk__coll_hier_nodes(c, 1, why);
}

static void type_facts(hk__red_call_t *k, int tsize, facts_t *f)
{
  MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
  PMPI_Type_get_extent(k->type, &lb, &ext);
  PMPI_Type_get_true_extent(k->type, &tlb, &text);
  k->extent = ext;
  k->tlb = tlb;
  k->textent = text;
  f->contiguous = lb == 0 && tlb == 0 && (MPI_Aint)tsize == ext && text == ext;
  f->packable = ext > 0 && text <= ext;
  f->fits = k->kind == HK__RED_REDUCE || (long long)k->c->size * k->count <= INT_MAX;
  f->gran = hk__chunk_granularity(ext);
}

/* the hybrid path, or the reason for the fallback in info->fallback */
static int hybrid(hk__red_call_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o, int tsize,
                  long long bytes, hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS, inter = 0;
  facts_t f = {1, 0, 0, 1, 1};
  hk_allreduce_alg_t alg = o->algorithm;
  PMPI_Op_commutative(k->op, &f.commute);
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    info->fallback = HK_FALLBACK_INTERCOMM;
  else if (!f.commute && (alg == HK_ALLREDUCE_CHUNKED_SHIFTED || alg == HK_ALLREDUCE_HIERARCHICAL))
    info->fallback = HK_FALLBACK_NONCOMMUTATIVE;
  if (info->fallback != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  HK_TRY(err, hk__coll_cache_get(comm, &k->c));
  hk__coll_cache_t *c = k->c;
  if (c->size == 1) {
    info->fallback = HK_FALLBACK_ONE_RANK;
    return HK_SUCCESS;
  }
  type_facts(k, tsize, &f);
  /* auto: the kind's table row, else its environment's algorithm, else the model */
  int t_table = 0;
  alg = hk__coll_pick(c, o, kind_of(k), bytes, &t_table);
  int modelled = alg == HK_ALLREDUCE_AUTO;
  int threads = hk__coll_threads(c, o, t_table, kind_of(k), "hk_reduce(_scatter_block)");
  if (alg == HK_ALLREDUCE_AUTO)
    HK_TRY(err, model(k, &f, &alg, &threads));
  hk_allreduce_fallback_t why = HK_FALLBACK_NONE;
  if (alg == HK_ALLREDUCE_MPI) /* the table's or the environment's: chosen */
    why = modelled ? HK_FALLBACK_MODEL : HK_FALLBACK_CHOSEN;
  else if (!f.commute && alg == HK_ALLREDUCE_CHUNKED_SHIFTED) /* the table's or environment's */
    why = HK_FALLBACK_NONCOMMUTATIVE;
  else if (alg == HK_ALLREDUCE_HIERARCHICAL)
    HK_TRY(err, check_hierarchical(k, &f, &threads, &why));
  else
    HK_TRY(err, check_chunked(k, &f, alg, &threads, &why));
  return hk__coll_run(c, &(hk__coll_choice_t){.alg = alg, .threads = threads, .why = why}, run, k,
                      info);
cleanup:
  return err;
}

/* the checks both collectives share; HK_SUCCESS with info->fallback set when MPI runs */
static int decide(hk__red_call_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o, int tsize,
                  long long bytes, hk_allreduce_info_t *info, const char *fn)
{
  if (k->count < 0 || (int)o->algorithm < 0 || (int)o->algorithm >= HK_ALLREDUCE_ALG_COUNT)
    return HK_ERROR(HK_ERR_ARG, "%s: invalid count %d or algorithm %d", fn, k->count,
                    (int)o->algorithm);
  if (o->min_bytes < 0)
    return HK_ERROR(HK_ERR_ARG, "%s: min_bytes %lld < 0 (HK_DEFAULT: the default threshold, "
                    "1: accelerate every message)", fn, o->min_bytes);
  info->fallback = hk__coll_early(o, kind_of(k), k->count, bytes);
  return info->fallback == HK_FALLBACK_NONE ? hybrid(k, comm, o, tsize, bytes, info)
                                            : HK_SUCCESS;
}

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

int hk_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm, const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o = opts ? opts : &defaults;
  hk_allreduce_info_t local = {HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = o->info ? o->info : &local;
  *info = local;
  int err = HK_SUCCESS, tsize = 0, inter = 0, size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_size(comm, &size);
  if (!inter && (root < 0 || root >= size)) /* inter-communicators: MPI_ROOT, ... (MPI's) */
    return HK_ERROR(HK_ERR_ARG, "hk_reduce: root %d outside the %d ranks of comm", root, size);
  PMPI_Type_size(datatype, &tsize);
  hk__red_call_t k = {HK__RED_REDUCE, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, recvbuf, count,
                      datatype, 0, 0, 0, op, root, NULL};
  err = decide(&k, comm, o, tsize, (long long)count * tsize, info, "hk_reduce");
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = hk__pmpi_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Reduce");
}

int hk_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o = opts ? opts : &defaults;
  hk_allreduce_info_t local = {HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = o->info ? o->info : &local;
  *info = local;
  int err = HK_SUCCESS, tsize = 0, size = 0;
  if (recvcount > 0 && !recvbuf)
    return HK_ERROR(HK_ERR_ARG, "hk_reduce_scatter_block: recvbuf is NULL");
  PMPI_Comm_size(comm, &size);
  PMPI_Type_size(datatype, &tsize);
  hk__red_call_t k = {HK__RED_SCATTER, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, recvbuf,
                      recvcount, datatype, 0, 0, 0, op, 0, NULL};
  err = decide(&k, comm, o, tsize, (long long)recvcount * tsize * size, info,
               "hk_reduce_scatter_block");
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Reduce_scatter_block");
}
