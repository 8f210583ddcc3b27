/* apps/jacobi/stream.c: scale kernel bandwidth (STREAM's "scale"), first touch
 * and measurement by the same threads, static schedule as in the sweeps. */
#include <omp.h>
#include <stdlib.h>
#include "stream.h"

int jac_stream_measure(MPI_Comm comm, long long n, int reps, int threads, jac_stream_t *out)
{
  double *u = NULL, *v = NULL;
  int ok = !posix_memalign((void **)&u, 64, (size_t)n * sizeof *u) &&
           !posix_memalign((void **)&v, 64, (size_t)n * sizeof *v);
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) {
    free(u);
    free(v);
    return -1;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long long i = 0; i < n; i++) {
    u[i] = 1.0 + (double)(i & 7);
    v[i] = 0.0;
  }
  double best = 1e30;
  const double s = 1.000001;
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(comm);
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long long i = 0; i < n; i++)
      v[i] = s * u[i];
    double t = omp_get_wtime() - t0, slowest = t;
    /* a rank's own best repetition may fall while the others are idle: the sum of
     * such bests overstated two ranks' bandwidth on one node by 1.7x here */
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (slowest < best)
      best = slowest;
    double *x = u; /* keep the compiler from dropping repetitions */
    u = v;
    v = x;
  }
  out->elements = n;
  out->elements_per_s = (double)n / best;
  out->bw_stream = 16.0 * out->elements_per_s;
  out->bw_real = 24.0 * out->elements_per_s;
  free(u);
  free(v);
  return 0;
}
