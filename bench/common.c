/* bench/common.c: sizes, iteration counts, message contents, the sleepy barrier, the
 * --threads list, the timed loop and statistics over some ranks. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <omp.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include "bench.h"

static int parse_one(const char *s, const char *end, long long *out)
{
  char *stop = NULL;
  errno = 0;
  long long v = strtoll(s, &stop, 10);
  if (errno || stop == s)
    return HK_ERR_ARG;
  long long mult = 1;
  if (stop < end) {
    switch (toupper((unsigned char)*stop)) {
    case 'K': mult = 1LL << 10; break;
    case 'M': mult = 1LL << 20; break;
    case 'G': mult = 1LL << 30; break;
    default: return HK_ERR_ARG;
    }
    stop++;
  }
  if (stop != end || v < 1 || v > (1LL << 40) / mult)
    return HK_ERR_ARG;
  *out = v * mult;
  return HK_SUCCESS;
}

int hk_bench_parse_sizes(const char *spec, long long *min, long long *max)
{
  if (!spec || !*spec)
    return hk_error_set(HK_ERR_ARG, "-m needs SIZE or MIN:MAX (e.g. 8:4M)");
  const char *colon = strchr(spec, ':'), *end = spec + strlen(spec);
  if (parse_one(spec, colon ? colon : end, min) != HK_SUCCESS ||
      parse_one(colon ? colon + 1 : spec, end, max) != HK_SUCCESS)
    return hk_error_set(HK_ERR_ARG,
                        "-m %s: sizes are positive byte counts with an optional K, M or G "
                        "suffix, as SIZE or MIN:MAX",
                        spec);
  if (*min > *max)
    return hk_error_set(HK_ERR_ARG, "-m %s: the minimum %lld is larger than the maximum %lld",
                        spec, *min, *max);
  return HK_SUCCESS;
}

void hk_bench_iters(const hk_bench_common_t *c, long long size, int *iters, int *warmup)
{
  int it = 1000;
  for (long long s = 8192; s < size && it > 20; s *= 2)
    it /= 2;
  if (it < 20)
    it = 20;
  *iters = c->iters > 0 ? c->iters : it;
  *warmup = c->warmup >= 0 ? c->warmup : (*iters / 10 > 2 ? *iters / 10 : 2);
}

void hk_bench_fill(unsigned char *buf, long long n, int src)
{
  for (long long j = 0; j < n; j++)
    buf[j] = (unsigned char)((j * 131 + src * 7 + 1) & 0xff);
}

long long hk_bench_check(const unsigned char *buf, long long n, int src)
{
  long long bad = 0;
  for (long long j = 0; j < n; j++)
    bad += buf[j] != (unsigned char)((j * 131 + src * 7 + 1) & 0xff);
  return bad;
}

int hk_bench_mpi_failed(const char *what)
{
  return hk_error_set(HK_ERR_MPI, "%s failed", what);
}

int hk_bench_idle_barrier(MPI_Comm comm)
{
  MPI_Request req;
  int done = 0, err = HK_SUCCESS;
  HK_TRY(err, hk_bench_mpi(MPI_Ibarrier(comm, &req), "MPI_Ibarrier"));
  const struct timespec nap = {0, 50 * 1000};
  while (!done) {
    HK_TRY(err, hk_bench_mpi(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test"));
    if (!done)
      nanosleep(&nap, NULL);
  }
cleanup:
  return err;
}

int hk_bench_parse_threads(const char *list, int max, int *threads, int *n)
{
  const char *s = list;
  *n = 0;
  if (!list || !*list) {
    threads[(*n)++] = omp_get_max_threads();
    return HK_SUCCESS;
  }
  while (*s) {
    char *end = NULL;
    errno = 0;
    long t = strtol(s, &end, 10);
    int bad = end == s || errno || t < 1 || t > 1024 || (*end && (*end != ',' || !end[1]));
    if (bad || *n == max)
      return hk_error_set(HK_ERR_ARG, "--threads %s: up to %d positive integers separated by "
                          "commas", list, max);
    threads[(*n)++] = (int)t;
    s = *end ? end + 1 : end;
  }
  return HK_SUCCESS;
}

int hk_bench_time_calls(MPI_Comm comm, int iters, int osu, int (*call)(void *), void *arg,
                        double *per)
{
  int err = HK_SUCCESS;
  *per = 0.0;
  if (osu) {
    for (int i = 0; i < iters && err == HK_SUCCESS; i++) {
      double t0 = MPI_Wtime();
      err = call(arg);
      *per += MPI_Wtime() - t0;
      HK_LOCAL(err, hk_bench_mpi(MPI_Barrier(comm), "the barrier between calls"));
    }
    *per /= iters;
  } else {
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && err == HK_SUCCESS; i++)
      err = call(arg);
    *per = (MPI_Wtime() - t0) / iters;
  }
  return err;
}

int hk_bench_stats_some(MPI_Comm comm, double t, hk_stats_t *s)
{
  int in = t >= 0;
  /* min over (t, -t) gives min and -max at once; the sum and the count of participants */
  double lo[2] = {in ? t : DBL_MAX, in ? -t : DBL_MAX}, out[2], part[2] = {in ? t : 0, in}, sum[2];
  if (MPI_Allreduce(lo, out, 2, MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS ||
      MPI_Allreduce(part, sum, 2, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS)
    return hk_bench_mpi_failed("the statistics over the ranks taking part");
  s->min = sum[1] > 0 ? out[0] : 0;
  s->max = sum[1] > 0 ? -out[1] : 0;
  s->avg = sum[1] > 0 ? sum[0] / sum[1] : 0;
  return HK_SUCCESS;
}
