/* apps/jacobi/stream.h: a STREAM-style bandwidth measurement for the roofline. */
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

#endif
