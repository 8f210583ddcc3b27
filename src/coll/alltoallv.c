/* src/coll/alltoallv.c: hk_alltoallv (issue 39): the decision and the chunked runs.
 *
 * Rank i sends sendcounts[j] elements at sdispls[j] to rank j and receives
 * recvcounts[j] elements at rdispls[j] from it; the pair (i, j) is one block, its count
 * known to i and j only.  Part t of a block of n elements is chunk t of n split in T
 * (hk__chunk_range with a granularity every rank agreed on), so sender and receiver
 * cut every block alike.  Thread t moves part t of every block on duplicate t:
 *
 *   sendcounts {5, 0, 9}, T = 2:   to 0 [ p0 | p1 ]  to 1 []  to 2 [ p0 | p1 ]
 *   thread t: PMPI_Alltoallv(sbuf, {|0.t|, 0, |2.t|}, {sdispls[j] + lo(j, t)}, ...,
 *                            rbuf, the same from recvcounts / rdispls, dup[t])
 *
 * In place (MPI-2.2: sendbuf MPI_IN_PLACE, the data in recvbuf, described by recvcounts
 * and rdispls): thread t exchanges part t of every block in place; the parts are
 * disjoint, so the threads never touch one another's bytes.  chunked-shifted: as
 * chunked on the rotated communicators (position j is rank (j + t) mod P: the arrays
 * in that order).  No hierarchical (fallback `unavailable`).  Every part is called on
 * every rank, empty ones too; the per-part arrays live in the communicator's scratch
 * buffer (grown with one agreement).
 *
 * The agreement.  A rank knows only its own counts, so nothing size-based is equal on
 * every rank without communication (allgatherv's recvcounts are).  When a threshold is
 * in force (HK_ALLTOALLV_MIN_BYTES, HK_COLL_MIN_BYTES, the table, opts->min_bytes), one
 * PMPI_Allreduce(MAX) of four numbers over comm agrees: the message size (the most
 * bytes any rank sends or receives), the largest count, a datatype verdict and the
 * chunk granularity.  The built-in threshold is "never" (LLONG_MAX): by default
 * hk_alltoallv is PMPI_Alltoallv after the argument checks, no agreement.
 *
 * Order of the fallbacks: mpi chosen, no threshold (small), inter-communicator, one
 * rank, then (agreed) no element or below the threshold (small), the model (auto: mpi,
 * as hk_alltoall's), unavailable (hierarchical), datatype (on some rank sendtype and
 * recvtype of different sizes, an extent <= 0, or a displacement + count beyond
 * INT_MAX), thread level, fewer than 2 useful parts, a set-up that failed (agreed).
 */
#include <limits.h>
#include <omp.h>
#include "coll/coll_internal.h"

typedef struct a2av {
  const char *sbuf;       /* NULL: MPI_IN_PLACE */
  const int *scounts, *sdispls;
  MPI_Datatype stype;
  MPI_Aint sext;
  char *rbuf;
  const int *rcounts, *rdispls;
  MPI_Datatype rtype;
  MPI_Aint rext;
  long long gran;         /* agreed */
  hk__coll_cache_t *c;
} a2av_t;

static const char fn[] = "hk_alltoallv";

/* scratch: per part 4 x P ints (send counts, send displs, receive counts, receive displs) */
static size_t scratch_bytes(int P, int nparts)
{
  return 4 * (size_t)P * (size_t)nparts * sizeof(int);
}

typedef struct arun {
  const a2av_t *k;
  const MPI_Comm *comms;
  int shifted, nparts;
  int *ints;
} arun_t;

/* part t of every block in communicator t's order */
static void layout(const arun_t *a, int t, int *sc, int *sd, int *rc, int *rd)
{
  const a2av_t *k = a->k;
  const int P = k->c->size, rot = a->shifted ? t % P : 0;
  long long lo, n;
  for (int j = 0; j < P; j++) {
    int b = (j + rot) % P;
    if (k->sbuf) {
      hk__chunk_range(k->scounts[b], k->gran, a->nparts, t, &lo, &n);
      sc[j] = (int)n;
      sd[j] = k->sdispls[b] + (int)lo;
    }
    hk__chunk_range(k->rcounts[b], k->gran, a->nparts, t, &lo, &n);
    rc[j] = (int)n;
    rd[j] = k->rdispls[b] + (int)lo;
    if (!k->sbuf) { /* ignored by MPI in place; defined all the same */
      sc[j] = rc[j];
      sd[j] = rd[j];
    }
  }
}

static int call_part(const arun_t *a, int t)
{
  const a2av_t *k = a->k;
  const size_t P = (size_t)k->c->size;
  int *sc = a->ints + 4 * P * (size_t)t, *sd = sc + P, *rc = sd + P, *rd = rc + P;
  layout(a, t, sc, sd, rc, rd);
  return PMPI_Alltoallv(k->sbuf ? (const void *)k->sbuf : MPI_IN_PLACE, sc, sd, k->stype,
                        k->rbuf, rc, rd, k->rtype, a->comms[t]);
}

/* a team of nparts threads (fewer: a thread takes t, t + team, ... in increasing order,
 * the same on every rank) */
static int run(const void *call, hk_allreduce_alg_t alg, int nparts)
{
  const a2av_t *k = call;
  hk__coll_cache_t *c = k->c;
  int first_rc = MPI_SUCCESS, shifted = alg == HK_ALLREDUCE_CHUNKED_SHIFTED;
  arun_t a = {k, shifted ? c->shifted : c->dup, shifted, nparts, (int *)c->scratch};
#pragma omp parallel num_threads(nparts)
  {
    int nt = omp_get_num_threads(), me = omp_get_thread_num();
    for (int t = me; t < nparts; t += nt) {
      int rc = call_part(&a, t);
      if (rc != MPI_SUCCESS) {
#pragma omp critical(hk_coll_error)
        if (first_rc == MPI_SUCCESS)
          first_rc = rc;
      }
    }
  }
  return first_rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(first_rc, "PMPI_Alltoallv (part)");
}

/* ---- the decision ---- */

/* this rank's side of the agreement: {bytes, largest count, datatype refused, granularity} */
static void local_facts(a2av_t *k, int P, long long mine[4])
{
  int ssize = 0, rsize = 0;
  MPI_Aint lb = 0;
  long long sbytes = 0, rbytes = 0, maxc = 0, bad = 0;
  /* a null type (with zero counts, say): refused here, agreed, and MPI judges the call */
  if (k->rtype == MPI_DATATYPE_NULL || (k->sbuf && k->stype == MPI_DATATYPE_NULL)) {
    mine[0] = mine[1] = 0;
    mine[2] = mine[3] = 1;
    return;
  }
  PMPI_Type_get_extent(k->rtype, &lb, &k->rext);
  PMPI_Type_size(k->rtype, &rsize);
  if (k->sbuf) {
    PMPI_Type_get_extent(k->stype, &lb, &k->sext);
    PMPI_Type_size(k->stype, &ssize);
    /* equal type sizes (not the counts: a pair's counts are known to its two ranks
     * only), so a part of n elements of either matches */
    bad = ssize != rsize || k->sext <= 0;
  }
  bad = bad || k->rext <= 0;
  for (int j = 0; j < P; j++) {
    long long rc = k->rcounts[j];
    rbytes += rc * rsize;
    maxc = rc > maxc ? rc : maxc;
    bad = bad || (long long)k->rdispls[j] + rc > INT_MAX;
    if (k->sbuf) {
      long long sc = k->scounts[j];
      sbytes += sc * ssize;
      maxc = sc > maxc ? sc : maxc;
      bad = bad || (long long)k->sdispls[j] + sc > INT_MAX;
    }
  }
  long long gs = k->sbuf && k->sext > 0 ? hk__chunk_granularity(k->sext) : 1;
  long long gr = k->rext > 0 ? hk__chunk_granularity(k->rext) : 1;
  mine[0] = sbytes > rbytes ? sbytes : rbytes;
  mine[1] = maxc;
  mine[2] = bad;
  mine[3] = gs > gr ? gs : gr;
}

static hk_allreduce_fallback_t check(const hk__coll_cache_t *c, hk_allreduce_alg_t alg,
                                     long long bad)
{
  if (alg == HK_ALLREDUCE_HIERARCHICAL)
    return HK_FALLBACK_UNAVAILABLE;
  if (bad)
    return HK_FALLBACK_DATATYPE;
  if (!c->multiple)
    return HK_FALLBACK_THREAD_LEVEL;
  return HK_FALLBACK_NONE;
}

static int hybrid(a2av_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o,
                  hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS;
  long long mine[4], all[4];
  HK_TRY(err, hk__coll_enter(comm, &k->c, info));
  hk__coll_cache_t *c = k->c;
  if (!c)
    return HK_SUCCESS; /* inter-communicator, one rank */
  local_facts(k, c->size, mine);
  int rc = PMPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, comm);
  if (rc != MPI_SUCCESS)
    return HK_COLL_MPI(rc, "PMPI_Allreduce (the agreement)");
  info->fallback = hk__coll_early(o, HK__COLL_ALLTOALLV, all[1], all[0]);
  if (info->fallback != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  k->gran = all[3];
  /* auto: mpi, as hk_alltoall's model (no gain measured on 2 cores) */
  hk__coll_choice_t ch = {.kind = HK__COLL_ALLTOALLV, .bytes = all[0], .fn = fn, .model = NULL,
                          .call = k};
  hk__coll_choose(c, o, &ch);
  ch.why = ch.why != HK_FALLBACK_NONE ? ch.why : check(c, ch.alg, all[2]);
  if (ch.why == HK_FALLBACK_NONE &&
      (ch.threads = hk__chunks_useful(all[1], k->gran, ch.threads)) < 2)
    ch.why = HK_FALLBACK_ONE_THREAD;
  HK_TRY(err, hk__coll_chunked_setup(c, ch.alg, scratch_bytes(c->size, ch.threads), &ch.why));
  return hk__coll_run(c, &ch, run, k, info);
cleanup:
  return err;
}

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

/* arguments, threshold, the hybrid path; HK_SUCCESS with info->fallback set when MPI
 * is to run */
static int decide(a2av_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o,
                  hk_allreduce_info_t *info)
{
  int size = 0;
  if ((int)o->algorithm < 0 || (int)o->algorithm >= HK_ALLREDUCE_ALG_COUNT)
    return HK_ERROR(HK_ERR_ARG, "%s: invalid algorithm %d", fn, (int)o->algorithm);
  if (o->min_bytes < 0)
    return HK_ERROR(HK_ERR_ARG, "%s: min_bytes %lld < 0 (HK_DEFAULT: the default threshold, "
                    "1: accelerate every message)", fn, o->min_bytes);
  if (!k->rcounts || !k->rdispls || (k->sbuf && (!k->scounts || !k->sdispls)))
    return HK_ERROR(HK_ERR_ARG, "%s: a count or displacement array is NULL", fn);
  PMPI_Comm_size(comm, &size);
  for (int j = 0; j < size; j++) {
    if (k->rcounts[j] < 0)
      return HK_ERROR(HK_ERR_ARG, "%s: recvcounts[%d] = %d: negative", fn, j, k->rcounts[j]);
    if (k->sbuf && k->scounts[j] < 0)
      return HK_ERROR(HK_ERR_ARG, "%s: sendcounts[%d] = %d: negative", fn, j, k->scounts[j]);
  }
  long long min_bytes = o->min_bytes == HK_DEFAULT
                            ? hk__coll_min_bytes(hk__coll_config(), HK__COLL_ALLTOALLV)
                            : o->min_bytes;
  if (o->algorithm == HK_ALLREDUCE_MPI)
    info->fallback = HK_FALLBACK_CHOSEN;
  else if (min_bytes == LLONG_MAX)
    info->fallback = HK_FALLBACK_SMALL; /* no message reaches it: nothing to agree on */
  else
    return hybrid(k, comm, o, info);
  return HK_SUCCESS;
}

int hk_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                 MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
                 MPI_Datatype recvtype, MPI_Comm comm, const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o = opts ? opts : &defaults;
  hk_allreduce_info_t local = {HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = o->info ? o->info : &local;
  *info = local;
  a2av_t k = {sendbuf == MPI_IN_PLACE ? NULL : sendbuf, sendcounts, sdispls, sendtype, 0,
              recvbuf, recvcounts, rdispls, recvtype, 0, 1, NULL};
  int err = decide(&k, comm, o, info);
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Alltoallv");
}
