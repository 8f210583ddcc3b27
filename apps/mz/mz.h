/* apps/mz/mz.h: what the files of hk-mz share.
 *
 *   hk-mz.c       main: parse, then run on every rank
 *   mz_config.c   the option table, parsed once into a const mz_config_t
 *   mz_run.c      threads, zones and their map, local zones, the time steps
 *   mz_verify.c   the NPB verification (norms against the official values)
 *   mz_report.c   the NPB-style output and the record
 *   mz_kinds.c    the declared fields of the record
 *   sp.c, bt.c, lu.c  the zone solvers (lu.c: LU-MZ's SSOR, pipelined sweeps)
 */
#ifndef HK_MZ_H
#define HK_MZ_H

#include "adi_common.h"
#include "exchange.h"
#include "hk_app.h"
#include "hybridkit.h"
#include "mz_kinds.h"
#include "mz_problem.h"

/* the options, checked and typed */
typedef struct mz_config {
  mz_bench_t bench;
  const mz_class_t *cls;
  int niter;          /* time steps (the class's unless --steps) */
  int zone_threads;   /* zones a process solves at once */
  int quiet;
  int rebalance;      /* --rebalance-threads */
  const char *output; /* NULL: no JSON Lines */
  int split;          /* --split K: sub-zones per zone (mz_split.h; 1: unsplit) */
  const char *history; /* --history FILE: residual per step as CSV (NULL: none) */
} mz_config_t;

extern const hk_app_t mz_app;

/* mz_config_parse: argv into *cfg (checked); *done = 1 after --help and the like.
 * HK_ERR_ARG naming the option when wrong.  No MPI needed. */
int mz_config_parse(int argc, char **argv, mz_config_t *cfg, int *done);

/* The zone solvers: one entry per benchmark. */
typedef struct mz_solver {
  int with_speed;
  mz_map_kind_t map;
  int (*setup)(mz_adi_zone_t *z);
  int (*adi)(mz_adi_zone_t *z);  /* one time step: 0, or -1 (no work space) */
  void (*release)(mz_adi_zone_t *z);
  void (*init)(mz_adi_zone_t *z, int first); /* initial u (first: also the forcing) */
  /* per-zone verification quantities (xci: LU-MZ's surface integral, 0 otherwise) */
  void (*norms)(mz_adi_zone_t *z, double xcr[5], double xce[5], double *xci);
} mz_solver_t;

typedef struct mz_run {
  const mz_config_t *cfg;
  mz_bench_t bench;
  const mz_class_t *cls;
  const mz_solver_t *solver;
  int rank, nprocs, threads, outer, inner, niter;
  mz_zones_t zones;
  mz_map_t map;
  int *proc_threads;       /* --rebalance-threads: threads per process (else NULL) */
  int nlocal;
  int *local;              /* global ids of my zones, largest first */
  mz_adi_zone_t *zone;     /* my zones, same order */
  double **u;              /* per global zone: u of my zones, NULL otherwise */
  mz_exchange_t *ex;
  double t_step, t_comm, t_compute; /* per rank, seconds (per step for t_step) */
  double xcr[5], xce[5], xci;
  int verified;
  long long points_unsplit, ghosts; /* points of the class's zones; ghosts the split adds */
  double *residual;        /* --history: global RMS residual after each step (rank 0) */
  double t_history;        /* time spent on the history, excluded from the step times */
} mz_run_t;

/* the run on every rank (hk_app_run's callback; arg: the const mz_config_t) */
int mz_run(void *arg);
/* mz_verify.c: the norms summed over zones and ranks, compared (sets r->verified).
 * Collective: MPI_COMM_WORLD. */
int mz_verify(mz_run_t *r);
void mz_print_verification(const mz_run_t *r);
/* mz_history.c (--history): allocate; the residual after step s (collective); rank 0 writes */
int mz_history_alloc(mz_run_t *r);
int mz_history_step(mz_run_t *r, int s);
int mz_history_write(const mz_run_t *r);
/* mz_report.c */
void mz_print_map(const mz_run_t *r);
int mz_report(mz_run_t *r);

#endif
