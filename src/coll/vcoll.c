/* src/coll/vcoll.c: the collectives with a count per rank (issue 39): hk_allgatherv and
 * hk_reduce_scatter: the decision (fallbacks, from inputs equal on every rank, as
 * hk_allgather's and hk_reduce_scatter_block's) and the chunked runs.
 *
 * Rank j's block has counts[j] elements.  Part t of block j is chunk t of counts[j]
 * elements split in T (hk__chunk_range: aligned as hk_allreduce's chunks), so every
 * rank computes every part alike.  Thread t moves part t of every block on duplicate t:
 *
 *   counts {5, 0, 9}, T = 2:   block 0 [ p0 | p1 ]  block 1 []  block 2 [ p0 | p1 ]
 *   thread t: PMPI_Allgatherv(own part t, counts_t = {|0.t|, 0, |2.t|},
 *                             displs_t = {displs[j] + lo(j, t)}, dup[t])
 *
 *   reduce-scatter (blocks consecutive in sendbuf): thread t packs part t of every
 *   block into its column of the scratch buffer (columns in part order), all threads
 *   wait (in place the result overwrites the blocks others still pack), then
 *   PMPI_Reduce_scatter(column t, recvbuf + lo(me, t), counts_t, dup[t]) (rank order
 *   kept: any op).
 *
 * chunked-shifted: communicator t numbers rank r as (r - t) mod P, so its position j is
 * rank (j + t) mod P: counts_t, displs_t (and the packed column) in that order;
 * commutative ops only for the reduce-scatter.  No hierarchical (fallback
 * `unavailable`): hk_allgather's node window keeps equal blocks.
 *
 * Every part is called on every rank, empty ones too (a zero-count collective): the
 * calls on a duplicate never depend on which blocks are empty.  The per-part count and
 * displacement arrays live in the communicator's scratch buffer (grown with one
 * agreement), so no allocation can fail on one rank between two collectives.
 *
 * Order of the fallbacks: mpi chosen, no element or below the threshold (bytes of all
 * blocks: what every rank receives or reduces), inter-communicator, one rank, the model
 * (auto), unavailable (hierarchical), non-commutative (shifted reduce-scatter),
 * datatype (allgatherv: send and receive types of different sizes or an extent <= 0;
 * reduce-scatter:
 * data outside the extent), thread level, fewer than 2 useful parts, a set-up that
 * failed somewhere (agreed).
 *
 * auto (no table row or environment; allgatherv takes allgather's, reduce-scatter
 * reduce_scatter's): allgatherv mpi as hk_allgather's (no gain measured on 2 cores);
 * reduce-scatter chunked as hk_reduce_scatter_block's chunked (not oversubscribed,
 * MULTIPLE, spare cores for 2 useful parts), else mpi.
 *
 * reduce-scatter's mpi runs hk__pmpi_reduce_scatter (reduce.c): under MPICH an in-place
 * call gives MPI a copy of the operand (MPICH 4.0.2 aborts in place with unequal counts).
 */
#include <limits.h>
#include <omp.h>
#include <string.h>
#include "coll/coll_internal.h"

typedef enum { V_ALLGATHERV, V_REDUCE_SCATTER } vkind_t;

typedef struct vcall {
  vkind_t kind;
  const char *sbuf;       /* NULL: MPI_IN_PLACE */
  int scount;             /* allgatherv */
  MPI_Datatype stype;
  MPI_Aint sext;
  char *rbuf;
  const int *counts;      /* P counts */
  const int *displs;      /* allgatherv: P displacements (elements of rtype) */
  MPI_Datatype rtype;     /* the type of both collectives' blocks */
  MPI_Aint rext, tlb, text;
  int ssize, rsize;       /* allgatherv: the types' sizes */
  MPI_Op op;
  long long total, maxcount;
  hk__coll_cache_t *c;
} vcall_t;

static const char *fn_of(const vcall_t *k)
{
  return k->kind == V_ALLGATHERV ? "hk_allgatherv" : "hk_reduce_scatter";
}

/* scratch layout: first[P] (reduce-scatter: block j's first element in sendbuf), then
 * per part 2 x P ints, then (reduce-scatter) the packed columns at a 64-byte boundary */
static size_t ints_bytes(int P, int nparts)
{
  size_t b = ((size_t)P + 2 * (size_t)P * (size_t)nparts) * sizeof(int);
  return (b + HK_COLL_LINE - 1) / HK_COLL_LINE * HK_COLL_LINE;
}

static size_t scratch_bytes(const vcall_t *k, int nparts)
{
  size_t b = ints_bytes(k->c->size, nparts);
  if (k->kind == V_REDUCE_SCATTER) /* below the first element, the elements, above */
    b += (size_t)(k->tlb < 0 ? -k->tlb : 0) + (size_t)k->total * (size_t)k->rext +
         (size_t)(k->tlb > 0 ? k->tlb : 0);
  return b;
}

typedef struct vrun {
  const vcall_t *k;
  const MPI_Comm *comms;
  int shifted, nparts;
  long long gran;
  int *first, *ints;
  char *pack;             /* where element 0 of the packed columns sits */
} vrun_t;

/* part t of block j */
static void part(const vrun_t *a, int j, int t, long long *lo, long long *n)
{
  hk__chunk_range(a->k->counts[j], a->gran, a->nparts, t, lo, n);
}

/* counts_t, displs_t in communicator t's order; the column's first element; my part */
static void layout(const vrun_t *a, int t, int *cnt, int *dsp, long long *col, long long *mylo)
{
  const vcall_t *k = a->k;
  const int P = k->c->size, rot = a->shifted ? t % P : 0;
  long long lo, n;
  *col = 0;
  for (int j = 0; j < P; j++) {
    part(a, j, t, &lo, &n);
    *col += lo; /* parts before t of every block */
  }
  long long at = 0;
  for (int j = 0; j < P; j++) {
    int b = (j + rot) % P;
    part(a, b, t, &lo, &n);
    cnt[j] = (int)n;
    dsp[j] = k->kind == V_ALLGATHERV ? k->displs[b] + (int)lo : (int)at;
    at += n;
  }
  part(a, k->c->rank, t, mylo, &n);
}

static void pack(const vrun_t *a, int t)
{
  const vcall_t *k = a->k;
  const int P = k->c->size, rot = a->shifted ? t % P : 0;
  const char *src = k->sbuf ? k->sbuf : k->rbuf;
  long long col, mylo, lo, n;
  int *cnt = a->ints + 2 * (size_t)P * t, *dsp = cnt + P;
  layout(a, t, cnt, dsp, &col, &mylo);
  for (int j = 0; j < P; j++) {
    int b = (j + rot) % P;
    part(a, b, t, &lo, &n);
    if (n > 0) /* n elements span (n - 1) extents + the true extent, from tlb */
      memcpy(a->pack + (col + dsp[j]) * k->rext + k->tlb,
             src + (a->first[b] + lo) * k->rext + k->tlb,
             (size_t)(n - 1) * (size_t)k->rext + (size_t)k->text);
  }
}

static int call_part(const vrun_t *a, int t)
{
  const vcall_t *k = a->k;
  const int P = k->c->size;
  long long col, mylo, mn;
  int *cnt = a->ints + 2 * (size_t)P * t, *dsp = cnt + P;
  layout(a, t, cnt, dsp, &col, &mylo);
  if (k->kind == V_REDUCE_SCATTER)
    return PMPI_Reduce_scatter(a->pack + col * k->rext, k->rbuf + mylo * k->rext, cnt,
                               k->rtype, k->op, a->comms[t]);
  part(a, k->c->rank, t, &mylo, &mn);
  const void *s = k->sbuf ? (const void *)(k->sbuf + mylo * k->sext) : MPI_IN_PLACE;
  return PMPI_Allgatherv(s, (int)mn, k->stype, k->rbuf, cnt, dsp, k->rtype, a->comms[t]);
}

/* a team of nparts threads (fewer: a thread takes t, t + team, ... in increasing order,
 * the same on every rank); reduce-scatter packs every part before any part is called */
static int run(const void *call, hk_allreduce_alg_t alg, int nparts)
{
  const vcall_t *k = call;
  hk__coll_cache_t *c = k->c;
  int first_rc = MPI_SUCCESS, shifted = alg == HK_ALLREDUCE_CHUNKED_SHIFTED;
  vrun_t a = {k, shifted ? c->shifted : c->dup, shifted, nparts,
              hk__chunk_granularity(k->rext), (int *)c->scratch, (int *)c->scratch + c->size,
              c->scratch + ints_bytes(c->size, nparts) + (k->tlb < 0 ? -k->tlb : 0)};
  for (int j = 0, at = 0; j < c->size; j++) {
    a.first[j] = at;
    at += k->counts[j];
  }
#pragma omp parallel num_threads(nparts)
  {
    int nt = omp_get_num_threads(), me = omp_get_thread_num();
    if (k->kind == V_REDUCE_SCATTER) {
      for (int t = me; t < nparts; t += nt)
        pack(&a, t);
#pragma omp barrier
    }
    for (int t = me; t < nparts; t += nt) {
      int rc = call_part(&a, t);
      if (rc != MPI_SUCCESS) {
#pragma omp critical(hk_coll_error)
        if (first_rc == MPI_SUCCESS)
          first_rc = rc;
      }
    }
  }
  return first_rc == MPI_SUCCESS
             ? HK_SUCCESS
             : HK_COLL_MPI(first_rc, k->kind == V_ALLGATHERV ? "PMPI_Allgatherv (part)"
                                                            : "PMPI_Reduce_scatter (part)");
}

/* ---- the decision ---- */
static hk__coll_kind_t kind_of(const vcall_t *k)
{
  return k->kind == V_ALLGATHERV ? HK__COLL_ALLGATHER : HK__COLL_REDUCE_SCATTER;
}

static hk_allreduce_alg_t model(const void *call, int *threads)
{
  const vcall_t *k = call;
  const hk__coll_cache_t *c = k->c;
  int t = *threads < c->usable ? *threads : c->usable;
  if (k->kind == V_ALLGATHERV || c->oversubscribed || !c->multiple || k->rext <= 0 ||
      k->text > k->rext || hk__chunks_useful(k->maxcount, hk__chunk_granularity(k->rext), t) < 2)
    return HK_ALLREDUCE_MPI;
  *threads = t;
  return HK_ALLREDUCE_CHUNKED;
}

/* the reason the chunked families cannot run here, else NONE */
static hk_allreduce_fallback_t check(const vcall_t *k, hk_allreduce_alg_t alg, int commute)
{
  const hk__coll_cache_t *c = k->c;
  long long end = 0;
  for (int j = 0; k->displs && j < c->size; j++)
    if ((long long)k->displs[j] + k->counts[j] > end)
      end = (long long)k->displs[j] + k->counts[j];
  if (alg == HK_ALLREDUCE_HIERARCHICAL)
    return HK_FALLBACK_UNAVAILABLE;
  if (k->kind == V_REDUCE_SCATTER && alg == HK_ALLREDUCE_CHUNKED_SHIFTED && !commute)
    return HK_FALLBACK_NONCOMMUTATIVE;
  /* equal type sizes (not sendcount == recvcounts[rank]: a rank sending 0 elements
   * would decide otherwise than the others), so a part of n elements of either matches */
  if (k->kind == V_ALLGATHERV && ((k->sbuf && (k->ssize != k->rsize || k->sext <= 0)) ||
                                  end > INT_MAX))
    return HK_FALLBACK_DATATYPE;
  if (k->rext <= 0 || (k->kind == V_REDUCE_SCATTER && k->text > k->rext) || k->total > INT_MAX)
    return HK_FALLBACK_DATATYPE;
  if (!c->multiple)
    return HK_FALLBACK_THREAD_LEVEL;
  return HK_FALLBACK_NONE;
}

static int hybrid(vcall_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o, long long bytes,
                  hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS, commute = 1;
  MPI_Aint lb = 0;
  HK_TRY(err, hk__coll_enter(comm, &k->c, info));
  hk__coll_cache_t *c = k->c;
  if (!c)
    return HK_SUCCESS; /* inter-communicator, one rank */
  if (k->kind == V_REDUCE_SCATTER)
    PMPI_Op_commutative(k->op, &commute);
  PMPI_Type_get_extent(k->rtype, &lb, &k->rext);
  PMPI_Type_get_true_extent(k->rtype, &k->tlb, &k->text);
  if (k->sbuf && k->kind == V_ALLGATHERV) {
    PMPI_Type_get_extent(k->stype, &lb, &k->sext);
    PMPI_Type_size(k->stype, &k->ssize);
    PMPI_Type_size(k->rtype, &k->rsize);
  }
  long long gran = hk__chunk_granularity(k->rext);
  hk__coll_choice_t ch = {.kind = kind_of(k), .bytes = bytes, .fn = fn_of(k), .model = model,
                          .call = k};
  hk__coll_choose(c, o, &ch);
  ch.why = ch.why != HK_FALLBACK_NONE ? ch.why : check(k, ch.alg, commute);
  if (ch.why == HK_FALLBACK_NONE &&
      (ch.threads = hk__chunks_useful(k->maxcount, gran, ch.threads)) < 2)
    ch.why = HK_FALLBACK_ONE_THREAD;
  HK_TRY(err, hk__coll_chunked_setup(c, ch.alg, scratch_bytes(k, ch.threads), &ch.why));
  return hk__coll_run(c, &ch, run, k, info);
cleanup:
  return err;
}

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

/* both: arguments, threshold, the hybrid path; HK_SUCCESS with info->fallback set
 * when MPI is to run */
static int decide(vcall_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o,
                  hk_allreduce_info_t *info)
{
  int size = 0, tsize = 0;
  const char *fn = fn_of(k);
  if ((int)o->algorithm < 0 || (int)o->algorithm >= HK_ALLREDUCE_ALG_COUNT)
    return HK_ERROR(HK_ERR_ARG, "%s: invalid algorithm %d", fn, (int)o->algorithm);
  if (o->min_bytes < 0)
    return HK_ERROR(HK_ERR_ARG, "%s: min_bytes %lld < 0 (HK_DEFAULT: the default threshold, "
                    "1: accelerate every message)", fn, o->min_bytes);
  if (!k->counts || (k->kind == V_ALLGATHERV && !k->displs))
    return HK_ERROR(HK_ERR_ARG, "%s: recvcounts or displs is NULL", fn);
  if (k->kind == V_ALLGATHERV && k->sbuf && k->scount < 0)
    return HK_ERROR(HK_ERR_ARG, "%s: sendcount %d: negative", fn, k->scount);
  PMPI_Comm_size(comm, &size);
  k->total = k->maxcount = 0;
  for (int j = 0; j < size; j++) {
    if (k->counts[j] < 0)
      return HK_ERROR(HK_ERR_ARG, "%s: recvcounts[%d] = %d: negative", fn, j, k->counts[j]);
    k->total += k->counts[j];
    k->maxcount = k->counts[j] > k->maxcount ? k->counts[j] : k->maxcount;
  }
  PMPI_Type_size(k->rtype, &tsize);
  long long bytes = k->total * tsize;
  info->fallback = hk__coll_early(o, kind_of(k), k->total, bytes);
  return info->fallback == HK_FALLBACK_NONE ? hybrid(k, comm, o, bytes, info) : HK_SUCCESS;
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

int hk_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm,
                  const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o;
  hk_allreduce_info_t local, *info = start(&o, opts, &local);
  vcall_t k = {V_ALLGATHERV, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, sendcount, sendtype, 0,
               recvbuf, recvcounts, displs, recvtype, 0, 0, 0, 0, 0, MPI_OP_NULL, 0, 0, NULL};
  int err = decide(&k, comm, o, info);
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Allgatherv");
}

int hk_reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o;
  hk_allreduce_info_t local, *info = start(&o, opts, &local);
  vcall_t k = {V_REDUCE_SCATTER, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, 0, datatype, 0,
               recvbuf, recvcounts, NULL, datatype, 0, 0, 0, 0, 0, op, 0, 0, NULL};
  int err = decide(&k, comm, o, info);
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = hk__pmpi_reduce_scatter(sendbuf, recvbuf, recvcounts, k.total, datatype, op, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Reduce_scatter");
}
