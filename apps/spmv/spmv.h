/* apps/spmv/spmv.h: hk-spmv's parts, shared by its sources:
 *
 *   hk-spmv.c      options, their checks, main and run (the order of the steps)
 *   spmv_run.c     the matrix (generator or file), the timed multiplies, verification
 *   spmv_cg.c      conjugate gradients on top of the multiply
 *   spmv_report.c  the records (table + JSON Lines) of kinds spmv and spmv.cg
 *   spmv_kinds.c   the fields of those records, declared once
 *
 * The options are parsed once into spmv_opt_t and passed down read-only. */
#ifndef HK_SPMV_APP_H
#define HK_SPMV_APP_H

#include "hybridkit.h"
#include "stream.h"

typedef struct spmv_opt {
  const char *matrix, *format, *mode, *solver, *output, *verify;
  int chunk, sigma, iters, warmup, blocks, reserved, max_iters, roofline;
  double tol;
} spmv_opt_t;

#define SPMV_STREAM_REPS 3 /* repetitions of each STREAM measurement between the blocks */
#define SPMV_BLOCKS 5      /* timed blocks of the multiplies by default (best one: gflops_best) */
/* the default with --roofline: each block's share pairs it with the bandwidth measured just
 * before and after it; on a host whose memory speed drifts within a second the pairs must be
 * close (laplace3d:200 1x1, 4 interleaved runs of 100 multiplies each: medians of the block
 * shares 0.91-1.11 with 5 blocks, 0.92-0.97 with 20, 0.96-1.01 with 50) */
#define SPMV_ROOFLINE_BLOCKS 25

typedef struct spmv_cg {
  int iterations, converged;
  double relres, true_relres, error, time;
} spmv_cg_t;

typedef struct spmv_measured {
  double t_mult;            /* this rank's time per multiply */
  hk_spmv_stats_t st;       /* per multiply */
  long long ndiff;          /* over all ranks, -1: not verified */
  double t_best;            /* the best block's time per multiply, slowest rank */
  double bw;                /* STREAM-like bandwidth summed over ranks, 0: not measured
                             * (the best of the measurements around the blocks) */
  double bw_spread;         /* (best - worst) / best of those measurements */
  double stream_bytes;      /* bytes of each STREAM array of this rank */
  int nblk;                 /* timed blocks (--blocks) */
  double *t_blk;            /* [nblk] each block's time per multiply, slowest rank */
  double *share;            /* [nblk] --roofline: the blocks' shares (report fills it) */
  double *bw_blk;           /* [nblk + 1] --roofline: the bandwidth before block b (b = nblk:
                             * after the last) */
} spmv_measured_t;

/* x_j of the timed multiplies: a function of the global index, so every rank (and the
 * reference) knows any entry without communication */
double spmv_xval(long long j, void *unused);

/* this rank's block of rows of o->matrix into *crs (memory checked before generating).
 * Collective: MPI_COMM_WORLD.  Errors: of the generator or reader, not agreed. */
int spmv_load(const spmv_opt_t *o, hk_spmv_crs_t *crs);

/* the warm-up and the o->iters timed multiplies y = A x (x filled by the caller) in
 * ms->nblk blocks, --roofline's bandwidths around them, the per-multiply statistics.
 * ms->t_blk, share, bw_blk: allocated here, freed by spmv_measured_free.
 * Collective: MPI_COMM_WORLD.  Errors: agreed. */
int spmv_measure(const spmv_opt_t *o, hk_spmv_t *A, const hk_spmv_info_t *in, double *x,
                 double *y, spmv_measured_t *ms);
void spmv_measured_free(spmv_measured_t *ms);

/* y against the serial product of the same rows (ref: in->nrows + 1 doubles of scratch):
 * ms->ndiff; HK_ERR_STATE naming the count when any entry differs (no agreement needed
 * when none does).
 * Collective: MPI_COMM_WORLD.  Errors: agreed. */
int spmv_verify(const hk_spmv_crs_t *crs, const hk_spmv_info_t *in, const double *y,
                double *ref, spmv_measured_t *ms);

/* CG on A x = b, b = A 1, x0 = 0 (the solution is 1: its error is measurable).
 * Collective: MPI_COMM_WORLD.  Errors: agreed. */
int spmv_cg(const spmv_opt_t *o, hk_spmv_t *A, const hk_spmv_info_t *in, spmv_cg_t *res);

/* the spmv record and, with cgr, the spmv.cg record (table on stdout, o->output).
 * Collective: MPI_COMM_WORLD.  Errors: agreed. */
int spmv_report(const char *program, const spmv_opt_t *o, const hk_spmv_info_t *in,
                spmv_measured_t *ms, const spmv_cg_t *cgr);

#endif
