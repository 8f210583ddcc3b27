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
  return rc == MPI_SUCCESS ? HK_SUCCESS
                           : hk_error_set(HK_ERR_MPI, "ping-pong of %lld bytes failed", p->size);
}

/* iterations first .. first+n-1 of one variant */
static int loop(const tpp_t *p, variant_t v, int first, int n)
{
  int err = HK_SUCCESS;
  if (v == V_MASTERONLY) {
    for (int i = first; i < first + n; i++) {
      if (p->ping) {
#pragma omp parallel num_threads(p->nt)
        write_part(p, omp_get_thread_num(), i);
        if ((err = send_recv(p, -1, 1, 1)) != HK_SUCCESS ||
            (err = send_recv(p, -1, 1, 0)) != HK_SUCCESS)
          return err;
#pragma omp parallel num_threads(p->nt)
        read_part(p, omp_get_thread_num());
      } else {
        if ((err = send_recv(p, -1, 1, 0)) != HK_SUCCESS)
          return err;
#pragma omp parallel num_threads(p->nt)
        {
          read_part(p, omp_get_thread_num());
          write_part(p, omp_get_thread_num(), i);
        }
        if ((err = send_recv(p, -1, 1, 1)) != HK_SUCCESS)
          return err;
      }
    }
    return err;
  }
#pragma omp parallel num_threads(p->nt) reduction(min : err)
  {
    int t = omp_get_thread_num(), terr = HK_SUCCESS; /* the private err starts at INT_MAX */
    for (int i = first; i < first + n; i++) {
      if (v == V_FUNNELED) {
        /* a failure is not broken off mid-loop: the barriers need every thread */
        if (p->ping) {
          write_part(p, t, i);
#pragma omp barrier
#pragma omp master
          {
            int e = send_recv(p, -1, 1, 1);
            e = e == HK_SUCCESS ? send_recv(p, -1, 1, 0) : e;
            terr = e < terr ? e : terr;
          }
#pragma omp barrier
          read_part(p, t);
        } else {
#pragma omp master
          {
            int e = send_recv(p, -1, 1, 0);
            terr = e < terr ? e : terr;
          }
#pragma omp barrier
          read_part(p, t);
          write_part(p, t, i);
#pragma omp barrier
#pragma omp master
          {
            int e = send_recv(p, -1, 1, 1);
            terr = e < terr ? e : terr;
          }
        }
      } else { /* multiple: each thread on its own, it stops at its first failure */
        int tag = 100 + t;
        if (p->ping) {
          write_part(p, t, i);
          if ((terr = send_recv(p, t, tag, 1)) != HK_SUCCESS ||
              (terr = send_recv(p, t, tag, 0)) != HK_SUCCESS)
            break;
          read_part(p, t);
        } else {
          if ((terr = send_recv(p, t, tag, 0)) != HK_SUCCESS)
            break;
          read_part(p, t);
          write_part(p, t, i);
          if ((terr = send_recv(p, t, tag, 1)) != HK_SUCCESS)
            break;
        }
      }
    }
    err = terr;
  }
  return err;
}

/* one variant and size on ranks 0 and 1; the half round trip stats (s) over the two */
static int measure(hk_bench_ctx_t *c, tpp_t *p, variant_t v, int iters, int warmup,
                   hk_stats_t *half)
{
  int in = c->rank < 2, local = HK_SUCCESS;
  double h = 0.0;
  long long bad = 0;
  int err = hk_bench_idle_barrier(c->comm);
  if (err != HK_SUCCESS)
    return hk_agree(c->comm, err);
  if (in) {
    memset(p->rbuf, 0, (size_t)p->size);
    memset(p->final, 0, (size_t)p->size);
    local = loop(p, v, 0, warmup);
    double t0 = MPI_Wtime();
    if (local == HK_SUCCESS)
      local = loop(p, v, warmup, iters);
    h = (MPI_Wtime() - t0) / iters / 2.0;
    /* the parts read from the last message: the peer's pattern of the last iteration */
    for (long long j = 0; j < p->size; j++)
      bad += p->final[j] != pattern(j, p->peer, warmup + iters - 1);
  }
  err = hk_bench_idle_barrier(c->comm);
  if ((err = hk_agree(c->comm, local != HK_SUCCESS ? local : err)) != HK_SUCCESS)
    return err;
  double mine[3] = {in ? h : 1e300, in ? -h : 1e300, in ? h : 0.0}, out[2], sum = 0.0;
  long long allbad = 0;
  MPI_Allreduce(mine, out, 2, MPI_DOUBLE, MPI_MIN, c->comm);
  MPI_Allreduce(&mine[2], &sum, 1, MPI_DOUBLE, MPI_SUM, c->comm);
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  if (allbad)
    return hk_error_set(HK_ERR_STATE, "%s ping-pong: %lld wrong bytes in %lld-byte messages",
                        variant_names[v], allbad, p->size);
  half->min = out[0];
  half->max = -out[1];
  half->avg = sum / 2.0;
  return HK_SUCCESS;
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
  size_t n = (size_t)c->common->max_size;
  tpp_t p = {c->comm, c->rank, c->rank == 0 ? 1 : 0, c->rank == 0, nt, 0, malloc(n), malloc(n),
             malloc(n)};
  int err = hk_agree(c->comm, p.sbuf && p.rbuf && p.final
                                  ? HK_SUCCESS
                                  : hk_error_set(HK_ERR_NOMEM, "no memory for %zu-byte buffers", n));
  if (err != HK_SUCCESS)
    goto done;
  for (long long size = c->common->min_size; size <= c->common->max_size; size *= 2) {
    if (size < nt)
      continue;
    int iters, warmup;
    hk_bench_iters(c->common, size, &iters, &warmup);
    p.size = size;
    for (int v = 0; v < V_COUNT; v++) { /* measure's and emit's errors are agreed */
      hk_stats_t half = {0};
      if (v == V_MULTIPLE && !multiple) {
        if ((err = emit(c, (variant_t)v, nt, size, 0, NULL,
                        "skipped: the MPI library does not provide MPI_THREAD_MULTIPLE")) != HK_SUCCESS)
          goto done;
        continue;
      }
      if ((err = measure(c, &p, (variant_t)v, iters, warmup, &half)) != HK_SUCCESS ||
          (err = emit(c, (variant_t)v, nt, size, iters, &half, NULL)) != HK_SUCCESS)
        goto done;
    }
  }
done:
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
