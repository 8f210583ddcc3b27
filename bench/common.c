/* bench/common.c: sizes, iteration counts, message contents, the sleepy barrier. */
#include <ctype.h>
#include <errno.h>
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
