/* src/coll/chunked.c: the thread-parallel chunk reduction shared by chunked,
 * chunked-shifted and the inter-node step of hierarchical.
 *
 *   count elements, granularity g (g x extent is a multiple of 64 bytes):
 *   [ chunk 0 | chunk 1 | ... | chunk T-1 ]   units of g elements split evenly,
 *                                             the last chunk takes the remainder
 *
 * Chunk t is reduced on communicator t.  If the team has fewer threads than
 * chunks (nested regions, thread limits), a thread takes chunks t, t+n, ...
 * in increasing order: every rank then visits the communicators in the same
 * order, so this cannot deadlock.
 */
#include <omp.h>
#include <string.h>
#include "coll/coll_internal.h"

static long long gcd(long long a, long long b)
{
  while (b) {
    long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

long long hk__chunk_granularity(MPI_Aint extent)
{
  if (extent <= 0)
    return 1;
  return HK_COLL_LINE / gcd((long long)extent, HK_COLL_LINE);
}

int hk__chunks_useful(long long count, long long gran, int threads)
{
  long long units = (count + gran - 1) / gran;
  return units < threads ? (int)units : threads;
}

void hk__chunk_range(long long count, long long gran, int nchunks, int c, long long *lo,
                     long long *n)
{
  long long units = (count + gran - 1) / gran;
  long long u0 = units * c / nchunks, u1 = units * (c + 1) / nchunks;
  long long e0 = u0 * gran, e1 = u1 * gran;
  if (e0 > count)
    e0 = count;
  if (e1 > count)
    e1 = count;
  *lo = e0;
  *n = e1 - e0;
}

int hk__each_chunk(long long count, MPI_Aint extent, int nchunks, hk__chunk_fn fn, void *arg)
{
  return hk__each_chunk_placed(NULL, count, extent, nchunks, fn, arg);
}

int hk__each_chunk_placed(const char *buf, long long count, MPI_Aint extent, int nchunks,
                          hk__chunk_fn fn, void *arg)
{
  int first = MPI_SUCCESS;
  long long gran = hk__chunk_granularity(extent);
  /* NUMA placement (src/coll/numa.c): only with several domains and one chunk per thread */
  int place = buf && nchunks > 1 && nchunks <= HK_COLL_MAX_THREADS && hk__numa_nodes() > 1;
  int cdom[HK_COLL_MAX_THREADS], tdom[HK_COLL_MAX_THREADS];
  if (place)
    hk__numa_chunk_domains(buf, count, extent, nchunks, cdom);
#pragma omp parallel num_threads(nchunks)
  {
    int nt = omp_get_num_threads(), c0 = omp_get_thread_num();
    if (place && nt == nchunks) { /* the same on every thread of the team */
      int of[HK_COLL_MAX_THREADS];
      tdom[c0] = hk__numa_thread_domain();
#pragma omp barrier
      hk__numa_assign(nchunks, cdom, tdom, of);
      c0 = of[c0];
    }
    for (int c = c0; c < nchunks; c += nt) {
      long long lo, n;
      hk__chunk_range(count, gran, nchunks, c, &lo, &n);
      if (n == 0)
        continue;
      int rc = fn(arg, c, lo, n);
      if (rc != MPI_SUCCESS) {
#pragma omp critical(hk_coll_error)
        if (first == MPI_SUCCESS)
          first = rc;
      }
    }
  }
  return first;
}

typedef struct {
  const char *sbuf;
  char *rbuf;
  MPI_Datatype type;
  MPI_Aint extent;
  MPI_Op op;
  const MPI_Comm *comms;
} allreduce_chunk_t;

static int allreduce_chunk(void *arg, int c, long long lo, long long n)
{
  const allreduce_chunk_t *a = arg;
  const void *in = a->sbuf ? (const void *)(a->sbuf + lo * a->extent) : MPI_IN_PLACE;
  return PMPI_Allreduce(in, a->rbuf + lo * a->extent, (int)n, a->type, a->op, a->comms[c]);
}

int hk__run_chunks(const char *sbuf, char *rbuf, int count, MPI_Datatype type, MPI_Aint extent,
                   MPI_Op op, const MPI_Comm *comms, int nchunks)
{
  return hk__run_chunks_placed(0, sbuf, rbuf, count, type, extent, op, comms, nchunks);
}

int hk__run_chunks_placed(int place, const char *sbuf, char *rbuf, int count, MPI_Datatype type,
                          MPI_Aint extent, MPI_Op op, const MPI_Comm *comms, int nchunks)
{
  allreduce_chunk_t a = {sbuf, rbuf, type, extent, op, comms};
  const char *at = place ? (sbuf ? sbuf : rbuf) : NULL; /* the operand read: its pages exist */
  int rc = hk__each_chunk_placed(at, count, extent, nchunks, allreduce_chunk, &a);
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Allreduce (chunk)");
}

void hk__parallel_copy(char *dst, const char *src, size_t n, int threads)
{
  if (dst == src || n == 0)
    return;
  if (threads < 2 || n < 65536) {
    memcpy(dst, src, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    int nt = omp_get_num_threads(), t = omp_get_thread_num();
    size_t lines = (n + HK_COLL_LINE - 1) / HK_COLL_LINE;
    size_t a = lines * (size_t)t / (size_t)nt * HK_COLL_LINE;
    size_t b = lines * (size_t)(t + 1) / (size_t)nt * HK_COLL_LINE;
    if (b > n)
      b = n;
    if (a < b)
      memcpy(dst + a, src + a, b - a);
  }
}
