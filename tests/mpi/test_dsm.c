/* tests/mpi/test_dsm.c: the DSM protocol (issue 21) at 1-4 ranks x 1-2 threads.
 * Every expected value is computed by hand from who wrote what; the statistics check
 * what the protocol moved (a page never fetched twice, untouched pages never fetched,
 * one twin per page and interval).
 *   test_dsm                 all protocol cases, and the common address found when
 *                            rank 0's first proposal is taken on the other ranks
 *   test_dsm --misuse CASE   after-free | too-large | skip-barrier | late (exit 1/crash) */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "hybridkit.h"
#include "hk_test_mpi.h"

static int P, R, T;
static size_t PG;

#define TRY(expr)                                                                     \
  do {                                                                                \
    int e_ = (expr);                                                                  \
    if (e_ != HK_SUCCESS) {                                                           \
      fprintf(stderr, "rank %d: %s: %s\n", R, #expr, hk_error_message());             \
      hk_test_failures++;                                                             \
    }                                                                                 \
  } while (0)

static hk_dsm_stats_t stats(hk_dsm_t *d)
{
  hk_dsm_stats_t s = {0};
  TRY(hk_dsm_stats(d, &s));
  return s;
}

/* the home rank of a byte offset (-1 and a failure when hk_dsm_home_of refuses it) */
static int home_of(hk_dsm_t *d, size_t offset)
{
  int home = -1;
  TRY(hk_dsm_home_of(d, offset, &home));
  return home;
}

/* two (or all) ranks write different words of one page between barriers */
static void false_sharing(void)
{
  hk_dsm_t *d = NULL;
  long *a = NULL;
  hk_dsm_desc_t desc = {.size = 3 * PG, .home = HK_DSM_HOME_BLOCK};
  TRY(hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a));
  if (!d)
    return;
  long W = (long)(PG / sizeof(long)), mid = W + W / 2; /* page 1: every rank writes in it */
  for (int round = 1; round <= 3; round++) {
#pragma omp parallel num_threads(T)
    { /* word (rank, thread) of page 1 */
      int t = omp_get_thread_num();
      a[W + R * T + t] = round * 1000 + R * T + t;
      if (R == P - 1 && t == 0)
        a[mid] = round;
    }
    TRY(hk_dsm_barrier(d));
    for (int r = 0; r < P; r++)
      for (int t = 0; t < T; t++)
        CHECK_EQ_INT(a[W + r * T + t], round * 1000 + r * T + t);
    CHECK_EQ_INT(a[mid], round);
    CHECK_EQ_INT(a[0], 0);     /* never written */
    CHECK_EQ_INT(a[2 * W], 0);
    TRY(hk_dsm_barrier(d));    /* reads done before the next round writes */
  }
  hk_dsm_stats_t s = stats(d);
  /* one write fault of page 1 per round (whatever the thread count), and one twin and
   * diff each, except at its home, which writes its master copy in place */
  int home = home_of(d, PG);
  CHECK_EQ_INT(s.write_faults, 3);
  CHECK_EQ_INT(s.diffs_made, home == R ? 0 : 3);
  TRY(hk_dsm_free(&d));
}

/* rank r writes its page each round; everybody reads its neighbour's: a stale copy
 * (a missed invalidation) shows the previous round's value */
static void neighbour_rounds(void)
{
  hk_dsm_t *d = NULL;
  double *a = NULL;
  hk_dsm_desc_t desc = {.size = (size_t)P * PG, .home = HK_DSM_HOME_CYCLIC};
  TRY(hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a));
  if (!d)
    return;
  long W = (long)(PG / sizeof(double));
  int nb = (R + 1) % P;
  for (int round = 1; round <= 4; round++) {
#pragma omp parallel for num_threads(T)
    for (long i = 0; i < W; i++)
      a[R * W + i] = round * 10.0 + R + (double)i / W;
    TRY(hk_dsm_barrier(d));
    long bad = 0;
#pragma omp parallel for num_threads(T) reduction(+ : bad)
    for (long i = 0; i < W; i++)
      bad += a[nb * W + i] != round * 10.0 + nb + (double)i / W;
    CHECK_EQ_INT(bad, 0);
    TRY(hk_dsm_barrier(d));
  }
  hk_dsm_stats_t s = stats(d);
  /* the neighbour's page once per round (another rank's page: P > 1) */
  CHECK_EQ_INT(s.pages_fetched, P > 1 ? 4 : 0);
  CHECK_EQ_INT(s.write_faults, 4);
  TRY(hk_dsm_free(&d));
}

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* the common address when the first one rank 0 proposes is taken on another rank: rank 0
 * finds where its kernel would map the region, the others occupy 256 MiB on each side of
 * it, so the proposal is refused and the spread-out hints of the retries (src/dsm/region.c,
 * [2^40, 2^46)) must find a range free on every rank; then the region must work */
static void address_refused(void)
{
  if (P < 2)
    return;
  enum { SPAN_MIB = 256, NPIECE = 2 * SPAN_MIB }; /* 1 MiB pieces on both sides */
  const size_t bytes = 16 * PG, span = (size_t)SPAN_MIB << 20, piece = 1UL << 20;
  unsigned long long probe = 0;
  if (R == 0) {
    void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(p != MAP_FAILED);
    if (p != MAP_FAILED) {
      probe = (unsigned long long)(uintptr_t)p;
      munmap(p, bytes);
    }
  }
  MPI_Bcast(&probe, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (!probe)
    return;
  const uintptr_t lo = (uintptr_t)probe - span, hi = (uintptr_t)probe + span;
  /* 1 MiB pieces, and where one overlaps a mapping of this rank's own, its free pages one
   * by one (the holes next to a rank's own mappings are where its kernel maps next: with
   * the same layout on every rank, rank 0's proposal fell into one of them) */
  static char mine[NPIECE]; /* 1: the whole piece mapped here (pages[]: single pages) */
  static uintptr_t pages[4096];
  int npages = 0;
  memset(mine, 0, sizeof mine);
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE;
  if (R != 0)
    for (uintptr_t a = lo; a < hi; a += piece) {
      void *q = mmap((void *)a, piece, PROT_NONE, flags, -1, 0);
      if (q != MAP_FAILED && q != (void *)a) /* a kernel that ignores NOREPLACE */
        munmap(q, piece);
      if (q == (void *)a) {
        mine[(a - lo) / piece] = 1;
        continue;
      }
      for (uintptr_t g = a; g < a + piece && npages < 4096; g += PG) {
        void *r = mmap((void *)g, PG, PROT_NONE, flags, -1, 0);
        if (r != MAP_FAILED && r != (void *)g)
          munmap(r, PG);
        else if (r == (void *)g)
          pages[npages++] = g;
      }
    }
  hk_dsm_t *d = NULL;
  long *a = NULL;
  hk_dsm_desc_t desc = {.size = bytes, .home = HK_DSM_HOME_CYCLIC};
  TRY(hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a));
  if (d) {
    uintptr_t base = (uintptr_t)a;
    /* a retry's hint, not rank 0's first proposal (which lay near the probe) */
    CHECK(base >= (1ULL << 40) && base < (1ULL << 46));
    CHECK(base + bytes <= lo || base >= hi);
    long W = (long)(PG / sizeof(long));
    for (long k = R; k < 16; k += P) /* page k: written by rank k mod P */
      a[k * W + 1] = 100 * k + 7;
    TRY(hk_dsm_barrier(d));
    long bad = 0;
    for (long k = 0; k < 16; k++)
      bad += a[k * W + 1] != 100 * k + 7;
    CHECK_EQ_INT(bad, 0);
    TRY(hk_dsm_free(&d));
  }
  for (uintptr_t q = lo; q < hi; q += piece)
    if (mine[(q - lo) / piece])
      munmap((void *)q, piece);
  for (int k = 0; k < npages; k++)
    munmap((void *)pages[k], PG);
}

/* rank 0 fills pages once; afterwards they are only read, over several barriers:
 * fetched at most once; pages nobody touches are never fetched */
static void read_only(void)
{
  hk_dsm_t *d = NULL;
  int *a = NULL;
  const int NP = 8, READ = 5; /* pages 0..4 read by everybody, 5..7 untouched */
  hk_dsm_desc_t desc = {.size = NP * PG, .home = HK_DSM_HOME_CYCLIC};
  TRY(hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a));
  if (!d)
    return;
  long W = (long)(PG / sizeof(int));
  if (R == 0)
    for (long i = 0; i < NP * W; i++)
      a[i] = (int)(i * 7 + 1);
  TRY(hk_dsm_barrier(d));
  TRY(hk_dsm_stats_reset(d));
  for (int k = 0; k < 4; k++) {
    long bad = 0;
#pragma omp parallel for num_threads(T) reduction(+ : bad)
    for (long i = 0; i < READ * W; i++)
      bad += a[i] != (int)(i * 7 + 1);
    CHECK_EQ_INT(bad, 0);
    TRY(hk_dsm_barrier(d));
  }
  hk_dsm_stats_t s = stats(d);
  /* rank 0 wrote them; a home's copy is the master copy and never goes stale */
  int expect = 0;
  for (int p = 0; p < READ; p++)
    expect += R != 0 && home_of(d, (size_t)p * PG) != R;
  CHECK_EQ_INT(s.pages_fetched, expect);
  CHECK_EQ_INT(s.read_faults, expect);
  CHECK_EQ_INT(s.invalidations, 0);
  CHECK_EQ_INT(s.write_faults, 0);
  CHECK_EQ_INT(s.diffs_made, 0);
  TRY(hk_dsm_free(&d));
}

/* each rank writes only pages it is home of, twice per interval (one write fault each, no
 * twin: the home writes its master copy), and reads only them: nothing is fetched,
 * nothing moves between ranks but notices */
static void own_pages(void)
{
  hk_dsm_t *d = NULL;
  long *a = NULL;
  const int PER = 3;
  hk_dsm_desc_t desc = {.size = (size_t)(PER * P) * PG, .home = HK_DSM_HOME_BLOCK};
  TRY(hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a));
  if (!d)
    return;
  long W = (long)(PG / sizeof(long));
  for (int k = 0; k < PER; k++)
    CHECK_EQ_INT(home_of(d, (size_t)(R * PER + k) * PG), R);
  for (int round = 1; round <= 2; round++) {
    for (int pass = 0; pass < 2; pass++)
#pragma omp parallel for num_threads(T)
      for (long i = 0; i < PER * W; i++)
        a[R * PER * W + i] += round + pass;
    TRY(hk_dsm_barrier(d));
  }
  long bad = 0;
  for (long i = 0; i < PER * W; i++)
    bad += a[R * PER * W + i] != 1 + 2 + 2 + 3;
  CHECK_EQ_INT(bad, 0);
  hk_dsm_stats_t s = stats(d);
  CHECK_EQ_INT(s.write_faults, 2 * PER);
  CHECK_EQ_INT(s.diffs_made, 0); /* the home writes in place */
  CHECK_EQ_INT(s.pages_fetched, 0);
  CHECK_EQ_INT(s.bytes_fetched, 0);
  CHECK_EQ_INT(s.bytes_diffs, 0);
  CHECK_EQ_INT(s.notices_sent, 2 * PER);
  /* the other ranks' pages (valid zeros at the start) once, at the first barrier */
  CHECK_EQ_INT(s.invalidations, (long)(P - 1) * PER);
  TRY(hk_dsm_free(&d));
}

/* lock-protected increments of one counter (and a second one on another page) from
 * every thread of every rank: the sum is exact */
static void lock_increments(void)
{
  hk_dsm_t *d = NULL;
  long *a = NULL;
  const int K = 40;
  hk_dsm_desc_t desc = {.size = 4 * PG, .home = HK_DSM_HOME_CYCLIC, .nlocks = 2};
  TRY(hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a));
  if (!d)
    return;
  long W = (long)(PG / sizeof(long));
  int fails = 0;
#pragma omp parallel num_threads(T) reduction(+ : fails)
  for (int k = 0; k < K; k++) {
    fails += hk_dsm_lock(d, 0) != HK_SUCCESS;
    a[W + 3]++;
    fails += hk_dsm_unlock(d, 0) != HK_SUCCESS;
    fails += hk_dsm_lock(d, 1) != HK_SUCCESS;
    a[3 * W] += 2;
    fails += hk_dsm_unlock(d, 1) != HK_SUCCESS;
  }
  CHECK_EQ_INT(fails, 0);
  TRY(hk_dsm_barrier(d));
  CHECK_EQ_INT(a[W + 3], (long)P * T * K);
  CHECK_EQ_INT(a[3 * W], 2L * P * T * K);
  TRY(hk_dsm_barrier(d)); /* the reads above before the next writes */
  /* a lock hand-over alone (no barrier) also shows the latest value */
  for (int r = 0; r < P; r++) {
    if (r == R) {
      TRY(hk_dsm_lock(d, 0));
      CHECK_EQ_INT(a[W + 3], (long)P * T * K + r);
      a[W + 3]++;
      TRY(hk_dsm_unlock(d, 0));
    }
    MPI_Barrier(MPI_COMM_WORLD); /* orders the turns; carries no DSM data */
  }
  hk_dsm_stats_t s = stats(d);
  CHECK_EQ_INT(s.lock_acquires, 2L * T * K + 1);
  CHECK(hk_dsm_lock(d, 2) == HK_ERR_ARG);
  TRY(hk_dsm_free(&d));
}

static int misuse(const char *what)
{
  hk_dsm_t *d = NULL;
  int *a = NULL;
  hk_dsm_desc_t desc = {.size = 4 * PG};
  int err;
  if (!strcmp(what, "too-large")) {
    desc.size = (size_t)1 << 50;
    err = hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a);
  } else {
    err = hk_dsm_create(MPI_COMM_WORLD, &desc, &d, (void **)&a);
    if (err == HK_SUCCESS) {
      a[R] = R;
      if (!strcmp(what, "after-free")) {
        err = hk_dsm_free(&d);
        if (R == 0)
          printf("freed; touching the region now\n");
        fflush(stdout);
        a[R] = 1; /* the rank dies here with a clear message */
      } else if (!strcmp(what, "skip-barrier")) {
        err = R == P - 1 ? HK_SUCCESS : hk_dsm_barrier(d); /* the last rank skips it */
        int e2 = hk_dsm_free(&d);
        err = err ? err : e2;
      } else if (!strcmp(what, "late")) {
        if (R == P - 1)
          sleep(3); /* HK_DSM_TIMEOUT=1: the others give up, then this one does */
        err = hk_dsm_barrier(d);
        int e2 = hk_dsm_free(&d);
        err = err ? err : e2;
      }
    }
  }
  err = hk_agree(MPI_COMM_WORLD, err);
  if (err != HK_SUCCESS && R == 0)
    printf("test_dsm: error: %s\n", hk_error_message());
  if (d)
    hk_dsm_free(&d);
  return err == HK_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
  if (hk_init(&argc, &argv, HK_THREAD_MULTIPLE) != HK_SUCCESS) {
    fprintf(stderr, "test_dsm: %s\n", hk_error_message());
    hk_finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  hk_test_rank = R;
  T = omp_get_max_threads();
  PG = hk_dsm_page_size();
  int rc;
  if (argc == 3 && !strcmp(argv[1], "--misuse")) {
    rc = misuse(argv[2]);
  } else {
    false_sharing();
    neighbour_rounds();
    read_only();
    own_pages();
    lock_increments();
    address_refused();
    rc = hk_test_mpi_report("test_dsm");
  }
  hk_finalize();
  return rc;
}
