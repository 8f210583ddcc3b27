/* src/coll/allreduce.c: hk_allreduce: which algorithm runs (the fallback
 * rules, all decided from inputs equal on every rank), and the dispatch table.
 *
 *   algorithm: opts, else the tuning table's row for the size, else
 *              HK_ALLREDUCE_ALGORITHM, else the model (below)
 *   threads:   opts, else the row (when it chose the algorithm), else
 *              HK_ALLREDUCE_THREADS (each clamped to
 *              the cores, with one warning), else the OpenMP threads agreed
 *              when comm was first used
 *   fallback to PMPI_Allreduce, in this order: mpi chosen, count 0 or below
 *   min_bytes, non-commutative op, inter-communicator, one rank, the model
 *   (auto), thread level below MULTIPLE (chunked families), non-contiguous type
 *   or nodes of one rank (hierarchical), fewer than 2 useful chunks (chunked
 *   families), a set-up that failed somewhere (agreed)
 *
 * The model of `auto` (no table, no HK_ALLREDUCE_ALGORITHM), from facts agreed
 * over comm: oversubscribed cores -> mpi; a contiguous type and some node with
 * two or more ranks of comm -> hierarchical (its gain is the node-level
 * reduction through shared memory, one thread per rank already wins); else two
 * or more usable cores per rank, MULTIPLE and two useful chunks -> chunked;
 * else mpi.  Threads for auto: at most the usable cores.
 *
 * Never a local fact: not omp_in_parallel() (inside a region the algorithm
 * runs on the calling thread alone, the same messages), not the calling thread.
 */
#include <omp.h>
#include <strings.h>
#include "coll/coll_internal.h"

typedef int (*alg_fn)(const char *sbuf, char *rbuf, int count, MPI_Datatype type, MPI_Aint extent,
                      MPI_Op op, hk__coll_cache_t *c, int threads);

static int run_chunked(const char *sbuf, char *rbuf, int count, MPI_Datatype type,
                       MPI_Aint extent, MPI_Op op, hk__coll_cache_t *c, int threads)
{
  int err = hk__coll_cache_dups(c, 0);
  return err ? err : hk__run_chunks(sbuf, rbuf, count, type, extent, op, c->dup, threads);
}

static int run_shifted(const char *sbuf, char *rbuf, int count, MPI_Datatype type,
                       MPI_Aint extent, MPI_Op op, hk__coll_cache_t *c, int threads)
{
  int err = hk__coll_cache_dups(c, 1);
  return err ? err : hk__run_chunks_placed(1, sbuf, rbuf, count, type, extent, op, c->shifted,
                                           threads);
}

static const struct algorithm {
  const char *name;
  alg_fn fn;          /* NULL: PMPI_Allreduce */
  int chunked;        /* needs >= 2 useful chunks */
  int contiguous;     /* needs size == extent (copies bytes) */
} algorithms[HK_ALLREDUCE_ALG_COUNT] = {
  [HK_ALLREDUCE_AUTO] = {"auto", NULL, 0, 0},
  [HK_ALLREDUCE_MPI] = {"mpi", NULL, 0, 0},
  [HK_ALLREDUCE_CHUNKED] = {"chunked", run_chunked, 1, 0},
  [HK_ALLREDUCE_CHUNKED_SHIFTED] = {"chunked-shifted", run_shifted, 1, 0},
  [HK_ALLREDUCE_HIERARCHICAL] = {"hierarchical", hk__allreduce_hierarchical, 0, 1},
};

static const char *const fallback_names[HK_FALLBACK_COUNT] = {
  "none", "chosen", "small", "non-commutative", "in-parallel", "thread-level", "one-thread",
  "datatype", "intercomm", "one-rank", "nodes", "model", "setup",
  "unavailable"};

const char *hk_allreduce_alg_name(hk_allreduce_alg_t alg)
{
  if ((int)alg < 0 || (int)alg >= HK_ALLREDUCE_ALG_COUNT)
    return "invalid";
  return algorithms[alg].name;
}

int hk_allreduce_alg_parse(const char *name, hk_allreduce_alg_t *alg)
{
  if (!name || !alg)
    return HK_ERROR(HK_ERR_ARG, "algorithm name or result is NULL");
  for (int a = 0; a < HK_ALLREDUCE_ALG_COUNT; a++)
    if (!strcasecmp(name, algorithms[a].name)) {
      *alg = (hk_allreduce_alg_t)a;
      return HK_SUCCESS;
    }
  return HK_ERROR(HK_ERR_ARG, "unknown allreduce algorithm '%s' (auto, mpi, chunked, "
                  "chunked-shifted, hierarchical)", name);
}

const char *hk_allreduce_fallback_name(hk_allreduce_fallback_t r)
{
  if ((int)r < 0 || (int)r >= HK_FALLBACK_COUNT)
    return "invalid";
  return fallback_names[r];
}

static _Thread_local int inside; /* a nested call (e.g. hk_nodes_create's) passes through */

typedef struct choice {
  hk_allreduce_alg_t alg;
  int threads;           /* 0: the agreed default */
  const char *threads_from;
  long long min_bytes;
} choice_t;

static choice_t choose(const hk_allreduce_opts_t *o, const hk__coll_config_t *cfg, int use_cfg,
                       long long bytes)
{
  choice_t ch = {o->algorithm, o->threads > 0 ? o->threads : 0, "hk_allreduce_opts_t.threads",
                 o->min_bytes};
  /* the table's thread count goes with its algorithm: only for AUTO */
  const hk__tune_row_t *row = use_cfg && ch.alg == HK_ALLREDUCE_AUTO ? hk__coll_row(cfg, bytes)
                                                                     : NULL;
  if (ch.alg == HK_ALLREDUCE_AUTO) /* still AUTO: the model decides per communicator */
    ch.alg = row ? row->alg : use_cfg ? cfg->env_alg : HK_ALLREDUCE_AUTO;
  if (!ch.threads && row) {
    ch.threads = row->threads;
    ch.threads_from = "the tuning table";
  } else if (!ch.threads && use_cfg && cfg->env_threads) {
    ch.threads = cfg->env_threads;
    ch.threads_from = "HK_ALLREDUCE_THREADS";
  }
  if (ch.min_bytes == HK_DEFAULT)
    ch.min_bytes = use_cfg ? cfg->min_bytes : HK_COLL_DEFAULT_MIN_BYTES;
  return ch;
}

static int threads_for(hk__coll_cache_t *c, const choice_t *ch)
{
  if (!ch->threads)
    return c->default_threads < c->ncomms ? c->default_threads : c->ncomms;
  if (ch->threads > c->cores) {
    static int warned; /* once per process */
    if (!warned)
      hk__coll_warn("%s asks for %d threads, the ranks have %d core(s): using %d",
                    ch->threads_from, ch->threads, c->cores, c->cores);
    warned = 1;
    return c->cores;
  }
  return ch->threads;
}

static int is_contiguous(MPI_Datatype type, int tsize, MPI_Aint extent)
{
  MPI_Aint tlb = 0, textent = 0, lb = 0, ext = 0;
  PMPI_Type_get_true_extent(type, &tlb, &textent);
  PMPI_Type_get_extent(type, &lb, &ext);
  return lb == 0 && tlb == 0 && (MPI_Aint)tsize == extent && textent == extent;
}

/* auto without a table: the model in the file comment; *threads in, capped out */
static int model(hk__coll_cache_t *c, int contiguous, int count, long long gran,
                 hk_allreduce_alg_t *alg, int *threads)
{
  int err = HK_SUCCESS;
  int t = *threads < c->usable ? *threads : c->usable;
  *alg = HK_ALLREDUCE_MPI;
  if (c->oversubscribed)
    return HK_SUCCESS;
  if (contiguous && !c->failed[HK_ALLREDUCE_HIERARCHICAL]) {
    HK_TRY(err, hk__coll_cache_nodes(c));
    if (c->nodes_state > 0 && c->max_local >= 2) {
      *alg = HK_ALLREDUCE_HIERARCHICAL;
      *threads = c->multiple ? t : 1;
      return HK_SUCCESS;
    }
  }
  if (c->multiple && hk__chunks_useful(count, gran, t) >= 2) {
    *alg = HK_ALLREDUCE_CHUNKED;
    *threads = t;
  }
cleanup:
  return err;
}

/* the hybrid path, or the reason for the fallback */
static int hybrid(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm, const hk_allreduce_opts_t *o, const choice_t *ch, int tsize,
                  hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS, commute = 1, inter = 0;
  PMPI_Op_commutative(op, &commute);
  PMPI_Comm_test_inter(comm, &inter);
  if (!commute)
    info->fallback = HK_FALLBACK_NONCOMMUTATIVE;
  else if (inter)
    info->fallback = HK_FALLBACK_INTERCOMM;
  if (info->fallback != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  hk__coll_cache_t *c = NULL;
  HK_TRY(err, hk__coll_cache_get(comm, &c));
  if (c->size == 1) {
    info->fallback = HK_FALLBACK_ONE_RANK;
    return HK_SUCCESS;
  }
  /* the ranks' configurations disagree: what opts say, else the defaults */
  choice_t agreed = c->config_ok ? *ch : choose(o, NULL, 0, 0);
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  long long gran = hk__chunk_granularity(extent);
  int contiguous = is_contiguous(type, tsize, extent);
  hk_allreduce_alg_t alg = agreed.alg;
  int threads = threads_for(c, &agreed);
  if (alg == HK_ALLREDUCE_AUTO)
    HK_TRY(err, model(c, contiguous, count, gran, &alg, &threads));
  const struct algorithm *a = &algorithms[alg];
  if (alg == HK_ALLREDUCE_MPI) {
    info->fallback = HK_FALLBACK_MODEL;
  } else if (a->chunked) {
    threads = hk__chunks_useful(count, gran, threads);
    if (!c->multiple)
      info->fallback = HK_FALLBACK_THREAD_LEVEL;
    else if (threads < 2)
      info->fallback = HK_FALLBACK_ONE_THREAD;
    else
      HK_TRY(err, hk__coll_cache_dups(c, alg == HK_ALLREDUCE_CHUNKED_SHIFTED));
  } else { /* hierarchical */
    if (!c->multiple)
      threads = 1; /* the node-level reduction wins with one thread per rank too */
    if (!contiguous)
      info->fallback = HK_FALLBACK_DATATYPE;
    else if (!c->failed[alg])
      HK_TRY(err, hk__coll_cache_nodes(c));
    if (info->fallback == HK_FALLBACK_NONE && !c->failed[alg] &&
        (c->nodes_state < 0 || c->max_local < 2))
      info->fallback = HK_FALLBACK_NODES;
    else if (info->fallback == HK_FALLBACK_NONE && c->nnodes > 1)
      HK_TRY(err, hk__coll_cache_leaders(c));
  }
  if (info->fallback == HK_FALLBACK_NONE && c->failed[alg])
    info->fallback = HK_FALLBACK_SETUP;
  if (info->fallback != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  if (threads < 1)
    threads = 1;
  const char *s = sbuf == MPI_IN_PLACE ? NULL : sbuf;
  HK_TRY(err, a->fn(s, rbuf, count, type, extent, op, c, threads));
  /* hierarchical grows its window inside: a failed set-up is agreed there, and
   * the caller runs PMPI_Allreduce (recvbuf not touched yet) */
  if (c->failed[alg]) {
    info->fallback = HK_FALLBACK_SETUP;
    return HK_SUCCESS;
  }
  info->algorithm = alg;
  info->threads = threads;
cleanup:
  return err;
}

int hk_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, const hk_allreduce_opts_t *opts)
{
  static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;
  const hk_allreduce_opts_t *o = opts ? opts : &defaults;
  hk_allreduce_info_t local = {HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = o->info ? o->info : &local;
  *info = local;
  if (count < 0 || (count > 0 && !recvbuf) || (int)o->algorithm < 0 ||
      (int)o->algorithm >= HK_ALLREDUCE_ALG_COUNT)
    return HK_ERROR(HK_ERR_ARG, "hk_allreduce: invalid count %d, buffer or algorithm %d", count,
                    (int)o->algorithm);
  if (o->min_bytes < 0)
    return HK_ERROR(HK_ERR_ARG, "hk_allreduce: min_bytes %lld < 0 (HK_DEFAULT: the default "
                    "threshold, 1: accelerate every message)", o->min_bytes);
  int err = HK_SUCCESS, tsize = 0;
  if (!inside) {
    inside = 1;
    PMPI_Type_size(datatype, &tsize);
    long long bytes = (long long)count * tsize;
    choice_t ch = choose(o, hk__coll_config(), 1, bytes);
    info->fallback = HK_FALLBACK_NONE;
    if (ch.alg == HK_ALLREDUCE_MPI)
      info->fallback = HK_FALLBACK_CHOSEN;
    else if (count == 0 || bytes < ch.min_bytes)
      info->fallback = HK_FALLBACK_SMALL;
    else
      err = hybrid(sendbuf, recvbuf, count, datatype, op, comm, o, &ch, tsize, info);
    inside = 0;
    if (err != HK_SUCCESS || info->fallback == HK_FALLBACK_NONE)
      return err;
  }
  int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  return HK_COLL_MPI_DONE(info, rc, "PMPI_Allreduce");
}
