/* bench/beff.h: what the files of hk-bench beff share (the experiment: beff.c; its
 * patterns: beff_patterns.c; its records: beff_emit.c). */
#ifndef HK_BENCH_BEFF_H
#define HK_BENCH_BEFF_H

#include "bench.h"
#include "beff_calc.h"

enum {
  NMSG = BEFF_NMSG,
  NRING = 6,
  NRAND = 30,
  P_CYC = NRING + NRAND,
  NPAT = P_CYC + 1,
  NREP = 3,     /* the original's REPETITIONS */
  MINREP = 2,   /* MIN_REPETITIONS, for the largest size when shortened */
  NMETH = 3,
  MAXSR = 6,
  PRE_MSG_LOOPS = 10,
  WITH_PRELOOPS = 18, /* one untimed loop before the timed ones below this size index */
};
enum { M_SENDRECV, M_ALLTOALLV, M_NONBLK };
extern const char *const beff_meth_names[NMETH];
typedef struct pattern {
  char name[24];
  MPI_Comm comm;                 /* MPI_COMM_NULL: this rank is not in the pattern */
  int nsr;                       /* pairs this rank sends (and receives) per loop */
  int dst[MAXSR], src[MAXSR];    /* ranks in comm */
  long long cnt[MAXSR];          /* messages of this pair in the whole pattern */
  long long all_msg;             /* messages of the pattern, as this rank counts them */
} pattern_t;

typedef struct run_set {
  MPI_Comm comm;     /* the measured communicator (MPI_COMM_NULL: not taking part) */
  int rank, size;
  const int *mult;   /* bytes multiplier of each rank's messages (NULL: 1) */
  const char *name;  /* "mpp" or "hybrid" */
  MPI_Comm cyc_comm; /* the 3D grid's ranks */
  int cyc_dims[3];
  pattern_t pat[NPAT];
  long long all_msg0[NPAT];
  int nsr0[NPAT];
  double rate[NREP][NPAT][NMSG][NMETH]; /* this rank's bytes sent / s, then the min */
  int loops[NMSG][NREP][NMETH];
  double b[NPAT][NMSG];                 /* bytes/s of the whole pattern */
  double elapsed;                       /* seconds of the measurement loop */
} run_set_t;

/* what one run set needs while measuring */
typedef struct mbuf {
  unsigned char *sbuf, *rbuf;
  long long len, base;
  int *scounts, *rcounts, *sdispls, *rdispls;
} mbuf_t;

/* the numbers of the original's summary, bytes/s for the whole run set */
typedef struct beff_numbers {
  double beff, beff_lmax, ring_lmax, cyc, cyc_lmax, latency;
  double ring, random, ring_at[NMSG], random_at[NMSG], beff_at[NMSG];
} beff_numbers_t;

/* beff_patterns.c: the 6 rings, 30 random rings (permutations from `seed`) and the
 * 3D-cyclic pattern of rs's communicator.  Collective: rs->comm. */
int beff_make_patterns(run_set_t *rs, int seed);

/* beff_emit.c: the original's summary numbers of a measured run set, and its records */
void beff_numbers(const run_set_t *rs, beff_numbers_t *x);
int beff_emit_sizes(hk_bench_ctx_t *c, const run_set_t *rs, const long long *sizes,
                    const beff_numbers_t *x);
int beff_emit_patterns(hk_bench_ctx_t *c, const run_set_t *rs);
int beff_emit_summary(hk_bench_ctx_t *c, const run_set_t *rs, const beff_numbers_t *x,
                      int procs, int nodes, long long lmax);
int beff_emit_compare(hk_bench_ctx_t *c, const beff_numbers_t *xm, const beff_numbers_t *xh,
                      int nodes);

/* beff_measure (beff_measure.c): a run set measured on its members: buffers (mb, freed by
 * the caller), patterns, every pattern and method at every size with the original's loop
 * lengths (time_per_loop seconds per method), the slowest rank's rates, b(pattern, L) in
 * rs->b.  Collective: rs->comm; errors agreed. */
int beff_measure(run_set_t *rs, const long long *sizes, double factor, long long lmax,
                 double time_per_loop, int seed, mbuf_t *mb);

#endif
