/* tests/coll/conformance.c: MPI_Allreduce conformance under the preload library.
 *
 * A plain MPI+OpenMP program (no hybridkit) that the tests run with
 * LD_PRELOAD=libhybridkit-preload.so, every algorithm, HK_ALLREDUCE_MIN_BYTES=0,
 * 1-4 ranks x 1-2 threads (and without the preload: it must pass there too).
 * Every result is checked against a value this program computes itself from
 * the deterministic inputs of all ranks (integer arithmetic, or doubles holding
 * small integers: exact in any order of summation).  What it exercises is what
 * broke the preload before issue 15:
 *
 *   comms     split (some ranks MPI_UNDEFINED), dup, create_group, freed and
 *             made again many times; a different number of calls per rank on
 *             the sub-communicators, then calls on MPI_COMM_WORLD (ranks that
 *             decide from per-process history hang or mismatch here)
 *   threads   calls from `omp single` and from one thread chosen per rank
 *             (a different thread id on each rank), from a pthread that is not
 *             the main thread (SERIALIZED and up), and concurrent calls from
 *             every thread on its own duplicate (MULTIPLE)
 *   ops       predefined, a commutative user op, a non-commutative user op
 *             (2x2 matrix products mod 1009, in rank order)
 *   types     predefined, contiguous, vector (strided), resized; MPI_IN_PLACE;
 *             counts 0, 1, odd, 16 KiB+, 256 KiB+
 *   errors    MPI_ERRORS_RETURN: an invalid datatype returns an error code, the
 *             program goes on; MPI_ERRORS_ARE_FATAL (the default) elsewhere
 *   others    an intercommunicator, MPI_COMM_SELF
 *
 * usage: conformance [--level single|funneled|serialized|multiple] [--rounds N]
 * Prints "conformance: N ranks, M checks, 0 failed" on rank 0; exit 1 on a
 * wrong result.  A hang is caught by the test's timeout.
 */
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks, level, rounds = 6;
static long long checks, failed;
static pthread_mutex_t tally = PTHREAD_MUTEX_INITIALIZER;

static void check(int ok, const char *what, long long detail)
{
  pthread_mutex_lock(&tally);
  checks++;
  if (!ok) {
    failed++;
    if (failed <= 20)
      fprintf(stderr, "conformance: rank %d: FAILED %s (%lld)\n", rank, what, detail);
  }
  pthread_mutex_unlock(&tally);
}

/* input element i of world rank r in call `salt`: small, so sums stay exact */
static int val(int r, long long i, int salt) { return (int)((r * 131 + i * 7 + salt * 13) % 1000); }

/* ---- int sums on comm (ranks of comm given by their world ranks) ---- */
static void int_sum(MPI_Comm comm, const int *world_of, int n, long long count, int salt,
                    int in_place, const char *what)
{
  int *in = malloc((size_t)(count ? count : 1) * sizeof *in);
  int *out = malloc((size_t)(count ? count : 1) * sizeof *out);
  for (long long i = 0; i < count; i++) {
    in[i] = val(rank, i, salt);
    out[i] = in_place ? in[i] : -7;
  }
  int rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)count, MPI_INT, MPI_SUM, comm);
  long long bad = rc != MPI_SUCCESS;
  for (long long i = 0; i < count; i++) {
    long long want = 0;
    for (int k = 0; k < n; k++)
      want += val(world_of[k], i, salt);
    bad += out[i] != want;
  }
  check(bad == 0, what, bad);
  free(in);
  free(out);
}

/* doubles holding integers, MPI_SUM and MPI_MAX */
static void double_ops(MPI_Comm comm, const int *world_of, int n, long long count, int salt)
{
  double *in = malloc((size_t)(count ? count : 1) * sizeof *in);
  double *sum = malloc((size_t)(count ? count : 1) * sizeof *sum);
  double *mx = malloc((size_t)(count ? count : 1) * sizeof *mx);
  for (long long i = 0; i < count; i++)
    in[i] = val(rank, i, salt);
  MPI_Allreduce(in, sum, (int)count, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(in, mx, (int)count, MPI_DOUBLE, MPI_MAX, comm);
  long long bad = 0;
  for (long long i = 0; i < count; i++) {
    double ws = 0, wm = -1;
    for (int k = 0; k < n; k++) {
      double x = val(world_of[k], i, salt);
      ws += x;
      wm = x > wm ? x : wm;
    }
    bad += sum[i] != ws || mx[i] != wm;
  }
  check(bad == 0, "double sum/max", bad);
  free(in);
  free(sum);
  free(mx);
}

/* ---- user ops ---- */
/* the types used with it hold their ints at the start of each extent (size/4
 * of them, extent/4 apart): only those are touched (MPI's temporary buffers
 * need not cover the gaps) */
static void sum_mod(void *in, void *inout, int *len, MPI_Datatype *type)
{
  int sz = 0;
  MPI_Aint lb, ext;
  MPI_Type_size(*type, &sz);
  MPI_Type_get_extent(*type, &lb, &ext);
  long long stride = ext / (long long)sizeof(int), used = sz / (long long)sizeof(int);
  for (long long e = 0; e < *len; e++)
    for (long long j = 0; j < used; j++) {
      long long i = e * stride + j;
      ((int *)inout)[i] = (((int *)in)[i] + ((int *)inout)[i]) % 1000003;
    }
}

/* 2x2 matrices mod 1009 (4 ints): inout = in x inout (MPI: in comes from lower ranks) */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
  (void)type;
  for (int e = 0; e < *len; e++) {
    const int *a = (const int *)in + 4 * e;
    int *b = (int *)inout + 4 * e, c[4];
    c[0] = (a[0] * b[0] + a[1] * b[2]) % 1009;
    c[1] = (a[0] * b[1] + a[1] * b[3]) % 1009;
    c[2] = (a[2] * b[0] + a[3] * b[2]) % 1009;
    c[3] = (a[2] * b[1] + a[3] * b[3]) % 1009;
    memcpy(b, c, sizeof c);
  }
}

static MPI_Op op_summod, op_matmul;
static MPI_Datatype t_mat, t_int3, t_vec, t_resized;

static void mat_of(int r, long long e, int *m)
{
  for (int j = 0; j < 4; j++)
    m[j] = (int)((r * 17 + e * 3 + j * 5 + 1) % 1009);
}

static void noncommutative(MPI_Comm comm, const int *world_of, int n, long long count)
{
  int *in = malloc((size_t)(count ? count : 1) * 4 * sizeof *in);
  int *out = malloc((size_t)(count ? count : 1) * 4 * sizeof *out);
  for (long long e = 0; e < count; e++)
    mat_of(rank, e, in + 4 * e);
  int rc = MPI_Allreduce(in, out, (int)count, t_mat, op_matmul, comm);
  long long bad = rc != MPI_SUCCESS;
  for (long long e = 0; e < count; e++) {
    int acc[4], m[4];
    mat_of(world_of[0], e, acc);
    for (int k = 1; k < n; k++) { /* acc = acc x M_k: rank order */
      mat_of(world_of[k], e, m);
      int c[4] = {(acc[0] * m[0] + acc[1] * m[2]) % 1009, (acc[0] * m[1] + acc[1] * m[3]) % 1009,
                  (acc[2] * m[0] + acc[3] * m[2]) % 1009, (acc[2] * m[1] + acc[3] * m[3]) % 1009};
      memcpy(acc, c, sizeof c);
    }
    bad += memcmp(acc, out + 4 * e, sizeof acc) != 0;
  }
  check(bad == 0, "non-commutative user op", bad);
  free(in);
  free(out);
}

/* derived types with the commutative user op: int3 (contiguous), vector
 * (2 of every 3 ints), resized (an int with extent 8) */
static void derived(MPI_Comm comm, const int *world_of, int n, long long count, int salt)
{
  struct { MPI_Datatype t; int stride, used; const char *name; } ts[] = {
    {t_int3, 3, 3, "contiguous(3) user op"},
    {t_vec, 3, 2, "vector(2 of 3) user op"},
    {t_resized, 2, 1, "resized(int, 8) user op"}};
  for (int k = 0; k < 3; k++) {
    long long nint = count * ts[k].stride;
    int *in = calloc((size_t)(nint ? nint : 1), sizeof *in);
    int *out = calloc((size_t)(nint ? nint : 1), sizeof *out);
    for (long long i = 0; i < nint; i++)
      if (i % ts[k].stride < ts[k].used)
        in[i] = val(rank, i, salt);
    int rc = MPI_Allreduce(in, out, (int)count, ts[k].t, op_summod, comm);
    long long bad = rc != MPI_SUCCESS;
    for (long long i = 0; i < nint; i++) {
      if (i % ts[k].stride >= ts[k].used)
        continue;
      long long want = 0;
      for (int q = 0; q < n; q++)
        want += val(world_of[q], i, salt);
      bad += out[i] != want % 1000003;
    }
    check(bad == 0, ts[k].name, bad);
    free(in);
    free(out);
  }
}

static const long long counts[] = {0, 1, 7, 1001, 4099, 65537};
#define NCOUNTS 6

/* everything above on one communicator */
static void suite(MPI_Comm comm, int salt, int full)
{
  int n = 0;
  MPI_Comm_size(comm, &n);
  MPI_Group g, wg;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int *mine = malloc((size_t)n * sizeof *mine), *world_of = malloc((size_t)n * sizeof *world_of);
  for (int k = 0; k < n; k++)
    mine[k] = k;
  MPI_Group_translate_ranks(g, n, mine, wg, world_of);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  for (int c = 0; c < NCOUNTS; c++) {
    if (!full && c % 2)
      continue;
    int_sum(comm, world_of, n, counts[c], salt + c, 0, "int sum");
    int_sum(comm, world_of, n, counts[c], salt + c, 1, "int sum in place");
    if (full || c == NCOUNTS - 2) {
      double_ops(comm, world_of, n, counts[c], salt + c);
      noncommutative(comm, world_of, n, counts[c] / 4);
      derived(comm, world_of, n, counts[c] / 3, salt + c);
    }
  }
  free(mine);
  free(world_of);
}

static int world_all[64];

/* sub-communicators only some ranks join, a different number of calls per
 * rank on them, then world: made and freed many times */
static void comms(void)
{
  for (int r = 0; r < rounds; r++) {
    /* split: rank 0 stays out every second round */
    MPI_Comm part;
    int color = (r % 2 && rank == 0) ? MPI_UNDEFINED : rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &part); /* reversed order */
    if (part != MPI_COMM_NULL) {
      int calls = 1 + (rank % 2) * 3 + r % 2; /* colours make different numbers */
      for (int k = 0; k < calls; k++)
        suite(part, r * 10 + k, 0);
      MPI_Comm_free(&part);
    }
    /* create_group: world ranks 1..P-1 (needs P >= 2) */
    if (nranks >= 2) {
      MPI_Group wg, sub;
      MPI_Comm_group(MPI_COMM_WORLD, &wg);
      int ex[1] = {0};
      MPI_Group_excl(wg, 1, ex, &sub);
      if (rank != 0) {
        MPI_Comm cg;
        MPI_Comm_create_group(MPI_COMM_WORLD, sub, 7 + r, &cg);
        for (int k = 0; k < 1 + r % 3; k++)
          int_sum(cg, world_all + 1, nranks - 1, counts[4 + k % 2], r + k, k % 2, "create_group");
        MPI_Comm_free(&cg);
      }
      MPI_Group_free(&sub);
      MPI_Group_free(&wg);
    }
    /* dup: freed after use */
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int_sum(d, world_all, nranks, counts[5], r, 0, "dup");
    MPI_Comm_free(&d);
    /* world after the uneven sub-communicator traffic */
    int_sum(MPI_COMM_WORLD, world_all, nranks, counts[4], r, 0, "world after sub-comms");
    int_sum(MPI_COMM_WORLD, world_all, nranks, 5, r, 0, "5 ints after sub-comms");
  }
}

static void *pthread_call(void *arg)
{
  (void)arg;
  int_sum(MPI_COMM_WORLD, world_all, nranks, counts[4], 91, 0, "from a pthread");
  return NULL;
}

static void threads(void)
{
  if (level < MPI_THREAD_SERIALIZED)
    return;
  for (int r = 0; r < 3; r++) {
    /* omp single: whichever thread gets there */
#pragma omp parallel
#pragma omp single
    int_sum(MPI_COMM_WORLD, world_all, nranks, counts[4 + r % 2], 50 + r, r % 2, "omp single");
    /* one thread chosen per rank: a different thread id on each rank */
#pragma omp parallel
    {
      if (omp_get_thread_num() == (rank + r) % omp_get_num_threads())
        int_sum(MPI_COMM_WORLD, world_all, nranks, counts[4], 60 + r, 0, "thread chosen by rank");
    }
  }
  pthread_t th;
  if (pthread_create(&th, NULL, pthread_call, NULL) == 0)
    pthread_join(th, NULL);
  else
    check(0, "pthread_create", 0);
  if (level < MPI_THREAD_MULTIPLE)
    return;
  /* concurrent calls, one duplicate per thread */
  int nt = omp_get_max_threads();
  MPI_Comm *d = malloc((size_t)nt * sizeof *d);
  for (int t = 0; t < nt; t++)
    MPI_Comm_dup(MPI_COMM_WORLD, &d[t]);
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num();
    for (int k = 0; k < 3; k++)
      int_sum(d[t], world_all, nranks, counts[3 + (t + k) % 3], 70 + t * 5 + k, k % 2,
              "concurrent, one dup per thread");
  }
  for (int t = 0; t < nt; t++)
    MPI_Comm_free(&d[t]);
  free(d);
}

static void errors(void)
{
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
  int x = 1, y = 0;
  /* MPI_DATATYPE_NULL: an error both MPIs detect (MPICH does not check count -1) */
  int rc = MPI_Allreduce(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, d);
  check(rc != MPI_SUCCESS, "ERRORS_RETURN: MPI_DATATYPE_NULL returns an error", rc);
  /* an op the datatype does not support, large enough for the hybrid path (MPI_SUM on
   * MPI_DOUBLE_INT: a pair type), made on the ERRORS_RETURN communicator: an error code
   * comes back on every rank, no abort, no hang */
  enum { NP = 5000 };
  struct { double v; int i; } *p = calloc(NP, sizeof *p), *q = calloc(NP, sizeof *q);
  rc = MPI_Allreduce(p, q, NP, MPI_DOUBLE_INT, MPI_SUM, d);
  check(rc != MPI_SUCCESS, "ERRORS_RETURN: MPI_SUM on MPI_DOUBLE_INT returns an error", rc);
  free(p);
  free(q);
  /* the communicator still works */
  int_sum(d, world_all, nranks, counts[4], 81, 0, "ERRORS_RETURN comm after an error");
  MPI_Comm_free(&d);
}

static void intercomm(void)
{
  if (nranks < 2)
    return;
  int side = rank < nranks / 2 ? 0 : 1;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, side, rank, &half);
  int remote_leader = side ? 0 : nranks / 2;
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 99, &inter);
  for (int c = 1; c < NCOUNTS; c += 2) {
    long long count = counts[c];
    int *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * sizeof *out);
    for (long long i = 0; i < count; i++)
      in[i] = val(rank, i, c);
    MPI_Allreduce(in, out, (int)count, MPI_INT, MPI_SUM, inter);
    long long bad = 0; /* the sum over the other group */
    int lo = side ? 0 : nranks / 2, hi = side ? nranks / 2 : nranks;
    for (long long i = 0; i < count; i++) {
      long long want = 0;
      for (int r = lo; r < hi; r++)
        want += val(r, i, c);
      bad += out[i] != want;
    }
    check(bad == 0, "intercommunicator", bad);
    free(in);
    free(out);
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
  int want = MPI_THREAD_MULTIPLE;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--level") && i + 1 < argc) {
      const char *l = argv[++i];
      want = !strcmp(l, "single") ? MPI_THREAD_SINGLE : !strcmp(l, "funneled") ? MPI_THREAD_FUNNELED
             : !strcmp(l, "serialized") ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
    } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    }
  }
  MPI_Init_thread(&argc, &argv, want, &level);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks > 64)
    MPI_Abort(MPI_COMM_WORLD, 2);
  for (int r = 0; r < nranks; r++)
    world_all[r] = r;
  MPI_Type_contiguous(4, MPI_INT, &t_mat);
  MPI_Type_contiguous(3, MPI_INT, &t_int3);
  MPI_Type_vector(1, 2, 3, MPI_INT, &t_vec); /* 2 ints used of 3 */
  MPI_Datatype v2;
  MPI_Type_create_resized(t_vec, 0, 3 * sizeof(int), &v2);
  MPI_Type_free(&t_vec);
  t_vec = v2;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &t_resized);
  MPI_Type_commit(&t_mat);
  MPI_Type_commit(&t_int3);
  MPI_Type_commit(&t_vec);
  MPI_Type_commit(&t_resized);
  MPI_Op_create(sum_mod, 1, &op_summod);
  MPI_Op_create(matmul, 0, &op_matmul);

  suite(MPI_COMM_WORLD, 1, 1);
  suite(MPI_COMM_SELF, 2, 0);
  int_sum(MPI_COMM_SELF, world_all + rank, 1, counts[5], 3, 1, "MPI_COMM_SELF in place");
  comms();
  threads();
  errors();
  intercomm();
  suite(MPI_COMM_WORLD, 5, 0);

  MPI_Op_free(&op_summod);
  MPI_Op_free(&op_matmul);
  MPI_Type_free(&t_mat);
  MPI_Type_free(&t_int3);
  MPI_Type_free(&t_vec);
  MPI_Type_free(&t_resized);
  long long mine[2] = {checks, failed}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("conformance: %d ranks, level %d, %lld checks, %lld failed\n", nranks, level, all[0],
           all[1]);
  MPI_Finalize();
  return all[1] != 0;
}
