/* bench/plain/jacobi_omp.c: the plain OpenMP Jacobi that tools/bench-limits.py sets
 * hk-jacobi against (issue 42). Written to be the obvious code a user would write:
 * two arrays with a one-cell frame, `parallel for collapse(2)` over z and y, x
 * innermost, the 7-point average (u + 6 neighbours) / 7, Dirichlet values in the
 * frame. Initial and boundary values are hk-jacobi's (apps/common/kernel.h,
 * jac_initial / jac_boundary, restated here so this file stands alone), so both
 * programs compute the same field. No temporal blocking, no padding, no prefetch.
 *
 * Not built by CMake: the script compiles it (gcc -O3 -march=native -fopenmp).
 * usage: jacobi_omp N [iters [warmup]]
 * Verification: (1) before timing, a 20^3 grid swept 3 times by the parallel loop
 * equals a serial loop nest bit for bit; (2) after the run every cell lies in
 * [0, 1] (the average of values in [0, 1], a maximum principle); exit 1 if not.
 * The checksum (sum over cells in a fixed serial order) depends neither on the
 * thread count nor on the schedule: the script compares it across thread counts. */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT(a, x, y, z) (a)[(x) + X * ((y) + X * (long)(z))]

static double initial(long x, long y, long z)
{
  unsigned long long h = (unsigned long long)x * 73856093ULL ^ (unsigned long long)y * 19349663ULL ^
                         (unsigned long long)z * 83492791ULL;
  h ^= h >> 13;
  h *= 0x9E3779B97F4A7C15ULL;
  h ^= h >> 29;
  return (double)(h % 1000003ULL) / 1000003.0;
}

static double boundary(long x, long y, long z)
{
  return x < 0 ? 1.0 : 0.25 * (double)((x + 2 * y + 3 * z) & 3) / 3.0;
}

/* both arrays, first touch by the threads that sweep them (same static schedule) */
static void fill(double *u, double *v, long n)
{
  const long X = n + 2;
#pragma omp parallel for collapse(2) schedule(static)
  for (long z = 0; z < X; z++)
    for (long y = 0; y < X; y++)
      for (long x = 0; x < X; x++) {
        int in = x >= 1 && x <= n && y >= 1 && y <= n && z >= 1 && z <= n;
        double s = in ? initial(x - 1, y - 1, z - 1) : boundary(x - 1, y - 1, z - 1);
        AT(u, x, y, z) = s;
        AT(v, x, y, z) = s;
      }
}

static void sweep(const double *restrict u, double *restrict v, long n)
{
  const long X = n + 2;
#pragma omp parallel for collapse(2) schedule(static)
  for (long z = 1; z <= n; z++)
    for (long y = 1; y <= n; y++)
      for (long x = 1; x <= n; x++)
        AT(v, x, y, z) = (AT(u, x, y, z) + AT(u, x - 1, y, z) + AT(u, x + 1, y, z) +
                          AT(u, x, y - 1, z) + AT(u, x, y + 1, z) + AT(u, x, y, z - 1) +
                          AT(u, x, y, z + 1)) * (1.0 / 7.0);
}

/* the same update, one thread, the loop nest spelled out: the oracle of check_small */
static void sweep_serial(const double *u, double *v, long n)
{
  const long X = n + 2;
  for (long z = 1; z <= n; z++)
    for (long y = 1; y <= n; y++)
      for (long x = 1; x <= n; x++) {
        double s = AT(u, x, y, z) + AT(u, x - 1, y, z);
        s += AT(u, x + 1, y, z);
        s += AT(u, x, y - 1, z);
        s += AT(u, x, y + 1, z);
        s += AT(u, x, y, z - 1);
        s += AT(u, x, y, z + 1);
        v[x + X * (y + X * z)] = s * (1.0 / 7.0);
      }
}

static double *alloc_field(long n)
{
  size_t bytes = (size_t)(n + 2) * (size_t)(n + 2) * (size_t)(n + 2) * sizeof(double);
  bytes = (bytes + 63) / 64 * 64;
  return aligned_alloc(64, bytes);
}

/* sweeps u <-> v `k` times; returns the array holding the last result */
static double *run(double *u, double *v, long n, int k, int serial)
{
  for (int s = 0; s < k; s++) {
    if (serial)
      sweep_serial(u, v, n);
    else
      sweep(u, v, n);
    double *t = u;
    u = v;
    v = t;
  }
  return u;
}

static int check_small(void)
{
  const long n = 20, X = n + 2, cells = X * X * X;
  double *a = alloc_field(n), *b = alloc_field(n), *c = alloc_field(n), *d = alloc_field(n);
  int ok = a && b && c && d;
  if (ok) {
    fill(a, b, n);
    fill(c, d, n);
    double *p = run(a, b, n, 3, 0), *q = run(c, d, n, 3, 1);
    ok = memcmp(p, q, (size_t)cells * sizeof(double)) == 0;
  }
  free(a);
  free(b);
  free(c);
  free(d);
  return ok;
}

/* serial, fixed order: the same bits for every thread count; also the range check */
static double checksum(const double *u, long n, int *in_range)
{
  const long X = n + 2;
  double sum = 0.0;
  *in_range = 1;
  for (long z = 1; z <= n; z++)
    for (long y = 1; y <= n; y++)
      for (long x = 1; x <= n; x++) {
        double s = AT(u, x, y, z);
        *in_range &= s >= 0.0 && s <= 1.0;
        sum += s;
      }
  return sum;
}

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 0;
  int iters = argc > 2 ? atoi(argv[2]) : 48, warm = argc > 3 ? atoi(argv[3]) : 8;
  if (n < 4 || iters < 1 || warm < 0) {
    fprintf(stderr, "usage: jacobi_omp N [iters [warmup]]  (N >= 4, iters >= 1)\n");
    return 2;
  }
  if (!check_small()) {
    printf("# Verification = FAILED (parallel sweep differs from the serial loop on 20^3)\n");
    return 1;
  }
#pragma omp parallel
#pragma omp critical
  printf("binding thread %d cpu %d\n", omp_get_thread_num(), sched_getcpu());
  double *u = alloc_field(n), *v = alloc_field(n);
  if (!u || !v) {
    fprintf(stderr, "jacobi_omp: out of memory for N=%ld\n", n);
    return 2;
  }
  fill(u, v, n);
  double *w = run(u, v, n, warm, 0);
  double *o = w == u ? v : u;
  double t0 = omp_get_wtime();
  double *r = run(w, o, n, iters, 0);
  double t = omp_get_wtime() - t0;
  int in_range = 0;
  double sum = checksum(r, n, &in_range);
  double mlups = (double)n * (double)n * (double)n * iters / t / 1e6;
  printf("# plain OpenMP Jacobi: grid %ldx%ldx%ld, dirichlet, %d threads, %d sweeps after %d"
         " warm-up\n", n, n, n, omp_get_max_threads(), iters, warm);
  printf("time %.6f s\n", t);
  printf("mlups %.3f MLUP/s\n", mlups);
  printf("checksum %.17g\n", sum);
  printf("# Verification = %s\n", in_range && isfinite(sum) ? "SUCCESSFUL" : "FAILED (out of [0, 1])");
  free(u);
  free(v);
  return in_range && isfinite(sum) ? 0 : 1;
}
