/* bench/bench.h: the hk-bench framework shared by every experiment.
 *
 * One binary, `hk-bench EXPERIMENT [options]`; an experiment is a row of the
 * table in hk-bench.c and one source file (pingpong.c, ...).  Conventions, as in
 * the OSU micro-benchmarks: sizes as a doubling range (-m 8:4M), warm-up and
 * iteration counts that shrink with the size unless given (-x, -i), every
 * received message validated (a wrong byte fails the run), results through the
 * shared reporter (table + JSON Lines), min/avg/max over the ranks that took part.
 */
#ifndef HK_BENCH_H
#define HK_BENCH_H

#include "bench_kinds.h"
#include "hk_app.h"
#include "hybridkit.h"

typedef struct hk_bench_common {
  const char *sizes;       /* "MIN:MAX" or "SIZE", with K/M/G suffixes */
  int iters;               /* 0: adaptive */
  int warmup;              /* -1: adaptive */
  const char *output;
  long long min_size, max_size;
} hk_bench_common_t;

typedef struct hk_bench_ctx {
  MPI_Comm comm;
  int rank, size;
  hk_nodes_t *nodes;
  hk_reporter_t *rep;
  const hk_bench_common_t *common;
} hk_bench_ctx_t;

typedef struct hk_experiment {
  const char *name;
  const char *summary;       /* one line */
  const char *description;   /* what it measures, which figure/benchmark it reproduces */
  const char *default_sizes; /* e.g. "8:4M", NULL when sizes do not apply */
  hk_thread_level_t level;     /* asked of MPI: what its most demanding variant needs */
  hk_thread_level_t min_level; /* required of MPI; variants needing more check for it
                                  (hk_require_thread_level) and fail or skip clearly */
  int min_ranks;
  const hk_opt_t *opts;      /* experiment-specific options */
  int nopts;
  int list_modes;            /* 1: takes hybrid modes (--list-modes prints them) */
  int (*run)(hk_bench_ctx_t *ctx);
} hk_experiment_t;

extern const hk_experiment_t hk_exp_pingpong;
extern const hk_experiment_t hk_exp_barrier;
extern const hk_experiment_t hk_exp_beff;
extern const hk_experiment_t hk_exp_orthogonal;
extern const hk_experiment_t hk_exp_multipath;
extern const hk_experiment_t hk_exp_threads_pingpong;
extern const hk_experiment_t hk_exp_allreduce;
extern const hk_experiment_t hk_exp_overlap;
extern const hk_experiment_t hk_exp_halo;
extern const hk_experiment_t hk_exp_collparams;
extern const hk_experiment_t hk_exp_coll;

/* "8", "64K", "4M", "1G" -> bytes; "MIN:MAX" -> range.  HK_ERR_ARG naming the
 * problem for 0, negative, garbage or MIN > MAX. */
int hk_bench_parse_sizes(const char *spec, long long *min, long long *max);
/* iterations and warm-up for a size: as given, or 1000/100 up to 8 KiB, then
 * fewer as the size grows (down to 20/2), so every size takes similar time. */
void hk_bench_iters(const hk_bench_common_t *c, long long size, int *iters, int *warmup);
/* deterministic contents of a message from `src`, and the count of wrong bytes */
void hk_bench_fill(unsigned char *buf, long long n, int src);
long long hk_bench_check(const unsigned char *buf, long long n, int src);
/* an MPI return code as an HK error: HK_ERR_MPI naming `what` when it is no MPI_SUCCESS
 * (for HK_LOCAL(err, hk_bench_mpi(MPI_Barrier(comm), "MPI_Barrier"))); inline: it stands
 * in timed loops */
int hk_bench_mpi_failed(const char *what);
static inline int hk_bench_mpi(int mpi_rc, const char *what)
{
  return mpi_rc == MPI_SUCCESS ? HK_SUCCESS : hk_bench_mpi_failed(what);
}
/* a barrier that sleeps while waiting, so idle ranks leave the cores to the
 * ranks being measured (this matters on small or oversubscribed machines) */
int hk_bench_idle_barrier(MPI_Comm comm);
/* --threads LIST: comma-separated positive integers (at most `max` of them, each <= 1024)
 * into threads[0..*n); NULL or empty: one entry, omp_get_max_threads().  HK_ERR_ARG
 * naming the option for anything else. */
int hk_bench_parse_threads(const char *list, int max, int *threads, int *n);
/* the timed part of a measurement: `iters` calls of call(arg), back-to-back under one
 * timer, or (osu) each call timed alone with a barrier after it (not timed) as the OSU
 * benchmarks do; *per = seconds per call on this rank.  A failed call ends the loop
 * with its error (not agreed: the caller agrees). */
int hk_bench_time_calls(MPI_Comm comm, int iters, int osu, int (*call)(void *), void *arg,
                        double *per);
/* min/avg/max of t over the ranks that take part (t >= 0; the others pass a negative t),
 * on every rank; the average is over the participants. */
int hk_bench_stats_some(MPI_Comm comm, double t, hk_stats_t *s);

#endif
