/* tests/mpi/test_coll.c: hk_allreduce against PMPI_Allreduce.
 *
 * For every algorithm, a table of (type, op) cases, counts 0, 1, T-1, T, odd,
 * 128 KiB (and 8 MiB with --big), separate buffers and MPI_IN_PLACE: integer
 * and pair results must equal PMPI_Allreduce's bit for bit; double sums within
 * 4 P eps relative to the sum of |x| (a hybrid algorithm may add the P
 * contributions in another order than MPI does: MPI picks its reduction order
 * per message size, hierarchical reduces inside each node first).  Which
 * algorithm ran (hk_allreduce_info_t) is checked against the fallback rules,
 * computed here independently from the environment (threads, thread limit).
 *
 * usage: test_coll [--big] [--algorithms a,b] [--table] [--sample k]
 *   --sample k  run algorithm a on case c only when (a + c) % k == 0, in place only
 *               for every second count (keeps the 3- and 4-rank runs short on an
 *               oversubscribed machine; every case still meets several algorithms)
 *   --table   HK_COLL_TUNING points at tests/coll/tuning.json: check that AUTO
 *             follows its rows
 */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

static int rank, nranks, T, multiple;

typedef enum { K_INT, K_DOUBLE, K_DOUBLE_EXACT, K_PAIR } kind_t;
typedef struct dbl_int { double v; int i; } dbl_int_t;

typedef struct tcase {
  const char *name;
  MPI_Datatype type;  /* set at run time for derived types */
  MPI_Op op;
  kind_t kind;
  int commutative;
} tcase_t;

static uint64_t mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static void fill(const tcase_t *c, void *buf, long long count, MPI_Aint extent, int tsize)
{
  for (long long i = 0; i < count; i++) {
    uint64_t h = mix((uint64_t)rank * 1000003u + (uint64_t)i);
    char *e = (char *)buf + i * extent;
    if (c->kind == K_DOUBLE || c->kind == K_DOUBLE_EXACT) {
      *(double *)e = (double)(h >> 11) / 9007199254740992.0 - 0.25;
    } else if (c->kind == K_PAIR) {
      dbl_int_t p = {(double)(h % 7), (int)(h % 1000)};
      memcpy(e, &p.v, sizeof p.v);
      memcpy(e + offsetof(dbl_int_t, i), &p.i, sizeof p.i);
    } else {
      for (int b = 0; b < tsize; b++)
        e[b] = (char)(h >> (8 * (b % 8)));
      if (c->op == MPI_SUM && tsize >= 4) /* keep sums away from signed overflow */
        for (int b = 2; b < tsize; b++)
          e[b] = 0;
    }
  }
}

static long long compare(const tcase_t *c, const void *got, const void *want, const void *absum,
                         long long count, MPI_Aint extent, int tsize)
{
  long long bad = 0;
  for (long long i = 0; i < count; i++) {
    const char *g = (const char *)got + i * extent, *w = (const char *)want + i * extent;
    if (c->kind == K_DOUBLE) {
      double a = *(const double *)g, b = *(const double *)w;
      double tol = 4.0 * nranks * DBL_EPSILON * ((const double *)absum)[i];
      bad += !(fabs(a - b) <= tol);
    } else if (c->kind == K_PAIR) {
      bad += memcmp(g, w, sizeof(double)) != 0 ||
             memcmp(g + offsetof(dbl_int_t, i), w + offsetof(dbl_int_t, i), sizeof(int)) != 0;
    } else { /* integers, max/min of doubles: exact */
      bad += memcmp(g, w, (size_t)tsize) != 0;
    }
  }
  return bad;
}

/* a commutative user op: sum modulo 1000003 (normalised to 0..m-1, so associative) */
static void sum_mod(void *in, void *inout, int *len, MPI_Datatype *type)
{
  int n = *len, sz = 0;
  MPI_Type_size(*type, &sz);
  n *= sz / (int)sizeof(int);
  for (int i = 0; i < n; i++)
    ((int *)inout)[i] =
        (int)((((long long)((int *)in)[i] + ((int *)inout)[i]) % 1000003 + 1000003) % 1000003);
}

/* a non-commutative user op: the left operand (the result is rank 0's vector) */
static void left(void *in, void *inout, int *len, MPI_Datatype *type)
{
  int sz = 0;
  MPI_Type_size(*type, &sz);
  memcpy(inout, in, (size_t)*len * (size_t)sz);
}

/* the fallback the rules predict (the library's logic written again as an oracle) */
static hk_allreduce_fallback_t predict(hk_allreduce_alg_t a, const tcase_t *c, long long count,
                                       MPI_Aint extent, int tsize)
{
  if (a == HK_ALLREDUCE_MPI)
    return HK_FALLBACK_CHOSEN;
  if (count == 0)
    return HK_FALLBACK_SMALL;
  if (!c->commutative)
    return HK_FALLBACK_NONCOMMUTATIVE;
  if (nranks == 1)
    return HK_FALLBACK_ONE_RANK;
  if (a == HK_ALLREDUCE_HIERARCHICAL) { /* runs with one thread per rank below MULTIPLE */
    if ((MPI_Aint)tsize != extent)
      return HK_FALLBACK_DATATYPE;
    const char *k = getenv("HK_NODE_SIZE"); /* virtual nodes, else one machine */
    int per_node = k && *k ? atoi(k) : nranks;
    return per_node < 2 || nranks % per_node ? HK_FALLBACK_NODES : HK_FALLBACK_NONE;
  }
  if (!multiple)
    return HK_FALLBACK_THREAD_LEVEL;
  long long g = 64, e = extent, x = 64;
  while (e) { long long t = x % e; x = e; e = t; }
  g = 64 / x;
  long long units = (count + g - 1) / g, useful = units < T ? units : T;
  return useful >= 2 ? HK_FALLBACK_NONE : HK_FALLBACK_ONE_THREAD;
}

static void run_case(hk_allreduce_alg_t a, const tcase_t *c, long long count, int in_place)
{
  MPI_Aint lb, extent;
  int tsize;
  MPI_Type_get_extent(c->type, &lb, &extent);
  MPI_Type_size(c->type, &tsize);
  size_t bytes = (size_t)(count > 0 ? count : 1) * (size_t)extent;
  char *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
  double *absum = NULL;
  CHECK(in && want && got);
  memset(in, 0, bytes);
  memset(want, 0, bytes);
  memset(got, 0x5a, bytes);
  fill(c, in, count, extent, tsize);
  PMPI_Allreduce(in, want, (int)count, c->type, c->op, MPI_COMM_WORLD);
  if (c->kind == K_DOUBLE) {
    absum = malloc(bytes);
    double *ab = malloc(bytes);
    for (long long i = 0; i < count; i++)
      ab[i] = fabs(((double *)in)[i]);
    PMPI_Allreduce(ab, absum, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(ab);
  }
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = a, .min_bytes = 1, .info = &info};
  if (in_place)
    memcpy(got, in, bytes);
  int err = hk_allreduce(in_place ? MPI_IN_PLACE : in, got, (int)count, c->type, c->op,
                         MPI_COMM_WORLD, &o);
  CHECK_EQ_INT(err, HK_SUCCESS);
  long long bad = compare(c, got, want, absum, count, extent, tsize);
  hk_allreduce_fallback_t fb = predict(a, c, count, extent, tsize);
  if (bad || info.fallback != fb)
    fprintf(stderr, "rank %d: %s %s count %lld%s: %lld wrong, ran %s x%d (fallback %s, expected %s)\n",
            rank, hk_allreduce_alg_name(a), c->name, count, in_place ? " in place" : "", bad,
            hk_allreduce_alg_name(info.algorithm), info.threads,
            hk_allreduce_fallback_name(info.fallback), hk_allreduce_fallback_name(fb));
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(info.fallback, fb);
  CHECK_EQ_INT(info.algorithm, fb == HK_FALLBACK_NONE ? a : HK_ALLREDUCE_MPI);
  free(in);
  free(want);
  free(got);
  free(absum);
}

/* AUTO follows tests/coll/tuning.json: up to 1 KiB mpi, up to 64 KiB chunked-shifted
 * (2 threads), then hierarchical (2 threads) */
/* v[i] = rank + i summed in place by hk_allreduce's auto choice (default threshold), checked
 * against the sum the test computes itself; info says what ran */
static void auto_sum(int *v, int n, hk_allreduce_info_t *info)
{
  for (int i = 0; i < n; i++)
    v[i] = rank + i;
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_AUTO, .min_bytes = HK_DEFAULT, .info = info};
  CHECK_EQ_INT(hk_allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o), 0);
  long long bad = 0;
  for (int i = 0; i < n; i++)
    bad += v[i] != nranks * i + nranks * (nranks - 1) / 2;
  CHECK_EQ_INT(bad, 0);
}

static void check_table(void)
{
  hk_coll_config_t cfg;
  CHECK_EQ_INT(hk_coll_config(&cfg), HK_SUCCESS);
  CHECK_EQ_INT(cfg.table_rows, 3);
  CHECK_EQ_INT(cfg.min_bytes, 0);
  static const struct { int count; hk_allreduce_alg_t want; } rows[] = {
    {16, HK_ALLREDUCE_MPI}, {4096, HK_ALLREDUCE_CHUNKED_SHIFTED}, {100000, HK_ALLREDUCE_HIERARCHICAL}};
  for (int r = 0; r < 3; r++) {
    int n = rows[r].count;
    int *v = malloc((size_t)n * sizeof *v);
    hk_allreduce_info_t info;
    auto_sum(v, n, &info);
    /* the table's 2 threads are explicit: they run even when OMP_NUM_THREADS=1 */
    /* one rank: nothing to gain; below MULTIPLE hierarchical runs with one thread */
    int hier = rows[r].want == HK_ALLREDUCE_HIERARCHICAL;
    int can = rows[r].want == HK_ALLREDUCE_MPI || (nranks > 1 && (multiple || hier));
    CHECK_EQ_INT(info.algorithm, can ? rows[r].want : HK_ALLREDUCE_MPI);
    if (can && rows[r].want != HK_ALLREDUCE_MPI)
      CHECK_EQ_INT(info.threads, multiple ? 2 : 1);
    free(v);
  }
}

/* a sub-communicator (two halves) and a duplicate freed after use: caches come and go */
static void check_comms(void)
{
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int hs = 0;
  MPI_Comm_size(half, &hs);
  for (int round = 0; round < 2; round++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm comms[2] = {half, dup};
    int sizes[2] = {hs, nranks};
    for (int k = 0; k < 2; k++) {
      enum { N = 5000 };
      static long long v[N];
      for (int i = 0; i < N; i++)
        v[i] = i;
      hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_CHUNKED_SHIFTED, .min_bytes = 1};
      CHECK_EQ_INT(hk_allreduce(MPI_IN_PLACE, v, N, MPI_LONG_LONG, MPI_SUM, comms[k], &o), 0);
      long long bad = 0;
      for (int i = 0; i < N; i++)
        bad += v[i] != (long long)i * sizes[k];
      CHECK_EQ_INT(bad, 0);
    }
    MPI_Comm_free(&dup);
  }
  MPI_Comm_free(&half);
}

/* inside a parallel region (master, then single): the algorithm runs on the
 * calling thread alone, the same messages on every rank (before issue 15 this
 * fell back to PMPI_Allreduce from a local test, which could differ by rank) */
static void check_in_parallel(void)
{
  enum { N = 4096 };
  static int v[N], sum[N];
  for (int i = 0; i < N; i++)
    v[i] = rank + i;
  hk_allreduce_alg_t algs[] = {HK_ALLREDUCE_CHUNKED, HK_ALLREDUCE_HIERARCHICAL};
  for (int k = 0; k < 2; k++) {
    hk_allreduce_info_t info[2] = {{0}};
    hk_allreduce_opts_t o = {.algorithm = algs[k], .min_bytes = 1, .info = &info[0]};
    int err[2] = {0, 0};
#pragma omp parallel
    {
#pragma omp master
      err[0] = hk_allreduce(v, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
#pragma omp barrier
#pragma omp single
      {
        hk_allreduce_opts_t o2 = o;
        o2.info = &info[1];
        err[1] = hk_allreduce(MPI_IN_PLACE, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o2);
      }
    }
    CHECK_EQ_INT(err[0], 0);
    CHECK_EQ_INT(err[1], 0);
    long long bad = 0;
    for (int i = 0; i < N; i++) /* sum over ranks, then that times nranks */
      bad += sum[i] != nranks * (nranks * i + nranks * (nranks - 1) / 2);
    CHECK_EQ_INT(bad, 0);
    tcase_t c = {"int sum", MPI_INT, MPI_SUM, K_INT, 1};
    for (int j = 0; j < 2; j++)
      CHECK_EQ_INT(info[j].fallback, predict(algs[k], &c, N, sizeof(int), sizeof(int)));
  }
}

/* AUTO without a table or HK_ALLREDUCE_ALGORITHM: auto's model (docs/coll.md) written
 * again from the machine facts this test reads itself; 128 KiB of int sums */
static void check_auto_model(void)
{
  const char *env_alg = getenv("HK_ALLREDUCE_ALGORITHM");
  hk_allreduce_alg_t ea;
  if ((getenv("HK_COLL_TUNING") && *getenv("HK_COLL_TUNING")) ||
      (env_alg && *env_alg && hk_allreduce_alg_parse(env_alg, &ea) == 0 && ea != HK_ALLREDUCE_AUTO)) {
    hk_error_clear();
    return;
  }
  hk_error_clear();
  int local = 0; /* the launcher's ranks per node, else this run's (one machine) */
  const char *l = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!l)
    l = getenv("MPI_LOCALNRANKS");
  local = l ? atoi(l) : 0;
  if (local < nranks)
    local = nranks;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  int usable = CPU_COUNT(&set) < online / local ? CPU_COUNT(&set) : (int)(online / local);
  if (usable < 1)
    usable = 1;
  int mine[2] = {usable, -(local > online)}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  usable = all[0];
  int oversub = -all[1];
  const char *k = getenv("HK_NODE_SIZE");
  int per_node = k && *k ? atoi(k) : nranks;
  int nodes_ok = per_node >= 1 && nranks % per_node == 0 && per_node >= 2;
  int t = T < usable ? T : usable;
  hk_allreduce_alg_t want = HK_ALLREDUCE_MPI;
  hk_allreduce_fallback_t why = HK_FALLBACK_MODEL;
  if (nranks == 1)
    why = HK_FALLBACK_ONE_RANK;
  else if (oversub)
    why = HK_FALLBACK_MODEL;
  else if (nodes_ok)
    want = HK_ALLREDUCE_HIERARCHICAL;
  else if (multiple && t >= 2)
    want = HK_ALLREDUCE_CHUNKED;
  if (want != HK_ALLREDUCE_MPI)
    why = HK_FALLBACK_NONE;
  enum { N = 32768 };
  static int v[N];
  hk_allreduce_info_t info;
  auto_sum(v, N, &info);
  if (info.fallback != why || info.algorithm != want)
    fprintf(stderr, "rank %d: auto ran %s (fallback %s), the model says %s (%s): usable %d, "
            "oversubscribed %d, %d per node\n", rank, hk_allreduce_alg_name(info.algorithm),
            hk_allreduce_fallback_name(info.fallback), hk_allreduce_alg_name(want),
            hk_allreduce_fallback_name(why), usable, oversub, per_node);
  CHECK_EQ_INT(info.algorithm, want);
  CHECK_EQ_INT(info.fallback, why);
  if (want == HK_ALLREDUCE_HIERARCHICAL)
    CHECK_EQ_INT(info.threads, multiple ? t : 1);
}

int main(int argc, char **argv)
{
  int big = 0, table = 0, sample = 1;
  const char *algs = "mpi,chunked,chunked-shifted,hierarchical";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--big"))
      big = 1;
    else if (!strcmp(argv[i], "--table"))
      table = 1;
    else if (!strcmp(argv[i], "--algorithms") && i + 1 < argc)
      algs = argv[++i];
    else if (!strcmp(argv[i], "--sample") && i + 1 < argc)
      sample = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
  }
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  hk_test_rank = rank;
  T = omp_get_max_threads();
  const char *lim = getenv("HK_MPI_THREAD_LIMIT");
  multiple = provided == MPI_THREAD_MULTIPLE && !(lim && *lim && strcasecmp(lim, "multiple"));
  if (table) {
    check_table();
  } else {
    MPI_Datatype int3;
    MPI_Type_contiguous(3, MPI_INT, &int3);
    MPI_Type_commit(&int3);
    MPI_Op summod, leftop;
    MPI_Op_create(sum_mod, 1, &summod);
    MPI_Op_create(left, 0, &leftop);
    tcase_t cases[] = {
      {"int sum", MPI_INT, MPI_SUM, K_INT, 1},
      {"int max", MPI_INT, MPI_MAX, K_INT, 1},
      {"int min", MPI_INT, MPI_MIN, K_INT, 1},
      {"unsigned band", MPI_UNSIGNED, MPI_BAND, K_INT, 1},
      {"long long bor", MPI_LONG_LONG, MPI_BOR, K_INT, 1},
      {"uchar bxor", MPI_UNSIGNED_CHAR, MPI_BXOR, K_INT, 1},
      {"short land", MPI_SHORT, MPI_LAND, K_INT, 1},
      {"int lor", MPI_INT, MPI_LOR, K_INT, 1},
      {"int64 sum", MPI_INT64_T, MPI_SUM, K_INT, 1},
      {"double sum", MPI_DOUBLE, MPI_SUM, K_DOUBLE, 1},
      {"double max", MPI_DOUBLE, MPI_MAX, K_DOUBLE_EXACT, 1},
      {"double_int maxloc", MPI_DOUBLE_INT, MPI_MAXLOC, K_PAIR, 1},
      /* predefined ops are not defined on derived types (MPI; Open MPI refuses): user op */
      {"int user sum-mod", MPI_INT, summod, K_INT, 1},
      {"contiguous(3,int) user sum-mod", int3, summod, K_INT, 1},
      {"int user non-commutative", MPI_INT, leftop, K_INT, 0},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    char list[256];
    snprintf(list, sizeof list, "%s", algs);
    for (char *s = strtok(list, ","); s; s = strtok(NULL, ",")) {
      hk_allreduce_alg_t a;
      CHECK_EQ_INT(hk_allreduce_alg_parse(s, &a), 0);
      for (int k = 0; k < ncases; k++) {
        if (((int)a + k) % sample)
          continue;
        MPI_Aint lb, ext;
        MPI_Type_get_extent(cases[k].type, &lb, &ext);
        long long counts[] = {0, 1, T - 1, T, 1001, 131072 / ext, big ? (8 << 20) / ext : -1};
        for (int n = 0; n < 7; n++)
          for (int ip = 0; ip < (sample > 1 && n % 2 ? 1 : 2) && counts[n] >= 0; ip++)
            if (!(n == 6 && (ip == 1 || k % 4))) /* 8 MiB: a quarter of the cases */
              run_case(a, &cases[k], counts[n], ip);
      }
    }
    /* AUTO with defaults at 128 KiB: correct, whichever algorithm ran */
    run_case(HK_ALLREDUCE_MPI, &cases[0], 32768, 0);
    check_comms();
    check_in_parallel();
    check_auto_model();
    MPI_Op_free(&summod);
    MPI_Op_free(&leftop);
    MPI_Type_free(&int3);
  }
  int rc = hk_test_mpi_report("test_coll");
  MPI_Finalize();
  return rc;
}
