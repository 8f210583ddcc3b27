/* src/modes/engine.c: the one schedule driver of the hybrid modes.  hk_mode_run reads a
 * mode's row (table.c) and runs a data structure's operations (hk_mode_ops_t) in that
 * mode's order, on the threads it names:
 *
 *   caller modes (pure, pure-nb, masteronly): MPI from the caller between parallel regions
 *       team{pack} post [team{local}: pure-nb] wait team{unpack, local, boundary}
 *   one region (funneled, task, task-balanced, multiple, multiple-reserved):
 *       team{ pack | threads t < c: post, wait, unpack their messages
 *                  || (overlap) the others: local | barrier | boundary }
 *       funneled: the master posts and waits, all unpack after a barrier
 *
 * Errors of post/wait are kept once (the first, from any thread) and returned; the
 * MASTERONLY guard runs before every post and wait; per-thread phase timers are folded
 * into hk_mode_times_t (the slowest thread per phase). */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "modes/modes_internal.h"

/* the per-thread timers live on the caller's stack: 64 bytes a thread */
#define HK_MODE_MAX_THREADS 4096

/* one thread's times, padded against false sharing */
typedef struct mode_tt {
  _Alignas(64) double pack;
  double post, wait, unpack, local, boundary, whole, local_end, comm_end;
} mode_tt_t;

typedef struct mode_run {
  const hk_mode_info_t *row;
  const hk_mode_ops_t *ops;
  mode_tt_t *tt;
  int n, ncomm;
  int err;   /* the first error of any thread */
} mode_run_t;

static void keep_error(mode_run_t *r, int err)
{
  if (err == HK_SUCCESS)
    return;
#pragma omp critical(hk_mode_error)
  if (r->err == HK_SUCCESS)
    r->err = err;
}

static int read_error(mode_run_t *r)
{
  int err;
#pragma omp atomic read
  err = r->err;
  return err;
}

/* post or wait by the calling thread, guarded and timed */
static int comm_call(mode_run_t *r, int wait, int first, int stride)
{
  mode_tt_t *tt = &r->tt[omp_get_thread_num()];
  double t0 = hk__clock();
  int err = hk__masteronly_guard(__FILE__, __LINE__, __func__,
                                 wait ? "the wait of a hybrid mode" : "the post of a hybrid mode");
  if (err == HK_SUCCESS)
    err = wait ? r->ops->wait(r->ops->arg, first, stride) : r->ops->post(r->ops->arg, first, stride);
  double t1 = hk__clock();
  *(wait ? &tt->wait : &tt->post) += t1 - t0;
  if (wait)
    tt->comm_end = t1;
  return err;
}

/* post + wait (+ unpack of those messages when own) by the calling thread */
static int exchange(mode_run_t *r, int first, int stride, int own)
{
  int err = comm_call(r, 0, first, stride);
  if (err == HK_SUCCESS)
    err = comm_call(r, 1, first, stride);
  if (err == HK_SUCCESS && own && r->ops->unpack_msgs) {
    mode_tt_t *tt = &r->tt[omp_get_thread_num()];
    double t0 = hk__clock();
    r->ops->unpack_msgs(r->ops->arg, first, stride);
    tt->comm_end = hk__clock();
    tt->unpack += tt->comm_end - t0;
  }
  return err;
}

/* fn(piece of pieces), timed into *slot; a skipped NULL fn costs nothing */
static void part(mode_run_t *r, void (*fn)(void *, int, int), int piece, int pieces, double *slot)
{
  if (!fn)
    return;
  double t0 = hk__clock();
  fn(r->ops->arg, piece, pieces);
  double t1 = hk__clock();
  *slot += t1 - t0;
  if (slot == &r->tt[omp_get_thread_num()].local)
    r->tt[omp_get_thread_num()].local_end = t1;
}

/* every thread of the team its share of fn, then a barrier (untimed) */
static void team_share(mode_run_t *r, void (*fn)(void *, int, int), int unpack)
{
  if (!fn)
    return;
  int t = omp_get_thread_num();
  part(r, fn, t, omp_get_num_threads(), unpack ? &r->tt[t].unpack : &r->tt[t].pack);
#pragma omp barrier
}

/* after the exchange, modes without overlap: whole, or local | barrier | boundary */
static void compute_all(mode_run_t *r)
{
  int t = omp_get_thread_num(), nt = omp_get_num_threads();
  mode_tt_t *tt = &r->tt[t];
  if (read_error(r) != HK_SUCCESS)
    return;
  if (r->ops->whole) {
    part(r, r->ops->whole, t, nt, &tt->whole);
    return;
  }
  part(r, r->ops->local, t, nt, &tt->local);
  if (r->ops->local && r->ops->boundary) {
#pragma omp barrier
  }
  part(r, r->ops->boundary, t, nt, &tt->boundary);
}

/* overlap modes: the local part during the exchange, barrier, then the boundary */
static void compute_overlap(mode_run_t *r)
{
  int t = omp_get_thread_num(), nt = omp_get_num_threads();
  mode_tt_t *tt = &r->tt[t];
  if (r->row->balanced && r->ops->local) {
    const int nchunks = 4 * nt;
    double t0 = hk__clock();
#pragma omp for schedule(dynamic, 1) nowait
    for (int c = 0; c < nchunks; c++)
      r->ops->local(r->ops->arg, c, nchunks);
    tt->local_end = hk__clock();
    tt->local += tt->local_end - t0;
  } else if (nt > r->ncomm) {
    if (t >= r->ncomm)
      part(r, r->ops->local, t - r->ncomm, nt - r->ncomm, &tt->local);
  } else { /* nobody left to overlap with: the communicators compute after */
    part(r, r->ops->local, t, nt, &tt->local);
  }
#pragma omp barrier
  if (read_error(r) == HK_SUCCESS)
    part(r, r->ops->boundary, t, nt, &tt->boundary);
}

static void region_pack(mode_run_t *r) { team_share(r, r->ops->pack, 0); }

static void region_local(mode_run_t *r)
{
  part(r, r->ops->local, omp_get_thread_num(), omp_get_num_threads(), &r->tt[omp_get_thread_num()].local);
}

/* masteronly, pure: unpack, then the update; pure-nb: unpack, then the boundary */
static void region_after(mode_run_t *r)
{
  team_share(r, r->ops->unpack, 1);
  if (!r->row->overlap) {
    compute_all(r);
  } else if (read_error(r) == HK_SUCCESS) {
    int t = omp_get_thread_num();
    part(r, r->ops->boundary, t, omp_get_num_threads(), &r->tt[t].boundary);
  }
}

/* the one region of the threaded modes */
static void region_threaded(mode_run_t *r)
{
  int t = omp_get_thread_num();
  team_share(r, r->ops->pack, 0);
  if (r->row->comm == HK_MODE_COMM_MASTER && !r->row->overlap) { /* funneled */
    if (t == 0)
      keep_error(r, exchange(r, 0, 1, 0));
#pragma omp barrier
    team_share(r, r->ops->unpack, 1);
    compute_all(r);
    return;
  }
  if (t < r->ncomm)
    keep_error(r, exchange(r, t, r->ncomm, 1));
  if (r->row->overlap) {
    compute_overlap(r);
  } else {
#pragma omp barrier
    compute_all(r);
  }
}

/* fn on a team of n threads (n == 1: the caller itself, no region) */
static void team(mode_run_t *r, void (*fn)(mode_run_t *))
{
  if (r->n > 1) {
#pragma omp parallel num_threads(r->n)
    fn(r);
  } else {
    fn(r);
  }
}

static void run_caller(mode_run_t *r)
{
  team(r, region_pack);
  int err = comm_call(r, 0, 0, 1);
  if (err == HK_SUCCESS && r->row->overlap)
    team(r, region_local);
  if (err == HK_SUCCESS)
    err = comm_call(r, 1, 0, 1);
  r->err = err;
  team(r, region_after);
}

/* the slowest thread of each phase into *out */
static void account(const mode_run_t *r, hk_mode_times_t *out)
{
  const int spare = r->row->comm == HK_MODE_COMM_CALLER ? r->row->overlap
                                                         : r->row->overlap && r->n > r->ncomm;
  const int cfirst = spare && r->row->comm != HK_MODE_COMM_CALLER ? r->ncomm : 0;
  hk_mode_times_t s = {0};
  double comm_end = 0, local_end = 0;
  for (int t = 0; t < r->n; t++) {
    const mode_tt_t *x = &r->tt[t];
    s.pack = fmax(s.pack, x->pack);
    s.post = fmax(s.post, x->post);
    s.wait = fmax(s.wait, x->wait);
    s.unpack = fmax(s.unpack, x->unpack);
    s.local = fmax(s.local, x->local);
    s.boundary = fmax(s.boundary, x->boundary);
    s.whole = fmax(s.whole, x->whole);
    if (t < r->ncomm) {
      s.comm = fmax(s.comm, x->post + x->wait + x->unpack);
      comm_end = fmax(comm_end, x->comm_end);
    }
    if (t >= cfirst && r->row->overlap) {
      s.local_overlap = fmax(s.local_overlap, x->local);
      local_end = fmax(local_end, x->local_end);
    }
  }
  s.exposed = spare ? fmax(0.0, comm_end - local_end) : s.comm;
  *out = s;
}

static int check_run(hk_mode_t mode, int threads, const hk_mode_ops_t *ops)
{
  if (!hk__mode_row(mode))
    return HK_ERROR(HK_ERR_ARG, "mode %d is not in 0..%d", (int)mode, HK_MODE_COUNT - 1);
  if (!ops || !ops->pack || !ops->post || !ops->wait)
    return HK_ERROR(HK_ERR_ARG, "ops, ops->pack, ops->post and ops->wait must not be NULL");
  if (!ops->unpack != !ops->unpack_msgs)
    return HK_ERROR(HK_ERR_ARG, "ops->unpack and ops->unpack_msgs are both given or both NULL "
                                "(the modes unpack one way or the other)");
  if (threads < 1 || threads > HK_MODE_MAX_THREADS)
    return HK_ERROR(HK_ERR_ARG, "threads is %d, must be in 1..%d", threads, HK_MODE_MAX_THREADS);
  if (omp_in_parallel())
    return HK_ERROR(HK_ERR_STATE, "hk_mode_run is called outside parallel regions");
  return HK_SUCCESS;
}

int hk_mode_run(hk_mode_t mode, int threads, int reserved, const hk_mode_ops_t *ops,
                hk_mode_times_t *times)
{
  int err = check_run(mode, threads, ops);
  if (err != HK_SUCCESS)
    return err;
  const hk_mode_info_t *row = hk__mode_row(mode);
  const int n = row->level == HK_THREAD_SINGLE ? 1 : threads;
  int ncomm = 1;
  if (row->comm == HK_MODE_COMM_ALL)
    ncomm = n;
  else if (row->reserved < 0 && reserved > 1)
    ncomm = reserved < n ? reserved : n;
  mode_tt_t tt[n];
  memset(tt, 0, sizeof tt);
  mode_run_t r = {.row = row, .ops = ops, .tt = tt, .n = n, .ncomm = ncomm, .err = HK_SUCCESS};
  if (row->comm == HK_MODE_COMM_CALLER)
    run_caller(&r);
  else
    team(&r, region_threaded);
  if (times)
    account(&r, times);
  return r.err;
}
