/* src/coll/scan.c: hk_scan and hk_exscan (issue 39): the decision (fallbacks, all from
 * inputs equal on every rank, as hk_reduce's) and the chunked run.
 *
 * Every MPI op works element by element, so the prefix of element i over the ranks
 * depends only on element i of each rank: the vector split in T chunks (aligned as
 * hk_allreduce's), chunk t scanned on duplicate t, is MPI's result, in rank order, for
 * every op (non-commutative and user ops included):
 *
 *   rank r: [ c0 | c1 | c2 ]    thread t: PMPI_Scan(c_t, dup[t])  (PMPI_Exscan)
 *
 * No chunked-shifted: a scan's result is the prefix in comm's rank order, and a rotated
 * communicator numbers the ranks in another order, so rank r's prefix there would fold
 * other ranks (the rotation cannot be undone afterwards without the operands).  No
 * hierarchical: a node phase would need a prefix over the node's ranks, the leaders an
 * exscan of the nodes' totals and every rank a second reduction with it (three steps
 * and a second window area for one collective); not built.  Both names give fallback
 * `unavailable`.
 *
 * hk_exscan: rank 0's recvbuf is undefined in MPI; PMPI_Exscan per chunk leaves it to
 * MPI as a plain MPI_Exscan would (hybridkit writes nothing there itself).
 *
 * Order of the fallbacks: mpi chosen, count 0 or below the threshold (bytes of count
 * elements), inter-communicator, one rank, the model (auto), unavailable, datatype
 * (extent <= 0: chunks are addressed by the extent), thread level, fewer than 2 useful
 * chunks, a set-up that failed somewhere (agreed).
 *
 * auto: the kind's tuning-table row (HK_SCAN / HK_EXSCAN), else HK_SCAN_ALGORITHM /
 * HK_EXSCAN_ALGORITHM (else HK_COLL_ALGORITHM), else the model: hk_reduce's (not
 * oversubscribed, MULTIPLE, spare cores for 2 useful chunks -> chunked; else mpi).
 */
#include "coll/coll_internal.h"

typedef struct scan_call {
  int ex;                 /* 1: exscan */
  const char *sbuf;       /* NULL: MPI_IN_PLACE */
  char *rbuf;
  int count;
  MPI_Datatype type;
  MPI_Aint extent;
  MPI_Op op;
  hk__coll_cache_t *c;
} scan_call_t;

static hk__coll_kind_t kind_of(const scan_call_t *k)
{
  return k->ex ? HK__COLL_EXSCAN : HK__COLL_SCAN;
}

static const char *fn_of(const scan_call_t *k) { return k->ex ? "hk_exscan" : "hk_scan"; }

static int scan_chunk(void *arg, int c, long long lo, long long n)
{
  const scan_call_t *k = arg;
  const void *in = k->sbuf ? (const void *)(k->sbuf + lo * k->extent) : MPI_IN_PLACE;
  char *out = k->rbuf + lo * k->extent;
  return k->ex ? PMPI_Exscan(in, out, (int)n, k->type, k->op, k->c->dup[c])
               : PMPI_Scan(in, out, (int)n, k->type, k->op, k->c->dup[c]);
}

static int run(const void *call, hk_allreduce_alg_t alg, int threads)
{
  const scan_call_t *k = call;
  (void)alg; /* chunked only */
  int rc = hk__each_chunk(k->count, k->extent, threads, scan_chunk, (void *)k);
  return rc == MPI_SUCCESS ? HK_SUCCESS
                           : HK_COLL_MPI(rc, k->ex ? "PMPI_Exscan (chunk)" : "PMPI_Scan (chunk)");
}

/* auto without a table row or environment: hk_reduce's model */
static hk_allreduce_alg_t model(const void *call, int *threads)
{
  const scan_call_t *k = call;
  const hk__coll_cache_t *c = k->c;
  int t = *threads < c->usable ? *threads : c->usable;
  if (c->oversubscribed || !c->multiple || k->extent <= 0 ||
      hk__chunks_useful(k->count, hk__chunk_granularity(k->extent), t) < 2)
    return HK_ALLREDUCE_MPI;
  *threads = t;
  return HK_ALLREDUCE_CHUNKED;
}

/* the hybrid path, or the reason for the fallback in info->fallback */
static int hybrid(scan_call_t *k, MPI_Comm comm, const hk_allreduce_opts_t *o, long long bytes,
                  hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS;
  MPI_Aint lb = 0;
  HK_TRY(err, hk__coll_enter(comm, &k->c, info));
  hk__coll_cache_t *c = k->c;
  if (!c)
    return HK_SUCCESS; /* inter-communicator, one rank */
  PMPI_Type_get_extent(k->type, &lb, &k->extent);
  long long gran = hk__chunk_granularity(k->extent);
  hk__coll_choice_t ch = {.kind = kind_of(k), .bytes = bytes, .fn = fn_of(k), .model = model,
                          .call = k};
  hk__coll_choose(c, o, &ch);
  if (ch.why != HK_FALLBACK_NONE)
    return hk__coll_run(c, &ch, run, k, info);
  if (ch.alg != HK_ALLREDUCE_CHUNKED)
    ch.why = HK_FALLBACK_UNAVAILABLE;
  else if (k->extent <= 0)
    ch.why = HK_FALLBACK_DATATYPE;
  else if (!c->multiple)
    ch.why = HK_FALLBACK_THREAD_LEVEL;
  else if ((ch.threads = hk__chunks_useful(k->count, gran, ch.threads)) < 2)
    ch.why = HK_FALLBACK_ONE_THREAD;
  else
    HK_TRY(err, hk__coll_cache_dups(c, 0));
  return hk__coll_run(c, &ch, run, k, info);
cleanup:
  return err;
}

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

/* both: arguments, threshold, the hybrid path, else PMPI_Scan / PMPI_Exscan */
static int scan(scan_call_t *k, const void *sendbuf, MPI_Comm comm, const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o = opts ? opts : &defaults;
  hk_allreduce_info_t local = {HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = o->info ? o->info : &local;
  *info = local;
  int err = HK_SUCCESS, tsize = 0;
  if (k->count < 0 || (int)o->algorithm < 0 || (int)o->algorithm >= HK_ALLREDUCE_ALG_COUNT)
    return HK_ERROR(HK_ERR_ARG, "%s: invalid count %d or algorithm %d", fn_of(k), k->count,
                    (int)o->algorithm);
  if (o->min_bytes < 0)
    return HK_ERROR(HK_ERR_ARG, "%s: min_bytes %lld < 0 (HK_DEFAULT: the default threshold, "
                    "1: accelerate every message)", fn_of(k), o->min_bytes);
  if (k->count > 0 && !k->rbuf && !k->ex) /* exscan: rank 0's recvbuf is not used */
    return HK_ERROR(HK_ERR_ARG, "%s: recvbuf is NULL", fn_of(k));
  PMPI_Type_size(k->type, &tsize);
  long long bytes = (long long)k->count * tsize;
  info->fallback = hk__coll_early(o, kind_of(k), k->count, bytes);
  if (info->fallback == HK_FALLBACK_NONE)
    err = hybrid(k, comm, o, bytes, info);
  if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
    return err;
  int rc = k->ex ? PMPI_Exscan(sendbuf, k->rbuf, k->count, k->type, k->op, comm)
                 : PMPI_Scan(sendbuf, k->rbuf, k->count, k->type, k->op, comm);
  return HK_COLL_MPI_DONE(info, rc, k->ex ? "PMPI_Exscan" : "PMPI_Scan");
}

int hk_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, const hk_allreduce_opts_t *opts)
{
  scan_call_t k = {0, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, recvbuf, count, datatype, 0, op,
                   NULL};
  return scan(&k, sendbuf, comm, opts);
}

int hk_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const hk_allreduce_opts_t *opts)
{
  scan_call_t k = {1, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, recvbuf, count, datatype, 0, op,
                   NULL};
  return scan(&k, sendbuf, comm, opts);
}
