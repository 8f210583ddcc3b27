/* src/coll/cache.c: per-communicator state of the hybrid collectives.
 *
 * At the first hybrid call on a communicator (collective, like the call) the
 * ranks agree, in one PMPI_Allreduce, on: the usable cores and default thread
 * count (minimum over ranks), whether some node is oversubscribed, whether all
 * have MPI_THREAD_MULTIPLE, and whether all loaded the same configuration.
 * Usable cores of a rank: the CPUs of its affinity mask, at most the online
 * CPUs divided by the ranks sharing its node (the launcher's count, else this
 * communicator's, from one PMPI_Comm_split_type).  Set-up that can fail on one
 * rank (duplicates, nodes, window) is followed by an agreement, so a failure
 * turns the algorithm off on that communicator on every rank (a fallback).  The state is cached with an attribute
 * (copy: not inherited by MPI_Comm_dup; delete: frees the duplicates and the
 * window), so it is freed when the program frees the communicator.  Caches of
 * communicators still alive at MPI_Finalize (MPI_COMM_WORLD) are freed by an
 * attribute on MPI_COMM_SELF, whose delete callback MPI runs first thing in
 * MPI_Finalize.
 */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "coll/coll_internal.h"
#include "internal/hk_last_comm.h"
#include "internal/hk_launcher.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static hk__coll_cache_t *registry; /* caches alive */
/* The look-up without the lock or the attribute: this thread's last communicator and its
 * cache (internal/hk_last_comm.h), gen +1 on every free. */
static unsigned gen;
static HK__LAST_TLS hk__last_comm_t last;

static void free_comms(MPI_Comm *comms, int n)
{
  for (int i = 0; comms && i < n; i++)
    if (comms[i] != MPI_COMM_NULL)
      PMPI_Comm_free(&comms[i]);
  free(comms);
}

static void cache_free(hk__coll_cache_t *c)
{
  free_comms(c->dup, c->ncomms);
  free_comms(c->shifted, c->ncomms);
  free_comms(c->leader_dup, c->ncomms);
  if (c->leaders != MPI_COMM_NULL)
    PMPI_Comm_free(&c->leaders);
  if (c->win != MPI_WIN_NULL) {
    PMPI_Win_unlock_all(c->win);
    PMPI_Win_free(&c->win);
  }
  free(c->slot);
  free(c->scratch);
  hk_nodes_destroy(&c->nodes);
  free(c);
}

static int delete_cb(MPI_Comm comm, int kv, void *value, void *extra)
{
  (void)comm;
  (void)kv;
  (void)extra;
  hk__coll_cache_t *c = value;
  pthread_mutex_lock(&lock);
  hk__last_comm_bump(&gen);
  for (hk__coll_cache_t **p = &registry; *p; p = &(*p)->next)
    if (*p == c) {
      *p = c->next;
      break;
    }
  pthread_mutex_unlock(&lock);
  cache_free(c);
  return MPI_SUCCESS;
}

/* MPI_Finalize: free what is left, then the keyvals */
static int self_delete_cb(MPI_Comm comm, int kv, void *value, void *extra)
{
  (void)comm;
  (void)kv;
  (void)value;
  (void)extra;
  for (;;) {
    pthread_mutex_lock(&lock);
    hk__coll_cache_t *c = registry;
    pthread_mutex_unlock(&lock);
    if (!c)
      break;
    PMPI_Comm_delete_attr(c->comm, keyval); /* runs delete_cb: unlinks c */
  }
  PMPI_Comm_free_keyval(&keyval);
  PMPI_Comm_free_keyval(&self_keyval);
  keyval = self_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

static int make_keyvals(void)
{
  int rc = MPI_SUCCESS;
  if (keyval != MPI_KEYVAL_INVALID)
    return HK_SUCCESS;
  rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &keyval, NULL);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_cb, &self_keyval, NULL);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Comm_create_keyval");
}

/* The MPI thread level, capped by HK_MPI_THREAD_LIMIT like hk_init does. */
static int thread_level(void)
{
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  const char *cap = getenv("HK_MPI_THREAD_LIMIT");
  hk_thread_level_t c;
  if (cap && *cap && hk_thread_level_parse(cap, &c) != HK_SUCCESS) {
    /* hk_init stops on a bad value; without it (the preload library) it caps nothing,
     * and rank 0 says so once */
    static int warned;
    hk_error_clear();
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_ACQ_REL))
      hk__coll_warn("HK_MPI_THREAD_LIMIT=%s: not a thread level (single, funneled, serialized, "
                    "multiple); ignored", cap);
  } else if (cap && *cap) {
    static const int mpi_of[] = {MPI_THREAD_SINGLE, MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                                 MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
    if (mpi_of[c] < level)
      level = mpi_of[c];
  }
  return level;
}

static int create(MPI_Comm comm, hk__coll_cache_t **out)
{
  int err = HK_SUCCESS, rc;
  hk__coll_cache_t *c = NULL;
  HK_ALLOC_LOCAL(err, c, 1);
  HK_AGREE(err, comm);
  c->comm = comm;
  c->leaders = MPI_COMM_NULL;
  c->win = MPI_WIN_NULL;
  PMPI_Comm_rank(comm, &c->rank);
  PMPI_Comm_size(comm, &c->size);
  const hk__coll_config_t *cfg = hk__coll_config();
  /* ranks sharing this node: the launcher's count (all of its ranks compete for
   * the cores), at least those of comm */
  int sharing = hk__launcher_local_ranks(), here = 1;
  if (c->size > 1) {
    MPI_Comm node = MPI_COMM_NULL;
    rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) {
      err = HK_COLL_MPI(rc, "PMPI_Comm_split_type (cores)");
      goto cleanup;
    }
    PMPI_Comm_size(node, &here);
    PMPI_Comm_free(&node);
  }
  if (sharing < here)
    sharing = here;
  long cpus_l, online;
  int usable = (int)hk__usable_cores(sharing, &cpus_l, &online), cpus = (int)cpus_l;
  int maxt = omp_get_max_threads();
  /* minimum over ranks of each; hash agreed when its min equals its max */
  int mine[7] = {cpus, maxt, thread_level() >= MPI_THREAD_MULTIPLE, (int)cfg->hash,
                 -(int)cfg->hash, -(sharing > online), usable < 1 ? 1 : usable};
  int agreed[7];
  rc = PMPI_Allreduce(mine, agreed, 7, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS) {
    err = HK_COLL_MPI(rc, "PMPI_Allreduce (agreement)");
    goto cleanup;
  }
  c->cores = agreed[0] < 1 ? 1 : agreed[0];
  c->default_threads = agreed[1] < 1 ? 1 : agreed[1];
  c->multiple = agreed[2];
  c->config_ok = agreed[3] == -agreed[4];
  c->oversubscribed = -agreed[5];
  c->usable = agreed[6] < 1 ? 1 : agreed[6];
  c->ncomms = c->cores > c->default_threads ? c->cores : c->default_threads;
  if (c->ncomms > HK_COLL_MAX_THREADS)
    c->ncomms = HK_COLL_MAX_THREADS;
  if (!c->config_ok && c->rank == 0)
    hk__coll_warn("the hybrid collectives' configuration (HK_COLL_TUNING, HK_COLL_*, HK_<KIND>_*) differs "
                  "between ranks; using the defaults on this communicator");
  rc = PMPI_Comm_set_attr(comm, keyval, c);
  if (rc != MPI_SUCCESS) {
    err = HK_COLL_MPI(rc, "PMPI_Comm_set_attr");
    goto cleanup;
  }
  pthread_mutex_lock(&lock);
  c->next = registry;
  registry = c;
  pthread_mutex_unlock(&lock);
  *out = c;
  return HK_SUCCESS;
cleanup:
  free(c);
  return err;
}

int hk__coll_agree_ok(hk__coll_cache_t *c, int ok, int *all_ok)
{
  int mine = ok != 0, all = 0;
  int rc = PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c->comm);
  if (rc != MPI_SUCCESS)
    return HK_COLL_MPI(rc, "PMPI_Allreduce (set-up agreement)");
  *all_ok = all;
  return HK_SUCCESS;
}

/* the cache of comm in *value if *found (under the lock) */
static int lookup(MPI_Comm comm, void **value, int *found)
{
  int err = HK_SUCCESS;
  HK_TRY(err, make_keyvals());
  int rc = PMPI_Comm_get_attr(comm, keyval, value, found);
  if (rc != MPI_SUCCESS)
    err = HK_COLL_MPI(rc, "PMPI_Comm_get_attr");
cleanup:
  return err;
}

int hk__coll_cache_get(MPI_Comm comm, hk__coll_cache_t **cache)
{
  int err = HK_SUCCESS, found = 0;
  void *value = NULL;
  unsigned now;
  if ((*cache = hk__last_comm_get(&last, &gen, comm, &now)))
    return HK_SUCCESS; /* one compare of the handle and the generation */
  pthread_mutex_lock(&lock);
  err = lookup(comm, &value, &found);
  pthread_mutex_unlock(&lock);
  if (err != HK_SUCCESS)
    return err;
  hk__coll_cache_t *c = value;
  if (!found) /* creation is collective: never under the lock (other threads may need it) */
    err = create(comm, &c);
  if (err == HK_SUCCESS) {
    *cache = c;
    hk__last_comm_put(&last, comm, c, now);
  }
  return err;
}

/* Duplicates of one family; a rank whose creation failed says so in the
 * agreement that follows, and every rank then marks the algorithm failed. */
int hk__coll_cache_dups(hk__coll_cache_t *c, int shifted)
{
  MPI_Comm **family = shifted ? &c->shifted : &c->dup;
  int alg = shifted ? HK_ALLREDUCE_CHUNKED_SHIFTED : HK_ALLREDUCE_CHUNKED, ok = 1, all = 0, err;
  if (*family || c->failed[alg])
    return HK_SUCCESS;
  MPI_Comm *comms = malloc((size_t)c->ncomms * sizeof *comms);
  for (int t = 0; comms && t < c->ncomms; t++)
    comms[t] = MPI_COMM_NULL;
  /* every rank makes the same collective calls whatever failed before */
  for (int t = 0; t < c->ncomms; t++) {
    MPI_Comm made = MPI_COMM_NULL;
    /* shifted: communicator t numbers rank r as (r - t) mod P */
    int rc = shifted ? PMPI_Comm_split(c->comm, 0, (c->rank - t % c->size + c->size) % c->size,
                                       &made)
                     : PMPI_Comm_dup(c->comm, &made);
    if (rc != MPI_SUCCESS || !comms) {
      ok = 0;
      if (rc == MPI_SUCCESS)
        PMPI_Comm_free(&made);
    } else {
      comms[t] = made;
    }
  }
  err = hk__coll_agree_ok(c, ok, &all);
  if (err != HK_SUCCESS || !all) {
    free_comms(comms, comms ? c->ncomms : 0);
    c->failed[alg] = 1;
    return err;
  }
  *family = comms;
  return HK_SUCCESS;
}

int hk__coll_cache_nodes(hk__coll_cache_t *c)
{
  if (c->nodes_state)
    return HK_SUCCESS;
  /* hk_nodes_create agrees on its own errors (HK_NODE_SIZE not dividing comm):
   * all ranks get the same result, a reason to fall back */
  int err = hk_nodes_create(c->comm, &c->nodes);
  if (err != HK_SUCCESS) {
    hk_error_clear();
    c->nodes = NULL;
    c->nodes_state = -1;
    return HK_SUCCESS;
  }
  hk_nodes_info_t ni;
  hk_nodes_info(c->nodes, &ni);
  c->local_rank = ni.local_rank;
  c->local_size = ni.local_size;
  c->nnodes = ni.nnodes;
  c->max_local = ni.max_local_size;
  c->nodes_state = 1;
  return HK_SUCCESS;
}

int hk__coll_cache_leaders(hk__coll_cache_t *c)
{
  int err = HK_SUCCESS, rc, ok = 1, all = 0;
  if (c->leaders_made || c->failed[HK_ALLREDUCE_HIERARCHICAL])
    return HK_SUCCESS;
  c->leaders_made = 1;
  rc = PMPI_Comm_split(c->comm, c->local_rank == 0 ? 0 : MPI_UNDEFINED, c->rank, &c->leaders);
  if (rc != MPI_SUCCESS) {
    c->leaders = MPI_COMM_NULL;
    ok = 0;
  }
  /* the leaders' duplicates: only leaders take part (collective over leaders) */
  if (ok && c->leaders != MPI_COMM_NULL) {
    c->leader_dup = malloc((size_t)c->ncomms * sizeof *c->leader_dup);
    for (int t = 0; c->leader_dup && t < c->ncomms; t++)
      c->leader_dup[t] = MPI_COMM_NULL;
    for (int t = 0; t < c->ncomms; t++) {
      MPI_Comm made = MPI_COMM_NULL;
      rc = PMPI_Comm_dup(c->leaders, &made);
      if (rc != MPI_SUCCESS || !c->leader_dup) {
        ok = 0;
        if (rc == MPI_SUCCESS)
          PMPI_Comm_free(&made);
      } else {
        c->leader_dup[t] = made;
      }
    }
  }
  HK_TRY(err, hk__coll_agree_ok(c, ok, &all));
  if (!all)
    c->failed[HK_ALLREDUCE_HIERARCHICAL] = 1; /* what was made is freed with the cache */
cleanup:
  return err;
}

static int window(hk__coll_cache_t *c, size_t bytes)
{
  int rc;
  MPI_Comm node = hk_nodes_comm(c->nodes);
  if (c->win != MPI_WIN_NULL) {
    PMPI_Win_unlock_all(c->win);
    PMPI_Win_free(&c->win);
  }
  c->cap = 0;
  size_t cap = 4096;
  while (cap < bytes)
    cap *= 2;
  /* every rank holds its slot; the leader's segment holds the result too */
  MPI_Aint size = (MPI_Aint)(c->local_rank == 0 ? 2 * cap : cap);
  char *base = NULL;
  rc = PMPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, node, &base, &c->win);
  if (rc != MPI_SUCCESS) {
    c->win = MPI_WIN_NULL;
    return HK_COLL_MPI(rc, "PMPI_Win_allocate_shared");
  }
  if (!c->slot && !(c->slot = calloc((size_t)c->local_size, sizeof *c->slot)))
    return HK_ERROR(HK_ERR_NOMEM, "out of memory");
  for (int l = 0; l < c->local_size; l++) {
    MPI_Aint sz;
    int du;
    rc = PMPI_Win_shared_query(c->win, l, &sz, &du, &c->slot[l]);
    if (rc != MPI_SUCCESS)
      return HK_COLL_MPI(rc, "PMPI_Win_shared_query");
  }
  c->result = c->slot[0] + cap;
  rc = PMPI_Win_lock_all(MPI_MODE_NOCHECK, c->win);
  if (rc != MPI_SUCCESS)
    return HK_COLL_MPI(rc, "PMPI_Win_lock_all");
  c->cap = cap;
  return HK_SUCCESS;
}

/* the window grows on the same call on every rank (bytes is the same), so the
 * agreement after it is collective over c->comm */
int hk__coll_cache_window(hk__coll_cache_t *c, size_t bytes)
{
  int all = 0, err;
  if (c->win != MPI_WIN_NULL && bytes <= c->cap)
    return HK_SUCCESS;
  int ok = window(c, bytes) == HK_SUCCESS;
  if (!ok)
    hk_error_clear();
  err = hk__coll_agree_ok(c, ok, &all);
  if (err != HK_SUCCESS)
    return err;
  if (!all)
    c->failed[HK_ALLREDUCE_HIERARCHICAL] = 1; /* the window is freed with the cache */
  return HK_SUCCESS;
}
