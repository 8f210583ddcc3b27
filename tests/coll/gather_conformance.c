/* tests/coll/gather_conformance.c: hk_allgather and hk_alltoall against the values
 * this program wrote (issue 39).
 *
 * Every item (a used int / double / char of the user's layout) holds an encoding of
 * (source rank, destination block, item index); gaps of derived types hold a sentinel
 * that must survive.  For each algorithm forced through the options (auto, mpi,
 * chunked, chunked-shifted, hierarchical; min_bytes 1 so every message is a candidate):
 *
 *   types     MPI_INT, MPI_DOUBLE, MPI_CHAR, contiguous(3 ints), a vector (ints 0, 1
 *             of 3), send vector / receive contiguous(2 ints) (same counts, different
 *             types), send contiguous(2 ints) x n / receive MPI_INT x 2n (counts differ)
 *   counts    0, 1, 7, 1001, 65537 elements per block; MPI_IN_PLACE and not
 *   contexts  outside parallel regions, from `omp single` (master at FUNNELED);
 *             sub-communicators (halves making different numbers of calls, ranks
 *             reversed); interleaved with hk_allreduce on one communicator
 *   info      the reason of every fallback that is certain from the inputs
 *
 * usage: gather_conformance [--level funneled|serialized|multiple]
 * Prints "gather_conformance: N ranks, level L, M checks, 0 failed" and the fallbacks
 * seen on rank 0; exit 1 on a wrong result.
 */
#include "check.h"

static long value(char base, int src, int blk, long long k, int salt)
{
  long long x = (long long)src * 7919 + (long long)blk * 104729 + k * 31 + salt;
  return base == 'c' ? (long)(x % 97) : (long)(x % 1000003);
}

/* nblocks blocks of n elements; block b item k = value(src_of(b), blk_of(b), k) when
 * b is in [b0, b1), else every cell the sentinel */
static void fill(void *buf, const tdesc_t *d, long long n, int nblocks, int b0, int b1,
                 int src_fixed, int blk_fixed, int salt)
{
  for (int b = 0; b < nblocks; b++)
    for (long long e = 0; e < n; e++)
      for (int u = 0; u < d->stride; u++) {
        long long cell = ((long long)b * n + e) * d->stride + u;
        int used = u >= d->first && u < d->first + d->used;
        long v = SENTINEL;
        if (used && b >= b0 && b < b1)
          v = value(d->base, src_fixed >= 0 ? src_fixed : b, blk_fixed >= 0 ? blk_fixed : b,
                    e * d->used + (u - d->first), salt);
        set_cell(buf, d->base, cell, v);
      }
}

static tdesc_t d_int, d_double, d_char, d_contig3, d_vec, d_pair;

/* ---- one call and its expected fallback ---- */
static const hk_allreduce_alg_t algs[] = {HK_ALLREDUCE_AUTO, HK_ALLREDUCE_MPI, HK_ALLREDUCE_CHUNKED,
                                          HK_ALLREDUCE_CHUNKED_SHIFTED, HK_ALLREDUCE_HIERARCHICAL};
#define NALGS 5

typedef struct call {
  int a2a;               /* 0 allgather, 1 alltoall */
  hk_allreduce_alg_t alg;
  int in_place;
  MPI_Comm comm;
} call_t;

static int expected(const call_t *k, const tdesc_t *sd, const tdesc_t *rd, long long scount,
                    long long rcount, int size)
{
  if (k->alg == HK_ALLREDUCE_MPI)
    return HK_FALLBACK_CHOSEN;
  if (rcount == 0)
    return HK_FALLBACK_SMALL;
  if (size == 1)
    return HK_FALLBACK_ONE_RANK;
  if (k->alg == HK_ALLREDUCE_AUTO)
    return HK_FALLBACK_MODEL;
  int same = k->in_place || scount == rcount;
  if (k->alg == HK_ALLREDUCE_HIERARCHICAL) {
    if (!same || !rd->contiguous || (!k->in_place && !sd->contiguous))
      return HK_FALLBACK_DATATYPE;
    if (node_size == 1 || (node_size > 1 && size % node_size))
      return HK_FALLBACK_NODES;
    if (k->a2a && node_size > 1 && size / node_size > 1)
      return HK_FALLBACK_NODES;
    return HK_FALLBACK_NONE;
  }
  if (!same)
    return HK_FALLBACK_DATATYPE;
  if (level < MPI_THREAD_MULTIPLE)
    return HK_FALLBACK_THREAD_LEVEL;
  MPI_Aint lb, ext;
  MPI_Type_get_extent(rd->t, &lb, &ext);
  long long g = gran_of(ext), units = (rcount + g - 1) / g;
  return (units < nthreads ? units : nthreads) < 2 ? HK_FALLBACK_ONE_THREAD : HK_FALLBACK_NONE;
}

/* one call of the collective of k with send layout sd x scount, receive rd x rcount */
static void run(const call_t *k, const tdesc_t *sd, const tdesc_t *rd, long long scount,
                long long rcount, int salt)
{
  int me, P;
  MPI_Comm_rank(k->comm, &me);
  MPI_Comm_size(k->comm, &P);
  int sblocks = k->a2a ? P : 1;
  size_t sbytes = (size_t)(scount * sd->stride * sblocks + 1) * cell_size(sd->base);
  size_t rbytes = (size_t)(rcount * rd->stride * P + 1) * cell_size(rd->base);
  void *sbuf = malloc(sbytes), *rbuf = malloc(rbytes);
  /* send: allgather one block of mine, alltoall block j for rank j */
  fill(sbuf, sd, scount, sblocks, 0, sblocks, me, k->a2a ? -1 : 0, salt);
  if (!k->in_place)
    fill(rbuf, rd, rcount, P, 0, 0, -1, -1, salt);
  else if (k->a2a) /* recvbuf holds the send data */
    fill(rbuf, rd, rcount, P, 0, P, me, -1, salt);
  else             /* own block in place, the others untouched */
    fill(rbuf, rd, rcount, P, me, me + 1, me, 0, salt);
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = k->alg, .threads = HK_DEFAULT, .min_bytes = 1,
                           .info = &info};
  /* in place the send count and type are ignored (MPI 4.0 6.9.6): -1 and MPI_DATATYPE_NULL,
   * as MPICH's own alltoall1 passes them */
  const void *s = k->in_place ? MPI_IN_PLACE : sbuf;
  int sc = k->in_place ? -1 : (int)scount;
  MPI_Datatype st = k->in_place ? MPI_DATATYPE_NULL : sd->t;
  int err = k->a2a ? hk_alltoall(s, sc, st, rbuf, (int)rcount, rd->t, k->comm, &o)
                   : hk_allgather(s, sc, st, rbuf, (int)rcount, rd->t, k->comm, &o);
  char what[160];
  snprintf(what, sizeof what, "%s %s->%s n=%lld%s P=%d", k->a2a ? "alltoall" : "allgather",
           sd->name, rd->name, rcount, k->in_place ? " in place" : "", P);
  const char *name = hk_allreduce_alg_name(k->alg);
  check(err == HK_SUCCESS, what, name, err);
  int want = expected(k, sd, rd, scount, rcount, P);
  int ran_ok = (info.fallback == HK_FALLBACK_NONE) == (info.algorithm != HK_ALLREDUCE_MPI);
  check(ran_ok && (int)info.fallback == want, "info.fallback", name,
        info.fallback * 100 + want);
  if (want == HK_FALLBACK_NONE)
    check(info.algorithm == k->alg && info.threads >= 1, "info.algorithm", name, info.algorithm);
#pragma omp atomic
  seen[info.fallback]++;
  /* expected: block j from rank j (alltoall: its block for me) */
  long long bad = 0;
  for (int j = 0; j < P; j++)
    for (long long e = 0; e < rcount; e++)
      for (int u = 0; u < rd->stride; u++) {
        long long cell = ((long long)j * rcount + e) * rd->stride + u;
        int used = u >= rd->first && u < rd->first + rd->used;
        long want_v = used ? value(rd->base, j, k->a2a ? me : 0, e * rd->used + (u - rd->first),
                                   salt)
                           : SENTINEL;
        if (!used && k->in_place && k->a2a)
          want_v = SENTINEL;
        bad += get_cell(rbuf, rd->base, cell) != want_v;
      }
  check(bad == 0, what, name, bad);
  free(sbuf);
  free(rbuf);
}

static const long long counts[] = {0, 1, 7, 1001, 65537};
#define NCOUNTS 5

/* every layout pair and count for one (collective, algorithm, comm) */
static void suite(call_t k, int salt, int full)
{
  const tdesc_t *same[] = {&d_int, &d_double, &d_char, &d_contig3, &d_vec};
  for (int c = 0; c < NCOUNTS; c++) {
    long long n = counts[c];
    for (k.in_place = 0; k.in_place < 2; k.in_place++) {
      for (int t = 0; t < 5; t++)
        if (full || t == 0 || t == 4)
          run(&k, same[t], same[t], n, n, salt + c * 10 + t);
      if (k.in_place || !(full || n == 1001))
        continue;
      run(&k, &d_vec, &d_pair, n, n, salt + c * 10 + 5);     /* same counts */
      run(&k, &d_pair, &d_int, n, 2 * n, salt + c * 10 + 6); /* counts differ */
    }
  }
}

/* one thread of an active parallel region calls (master: FUNNELED allows it) */
static void inside_parallel(call_t k)
{
#pragma omp parallel
  {
#pragma omp master
    {
      run(&k, &d_int, &d_int, 65537, 65537, 41);
      k.in_place = 1;
      run(&k, &d_vec, &d_vec, 1001, 1001, 42);
      k.in_place = 0;
    }
#pragma omp barrier
    if (level >= MPI_THREAD_SERIALIZED) {
#pragma omp single
      run(&k, &d_double, &d_double, 4099, 4099, 43);
    }
  }
}

/* halves of the world making different numbers of calls, then the ranks reversed */
static void sub_communicators(void)
{
  int wsize;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm half, rev;
  int color = wrank < (wsize + 1) / 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half);
  MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev);
  for (int a = 0; a < NALGS; a++)
    for (int a2a = 0; a2a < 2; a2a++) {
      for (int rep = 0; rep < 1 + 2 * color; rep++)
        run(&(call_t){a2a, algs[a], rep % 2, half}, &d_int, &d_int, 1001 + rep, 1001 + rep,
            50 + rep);
      run(&(call_t){a2a, algs[a], 0, rev}, &d_double, &d_double, 65537, 65537, 60);
      run(&(call_t){a2a, algs[a], 1, rev}, &d_vec, &d_vec, 7, 7, 61);
    }
  MPI_Comm_free(&half);
  MPI_Comm_free(&rev);
}

/* hk_allreduce's hierarchical window and these collectives, alternating on one comm */
static void interleaved(void)
{
  int wsize;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  enum { N = 30000 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (int rep = 0; rep < 4; rep++)
    for (int a = 2; a < NALGS; a++) {
      for (int i = 0; i < N; i++)
        x[i] = wrank + i % 17 + rep;
      hk_allreduce_opts_t o = {.algorithm = algs[a], .min_bytes = 1};
      check(hk_allreduce(x, y, N, MPI_DOUBLE, MPI_SUM, d, &o) == HK_SUCCESS, "allreduce", "-", 0);
      long long bad = 0;
      for (int i = 0; i < N; i++)
        bad += y[i] != (double)wsize * (i % 17 + rep) + (double)wsize * (wsize - 1) / 2;
      check(bad == 0, "allreduce between allgathers", hk_allreduce_alg_name(algs[a]), bad);
      run(&(call_t){0, algs[a], rep % 2, d}, &d_int, &d_int, 5000 + rep * 1000, 5000 + rep * 1000,
          70 + rep);
      run(&(call_t){1, algs[a], rep % 2, d}, &d_int, &d_int, 3000 - rep * 500, 3000 - rep * 500,
          80 + rep);
    }
  free(x);
  free(y);
  MPI_Comm_free(&d);
}

static void bad_arguments(void)
{
  int x[4] = {0}, y[64] = {0};
  check(hk_allgather(x, -1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, NULL) == HK_ERR_ARG,
        "allgather sendcount -1: HK_ERR_ARG", "-", 0);
  check(hk_alltoall(x, 1, MPI_INT, y, -1, MPI_INT, MPI_COMM_WORLD, NULL) == HK_ERR_ARG,
        "alltoall recvcount -1: HK_ERR_ARG", "-", 0);
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_ALG_COUNT};
  check(hk_allgather(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &o) == HK_ERR_ARG,
        "allgather invalid algorithm: HK_ERR_ARG", "-", 0);
  o = (hk_allreduce_opts_t){.algorithm = HK_ALLREDUCE_CHUNKED, .min_bytes = -5};
  check(hk_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &o) == HK_ERR_ARG,
        "alltoall min_bytes -5: HK_ERR_ARG", "-", 0);
  hk_error_clear();
}

static void describe(tdesc_t *d, MPI_Datatype t, char base, int stride, int first, int used,
                     int contiguous, const char *name)
{
  *d = (tdesc_t){t, base, stride, first, used, contiguous, name};
}

int main(int argc, char **argv)
{
  ck_start(&argc, &argv, "gather_conformance");
  MPI_Datatype c3, v, vec, pair;
  MPI_Type_contiguous(3, MPI_INT, &c3);
  MPI_Type_vector(1, 2, 3, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 3 * sizeof(int), &vec);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&c3);
  MPI_Type_commit(&vec);
  MPI_Type_commit(&pair);
  MPI_Type_free(&v);
  describe(&d_int, MPI_INT, 'i', 1, 0, 1, 1, "int");
  describe(&d_double, MPI_DOUBLE, 'd', 1, 0, 1, 1, "double");
  describe(&d_char, MPI_CHAR, 'c', 1, 0, 1, 1, "char");
  describe(&d_contig3, c3, 'i', 3, 0, 3, 1, "contiguous(3 int)");
  describe(&d_vec, vec, 'i', 3, 0, 2, 0, "vector(2 of 3 int)");
  describe(&d_pair, pair, 'i', 2, 0, 2, 1, "contiguous(2 int)");

  for (int a = 0; a < NALGS; a++)
    for (int a2a = 0; a2a < 2; a2a++) {
      suite((call_t){a2a, algs[a], 0, MPI_COMM_WORLD}, 100 * a + 10 * a2a, 1);
      inside_parallel((call_t){a2a, algs[a], 0, MPI_COMM_WORLD});
    }
  sub_communicators();
  interleaved();
  bad_arguments();

  MPI_Type_free(&c3);
  MPI_Type_free(&vec);
  MPI_Type_free(&pair);
  return ck_finish();
}
