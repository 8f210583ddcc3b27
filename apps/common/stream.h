/* apps/common/stream.h: a STREAM-style bandwidth measurement for the roofline. */
#ifndef HK_JACOBI_STREAM_H
#define HK_JACOBI_STREAM_H

#include <mpi.h>

typedef struct jac_stream {
  double elements_per_s;   /* this rank, all its threads, in the best repetition of all ranks */
  double bw_stream;        /* bytes/s counted as STREAM does: 16 B per element */
  double bw_real;          /* with write-allocate: 24 B per element */
  double elements_per_s_nt; /* the same with non-temporal stores (0: not measured) */
  long long elements;
} jac_stream_t;

/* v[i] = s * u[i] over arrays far larger than the caches (n elements each),
 * `reps` times with `threads` threads; the same memory traffic per element as
 * one Jacobi lattice update under the layer condition (one load stream, one
 * store stream with write-allocate), and where the sweeps can use them with
 * non-temporal stores (one load and one store stream, no write-allocate: the
 * traffic of a sweep that stores so).  n: a multiple of 8.  Collective over comm: every repetition
 * starts on all ranks together and lasts as long as the slowest, so ranks that
 * share a node's memory are measured sharing it (the sum over ranks of
 * elements_per_s is what they achieve together).  Returns 0, or -1 when any rank
 * has no memory for the arrays. */
int jac_stream_measure(MPI_Comm comm, long long n, int reps, int threads, jac_stream_t *out);

/* jac_stream_measure in steps, for measuring often on the same arrays (hk-spmv measures
 * between its blocks of multiplies: no allocation and first touch each time).  open:
 * allocates and first-touches (static schedule, `threads` threads); collective, -1 when any
 * rank has no memory (nothing then to close).  run: `reps` repetitions as jac_stream_measure,
 * collective.  close: frees (also after a failed open). */
typedef struct jac_stream_buf {
  double *u, *v;
  long long n;
  int threads;
} jac_stream_buf_t;
int jac_stream_open(MPI_Comm comm, long long n, int threads, jac_stream_buf_t *b);
void jac_stream_run(MPI_Comm comm, jac_stream_buf_t *b, int reps, jac_stream_t *out);
void jac_stream_close(jac_stream_buf_t *b);

/* elements per array per rank for jac_stream_measure: the node's ranks together stream
 * 4 x the node's last-level cache (at least 4 Mi elements, a multiple of 8).  Collective. */
long long jac_stream_elems(MPI_Comm comm);

/* The in-core (cache) ceiling of the 3D sweep: every thread sweeps its own block of
 * JAC_INCORE_X x JAC_INCORE_YZ^2 cells (two fields with ghosts, 0.75 MB: they stay in its L2;
 * rows as long as a block's rows typically are) back and forth with the app's own
 * kernel (jac_rows3d, cached stores; jac_rows27 when stencil is 27), `sweeps` sweeps per
 * repetition, `reps` repetitions timed as jac_stream_measure does (all ranks together, the
 * slowest rank's time, the best repetition).  *mlups: this rank's updates per second / 1e6
 * (summed over ranks: what they reach together with the data in cache).  Returns 0, or -1
 * when any rank has no memory. */
#define JAC_INCORE_X 128
#define JAC_INCORE_YZ 16
int jac_incore_measure(MPI_Comm comm, int stencil, int sweeps, int reps, int threads, double *mlups);

#endif
