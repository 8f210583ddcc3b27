/* apps/mc/mc.h: what the files of hk-mc share.
 *
 *   hk-mc.c      main: parse, then run on every rank
 *   mc_config.c  the option table, parsed once into a const mc_config_t
 *   mc_sim.c     the particles, the per-step allreduce, the checks, the run
 *   mc_report.c  the record (kind "mc", declared in mc_kinds.c)
 */
#ifndef HK_MC_H
#define HK_MC_H

#include <stdint.h>
#include "hk_app.h"
#include "hybridkit/preload.h"
#include "hybridkit.h"
#include "mc_kinds.h"

/* the options, checked and typed */
typedef struct mc_config {
  int particles, steps, warmup, tally_bytes, seed;
  int use_hk;                 /* 0: MPI_Allreduce (what the preload intercepts) */
  hk_allreduce_alg_t alg;     /* with use_hk */
  const char *allreduce;      /* the option as given (for the record) */
  const char *expect;         /* --expect-checksum as given, NULL: none */
  unsigned long long expected; /* its value */
  const char *output;         /* NULL: no JSON Lines */
} mc_config_t;

extern const hk_app_t mc_app;

/* mc_config_parse: argv into *cfg (checked); *done = 1 after --help and the like.
 * HK_ERR_ARG naming the option when wrong.  No MPI needed. */
int mc_config_parse(int argc, char **argv, mc_config_t *cfg, int *done);

typedef struct mc_sim {
  const mc_config_t *cfg;
  MPI_Comm comm;
  int rank, size, threads;
  long long first, count;        /* this rank's particles [first, first + count) */
  int nbins, ncells;
  uint32_t *x;                   /* positions: fixed point, the ring is [0, 2^32) */
  int64_t *local, *global;       /* tallies: this rank's, the allreduced one */
  int64_t *scratch;              /* the threads' private tallies, `stride` apart (heap: a
                                    tally of megabytes overflows a thread's stack) */
  size_t stride;
  uint64_t checksum;
  long long absorbed;            /* absorptions in the timed steps (global) */
  hk_allreduce_info_t info;      /* of the last hk_allreduce */
  double t_allreduce, t_compute;
} mc_sim_t;

/* the run on every rank (hk_app_run's callback; arg: the const mc_config_t) */
int mc_run(void *arg);
/* mc_report.c: the record; ps: the preload's state after the timed steps (NULL: not
 * loaded), accel0 its count of accelerated calls before.  Collective: m->comm. */
int mc_report(const mc_sim_t *m, double t_step, const hk_preload_state_t *ps, long long accel0);

#endif
