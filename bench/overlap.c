/* bench/overlap.c: does the MPI library overlap communication with computation?
 * (Hager/Wellein's non-blocking overlap test; the "overlap" chance of hybrid codes.)
 *
 *   T_comm      Irecv + Isend of L bytes between two ranks, then Waitall
 *   T_compute   a calibrated pure-compute delay d (no memory traffic)
 *   nonblocking Irecv, Isend, compute(d), Waitall          -> T_total
 *   task        thread 0: Irecv, Isend, Waitall  ||  thread 1: compute(d)  -> T_total
 *   overlap = (T_comm + T_compute - T_total) / min(T_comm, T_compute), clamped to [0, 1]:
 *   1 = the transfer is completely hidden, 0 = it starts only in Waitall (no asynchronous
 *   progress).  d sweeps 0.25, 0.5, 1, 1.5, 2 x T_comm.
 * The pair is rank 0 and the first rank on another node (else on its node); the other
 * ranks sleep.  Received data is validated.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static const double factors[] = {0.25, 0.5, 1.0, 1.5, 2.0};
enum { NFACT = sizeof factors / sizeof factors[0] };

/* a compute loop with no memory traffic; `n` steps */
static double spin_compute(long long n)
{
  double x = 1.0, y = 0.5;
  for (long long i = 0; i < n; i++) {
    x = x * 1.0000001 + 1e-9;
    y = y * 0.9999999 + x * 1e-12;
  }
  return x + y;
}

static volatile double sink;

/* steps per second of spin_compute on this thread */
static double calibrate(void)
{
  long long n = 1 << 16;
  double t = 0.0;
  while (t < 0.02) {
    n *= 2;
    double t0 = hk_wtime();
    sink = spin_compute(n);
    t = hk_wtime() - t0;
  }
  return (double)n / t;
}

typedef struct pair {
  int me, peer, in;
  unsigned char *sbuf, *rbuf;
  int n;
  long long bad;
} pair_t;

static int xfer_begin(pair_t *p, MPI_Comm comm, MPI_Request r[2])
{
  int err = HK_SUCCESS;
  HK_TRY(err, hk_bench_mpi(MPI_Irecv(p->rbuf, p->n, MPI_BYTE, p->peer, 7, comm, &r[0]), "MPI_Irecv"));
  HK_TRY(err, hk_bench_mpi(MPI_Isend(p->sbuf, p->n, MPI_BYTE, p->peer, 7, comm, &r[1]), "MPI_Isend"));
cleanup:
  return err;
}

static int xfer_end(pair_t *p, MPI_Request r[2])
{
  int err = HK_SUCCESS;
  HK_TRY(err, hk_bench_mpi(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), "MPI_Waitall"));
  p->bad += hk_bench_check(p->rbuf, p->n, p->peer);
  memset(p->rbuf, 0, (size_t)p->n);
cleanup:
  return err;
}

/* the task variant: thread 0 communicates (FUNNELED) while thread 1 computes */
static int task_variant(pair_t *p, MPI_Comm comm, long long steps)
{
  int err = HK_SUCCESS;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) { /* the only thread that writes err */
      MPI_Request req[2];
      HK_LOCAL(err, xfer_begin(p, comm, req));
      HK_LOCAL(err, xfer_end(p, req));
    } else {
      sink = spin_compute(steps);
    }
  }
  return err;
}

/* one timed configuration: 0 comm only, 1 compute only, 2 nonblocking, 3 task; best of reps */
static int timed(pair_t *p, MPI_Comm comm, int what, long long steps, int reps, double *best)
{
  int err = HK_SUCCESS;
  *best = 1e30;
  for (int r = 0; r < reps; r++) {
    MPI_Request req[2];
    /* the pair starts together */
    HK_TRY(err, hk_bench_mpi(MPI_Sendrecv(NULL, 0, MPI_BYTE, p->peer, 8, NULL, 0, MPI_BYTE,
                                          p->peer, 8, comm, MPI_STATUS_IGNORE), "the pair's sync"));
    double t0 = hk_wtime();
    if (what == 0 || what == 2) {
      HK_TRY(err, xfer_begin(p, comm, req));
      if (what == 2)
        sink = spin_compute(steps);
      HK_TRY(err, xfer_end(p, req));
    } else if (what == 1) {
      sink = spin_compute(steps);
    } else {
      HK_TRY(err, task_variant(p, comm, steps));
    }
    double t = hk_wtime() - t0;
    if (t < *best)
      *best = t;
  }
cleanup:
  return err;
}

/* compute alone, then variant v (2 nonblocking, 3 task) with the same delay: vals[1..3] =
 * T_compute, T_total and the overlap (vals[0] is T_comm) */
static int overlapped(pair_t *p, MPI_Comm comm, int v, long long steps, int reps, double vals[4])
{
  int err = HK_SUCCESS;
  HK_TRY(err, timed(p, comm, 1, steps, reps, &vals[1]));
  HK_TRY(err, timed(p, comm, v, steps, reps, &vals[2]));
  double ratio = (vals[0] + vals[1] - vals[2]) / fmin(vals[0], vals[1]);
  vals[3] = ratio < 0.0 ? 0.0 : ratio > 1.0 ? 1.0 : ratio;
cleanup:
  return err;
}

static int emit(hk_bench_ctx_t *c, long long size, int v, double factor, const double vals[4])
{
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_overlap, &rec);
  hk_record_param_int(rec, "size", size);
  hk_record_param_str(rec, "variant", v == 2 ? "nonblocking" : "task");
  hk_record_param_double(rec, "delay_factor", factor);
  hk_record_value(rec, "t_comm", vals[0] * 1e6, "us");
  hk_record_value(rec, "t_compute", vals[1] * 1e6, "us");
  hk_record_value(rec, "t_total", vals[2] * 1e6, "us");
  hk_record_value(rec, "overlap", vals[3], "fraction");
  return hk_record_emit(&rec);
}

/* rank 0's partner: the first rank on another node, else the first other rank */
static int partner(hk_bench_ctx_t *c, int task)
{
  int peer = -1, n0 = -1, n = -1;
  hk_nodes_node_of(c->nodes, 0, &n0);
  for (int r = 1; r < c->size && peer < 0; r++)
    if (hk_nodes_node_of(c->nodes, r, &n) == HK_SUCCESS && n != n0)
      peer = r;
  for (int r = 1; r < c->size && peer < 0; r++)
    peer = r;
  hk_reporter_config(c->rep, "pair", "0<->%d (%s-node)%s", peer,
                     hk_nodes_node_of(c->nodes, peer, &n) == HK_SUCCESS && n == n0 ? "intra"
                                                                                   : "inter",
                     task ? "" : "; task variant skipped: needs OMP_NUM_THREADS >= 2");
  return peer;
}

/* every delay and variant at one size; the pair's errors are agreed before every
 * collective the other ranks enter */
static int one_size(hk_bench_ctx_t *c, pair_t *p, int task, double rate, int reps)
{
  int err = HK_SUCCESS;
  double tc = 0.0;
  if (p->in)
    HK_LOCAL(err, timed(p, c->comm, 0, 0, reps + 2, &tc));
  /* the pair agrees on T_comm (rank 0's) so both compute the same delays */
  MPI_Bcast(&tc, 1, MPI_DOUBLE, 0, c->comm);
  HK_AGREE(err, c->comm);
  for (int f = 0; f < NFACT; f++)
    for (int v = 2; v <= 3; v++) {
      if (v == 3 && !task)
        continue;
      long long steps = (long long)(factors[f] * tc * rate);
      double vals[4] = {tc, 0.0, 0.0, 0.0};
      if (p->in)
        HK_LOCAL(err, overlapped(p, c->comm, v, steps, reps, vals));
      MPI_Bcast(vals, 4, MPI_DOUBLE, 0, c->comm); /* rank 0's view is the record's */
      HK_AGREE(err, c->comm);
      HK_TRY(err, emit(c, p->n, v, factors[f], vals)); /* agreed */
    }
  HK_LOCAL(err, hk_bench_idle_barrier(c->comm));
  HK_AGREE(err, c->comm);
  long long bad = 0;
  MPI_Allreduce(&p->bad, &bad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  if (bad) /* the same sum on every rank: agreed */
    err = hk_error_set(HK_ERR_STATE, "%lld wrong bytes received in %d-byte messages", bad, p->n);
cleanup:
  return err;
}

static int run(hk_bench_ctx_t *c)
{
  int err = HK_SUCCESS, task = omp_get_max_threads() >= 2;
  int peer = partner(c, task);
  pair_t p = {.me = c->rank, .peer = c->rank == 0 ? peer : 0, .in = c->rank == 0 || c->rank == peer};
  long long maxn = c->common->max_size;
  HK_ALLOC_LOCAL(err, p.sbuf, maxn);
  HK_ALLOC_LOCAL(err, p.rbuf, maxn);
  double rate = p.in ? calibrate() : 0.0;
  HK_AGREE(err, c->comm);
  int reps = c->common->iters > 0 ? c->common->iters : 5;
  for (long long size = c->common->min_size; size <= maxn; size *= 2) {
    p.n = (int)size;
    hk_bench_fill(p.sbuf, size, c->rank);
    HK_TRY(err, one_size(c, &p, task, rate, reps)); /* agreed */
  }
cleanup:
  free(p.sbuf);
  free(p.rbuf);
  return err;
}

const hk_experiment_t hk_exp_overlap = {
  .name = "overlap",
  .summary = "does MPI progress a large message during computation? plain vs a communication thread",
  .description =
      "Rank 0 and a partner (another node if there is one) time Irecv+Isend+Waitall of L bytes\n"
      "(T_comm), a calibrated compute delay d = 0.25..2 x T_comm (T_compute), and both together:\n"
      "'nonblocking' computes between Isend and Waitall, 'task' lets thread 0 communicate while\n"
      "thread 1 computes (funneled & reserved).  overlap = (T_comm + T_compute - T_total) /\n"
      "min(T_comm, T_compute): 1 = hidden, 0 = no asynchronous progress.  Hager/Wellein's\n"
      "overlap test.  -i sets the repetitions (best of).  Data validated.",
  .default_sizes = "4M",
  .level = HK_THREAD_FUNNELED,
  .min_level = HK_THREAD_FUNNELED,
  .min_ranks = 2,
  .opts = NULL,
  .nopts = 0,
  .run = run,
};
