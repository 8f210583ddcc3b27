/* apps/common/stream.c: scale kernel bandwidth (STREAM's "scale"), first touch
 * and measurement by the same threads, static schedule as in the sweeps. */
#include <omp.h>
#include <stdlib.h>
#include "hk_app.h"
#include "hybridkit.h"
#include "kernel.h"
#include "stream.h"
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

static void scale(double *restrict v, const double *restrict u, double s, long long n, int threads,
                  int nt)
{
#if defined(__AVX512F__)
  if (nt) {
    const __m512d f = _mm512_set1_pd(s);
    /* whole lines only (n is a multiple of 8, the arrays 64-byte aligned) */
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static) nowait
      for (long long i = 0; i < n; i += 8)
        _mm512_stream_pd(v + i, _mm512_mul_pd(f, _mm512_load_pd(u + i)));
      _mm_sfence(); /* each thread's streaming stores done before the region ends */
    }
    return;
  }
#endif
  (void)nt;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long long i = 0; i < n; i++)
    v[i] = s * u[i];
}

/* together the node's ranks stream 4 x its last-level cache (a 260 MiB L3 held
 * hk-spmv's old 2 x 32 MiB per rank and hk-jacobi's 2 x 128 MiB: the "memory" bandwidth was
 * the L3's), at least 4 Mi elements, a multiple of 8 */
long long jac_stream_elems(MPI_Comm comm)
{
  long long llc = 0, elems = 4LL << 20;
  hk_machine_info_t info;
  if (hk_app_machine_info(&info) == HK_SUCCESS && info.cache_levels > 0)
    llc = info.cache[info.cache_levels - 1].size_bytes * info.cache[info.cache_levels - 1].count;
  MPI_Comm node;
  int on_node = 1;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
  }
  long long want = 4 * llc / (2 * (long long)sizeof(double) * on_node);
  want -= want % 8;
  return want > elems ? want : elems;
}

int jac_stream_open(MPI_Comm comm, long long n, int threads, jac_stream_buf_t *b)
{
  b->u = b->v = NULL;
  b->n = n;
  b->threads = threads;
  int ok = !posix_memalign((void **)&b->u, 64, (size_t)n * sizeof(double)) &&
           !posix_memalign((void **)&b->v, 64, (size_t)n * sizeof(double));
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) {
    jac_stream_close(b);
    return -1;
  }
  double *u = b->u, *v = b->v;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long long i = 0; i < n; i++) {
    u[i] = 1.0 + (double)(i & 7);
    v[i] = 0.0;
  }
  return 0;
}

void jac_stream_close(jac_stream_buf_t *b)
{
  free(b->u);
  free(b->v);
  b->u = b->v = NULL;
}

void jac_stream_run(MPI_Comm comm, jac_stream_buf_t *b, int reps, jac_stream_t *out)
{
  /* kind 0: plain stores (write-allocate: 24 B per element); kind 1, where the
   * sweeps can use them: non-temporal stores (16 B per element) */
  double best[2] = {1e30, 1e30};
  const double s = 1.000001;
  const long long n = b->n;
  for (int kind = 0; kind < 1 + jac_nt_available(); kind++)
    for (int r = 0; r < reps; r++) {
      MPI_Barrier(comm);
      double t0 = hk_wtime();
      scale(b->v, b->u, s, n, b->threads, kind);
      double t = hk_wtime() - t0, slowest = t;
      /* a rank's own best repetition may fall while the others are idle: the sum of
       * such bests overstated two ranks' bandwidth on one node by 1.7x here */
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
      if (slowest < best[kind])
        best[kind] = slowest;
      double *x = b->u; /* keep the compiler from dropping repetitions */
      b->u = b->v;
      b->v = x;
    }
  out->elements = n;
  out->elements_per_s = (double)n / best[0];
  out->bw_stream = 16.0 * out->elements_per_s;
  out->bw_real = 24.0 * out->elements_per_s;
  out->elements_per_s_nt = jac_nt_available() ? (double)n / best[1] : 0.0;
}

int jac_stream_measure(MPI_Comm comm, long long n, int reps, int threads, jac_stream_t *out)
{
  jac_stream_buf_t b;
  if (jac_stream_open(comm, n, threads, &b) != 0)
    return -1;
  jac_stream_run(comm, &b, reps, out);
  jac_stream_close(&b);
  return 0;
}

/* one thread's block: x rows padded to whole lines (a line of ghosts on each side keeps every
 * row start on a cache line, as in the app's fields), one ghost plane and row on each side */
static void incore_sweeps(double *u, double *v, int stencil, int sweeps)
{
  const int nx = JAC_INCORE_X, n = JAC_INCORE_YZ;
  const long long sy = nx + 16, sz = sy * (n + 2), off = 8 + sy + sz;
  for (int s = 0; s < sweeps; s++) {
    for (int k = 0; k < n; k++) {
      const double *c = u + off + k * sz;
      if (stencil == 27)
        jac_rows27(c - sz, c, c + sz, v + off + k * sz, sy, n, 0, nx, 0);
      else
        jac_rows3d(c - sz, c, c + sz, v + off + k * sz, sy, n, 0, nx, 0, NULL, 0);
    }
    double *t = u;
    u = v;
    v = t;
  }
}

int jac_incore_measure(MPI_Comm comm, int stencil, int sweeps, int reps, int threads, double *mlups)
{
  const long long nx = JAC_INCORE_X, n = JAC_INCORE_YZ, count = (nx + 16) * (n + 2) * (n + 2);
  int ok = 1, all_ok = 0;
  double best = 1e30;
  double **f = calloc(2 * (size_t)threads, sizeof *f);
  ok = f != NULL;
  for (int t = 0; ok && t < 2 * threads; t++)
    ok = !posix_memalign((void **)&f[t], 64, (size_t)count * sizeof(double));
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (all_ok) {
#pragma omp parallel num_threads(threads)
    { /* first touch by the thread that sweeps it; values in [1, 2) */
      double *u = f[2 * omp_get_thread_num()], *v = f[2 * omp_get_thread_num() + 1];
      for (long long i = 0; i < count; i++)
        u[i] = v[i] = 1.0 + (double)(i % 7) / 7.0;
      incore_sweeps(u, v, stencil, 2); /* warm the caches */
    }
    for (int r = 0; r < reps; r++) {
      MPI_Barrier(comm);
      double t0 = hk_wtime();
#pragma omp parallel num_threads(threads)
      incore_sweeps(f[2 * omp_get_thread_num()], f[2 * omp_get_thread_num() + 1], stencil, sweeps);
      double t = hk_wtime() - t0, slowest = t;
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
      if (slowest < best)
        best = slowest;
    }
    *mlups = (double)(nx * n * n) * sweeps * threads / best / 1e6;
  }
  for (int t = 0; f && t < 2 * threads; t++)
    free(f[t]);
  free(f);
  return all_ok ? 0 : -1;
}
