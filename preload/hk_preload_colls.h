/* preload/hk_preload_colls.h: the preload's MPI_Reduce, MPI_Reduce_scatter_block,
 * MPI_Bcast, MPI_Allgather, MPI_Alltoall, MPI_Scan, MPI_Exscan, MPI_Allgatherv,
 * MPI_Reduce_scatter and MPI_Alltoallv (issue 39), their thresholds and summary lines.  Not a header to include anywhere else: hk_preload.c includes it once, after st
 * and size_class, whose static state it shares (a file of its own keeps hk_preload.c
 * within the size limit).
 *
 * Each as MPI_Allreduce: below its threshold (HK_<KIND>_MIN_BYTES, HK_COLL_MIN_BYTES, the
 * table's: src/coll/config.c; agreed at init with the allreduce's by one PMPI_Allreduce),
 * count 0, null handles: straight to MPI; at or above it a communicator of one rank, an
 * inter-communicator (its two groups may count different bytes) and a root outside comm
 * pass through too; else hk_reduce, hk_reduce_scatter_block, hk_bcast, hk_allgather,
 * hk_alltoall, hk_scan, hk_exscan, hk_allgatherv, hk_reduce_scatter with AUTO, sampled per
 * communicator, collective and size class.  Bytes: count x type size (reduce, bcast,
 * scan, exscan), P x recvcount x type size (reduce-scatter, allgather, alltoall: all a
 * rank receives), the sum of recvcounts x type size (allgatherv, reduce-scatter's v form;
 * the thresholds of allgather and reduce_scatter), equal on every rank by MPI's type
 * rules.  MPI_Alltoallv: no local size (see MPI_Alltoallv below).
 * Errors as MPI_Allreduce's. */

#include <limits.h>

/* the collectives: the allreduce (st's own fields, its fast path) and the others */
enum { K_ALLREDUCE, K_REDUCE, K_REDUCE_SCATTER, K_BCAST, K_ALLGATHER, K_ALLTOALL, K_SCAN,
       K_EXSCAN, K_ALLGATHERV, K_REDUCE_SCATTER_V, K_ALLTOALLV, NK };
static const char *const kind_fn[NK] = {"MPI_Allreduce", "MPI_Reduce", "MPI_Reduce_scatter_block",
                                        "MPI_Bcast", "MPI_Allgather", "MPI_Alltoall", "MPI_Scan",
                                        "MPI_Exscan", "MPI_Allgatherv", "MPI_Reduce_scatter",
                                        "MPI_Alltoallv"};

_Static_assert(NK <= 12, "tcount_t's kcalls, ksmall");

/* one collective's counts beside the allreduce (calls and small below the threshold:
 * per thread in tcount_t, the rest under st.lock) */
typedef struct kstat {
  long long accelerated, by_alg[NALG], passed[P_NREASONS];
  double hybrid_time;
  struct { long long n_alg[NALG], n_mpi; double t_alg[NALG], t_mpi; } cls[NCLASS];
} kstat_t;
static kstat_t kst[NK];
static long long kmin[NK]; /* the agreed thresholds (kmin[K_ALLREDUCE] == st.min_bytes) */

/* The memo (issue 42): per communicator, the library's answer for a shape of call that it
 * handed back to MPI (the model's mpi, or mpi chosen by the table or the environment), so
 * the next call of that shape goes straight to MPI: no clock, no lock, no decision.  Key:
 * the kind, the bytes, a predefined type (handles never freed: one cannot come back as
 * another type), send type the same or in place, a predefined op or none; the v forms
 * (per-rank counts) are not memoised.  Everything else the library decides from is fixed
 * on the communicator or only takes hybrid algorithms away (set-up failures), and the
 * configuration is read once per process, so such an answer never goes stale.  Each rank
 * decides from its own memo; a hit returns what its decision would, so ranks whose memos
 * differ (eviction) still run the same MPI call. */
#define NMEMO 16
typedef struct memo {
  long long bytes;
  MPI_Datatype type;
  MPI_Op op;
  int kind, in_place, why; /* why: HK_FALLBACK_MODEL or _CHOSEN; NONE: empty */
} memo_t;
typedef struct comm_state {
  long long seen[NCLASS * NK]; /* sampling: kind k's classes [k * NCLASS, (k + 1) * NCLASS) */
  memo_t memo[NMEMO];          /* slot (kind x 7 + class) mod NMEMO */
} comm_state_t;

static int predefined_op(MPI_Op op)
{
  const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                        MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (op == ops[i])
      return 1;
  return 0;
}

/* defined in hk_preload.c after this file's inclusion */
static comm_state_t *comm_state(MPI_Comm comm);
static int memo_key(memo_t *m, int kind, long long bytes, MPI_Datatype type, MPI_Datatype stype,
                    int in_place, MPI_Op op);
static int memo_get(comm_state_t *cs, const memo_t *m, int cls);
static void memo_put(comm_state_t *cs, const memo_t *m, int cls, int why);
static void memo_count(int kind, int why);
static inline int type_size(MPI_Datatype type);

/* the thresholds of every kind agreed over MPI_COMM_WORLD (one PMPI_Allreduce): 1 when
 * every rank has the same */
static int agree_thresholds(const hk_coll_config_t *cfg)
{
  kmin[K_ALLREDUCE] = cfg->min_bytes;
  kmin[K_REDUCE] = cfg->reduce_min_bytes;
  kmin[K_REDUCE_SCATTER] = cfg->reduce_scatter_min_bytes;
  kmin[K_BCAST] = cfg->bcast_min_bytes;
  kmin[K_ALLGATHER] = cfg->allgather_min_bytes;
  kmin[K_ALLTOALL] = cfg->alltoall_min_bytes;
  kmin[K_SCAN] = cfg->scan_min_bytes;
  kmin[K_EXSCAN] = cfg->exscan_min_bytes;
  kmin[K_ALLGATHERV] = cfg->allgather_min_bytes;
  kmin[K_REDUCE_SCATTER_V] = cfg->reduce_scatter_min_bytes;
  kmin[K_ALLTOALLV] = cfg->alltoallv_min_bytes;
  long long mine[2 * NK], all[2 * NK];
  for (int k = 0; k < NK; k++) {
    mine[k] = kmin[k];
    mine[NK + k] = -kmin[k];
  }
  int ok = PMPI_Allreduce(mine, all, 2 * NK, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD) ==
           MPI_SUCCESS;
  for (int k = 0; k < NK; k++)
    ok = ok && all[k] == -all[NK + k];
  return ok;
}

#include "hk_preload_call.h"

static void add_passed(kstat_t *k, int reason)
{
  pthread_mutex_lock(&st.lock);
  k->passed[reason]++;
  pthread_mutex_unlock(&st.lock);
}

/* above the threshold: what MPI_Allreduce's hybrid_call does, for any kind */
static __attribute__((noinline)) int coll_hybrid(const call_t *a, int size, long long bytes)
{
  kstat_t *k = &kst[a->kind];
  int c = size_class(bytes), inter = 0;
  if (size == 1) { /* one rank: MPI only copies (counted per thread: no lock) */
    counts()->kone[a->kind]++;
    return pmpi_call(a);
  }
  /* inter-communicators (the two groups may count different bytes) and roots MPI must
   * judge: MPI's own call on every rank alike, no agreement */
  if (PMPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS || inter) {
    add_passed(k, HK_FALLBACK_INTERCOMM);
    return pmpi_call(a);
  }
  if ((a->kind == K_REDUCE || a->kind == K_BCAST) && (a->root < 0 || a->root >= size)) {
    counts()->ksmall[a->kind]++; /* counted with "small" */
    return pmpi_call(a);
  }
  comm_state_t *cs = comm_state(a->comm);
  if (!cs || cs->seen[a->kind * NCLASS + c]++ % SAMPLE_EVERY == 0) {
    double t0 = PMPI_Wtime();
    int rc = pmpi_call(a);
    double t = PMPI_Wtime() - t0;
    pthread_mutex_lock(&st.lock);
    k->passed[P_SAMPLED]++;
    k->cls[c].n_mpi++;
    k->cls[c].t_mpi += t;
    pthread_mutex_unlock(&st.lock);
    return rc;
  }
  memo_t key;
  int reduces = a->kind == K_REDUCE || a->kind == K_REDUCE_SCATTER || a->kind == K_SCAN ||
                a->kind == K_EXSCAN;
  int keyed = a->kind != K_ALLGATHERV && a->kind != K_REDUCE_SCATTER_V &&
              memo_key(&key, a->kind, bytes, a->type, a->kind == K_ALLGATHER ||
                       a->kind == K_ALLTOALL ? a->stype : a->type, a->sbuf == MPI_IN_PLACE,
                       reduces ? a->op : MPI_OP_NULL);
  int why = keyed ? memo_get(cs, &key, c) : HK_FALLBACK_NONE;
  if (why != HK_FALLBACK_NONE) { /* no clock, no lock */
    memo_count(a->kind, why);
    return pmpi_call(a);
  }
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_AUTO, .min_bytes = HK_DEFAULT, .info = &info};
  double t0 = PMPI_Wtime();
  int err = hk_call(a, &o);
  double t = PMPI_Wtime() - t0;
  if (err != HK_SUCCESS && info.mpi_error != MPI_SUCCESS)
    return info.mpi_error; /* MPI's own call failed: MPI called the error handler already */
  if (err != HK_SUCCESS) {
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "hybridkit-preload: rank %d: %s: %s\n", rank, kind_fn[a->kind],
            hk_error_message());
    fflush(stderr);
    PMPI_Comm_call_errhandler(a->comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
  }
  if (keyed)
    memo_put(cs, &key, c, info.fallback);
  pthread_mutex_lock(&st.lock);
  if (info.fallback == HK_FALLBACK_NONE && info.algorithm != HK_ALLREDUCE_MPI) {
    k->accelerated++;
    k->by_alg[info.algorithm]++;
    k->hybrid_time += t;
    k->cls[c].n_alg[info.algorithm]++;
    k->cls[c].t_alg[info.algorithm] += t;
  } else {
    k->passed[info.fallback]++;
  }
  pthread_mutex_unlock(&st.lock);
  return MPI_SUCCESS;
}

/* every call: counted; below the kind's threshold (or nothing to move, or arguments MPI
 * must judge) straight to MPI */
static int coll(const call_t *a)
{
  tcount_t *n = counts();
  n->kcalls[a->kind]++;
  if (a->kind == K_ALLTOALLV) { /* nothing rank-local may decide: hk_alltoallv agrees */
    int size = 0;
    if (!st.active || a->count <= 0 || a->comm == MPI_COMM_NULL ||
        kmin[K_ALLTOALLV] == LLONG_MAX || PMPI_Comm_size(a->comm, &size) != MPI_SUCCESS) {
      n->ksmall[a->kind]++;
      return pmpi_call(a);
    }
    return coll_hybrid(a, size, 0); /* one size class */
  }
  int size = 0, tsize = 0, blocks = a->kind == K_REDUCE_SCATTER || a->kind == K_ALLGATHER ||
                                    a->kind == K_ALLTOALL;
  int reduces = a->kind == K_REDUCE || a->kind == K_REDUCE_SCATTER || a->kind == K_SCAN ||
                a->kind == K_EXSCAN || a->kind == K_REDUCE_SCATTER_V;
  int sends = a->kind == K_ALLGATHER || a->kind == K_ALLTOALL || a->kind == K_ALLGATHERV;
  if (!st.active || a->count <= 0 || a->type == MPI_DATATYPE_NULL || a->comm == MPI_COMM_NULL ||
      (reduces && a->op == MPI_OP_NULL) ||
      (sends && a->sbuf != MPI_IN_PLACE && (a->stype == MPI_DATATYPE_NULL || a->scount < 0)) ||
      (tsize = type_size(a->type)) <= 0 ||
      (blocks && PMPI_Comm_size(a->comm, &size) != MPI_SUCCESS)) {
    n->ksmall[a->kind]++;
    return pmpi_call(a);
  }
  long long bytes = (long long)a->count * tsize * (blocks ? size : 1); /* P blocks of recvcount */
  if (bytes < kmin[a->kind] || (!blocks && PMPI_Comm_size(a->comm, &size) != MPI_SUCCESS)) {
    n->ksmall[a->kind]++;
    return pmpi_call(a);
  }
  return coll_hybrid(a, size, bytes);
}

/* Below the threshold, the kinds whose bytes are count x type size (reduce, bcast, scan,
 * exscan) pass through as MPI_Allreduce does (issue 42): this thread's last predefined type,
 * two counters, then the caller's PMPI call; anything else goes to coll(). */
static inline int fast_small(int kind, int count, MPI_Datatype type)
{
  tcount_t *n = fast.counts;
  if (__builtin_expect(n == NULL, 0) || type != fast.type || count * fast.size >= kmin[kind])
    return 0;
  n->kcalls[kind]++;
  n->ksmall[kind]++;
  return 1;
}

HK_PUBLIC int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                         int root, MPI_Comm comm)
{
  if (fast_small(K_REDUCE, count, type))
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
  call_t a = {.kind = K_REDUCE, .sbuf = sbuf, .rbuf = rbuf, .count = count, .type = type,
              .op = op, .root = root, .comm = comm};
  return coll(&a);
}

HK_PUBLIC int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int recvcount,
                                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  call_t a = {.kind = K_REDUCE_SCATTER, .sbuf = sbuf, .rbuf = rbuf, .count = recvcount,
              .type = type, .op = op, .comm = comm};
  return coll(&a);
}

HK_PUBLIC int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  if (fast_small(K_BCAST, count, type))
    return PMPI_Bcast(buffer, count, type, root, comm);
  call_t a = {.kind = K_BCAST, .rbuf = buffer, .count = count, .type = type, .root = root,
              .comm = comm};
  return coll(&a);
}

HK_PUBLIC int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
  call_t a = {.kind = K_ALLGATHER, .sbuf = sbuf, .rbuf = rbuf, .count = rcount, .type = rtype,
              .scount = scount, .stype = stype, .comm = comm};
  return coll(&a);
}

/* the v forms: the sum of the P counts (0 when a count is negative, the comm null or the
 * sum no int: MPI judges), so the threshold reads the bytes every rank moves */
static int total_of(const int *counts, MPI_Comm comm)
{
  int size = 0;
  long long sum = 0;
  if (!st.active || !counts || comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return 0;
  for (int j = 0; j < size; j++) {
    if (counts[j] < 0)
      return 0;
    sum += counts[j];
  }
  return sum <= INT_MAX ? (int)sum : 0;
}

HK_PUBLIC int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
  if (fast_small(K_SCAN, count, type))
    return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
  call_t a = {.kind = K_SCAN, .sbuf = sbuf, .rbuf = rbuf, .count = count, .type = type,
              .op = op, .comm = comm};
  return coll(&a);
}

HK_PUBLIC int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm)
{
  if (fast_small(K_EXSCAN, count, type))
    return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
  call_t a = {.kind = K_EXSCAN, .sbuf = sbuf, .rbuf = rbuf, .count = count, .type = type,
              .op = op, .comm = comm};
  return coll(&a);
}

HK_PUBLIC int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rtype,
                             MPI_Comm comm)
{
  call_t a = {.kind = K_ALLGATHERV, .sbuf = sbuf, .rbuf = rbuf, .count = total_of(rcounts, comm),
              .counts = rcounts, .displs = displs, .type = rtype, .scount = scount,
              .stype = stype, .comm = comm};
  if (!displs)
    a.count = 0; /* MPI judges */
  return coll(&a);
}

HK_PUBLIC int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  call_t a = {.kind = K_REDUCE_SCATTER_V, .sbuf = sbuf, .rbuf = rbuf,
              .count = total_of(rcounts, comm), .counts = rcounts, .type = type, .op = op,
              .comm = comm};
  return coll(&a);
}

/* MPI_Alltoallv: a rank knows only its own counts, so nothing local decides: with the
 * built-in threshold (never) straight to MPI, else every call to hk_alltoallv (it agrees
 * on the size and applies the threshold itself), sampled in one size class (the same
 * calls on every rank).  count 1 (0 when an array is NULL: MPI judges). */
HK_PUBLIC int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype stype, void *rbuf, const int rcounts[],
                            const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
  int in_place = sbuf == MPI_IN_PLACE;
  call_t a = {.kind = K_ALLTOALLV, .sbuf = sbuf, .rbuf = rbuf,
              .count = rcounts && rdispls && (in_place || (scounts && sdispls)), .counts = rcounts,
              .displs = rdispls, .scounts = scounts, .sdispls = sdispls, .type = rtype,
              .scount = 0, .stype = stype, .comm = comm};
  return coll(&a);
}

HK_PUBLIC int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
  call_t a = {.kind = K_ALLTOALL, .sbuf = sbuf, .rbuf = rbuf, .count = rcount, .type = rtype,
              .scount = scount, .stype = stype, .comm = comm};
  return coll(&a);
}

/* hk_preload_query's sums over the other collectives (st.lock held) */
static void kinds_state(hk_preload_state_t *s)
{
  for (int k = 1; k < NK; k++) {
    s->calls += spare_counts.kcalls[k];
    s->passed += spare_counts.ksmall[k];
    s->passed += spare_counts.kmodel[k] + spare_counts.kchosen[k] + spare_counts.kone[k];
    for (const tcount_t *c = thread_counts; c; c = c->next) {
      s->calls += c->kcalls[k];
      s->passed += c->ksmall[k] + c->kmodel[k] + c->kchosen[k] + c->kone[k];
    }
    for (int r = 0; r < P_NREASONS; r++)
      s->passed += kst[k].passed[r];
    s->accelerated += kst[k].accelerated;
    s->hybrid_time += kst[k].hybrid_time;
  }
}

/* one line per other collective that had calls (the allreduce's format, then the
 * threshold, the hybrid time and the estimated saving against the sampled calls) */
static void summary_kinds(void)
{
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { NC = 2 + NALG + P_NREASONS, ND = 2 };
  long long mine[NK][NC], all[NK][NC];
  double tmine[NK][ND], tall[NK][ND];
  memset(mine, 0, sizeof mine);
  memset(tmine, 0, sizeof tmine);
  pthread_mutex_lock(&st.lock);
  for (int k = 1; k < NK; k++) {
    const kstat_t *q = &kst[k];
    mine[k][0] = spare_counts.kcalls[k];
    mine[k][2 + NALG + HK_FALLBACK_SMALL] = spare_counts.ksmall[k];
    mine[k][2 + NALG + HK_FALLBACK_MODEL] = spare_counts.kmodel[k];
    mine[k][2 + NALG + HK_FALLBACK_CHOSEN] = spare_counts.kchosen[k];
    mine[k][2 + NALG + HK_FALLBACK_ONE_RANK] = spare_counts.kone[k];
    for (const tcount_t *c = thread_counts; c; c = c->next) {
      mine[k][0] += c->kcalls[k];
      mine[k][2 + NALG + HK_FALLBACK_SMALL] += c->ksmall[k];
      mine[k][2 + NALG + HK_FALLBACK_MODEL] += c->kmodel[k];
      mine[k][2 + NALG + HK_FALLBACK_CHOSEN] += c->kchosen[k];
      mine[k][2 + NALG + HK_FALLBACK_ONE_RANK] += c->kone[k];
    }
    mine[k][1] = q->accelerated;
    memcpy(&mine[k][2], q->by_alg, sizeof q->by_alg);
    for (int r = 0; r < P_NREASONS; r++)
      mine[k][2 + NALG + r] += q->passed[r];
    tmine[k][0] = q->hybrid_time;
    for (int a = 0; a < NALG; a++)
      for (int c = 0; c < NCLASS; c++)
        if (q->cls[c].n_alg[a] && q->cls[c].n_mpi)
          tmine[k][1] += (q->cls[c].t_mpi / q->cls[c].n_mpi -
                          q->cls[c].t_alg[a] / q->cls[c].n_alg[a]) * q->cls[c].n_alg[a];
  }
  pthread_mutex_unlock(&st.lock);
  PMPI_Reduce(mine, all, NK * NC, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(tmine, tall, NK * ND, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return;
  for (int k = 1; k < NK; k++) {
    if (!all[k][0])
      continue;
    char algs[256] = "", why[512] = "";
    for (int a = 0; a < NALG; a++)
      if (all[k][2 + a])
        snprintf(algs + strlen(algs), sizeof algs - strlen(algs), "%s%s %lld",
                 algs[0] ? ", " : "", hk_allreduce_alg_name((hk_allreduce_alg_t)a), all[k][2 + a]);
    for (int r = 0; r < P_NREASONS; r++) {
      long long n = all[k][2 + NALG + r];
      const char *name = r == P_SAMPLED ? "sampled" : hk_allreduce_fallback_name(r);
      if (n)
        snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s %lld", why[0] ? ", " : "",
                 name, n);
    }
    fprintf(stderr,
            "hybridkit-preload: %s: %lld calls intercepted on %d ranks, %lld accelerated%s%s%s, "
            "%lld passed through%s%s%s; threshold %lld bytes; hybrid %.6f s (sum over ranks), "
            "estimated saving %.6f s\n",
            kind_fn[k], all[k][0], size, all[k][1], algs[0] ? " (" : "", algs, algs[0] ? ")" : "",
            all[k][0] - all[k][1], why[0] ? " (" : "", why, why[0] ? ")" : "", kmin[k],
            tall[k][0], tall[k][1]);
  }
  fflush(stderr);
}

