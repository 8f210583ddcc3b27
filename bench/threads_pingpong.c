/* bench/threads_pingpong.c: the EPCC mixed-mode ping-pong (masteronly vs
 * funneled vs multiple) between rank 0 and rank 1; other ranks sleep.
 *
 * A message of L bytes is split into T parts (T = OpenMP threads, part t =
 * bytes [t*L/T, (t+1)*L/T)); thread t writes its part before a send and reads
 * its part of every received message (copies it out).  Per iteration:
 *   masteronly  parallel region: write; master sends/receives outside any region;
 *               parallel region: read
 *   funneled    one parallel region for the whole loop: write, barrier, master
 *               sends/receives, barrier, read
 *   multiple    one parallel region: each thread sends/receives its own part with
 *               its own tag (needs MPI_THREAD_MULTIPLE; skipped with a warning
 *               record when the library provides less)
 * Half round trip (us, min/avg/max of ranks 0 and 1) and bandwidth L / half
 * round trip (MB/s).  Each part carries the iteration number in its pattern; the
 * parts read from the last message of every size are checked byte for byte.
 * Sizes below T bytes (a part would be empty) are skipped.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

typedef enum { V_MASTERONLY, V_FUNNELED, V_MULTIPLE, V_COUNT } variant_t;
static const char *const variant_names[V_COUNT] = {"masteronly", "funneled", "multiple"};

typedef struct tpp {
  MPI_Comm comm;
  int me, peer, ping;  /* ping: this rank sends first */
  int nt;
  long long size;
  unsigned char *sbuf, *rbuf, *final;
} tpp_t;

static inline unsigned char pattern(long long j, int src, int iter)
{
  return (unsigned char)((j * 131 + src * 7 + iter * 13 + 1) & 0xff);
}

static void part_of(const tpp_t *p, int t, long long *lo, long long *hi)
{
  *lo = p->size * t / p->nt;
  *hi = p->size * (t + 1) / p->nt;
}

static void write_part(const tpp_t *p, int t, int iter)
{
  long long lo, hi;
  part_of(p, t, &lo, &hi);
  for (long long j = lo; j < hi; j++)
    p->sbuf[j] = pattern(j, p->me, iter);
}

static void read_part(const tpp_t *p, int t)
{
  long long lo, hi;
  part_of(p, t, &lo, &hi);
  memcpy(p->final + lo, p->rbuf + lo, (size_t)(hi - lo));
}

static int send_recv(const tpp_t *p, int t, int tag, int first)
{
  long long lo = 0, hi = p->size;
  if (t >= 0)
    part_of(p, t, &lo, &hi);
  int n = (int)(hi - lo), rc;
  if (first)
    rc = MPI_Send(p->sbuf + lo, n, MPI_BYTE, p->peer, tag, p->comm);
  else
    rc = MPI_Recv(p->rbuf + lo, n, MPI_BYTE, p->peer, tag, p->comm, MPI_STATUS_IGNORE);
  return hk_bench_mpi(rc, first ? "MPI_Send of the mixed-mode ping-pong"
                               : "MPI_Recv of the mixed-mode ping-pong");
}

/* masteronly: the master sends and receives outside any parallel region */
static int loop_masteronly(const tpp_t *p, int first, int n)
{
  int err = HK_SUCCESS;
  for (int i = first; i < first + n; i++) {
    if (p->ping) {
#pragma omp parallel num_threads(p->nt)
      write_part(p, omp_get_thread_num(), i);
      HK_TRY(err, send_recv(p, -1, 1, 1));
      HK_TRY(err, send_recv(p, -1, 1, 0));
#pragma omp parallel num_threads(p->nt)
      read_part(p, omp_get_thread_num());
    } else {
      HK_TRY(err, send_recv(p, -1, 1, 0));
#pragma omp parallel num_threads(p->nt)
      {
        read_part(p, omp_get_thread_num());
        write_part(p, omp_get_thread_num(), i);
      }
      HK_TRY(err, send_recv(p, -1, 1, 1));
    }
  }
cleanup:
  return err;
}

/* funneled, iteration i on thread t of the team: the master communicates between two
 * barriers; a failure is not broken off mid-loop (the barriers need every thread) */
static void funneled_iter(const tpp_t *p, int t, int i, int *terr)
{
  if (p->ping) {
    write_part(p, t, i);
#pragma omp barrier
#pragma omp master
    {
      HK_LOCAL(*terr, send_recv(p, -1, 1, 1));
      HK_LOCAL(*terr, send_recv(p, -1, 1, 0));
    }
#pragma omp barrier
    read_part(p, t);
  } else {
#pragma omp master
    HK_LOCAL(*terr, send_recv(p, -1, 1, 0));
#pragma omp barrier
    read_part(p, t);
    write_part(p, t, i);
#pragma omp barrier
#pragma omp master
    HK_LOCAL(*terr, send_recv(p, -1, 1, 1));
  }
}

/* multiple, iteration i on thread t: its own part with its own tag */
static int multiple_iter(const tpp_t *p, int t, int i)
{
  int err = HK_SUCCESS, tag = 100 + t;
  if (p->ping) {
    write_part(p, t, i);
    HK_TRY(err, send_recv(p, t, tag, 1));
    HK_TRY(err, send_recv(p, t, tag, 0));
    read_part(p, t);
  } else {
    HK_TRY(err, send_recv(p, t, tag, 0));
    read_part(p, t);
    write_part(p, t, i);
    HK_TRY(err, send_recv(p, t, tag, 1));
  }
cleanup:
  return err;
}

/* iterations first .. first+n-1 of one variant */
static int loop(const tpp_t *p, variant_t v, int first, int n)
{
  if (v == V_MASTERONLY)
    return loop_masteronly(p, first, n);
  int err = HK_SUCCESS;
#pragma omp parallel num_threads(p->nt) reduction(min : err)
  {
    int t = omp_get_thread_num(), terr = HK_SUCCESS; /* the private err starts at INT_MAX */
    for (int i = first; i < first + n; i++) {
      if (v == V_FUNNELED)
        funneled_iter(p, t, i, &terr);
      else /* each thread on its own: it stops at its first failure */
        HK_LOCAL(terr, multiple_iter(p, t, i));
    }
    err = terr;
  }
  return err;
}

/* one variant and size on ranks 0 and 1; the half round trip stats (s) over the two */
static int measure(hk_bench_ctx_t *c, tpp_t *p, variant_t v, int iters, int warmup,
                   hk_stats_t *half)
{
  int in = c->rank < 2, err = HK_SUCCESS;
  double h = 0.0;
  long long bad = 0;
  HK_LOCAL(err, hk_bench_idle_barrier(c->comm));
  HK_AGREE(err, c->comm);
  if (in) {
    memset(p->rbuf, 0, (size_t)p->size);
    memset(p->final, 0, (size_t)p->size);
    HK_LOCAL(err, loop(p, v, 0, warmup));
    double t0 = MPI_Wtime();
    HK_LOCAL(err, loop(p, v, warmup, iters));
    h = (MPI_Wtime() - t0) / iters / 2.0;
    /* the parts read from the last message: the peer's pattern of the last iteration */
    for (long long j = 0; j < p->size; j++)
      bad += p->final[j] != pattern(j, p->peer, warmup + iters - 1);
  }
  int barrier = hk_bench_idle_barrier(c->comm); /* on every rank, whatever its error */
  HK_LOCAL(err, barrier);
  HK_AGREE(err, c->comm);
  long long allbad = 0;
  HK_LOCAL(err, hk_bench_stats_some(c->comm, in ? h : -1.0, half));
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  if (allbad) /* the same sum on every rank: agreed */
    err = hk_error_set(HK_ERR_STATE, "%s ping-pong: %lld wrong bytes in %lld-byte messages",
                       variant_names[v], allbad, p->size);
cleanup:
  return err;
}

static int emit(hk_bench_ctx_t *c, variant_t v, int nt, long long size, int iters,
                const hk_stats_t *half, const char *warning)
{
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_threads_pingpong, &rec);
  hk_record_param_str(rec, "variant", variant_names[v]);
  hk_record_param_int(rec, "threads", nt);
  hk_record_param_int(rec, "size", size);
  hk_record_param_int(rec, "iters", iters);
  if (warning)
    hk_record_warning(rec, "%s", warning);
  if (half) {
    hk_stats_t us = {half->min * 1e6, half->avg * 1e6, half->max * 1e6};
    hk_record_stats_given(rec, "latency", &us, "us");
    hk_record_value(rec, "bandwidth", (double)size / half->max / 1e6, "MB/s");
  }
  return hk_record_emit(&rec);
}

static int run(hk_bench_ctx_t *c)
{
  int nt = omp_get_max_threads();
  /* ranks 0 and 1 must split messages the same way: the fewest threads of the two */
  int mine = c->rank < 2 ? nt : 1 << 30;
  MPI_Allreduce(&mine, &nt, 1, MPI_INT, MPI_MIN, c->comm);
  int multiple = hk_require_thread_level(HK_THREAD_MULTIPLE, "the multiple variant") == HK_SUCCESS;
  hk_reporter_config(c->rep, "pair", "rank 0 <-> rank 1, %d thread(s) each, message split in %d "
                     "parts; sizes below %d bytes skipped", nt, nt, nt);
  tpp_t p = {.comm = c->comm, .me = c->rank, .peer = c->rank == 0 ? 1 : 0, .ping = c->rank == 0,
             .nt = nt};
  int err = HK_SUCCESS;
  HK_ALLOC_LOCAL(err, p.sbuf, c->common->max_size);
  HK_ALLOC_LOCAL(err, p.rbuf, c->common->max_size);
  HK_ALLOC_LOCAL(err, p.final, c->common->max_size);
  HK_AGREE(err, c->comm);
  for (long long size = c->common->min_size; size <= c->common->max_size; size *= 2) {
    if (size < nt)
      continue;
    int iters, warmup;
    hk_bench_iters(c->common, size, &iters, &warmup);
    p.size = size;
    for (int v = 0; v < V_COUNT; v++) { /* measure's and emit's errors are agreed */
      hk_stats_t half = {0};
      if (v == V_MULTIPLE && !multiple) {
        HK_TRY(err, emit(c, (variant_t)v, nt, size, 0, NULL,
                         "skipped: the MPI library does not provide MPI_THREAD_MULTIPLE"));
        continue;
      }
      HK_TRY(err, measure(c, &p, (variant_t)v, iters, warmup, &half));
      HK_TRY(err, emit(c, (variant_t)v, nt, size, iters, &half, NULL));
    }
  }
cleanup:
  free(p.sbuf);
  free(p.rbuf);
  free(p.final);
  return err;
}

const hk_experiment_t hk_exp_threads_pingpong = {
  .name = "threads-pingpong",
  .summary = "EPCC mixed-mode ping-pong: masteronly vs funneled vs multiple, T threads per rank",
  .description =
      "Ranks 0 and 1 ping-pong a message of L bytes split into T parts, one per OpenMP thread:\n"
      "threads write their parts before a send and read (copy out) their parts of every received\n"
      "message.  masteronly: write and read in parallel regions, the master communicates outside\n"
      "them; funneled: one parallel region, the master communicates between barriers; multiple:\n"
      "every thread sends/receives its own part with its own tag (MPI_THREAD_MULTIPLE; skipped\n"
      "with a warning record if the library provides less).  Half round trip (us, min/avg/max\n"
      "of the two ranks) and bandwidth L / half round trip (MB/s).  The EPCC OpenMP/MPI mixed-\n"
      "mode benchmark suite's ping-pong.  The parts read from each size's last message are\n"
      "checked byte for byte.  Sizes below T bytes are skipped (a part would be empty).",
  .default_sizes = "8:1M",
  .level = HK_THREAD_MULTIPLE,
  .min_level = HK_THREAD_FUNNELED,
  .min_ranks = 2,
  .opts = NULL,
  .nopts = 0,
  .run = run,
};
