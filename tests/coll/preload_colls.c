/* tests/coll/preload_colls.c: a plain MPI+OpenMP program (no hybridkit header) calling
 * MPI_Reduce, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Allgather, MPI_Alltoall, MPI_Scan,
 * MPI_Exscan, MPI_Allgatherv, MPI_Reduce_scatter and MPI_Alltoallv (unequal counts, some 0;
 * alltoallv: what i sends j differs from what j sends i; in place symmetric), each
 * result checked against the program's own arithmetic: counts 0, 1, 3, 1000 and 20000
 * ints (80 KB: above 64 KiB, and P x that for the block collectives), MPI_IN_PLACE where
 * MPI allows it, a derived datatype (a pair of ints; a strided vector for bcast), a
 * commutative user op on the pairs and a non-commutative one, roots 0 .. P-1, and calls
 * from inside `omp single`.  Run as it is and under libhybridkit-preload.so
 * (tests/coll_preload_more.cmake); prints "preload-colls: N ranks, K checks, F failed"
 * on rank 0 and exits 1 when F > 0. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int P, R;
static long long checks, failed;

static void check(int ok, const char *what, int count, int i)
{
  checks++;
  if (!ok) {
    if (failed < 10)
      fprintf(stderr, "preload-colls: rank %d: %s count %d: element %d wrong\n", R, what, count, i);
    failed++;
  }
}

/* rank r's element i */
static int val(int r, int i) { return (r + 1) * (i % 97) + r - 3 * (i % 5); }
static int sum_val(int i)
{
  return (i % 97) * P * (P + 1) / 2 + P * (P - 1) / 2 - 3 * P * (i % 5);
}

/* pairs: first summed, second the maximum (commutative) */
static void pair_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
  (void)type;
  int *a = in, *b = inout;
  for (int k = 0; k < *len; k++) {
    b[2 * k] += a[2 * k];
    if (a[2 * k + 1] > b[2 * k + 1])
      b[2 * k + 1] = a[2 * k + 1];
  }
}

/* non-commutative: the left operand (x0 op x1 op ... = rank 0's) */
static void left_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
  (void)type;
  memcpy(inout, in, (size_t)*len * sizeof(int));
}

static const int counts[] = {0, 1, 3, 1000, 20000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])
#define MAXC 20000

static MPI_Datatype pair, strided;
static MPI_Op pair_sum, left;

static void reduce_tests(int n, int root, int *a, int *b)
{
  /* separate buffers and in place at the root */
  for (int i = 0; i < n; i++)
    a[i] = val(R, i);
  for (int i = 0; i < n; i++)
    b[i] = -7;
  MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  if (R == root)
    for (int i = 0; i < n; i++)
      check(b[i] == sum_val(i), "reduce sum", n, i);
  for (int i = 0; i < n; i++)
    b[i] = val(R, i);
#ifdef MPICH_VERSION
  /* MPICH 4.0.2 (Debian) crashes in MPI_Reduce with MPI_IN_PLACE at a root other than 0
   * from 1000 ints on, without the preload: in place at root 0 there */
  root = 0;
#endif
  MPI_Reduce(R == root ? MPI_IN_PLACE : b, R == root ? b : NULL, n, MPI_INT, MPI_SUM, root,
             MPI_COMM_WORLD);
  if (R == root)
    for (int i = 0; i < n; i++)
      check(b[i] == sum_val(i), "reduce in place", n, i);
  /* doubles, max */
  double *x = malloc((size_t)(n + 1) * sizeof *x), *y = malloc((size_t)(n + 1) * sizeof *y);
  for (int i = 0; i < n; i++)
    x[i] = (double)((R * 7 + i) % P);
  MPI_Reduce(x, y, n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
  if (R == root)
    for (int i = 0; i < n; i++)
      check(y[i] == (double)(P - 1), "reduce max double", n, i);
  free(x);
  free(y);
  /* the pair type with a commutative user op: n / 2 pairs */
  int np = n / 2;
  for (int k = 0; k < np; k++) {
    a[2 * k] = val(R, k);
    a[2 * k + 1] = (R + k) % P;
  }
  MPI_Reduce(a, b, np, pair, pair_sum, root, MPI_COMM_WORLD);
  if (R == root)
    for (int k = 0; k < np; k++)
      check(b[2 * k] == sum_val(k) && b[2 * k + 1] == P - 1, "reduce user op pair", np, k);
  /* non-commutative user op */
  for (int i = 0; i < n; i++)
    a[i] = val(R, i);
  MPI_Reduce(a, b, n, MPI_INT, left, root, MPI_COMM_WORLD);
  if (R == root)
    for (int i = 0; i < n; i++)
      check(b[i] == val(0, i), "reduce non-commutative", n, i);
}

static void scatter_tests(int n, int *a, int *b)
{
  /* P blocks of n: block j of rank r holds val(r, j * n + i) */
  for (int j = 0; j < P; j++)
    for (int i = 0; i < n; i++)
      a[j * n + i] = val(R, j * n + i);
  MPI_Reduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    check(b[i] == sum_val(R * n + i), "reduce_scatter_block", n, i);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, a, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    check(a[i] == sum_val(R * n + i), "reduce_scatter_block in place", n, i);
  /* pairs with the user op: n / 2 pairs per block */
  int np = n / 2;
  for (int j = 0; j < P; j++)
    for (int k = 0; k < np; k++) {
      a[2 * (j * np + k)] = val(R, j * np + k);
      a[2 * (j * np + k) + 1] = (R + k) % P;
    }
  MPI_Reduce_scatter_block(a, b, np, pair, pair_sum, MPI_COMM_WORLD);
  for (int k = 0; k < np; k++)
    check(b[2 * k] == sum_val(R * np + k) && b[2 * k + 1] == P - 1, "reduce_scatter_block pair",
          np, k);
}

static void bcast_tests(int n, int root, int *a)
{
  for (int i = 0; i < n; i++)
    a[i] = R == root ? val(root, i) : -1;
  MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    check(a[i] == val(root, i), "bcast", n, i);
  /* strided: n / 2 elements at even positions; odd positions untouched */
  int ns = n / 2;
  for (int i = 0; i < 2 * ns; i++)
    a[i] = R == root || i % 2 ? val(root, i) : -1;
  MPI_Bcast(a, ns, strided, root, MPI_COMM_WORLD);
  for (int i = 0; i < 2 * ns; i++)
    check(a[i] == val(root, i), "bcast strided", ns, i);
}

static void gather_tests(int n, int *a, int *b)
{
  for (int i = 0; i < n; i++)
    a[i] = val(R, i);
  MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < n; i++)
      check(b[j * n + i] == val(j, i), "allgather", n, j * n + i);
  /* in place: own block already in recvbuf */
  for (int j = 0; j < P; j++)
    for (int i = 0; i < n; i++)
      b[j * n + i] = j == R ? val(R, i) + 1 : -1;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < n; i++)
      check(b[j * n + i] == val(j, i) + 1, "allgather in place", n, j * n + i);
  /* sent as 2m ints, received as m pairs */
  int m = n / 2;
  for (int i = 0; i < 2 * m; i++)
    a[i] = val(R, i) - 5;
  MPI_Allgather(a, 2 * m, MPI_INT, b, m, pair, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < 2 * m; i++)
      check(b[j * 2 * m + i] == val(j, i) - 5, "allgather pairs", m, j * 2 * m + i);
}

static void alltoall_tests(int n, int *a, int *b)
{
  /* block j of rank r goes to rank j: value val(r, j * n + i) */
  for (int j = 0; j < P; j++)
    for (int i = 0; i < n; i++)
      a[j * n + i] = val(R, j * n + i);
  MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < n; i++)
      check(b[j * n + i] == val(j, R * n + i), "alltoall", n, j * n + i);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < n; i++)
      check(a[j * n + i] == val(j, R * n + i), "alltoall in place", n, j * n + i);
  int m = n / 2;
  for (int j = 0; j < P; j++)
    for (int i = 0; i < 2 * m; i++)
      a[j * 2 * m + i] = val(R, j * 2 * m + i) + 2;
  MPI_Alltoall(a, m, pair, b, 2 * m, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < 2 * m; i++)
      check(b[j * 2 * m + i] == val(j, R * 2 * m + i) + 2, "alltoall pairs", m, j * 2 * m + i);
}

/* prefix sums of val over ranks 0..upto-1 */
static int prefix_val(int upto, int i)
{
  int s = 0;
  for (int r = 0; r < upto; r++)
    s += val(r, i);
  return s;
}

static void scan_tests(int n, int *a, int *b)
{
  for (int i = 0; i < n; i++) {
    a[i] = val(R, i);
    b[i] = -7;
  }
  MPI_Scan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    check(b[i] == prefix_val(R + 1, i), "scan", n, i);
  MPI_Exscan(MPI_IN_PLACE, a, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; R > 0 && i < n; i++)
    check(a[i] == prefix_val(R, i), "exscan in place", n, i);
  /* non-commutative: the left operand, so rank r's scan is rank 0's element */
  for (int i = 0; i < n; i++)
    a[i] = val(R, i);
  MPI_Scan(MPI_IN_PLACE, a, n, MPI_INT, left, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    check(a[i] == val(0, i), "scan non-commutative in place", n, i);
  for (int i = 0; i < n; i++)
    a[i] = val(R, i);
  MPI_Exscan(a, b, n, MPI_INT, left, MPI_COMM_WORLD);
  for (int i = 0; R > 0 && i < n; i++)
    check(b[i] == val(0, i), "exscan non-commutative", n, i);
}

/* rank j's count: n + j, 0 for every third rank */
static void v_counts(int n, int *cnt, int *dsp)
{
  for (int j = 0, at = 0; j < P; j++) {
    cnt[j] = j % 3 == 1 ? 0 : n + j;
    dsp[j] = at;
    at += cnt[j] + 2;
  }
}

static void v_tests(int n, int *a, int *b)
{
  int cnt[64], dsp[64], total = 0;
  v_counts(n, cnt, dsp);
  for (int j = 0; j < P; j++)
    total += cnt[j];
  for (int i = 0; i < cnt[R]; i++)
    a[i] = val(R, i) + 9;
  for (int i = 0; i < dsp[P - 1] + cnt[P - 1] + 2; i++)
    b[i] = -3;
  MPI_Allgatherv(a, cnt[R], MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = j ? -2 : 0; i < cnt[j]; i++) /* the gap before block j keeps its -3 */
      check(b[dsp[j] + i] == (i < 0 ? -3 : val(j, i) + 9), "allgatherv", n, dsp[j] + i);
  /* in place: own block at its displacement */
  for (int i = 0; i < cnt[R]; i++)
    b[dsp[R] + i] = val(R, i) - 4;
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < cnt[j]; i++)
      check(b[dsp[j] + i] == val(j, i) - 4, "allgatherv in place", n, dsp[j] + i);
  /* reduce-scatter: the blocks consecutive, element g of rank r val(r, g) */
  for (int g = 0; g < total; g++)
    a[g] = val(R, g);
  int first = 0;
  for (int j = 0; j < R; j++)
    first += cnt[j];
  MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < cnt[R]; i++)
    check(b[i] == sum_val(first + i), "reduce_scatter", n, i);
  MPI_Reduce_scatter(MPI_IN_PLACE, a, cnt, MPI_INT, left, MPI_COMM_WORLD);
  for (int i = 0; i < cnt[R]; i++)
    check(a[i] == val(0, first + i), "reduce_scatter non-commutative in place", n, i);
}

/* alltoallv: i sends j a2av_count(i, j) elements (unequal: (i + 2j) % 3 == 1 -> 0, else
 * n + i + 2j; symmetric for in place: (i + j) % 3 == 1 -> 0, else n + i + j); send blocks
 * in reverse rank order, receive blocks in rank order with a gap of 1; value of element e
 * from i to j: val(i, 7 j + e) */
static int a2av_count(int sym, int n, int i, int j)
{
  if (sym)
    return (i + j) % 3 == 1 ? 0 : n + i + j;
  return (i + 2 * j) % 3 == 1 ? 0 : n + i + 2 * j;
}

static void a2av_tests(int n, int *a, int *b)
{
  int sc[64], sd[64], rc[64], rd[64];
  for (int sym = 0; sym < 2; sym++) {
    int at = 0;
    for (int k = P - 1; k >= 0; k--) {
      sc[k] = a2av_count(sym, n, R, k);
      sd[k] = at;
      at += sc[k];
    }
    at = 0;
    for (int j = 0; j < P; j++) {
      rc[j] = a2av_count(sym, n, j, R);
      rd[j] = at;
      at += rc[j] + 1;
    }
    for (int i = 0; i < at; i++)
      b[i] = -3;
    for (int k = 0; k < P; k++)
      for (int e = 0; e < sc[k]; e++)
        a[sd[k] + e] = val(R, 7 * k + e);
    if (!sym) {
      MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
    } else { /* in place: block k of b holds what goes to k (counts symmetric) */
      for (int k = 0; k < P; k++)
        for (int e = 0; e < rc[k]; e++)
          b[rd[k] + e] = val(R, 7 * k + e);
      MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rc, rd, MPI_INT,
                    MPI_COMM_WORLD);
    }
    for (int j = 0; j < P; j++)
      for (int e = 0; e <= rc[j]; e++) /* the gap after block j keeps its -3 */
        check(b[rd[j] + e] == (e == rc[j] ? -3 : val(j, 7 * R + e)),
              sym ? "alltoallv in place" : "alltoallv", n, rd[j] + e);
  }
}

int main(int argc, char **argv)
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_vector(1, 1, 2, MPI_INT, &strided); /* one int, extent 2 ints */
  MPI_Datatype v = strided;
  MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &strided);
  MPI_Type_free(&v);
  MPI_Type_commit(&strided);
  MPI_Op_create(pair_op, 1, &pair_sum);
  MPI_Op_create(left_op, 0, &left);
  size_t big = (size_t)P * (MAXC + 64) + 16;
  int *a = malloc(big * sizeof *a), *b = malloc(big * sizeof *b);
  if (provided < MPI_THREAD_SERIALIZED && R == 0)
    fprintf(stderr, "preload-colls: MPI gives thread level %d: no calls from omp single\n",
            provided);
  for (int rep = 0; rep < 2; rep++)
    for (int c = 0; c < NCOUNTS; c++) {
      int n = counts[c], root = (c + rep) % P;
      reduce_tests(n, root, a, b);
      scatter_tests(n, a, b);
      bcast_tests(n, root, a);
      gather_tests(n, a, b);
      alltoall_tests(n, a, b);
      scan_tests(n, a, b);
      v_tests(n, a, b);
      a2av_tests(n, a, b);
    }
  /* from inside a parallel region: one thread calls, the others wait */
  if (provided >= MPI_THREAD_SERIALIZED) {
#pragma omp parallel
    {
#pragma omp single
      for (int c = 0; c < NCOUNTS; c++) {
        reduce_tests(counts[c], (P - 1 + c) % P, a, b);
        scatter_tests(counts[c], a, b);
        bcast_tests(counts[c], c % P, a);
        gather_tests(counts[c], a, b);
        alltoall_tests(counts[c], a, b);
        scan_tests(counts[c], a, b);
        v_tests(counts[c], a, b);
        a2av_tests(counts[c], a, b);
      }
    }
  }
  long long mine[2] = {checks, failed}, all[2] = {0, 0};
  MPI_Reduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (R == 0)
    printf("preload-colls: %d ranks, %lld checks, %lld failed\n", P, all[0], all[1]);
  MPI_Bcast(all, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  free(a);
  free(b);
  MPI_Op_free(&pair_sum);
  MPI_Op_free(&left);
  MPI_Type_free(&pair);
  MPI_Type_free(&strided);
  MPI_Finalize();
  return all[1] ? 1 : 0;
}
