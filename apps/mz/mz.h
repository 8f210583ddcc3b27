/* apps/mz/mz.h: what the files of hk-mz share.
 *
 *   hk-mz.c       main: parse, then run on every rank
 *   mz_config.c   the option table, parsed once into a const mz_config_t
 *   mz_run.c      threads, zones and their map, local zones, the time steps
 *   mz_verify.c   the NPB verification (norms against the official values)
 *   mz_report.c   the NPB-style output and the record
 *   mz_kinds.c    the declared fields of the record
 *   mz_twolevel.c --second-level mpi: zones split in j over the sub-ranks of a group
 *   mz_problem.c  classes, zones, the zone map, LU-MZ's process grid (mz_problem.h)
 *   mz_threads.c  thread re-balancing, processor groups, the load file (mz_problem.h)
 *   sp.c, bt.c, lu.c  the zone solvers (lu.c: LU-MZ's SSOR, pipelined sweeps)
 */
#ifndef HK_MZ_H
#define HK_MZ_H

#include "adi_common.h"
#include "exchange.h"
#include "hk_app.h"
#include "hybridkit.h"
#include "lu.h"
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
  const char *load_file; /* --load-file: threads and processor groups per process */
  int xprocs;         /* --xprocs: LU-MZ's NXP (0: NPB_NUM_XPROCS, else automatic) */
  const char *output; /* NULL: no JSON Lines */
  int layout;         /* --layout: index into mz_layout_names (0: first touch) */
  int second_mpi;     /* --second-level mpi (mz_twolevel.c) */
  int sub_ranks;      /* --sub-ranks: processes per group with --second-level mpi */
  int norms_hex;      /* --norms-hex */
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
  mz_map_t map;            /* zones to the nzp groups of ranks (nxp = 1: to ranks) */
  int nxp, nzp, group, xpos; /* LU-MZ's process grid NXP x NZP; rank = group * nxp + xpos */
  int xfallback;           /* 1: NXP > 1 wanted, MPI_THREAD_MULTIPLE missing: zone-only grid */
  mz_xsplit_t xs;          /* nxp > 1: my zone group (the solver's z->xs) */
  long long *load;         /* per rank: points it holds */
  double imbalance;        /* max/avg of load */
  int *proc_threads;       /* --rebalance-threads, --load-file: threads per process (else NULL) */
  int *proc_group;         /* --load-file: processor group per process (else NULL) */
  int nlocal;
  int *local;              /* global ids of my zones, largest first */
  mz_adi_zone_t *zone;     /* my zones, same order */
  double **u;              /* per global zone: u of my zones, NULL otherwise */
  mz_exchange_t *ex;
  double t_step, t_comm, t_compute; /* per rank, seconds (per step for t_step) */
  double xcr[5], xce[5], xci;
  int verified;
  hk_locations_t *locs;    /* --layout other than first-touch: this machine's locations */
  double pages_max_node;   /* measured share of my zones' pages on one NUMA node */
  /* the two levels (mz_twolevel.c): rank, nprocs above are the group and the groups */
  int world_rank, world_size, sub, nsub;
  MPI_Comm comm1, comm2;   /* sub-rank s of every group (the first level); my group */
  struct mz_twolevel *tl;  /* --second-level mpi, else NULL */
  long long points_unsplit, ghosts; /* points of the class's zones; ghosts the split adds */
  double *residual;        /* --history: global RMS residual after each step (rank 0) */
  double t_history;        /* time spent on the history, excluded from the step times */
} mz_run_t;

/* mz_layout.c: the zone arrays placed by --layout (hybridkit/mem.h) */
extern const char *const mz_layout_names[];
int mz_layout_zone_alloc(mz_run_t *r, int zone, mz_adi_zone_t *z, int nx, int ny, int nz);
void mz_layout_zone_free(mz_adi_zone_t *z);
double mz_layout_pages_max_node(const mz_run_t *r);

/* the run on every rank (hk_app_run's callback; arg: the const mz_config_t) */
int mz_run(void *arg);
/* mz_verify.c: the norms summed over zones and ranks, compared (sets r->verified).
 * Collective: r->comm1. */
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
