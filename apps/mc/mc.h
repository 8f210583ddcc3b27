/* apps/mc/mc.h: what the files of hk-mc share.
 *
 *   hk-mc.c      main: parse, then run on every rank
 *   mc_config.c  the option table, parsed once into a const mc_config_t
 *   mc_sim.c     the particles, the per-step collective, the checks, the run
 *   mc_coll.c    the collectives a step can reduce the tally with (--collective)
 *   mc_report.c  the record (kind "mc", declared in mc_kinds.c)
 */
#ifndef HK_MC_H
#define HK_MC_H

#include <stdint.h>
#include "hk_app.h"
#include "hybridkit/preload.h"
#include "hybridkit.h"
#include "mc_kinds.h"

/* --collective: how a step turns the ranks' tallies into the global one (mc_coll.c) */
typedef enum mc_coll {
  MC_ALLREDUCE,       /* allreduce */
  MC_REDUCE,          /* reduce to rank 0 + bcast */
  MC_REDUCE_SCATTER,  /* reduce_scatter_block of P padded blocks + allgather */
  MC_ALLGATHER,       /* allgather of the tallies, summed locally in rank order */
  MC_ALLTOALL,        /* alltoall of the blocks, summed by their owner, + allgather */
  MC_BCAST,           /* P bcasts (root r: rank r's tally), summed in rank order */
  MC_COLL_COUNT
} mc_coll_t;

/* the options, checked and typed */
typedef struct mc_config {
  int particles, steps, warmup, tally_bytes, seed;
  mc_coll_t collective;       /* --collective */
  int use_hk;                 /* 0: MPI_* (what the preload intercepts), 1: hk_* with alg */
  hk_allreduce_alg_t alg;     /* with use_hk */
  const char *algorithm;      /* --algorithm (alias --allreduce) as given (for the record) */
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
  int64_t *local, *global;       /* tallies: this rank's, the global one (the step's collective) */
  int block;                     /* bins per block of the block-wise collectives: nbins / P
                                    rounded up (the tally padded with zeros to P blocks) */
  int64_t *padded, *gathered, *part; /* mc_coll.c's buffers (NULL where the collective needs
                                    none): the tally padded to P blocks, what the ranks send
                                    each other (up to P tallies), this rank's summed block */
  int64_t *scratch;              /* the threads' private tallies, `stride` apart (heap: a
                                    tally of megabytes overflows a thread's stack) */
  size_t stride;
  uint64_t checksum;
  long long absorbed;            /* absorptions in the timed steps (global) */
  hk_allreduce_info_t info[2];   /* what the hk_* call(s) of the last step ran (use_hk) */
  double t_coll, t_compute;      /* seconds in the step's collective(s), in moving the particles */
} mc_sim_t;

/* mc_coll.c: the names of --collective (NULL-terminated, in mc_coll_t's order) */
extern const char *const mc_coll_names[];
/* mc_coll_calls: the MPI collectives one step makes, e.g. "MPI_Reduce+MPI_Bcast" */
const char *mc_coll_calls(mc_coll_t c);
/* mc_coll_ncalls: how many of them fill m->info (1 or 2) */
int mc_coll_ncalls(mc_coll_t c);
/* mc_coll_bytes: the bytes of the global tally and of mc_coll.c's buffers for the
 * collective of c on `size` ranks (for the memory check) */
double mc_coll_bytes(const mc_config_t *c, int size);
/* mc_coll_alloc: m->global and the buffers the collective needs (m->nbins, size set);
 * HK_ERR_NOMEM.  Local. */
int mc_coll_alloc(mc_sim_t *m);
/* mc_coll_free: what mc_coll_alloc allocated */
void mc_coll_free(mc_sim_t *m);
/* mc_coll_run: m->local of every rank -> m->global on every rank by m->cfg->collective;
 * HK_ERR_MPI / the hk_* function's error.  Collective: m->comm. */
int mc_coll_run(mc_sim_t *m);

/* the run on every rank (hk_app_run's callback; arg: the const mc_config_t) */
int mc_run(void *arg);
/* mc_report.c: the record; ps: the preload's state after the timed steps (NULL: not
 * loaded), accel0 its count of accelerated calls before.  Collective: m->comm. */
int mc_report(const mc_sim_t *m, double t_step, const hk_preload_state_t *ps, long long accel0);

#endif
