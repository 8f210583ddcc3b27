/* tests/coll/bcast_conformance.c: hk_bcast against the values this program wrote
 * (issue 39).
 *
 * The root writes an encoding of (root, item index, salt) into every used cell of the
 * user's layout; every other rank starts with -1 there; gaps of derived types hold a
 * sentinel on every rank that must survive.  For each algorithm forced through the
 * options (auto, mpi, chunked, chunked-shifted, hierarchical; min_bytes 1 so every
 * message is a candidate):
 *
 *   types     MPI_INT, MPI_DOUBLE, MPI_CHAR, contiguous(3 ints), a vector (ints 0, 1 of 3)
 *   counts    0, 1, 7, 1001, 65537 elements (1 << 20 doubles too); every root
 *   contexts  outside parallel regions, from `omp single` (master at FUNNELED) and from
 *             every thread of a region in turn (one at a time, ordered); sub-communicators
 *             (halves making different numbers of calls, ranks reversed); interleaved with
 *             hk_allreduce and hk_reduce on one communicator; the root describing the
 *             message as contiguous(3 int), the others as MPI_INT
 *   info      algorithm, threads and the reason of every fallback certain from the inputs
 *
 * usage: bcast_conformance [--level funneled|serialized|multiple]
 * Prints "bcast_conformance: N ranks, level L, M checks, 0 failed" and the fallbacks seen
 * on rank 0; exit 1 on a wrong result.
 */
#include "check.h"

static long value(char base, int root, long long k, int salt)
{
  long long x = (long long)root * 7919 + k * 31 + salt;
  return base == 'c' ? (long)(x % 97) : (long)(x % 1000003);
}

static void fill(void *buf, const tdesc_t *d, long long n, int is_root, int root, int salt)
{
  for (long long e = 0; e < n; e++)
    for (int u = 0; u < d->stride; u++) {
      int used = u >= d->first && u < d->first + d->used;
      long v = !used ? SENTINEL : is_root ? value(d->base, root, e * d->used + u - d->first, salt)
                                          : -1;
      set_cell(buf, d->base, e * d->stride + u, v);
    }
}

/* the index of the first wrong cell, -1 when all are right */
static long long verify(const void *buf, const tdesc_t *d, long long n, int root, int salt)
{
  for (long long e = 0; e < n; e++)
    for (int u = 0; u < d->stride; u++) {
      int used = u >= d->first && u < d->first + d->used;
      long want = used ? value(d->base, root, e * d->used + u - d->first, salt) : SENTINEL;
      if (get_cell(buf, d->base, e * d->stride + u) != want)
        return e * d->stride + u;
    }
  return -1;
}

static tdesc_t d_int, d_double, d_char, d_contig3, d_vec;
static const hk_allreduce_alg_t algs[] = {HK_ALLREDUCE_AUTO, HK_ALLREDUCE_MPI, HK_ALLREDUCE_CHUNKED,
                                          HK_ALLREDUCE_CHUNKED_SHIFTED, HK_ALLREDUCE_HIERARCHICAL};
#define NALGS 5

/* the fallback certain from the inputs (threads: the team size chunks can use) */
static int expected(hk_allreduce_alg_t alg, const tdesc_t *d, long long n, int size)
{
  if (alg == HK_ALLREDUCE_MPI)
    return HK_FALLBACK_CHOSEN;
  if (n == 0)
    return HK_FALLBACK_SMALL;
  if (size == 1)
    return HK_FALLBACK_ONE_RANK;
  long long ext = (long long)d->stride * (long long)cell_size(d->base);
  if (alg == HK_ALLREDUCE_AUTO) /* hierarchical or model: checked by the caller */
    return n * ext >= 4096 && n * ext < 1048576 && d->contiguous && node_size != 1 &&
                   !(node_size > 1 && size > node_size)
               ? -1
               : HK_FALLBACK_MODEL;
  if (alg == HK_ALLREDUCE_HIERARCHICAL) {
    if (!d->contiguous)
      return HK_FALLBACK_DATATYPE;
    if (node_size == 1 || (node_size > 1 && size % node_size))
      return HK_FALLBACK_NODES;
    return HK_FALLBACK_NONE;
  }
  if (level < MPI_THREAD_MULTIPLE)
    return HK_FALLBACK_THREAD_LEVEL;
  /* contiguous types move as bytes in 64-byte units, others by elements */
  long long g = d->contiguous ? 64 : gran_of(ext), units = d->contiguous ? (n * ext + 63) / 64
                                                                        : (n + g - 1) / g;
  if ((units < nthreads ? units : nthreads) < 2)
    return HK_FALLBACK_ONE_THREAD;
  return HK_FALLBACK_NONE;
}

/* one broadcast of n elements of d from root over comm; check_info: compare info */
static void one(hk_allreduce_alg_t alg, const tdesc_t *d, long long n, int root, MPI_Comm comm,
                int salt, int check_info)
{
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t bytes = (size_t)(n ? n : 1) * (size_t)d->stride * cell_size(d->base);
  void *buf = malloc(bytes);
  fill(buf, d, n, rank == root, root, salt);
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {alg, HK_DEFAULT, 1, &info};
  const char *an = hk_allreduce_alg_name(alg);
  int rc = hk_bcast(buf, (int)n, d->t, root, comm, &o);
  check(rc == HK_SUCCESS, "return code", an, rc);
  long long bad = verify(buf, d, n, root, salt);
  if (bad >= 0)
    fprintf(stderr, "  %s n=%lld root=%d size=%d ran %s fallback %s\n", d->name, n, root, size,
            hk_allreduce_alg_name(info.algorithm), hk_allreduce_fallback_name(info.fallback));
  check(bad < 0, d->name, an, bad);
#pragma omp critical(tally)
  seen[info.fallback]++;
  if (check_info) {
    int want = expected(alg, d, n, size);
    if (want < 0) /* auto: hierarchical when one node is not oversubscribed, else model */
      check(info.fallback == HK_FALLBACK_MODEL ||
                (info.fallback == HK_FALLBACK_NONE && info.algorithm == HK_ALLREDUCE_HIERARCHICAL),
            "auto: hierarchical or model", an, info.fallback);
    else
      check((int)info.fallback == want, "info.fallback", an, info.fallback);
    if (info.fallback == HK_FALLBACK_NONE) {
      check(info.algorithm == alg || alg == HK_ALLREDUCE_AUTO, "info.algorithm", an,
            info.algorithm);
      check(info.algorithm == HK_ALLREDUCE_HIERARCHICAL ? info.threads >= 1 : info.threads >= 2,
            "info.threads", an, info.threads);
    } else {
      check(info.algorithm == HK_ALLREDUCE_MPI && info.threads == 1, "info of mpi", an,
            info.algorithm);
    }
  }
  free(buf);
}

static void suite(hk_allreduce_alg_t alg, MPI_Comm comm, int salt)
{
  static const long long counts[] = {0, 1, 7, 1001, 65537};
  const tdesc_t *types[] = {&d_int, &d_double, &d_char, &d_contig3, &d_vec};
  int size;
  MPI_Comm_size(comm, &size);
  for (int ti = 0; ti < 5; ti++)
    for (int ci = 0; ci < 5; ci++)
      for (int root = 0; root < size; root++)
        one(alg, types[ti], counts[ci], root, comm, salt + ti * 10 + ci, 1);
  one(alg, &d_double, 1 << 20, size - 1, comm, salt + 99, 1);
}

/* from `omp single` (master at FUNNELED), and every thread of a region in turn */
static void inside_parallel(hk_allreduce_alg_t alg, int salt)
{
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#pragma omp parallel
  {
    if (level >= MPI_THREAD_SERIALIZED) {
#pragma omp single
      {
        one(alg, &d_double, 65537, size - 1, MPI_COMM_WORLD, salt, 0);
        one(alg, &d_int, 1001, 0, MPI_COMM_WORLD, salt + 1, 0);
      }
#pragma omp for ordered schedule(static, 1)
      for (int t = 0; t < omp_get_num_threads(); t++) {
#pragma omp ordered
        one(alg, &d_char, 70000, t % size, MPI_COMM_WORLD, salt + 2 + t, 0);
      }
    } else {
#pragma omp master
      one(alg, &d_double, 65537, size - 1, MPI_COMM_WORLD, salt, 0);
#pragma omp barrier
    }
  }
}

/* halves (ranks reversed) making different numbers of calls, different roots */
static void sub_communicators(void)
{
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &half);
  int hs;
  MPI_Comm_size(half, &hs);
  for (int a = 0; a < NALGS; a++) {
    int calls = wrank % 2 ? 2 : 3;
    for (int i = 0; i < calls; i++)
      one(algs[a], i % 2 ? &d_int : &d_double, 65537 + i, i % hs, half, 500 + 10 * a + i, 0);
  }
  MPI_Comm_free(&half);
}

/* hk_bcast, hk_allreduce and hk_reduce on one communicator, one algorithm each call */
static void interleaved(void)
{
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 70001;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (int round = 0; round < 6; round++) {
    hk_allreduce_alg_t alg = algs[2 + round % 3];
    hk_allreduce_opts_t o = {alg, HK_DEFAULT, 1, NULL};
    one(alg, &d_double, n - round, round % size, MPI_COMM_WORLD, 900 + round, 0);
    for (int i = 0; i < n; i++)
      x[i] = wrank + i % 13 + round;
    int rc = hk_allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &o);
    check(rc == HK_SUCCESS, "allreduce rc", "interleaved", rc);
    int bad = 0;
    for (int i = 0; i < n; i++)
      bad += y[i] != (double)size * (size - 1) / 2 + (double)size * (i % 13 + round);
    check(!bad, "allreduce between bcasts", hk_allreduce_alg_name(alg), bad);
    one(HK_ALLREDUCE_HIERARCHICAL, &d_int, 1001 + round, (round + 1) % size, MPI_COMM_WORLD,
        950 + round, 0);
#ifdef MPICH
    /* MPICH 4.0 crashes in MPI_Reduce with MPI_IN_PLACE at a root other than 0 (the
     * leaders' step of hierarchical hk_reduce at 2 nodes): root 0 there */
    int root = 0;
#else
    int root = (round + 2) % size;
#endif
    memset(y, 0, n * sizeof *y);
    rc = hk_reduce(x, y, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD, &o);
    check(rc == HK_SUCCESS, "reduce rc", "interleaved", rc);
    bad = 0;
    if (wrank == root)
      for (int i = 0; i < n; i++)
        bad += y[i] != (double)size * (size - 1) / 2 + (double)size * (i % 13 + round);
    check(!bad, "reduce between bcasts", hk_allreduce_alg_name(alg), bad);
  }
  free(x);
  free(y);
}

/* one signature, two descriptions: the root sends n contiguous(3 int), the others
 * receive 3n MPI_INT (MPI_Bcast allows it; contiguous types move as bytes) */
static void mixed_descriptions(void)
{
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 30001;
  int *x = malloc(3 * (size_t)n * sizeof *x);
  for (int a = 0; a < NALGS; a++)
    for (int root = 0; root < size; root++) {
      for (int i = 0; i < 3 * n; i++)
        x[i] = wrank == root ? i * 7 + root + a : -1;
      hk_allreduce_opts_t o = {algs[a], HK_DEFAULT, 1, NULL};
      int rc = wrank == root ? hk_bcast(x, n, d_contig3.t, root, MPI_COMM_WORLD, &o)
                             : hk_bcast(x, 3 * n, MPI_INT, root, MPI_COMM_WORLD, &o);
      check(rc == HK_SUCCESS, "mixed rc", hk_allreduce_alg_name(algs[a]), rc);
      int bad = 0;
      for (int i = 0; i < 3 * n; i++)
        bad += x[i] != i * 7 + root + a;
      check(!bad, "mixed descriptions", hk_allreduce_alg_name(algs[a]), bad);
    }
  free(x);
}

static void bad_arguments(void)
{
  int size, v = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_allreduce_opts_t o = HK_ALLREDUCE_OPTS_DEFAULT;
  check(hk_bcast(&v, -1, MPI_INT, 0, MPI_COMM_WORLD, &o) == HK_ERR_ARG, "count -1", "args", 0);
  check(hk_bcast(&v, 1, MPI_INT, size, MPI_COMM_WORLD, &o) == HK_ERR_ARG, "root = size", "args",
        0);
  check(hk_bcast(&v, 1, MPI_INT, -1, MPI_COMM_WORLD, &o) == HK_ERR_ARG, "root -1", "args", 0);
}

static void describe(tdesc_t *d, MPI_Datatype t, char base, int stride, int first, int used,
                     int contiguous, const char *name)
{
  *d = (tdesc_t){t, base, stride, first, used, contiguous, name};
}

int main(int argc, char **argv)
{
  ck_start(&argc, &argv, "bcast_conformance");
  MPI_Datatype c3, v, vec;
  MPI_Type_contiguous(3, MPI_INT, &c3);
  MPI_Type_vector(1, 2, 3, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 3 * sizeof(int), &vec);
  MPI_Type_commit(&c3);
  MPI_Type_commit(&vec);
  MPI_Type_free(&v);
  describe(&d_int, MPI_INT, 'i', 1, 0, 1, 1, "int");
  describe(&d_double, MPI_DOUBLE, 'd', 1, 0, 1, 1, "double");
  describe(&d_char, MPI_CHAR, 'c', 1, 0, 1, 1, "char");
  describe(&d_contig3, c3, 'i', 3, 0, 3, 1, "contiguous(3 int)");
  describe(&d_vec, vec, 'i', 3, 0, 2, 0, "vector(2 of 3 int)");

  for (int a = 0; a < NALGS; a++) {
    suite(algs[a], MPI_COMM_WORLD, 100 * a);
    inside_parallel(algs[a], 100 * a + 70);
  }
  sub_communicators();
  interleaved();
  mixed_descriptions();
  bad_arguments();

  MPI_Type_free(&c3);
  MPI_Type_free(&vec);
  return ck_finish();
}
