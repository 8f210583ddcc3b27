/* tests/unit/test_coll_numa.c: chunked-shifted's NUMA-aware chunk order
 * (hk__numa_assign, src/coll/numa.c) on injected maps: chunk c's domain x thread t's
 * domain -> the chunk of each thread.  Expected assignments written out by hand. */
#include <string.h>
#include "hk_test.h"
#include "coll/coll_internal.h"

static int of[HK_COLL_MAX_THREADS];

/* of[] equals want[] and is a permutation of 0..n-1 */
static void expect(int n, const int *chunk_dom, const int *thread_dom, const int *want)
{
  int seen[HK_COLL_MAX_THREADS] = {0};
  hk__numa_assign(n, chunk_dom, thread_dom, of);
  for (int t = 0; t < n; t++) {
    CHECK_EQ_INT(of[t], want[t]);
    CHECK(of[t] >= 0 && of[t] < n && !seen[of[t]]++);
  }
}

int main(void)
{
  /* one domain: the identity (the order hk__each_chunk has without placement) */
  expect(4, (int[]){0, 0, 0, 0}, (int[]){0, 0, 0, 0}, (int[]){0, 1, 2, 3});
  /* unknown pages or threads (-1): the identity too */
  expect(3, (int[]){-1, -1, -1}, (int[]){0, 1, 0}, (int[]){0, 1, 2});
  expect(2, (int[]){1, 0}, (int[]){-1, -1}, (int[]){0, 1});
  /* two domains, the chunks' pages the other way round from the threads' cores */
  expect(2, (int[]){1, 0}, (int[]){0, 1}, (int[]){1, 0});
  /* two domains, more chunks than domains: pages interleaved, threads in blocks */
  expect(4, (int[]){1, 0, 1, 0}, (int[]){0, 0, 1, 1}, (int[]){1, 3, 0, 2});
  /* four domains, eight chunks, two threads per domain (compact), pages block-wise
   * in reverse domain order */
  expect(8, (int[]){3, 3, 2, 2, 1, 1, 0, 0}, (int[]){0, 0, 1, 1, 2, 2, 3, 3},
         (int[]){6, 7, 4, 5, 2, 3, 0, 1});
  /* four domains, uneven: domain 2 has three chunks but one thread; the threads left
   * without a chunk of their domain take the chunks left, lowest first */
  expect(4, (int[]){2, 2, 2, 0}, (int[]){0, 1, 2, 3}, (int[]){3, 1, 0, 2});
  return hk_test_report("coll numa placement");
}
