/* src/coll/decide.c: the steps the decisions of hk_reduce, hk_reduce_scatter_block,
 * hk_bcast, hk_allgather and hk_alltoall share (each file keeps its own facts, model
 * and checks; these are the parts that were the same in all of them):
 *
 *   hk__coll_pick       auto: the kind's tuning-table row (with its threads), else the
 *                       kind's environment algorithm; AUTO left means "the model"
 *   hk__coll_threads    options, else the table row's, else the environment's, else
 *                       the agreed OpenMP threads; capped at the cores (one warning)
 *   hk__coll_choose     pick, threads, then auto's model; the fallback when mpi is the
 *                       answer (model or chosen); not reduce.c's (its model may fail)
 *   hk__coll_hier_nodes hierarchical: the nodes (and across nodes the leaders), or
 *                       fallback `nodes`
 *   hk__coll_enter      an inter-communicator or one rank -> fallback; else the cache
 *   hk__coll_contiguous a type hierarchical can copy as bytes (no lower bound, no gaps)
 *   hk__coll_chunked_setup  the chunked algorithms' duplicates and scratch of one call
 *   hk__coll_run        the checks' verdict or a failed set-up -> fallback; else the
 *                       algorithm runs and info says what ran
 *   hk__coll_mpi_done   after the fallback's PMPI_* call: info says mpi ran (every
 *                       hk_* collective, hk_allreduce too)
 *
 * Every input is equal on all ranks of the communicator (options, the agreed cache,
 * the configuration only where its hash agreed). */
#include "coll/coll_internal.h"

hk_allreduce_alg_t hk__coll_pick(const hk__coll_cache_t *c, const hk_allreduce_opts_t *o,
                                 hk__coll_kind_t kind, long long bytes, int *t_table)
{
  *t_table = 0;
  if (o->algorithm != HK_ALLREDUCE_AUTO || !c->config_ok)
    return o->algorithm; /* a configuration that differs between ranks is set aside */
  const hk__coll_config_t *cfg = hk__coll_config();
  const hk__tune_row_t *row = hk__coll_row_of(cfg, kind, bytes);
  if (row) {
    *t_table = row->threads;
    return row->alg;
  }
  return hk__coll_env_alg(cfg, kind);
}

int hk__coll_threads(const hk__coll_cache_t *c, const hk_allreduce_opts_t *o, int t_table,
                     hk__coll_kind_t kind, const char *fn)
{
  int t = o->threads > 0   ? o->threads
          : t_table > 0    ? t_table
          : c->config_ok ? hk__coll_env_threads(hk__coll_config(), kind)
                           : 0;
  int cap = c->cores < c->ncomms ? c->cores : c->ncomms;
  if (t <= 0)
    return c->default_threads < c->ncomms ? c->default_threads : c->ncomms;
  if (t > cap) {
    static int warned; /* once per process */
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_ACQ_REL))
      hk__coll_warn("%s: %d threads asked for, the ranks have %d core(s): using %d", fn, t,
                    c->cores, cap);
    return cap;
  }
  return t;
}

void hk__coll_choose(const hk__coll_cache_t *c, const hk_allreduce_opts_t *o,
                     hk__coll_choice_t *ch)
{
  int t_table = 0;
  ch->alg = hk__coll_pick(c, o, ch->kind, ch->bytes, &t_table);
  int modelled = ch->alg == HK_ALLREDUCE_AUTO;
  ch->threads = hk__coll_threads(c, o, t_table, ch->kind, ch->fn);
  if (modelled)
    ch->alg = ch->model ? ch->model(ch->call, &ch->threads) : HK_ALLREDUCE_MPI;
  ch->why = ch->alg != HK_ALLREDUCE_MPI ? HK_FALLBACK_NONE
            : modelled                  ? HK_FALLBACK_MODEL
                                        : HK_FALLBACK_CHOSEN;
}

int hk__coll_hier_nodes(hk__coll_cache_t *c, int across_nodes, hk_allreduce_fallback_t *why)
{
  int err = HK_SUCCESS;
  if (*why != HK_FALLBACK_NONE || c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS;
  HK_TRY(err, hk__coll_cache_nodes(c));
  if (c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS;
  if (c->nodes_state < 0 || c->max_local < 2 || (!across_nodes && c->nnodes > 1))
    *why = HK_FALLBACK_NODES;
  else if (c->nnodes > 1)
    HK_TRY(err, hk__coll_cache_leaders(c));
cleanup:
  return err;
}

int hk__coll_enter(MPI_Comm comm, hk__coll_cache_t **c, hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS, inter = 0;
  *c = NULL;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    info->fallback = HK_FALLBACK_INTERCOMM;
    return HK_SUCCESS;
  }
  hk__coll_cache_t *cache = NULL;
  HK_TRY(err, hk__coll_cache_get(comm, &cache));
  if (cache->size == 1)
    info->fallback = HK_FALLBACK_ONE_RANK; /* MPI only copies */
  else
    *c = cache;
cleanup:
  return err;
}

int hk__coll_run(hk__coll_cache_t *c, const hk__coll_choice_t *ch, hk__coll_run_fn run,
                 const void *call, hk_allreduce_info_t *info)
{
  int err = HK_SUCCESS, threads = ch->threads;
  hk_allreduce_alg_t alg = ch->alg;
  hk_allreduce_fallback_t why = ch->why;
  if (why == HK_FALLBACK_NONE && c->failed[alg])
    why = HK_FALLBACK_SETUP; /* agreed on every rank when it failed */
  info->fallback = why;
  if (why != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  threads = threads < 1 ? 1 : threads;
  HK_TRY(err, run(call, alg, threads));
  /* hierarchical grows its window inside: a failed set-up is agreed there and the
   * caller runs MPI (the buffers not touched yet) */
  if (c->failed[alg]) {
    info->fallback = HK_FALLBACK_SETUP;
    return HK_SUCCESS;
  }
  info->algorithm = alg;
  info->threads = threads;
cleanup:
  return err;
}

int hk__coll_chunked_setup(hk__coll_cache_t *c, hk_allreduce_alg_t alg, size_t scratch,
                           hk_allreduce_fallback_t *why)
{
  int err = HK_SUCCESS, ok = 1;
  if (*why != HK_FALLBACK_NONE)
    return HK_SUCCESS;
  HK_TRY(err, hk__coll_cache_dups(c, alg == HK_ALLREDUCE_CHUNKED_SHIFTED));
  if (scratch > 0 && !c->failed[alg]) {
    HK_TRY(err, hk__coll_scratch_grow(c, scratch, &ok));
    if (!ok)
      *why = HK_FALLBACK_SETUP; /* this call only: the next one tries again */
  }
cleanup:
  return err;
}

int hk__coll_contiguous(MPI_Datatype type)
{
  int size = 0;
  MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  return lb == 0 && tlb == 0 && (MPI_Aint)size == ext && text == ext;
}

hk_allreduce_fallback_t hk__coll_early(const hk_allreduce_opts_t *o, hk__coll_kind_t kind,
                                       long long count, long long bytes)
{
  long long min_bytes =
      o->min_bytes == HK_DEFAULT ? hk__coll_min_bytes(hk__coll_config(), kind) : o->min_bytes;
  if (o->algorithm == HK_ALLREDUCE_MPI)
    return HK_FALLBACK_CHOSEN;
  return count == 0 || bytes < min_bytes ? HK_FALLBACK_SMALL : HK_FALLBACK_NONE;
}

int hk__coll_mpi_done(hk_allreduce_info_t *info, int rc, const char *call, const char *file,
                      int line, const char *func)
{
  info->algorithm = HK_ALLREDUCE_MPI;
  info->threads = 1;
  info->mpi_error = rc;
  return rc == MPI_SUCCESS ? HK_SUCCESS : hk__mpi_error(rc, file, line, func, call);
}
