/* apps/jacobi/jacobi.h: what the files of hk-jacobi share.
 *
 *   hk-jacobi.c       main: parse, then run on every rank
 *   jacobi_config.c   the option table, parsed once into a const jac_config_t
 *   jacobi_run.c      set-up, sweeps (exchange + first sweep, w-1 more, wavefront)
 *   jacobi_verify.c   invariants and the comparison with the serial reference
 *   sendrecv.c        the hand-written MPI_Sendrecv baseline (--compare-sendrecv)
 *   jacobi_report.c   the time per iteration split into phases, the records
 *   jacobi_kinds.c    the declared fields of those records
 *   layout.c          --layout: the fields' pages placed by a policy (hybridkit/mem.h)
 */
#ifndef HK_JACOBI_H
#define HK_JACOBI_H

#include "hk_app.h"
#include "hybridkit.h"
#include "pipeline.h"
#include "stream.h"
#include "wavefront.h"

typedef enum jac_stores { JAC_STORES_AUTO = 0, JAC_STORES_NT, JAC_STORES_CACHED } jac_stores_t;
typedef enum jac_verify { JAC_VERIFY_AUTO = 0, JAC_VERIFY_ON, JAC_VERIFY_OFF } jac_verify_t;
typedef enum jac_boundary { JAC_PERIODIC = 0, JAC_DIRICHLET } jac_boundary_t;
/* --temporal: on (the default: the wavefront where it applies, quietly), off, or a scheme
 * asked for by name (a line says where it does not apply) */
typedef enum jac_temporal {
  JAC_TEMPORAL_ON = 0, JAC_TEMPORAL_OFF, JAC_TEMPORAL_WAVEFRONT, JAC_TEMPORAL_PIPELINE
} jac_temporal_t;

/* the options, checked and typed (the program compares no strings) */
typedef struct jac_config {
  hk_mode_t mode;
  hk_cart_map_t map;
  int dims;                 /* 2 or 3 */
  int stencil;              /* 3D: 7 or 27 points (2D: the 5-point heat equation) */
  long long global[3];      /* global grid (global[2] = 1 in 2D) */
  jac_boundary_t boundary;
  jac_temporal_t temporal;
  jac_pipe_desc_t pipe;     /* --looseness, --tile-planes, --tile-rows, --tile-shift */
  int xwrap;                /* 1: the sweeps may wrap a periodic, undecomposed x */
  jac_stores_t stores;
  jac_verify_t verify;
  int iters, warmup, reserved, width, roofline, compare, wave_rows;
  int check_every;          /* -1: default (1 when verifying, else 0) */
  double min_time;
  const char *output;       /* NULL: no JSON Lines */
  int layout;               /* index into jac_layout_names (0: the engine's first touch) */
} jac_config_t;

extern const hk_app_t jac_app;
extern const char *const jac_boundary_names[];
extern const char *const jac_temporal_names[];

/* jac_config_parse: argv into *cfg (checked); *done = 1 after --help and the like.
 * HK_ERR_ARG naming the option when wrong.  No MPI needed. */
int jac_config_parse(int argc, char **argv, jac_config_t *cfg, int *done);

typedef struct jac_run {
  const jac_config_t *cfg;
  hk_cart_t *cart;
  hk_cart_desc_t cd;
  hk_cart_info_t ci;
  hk_halo_t *halo;
  hk_field_layout_t L;
  double *u, *v;
  int periodic;
  hk_update_fn update;
  int iters;             /* timed sweeps done (more than cfg->iters with --min-time) */
  int check_every;       /* invariant check every k sweeps (0: at the end) */
  double lo0, hi0, sum0; /* invariants */
  jac_wave_t wave;       /* temporal blocking (mem NULL: off) */
  jac_pipe_t pipe;       /* or the pipeline (on 0: off) */
  hk_box_t *regions;     /* per sweep of a wavefront or pipeline pass */
  long long temporal_sweeps; /* sweeps done temporally blocked (warm-up included) */
  double t_sweeps;       /* sweeps outside the engine's step (for the compute time) */
  int nt;                /* 3D sweeps write with non-temporal stores */
  long long layer_bytes; /* 3D sweeps: cache for a block's plane slices (kernel.h) */
  int try_stores;        /* --stores auto, both kinds possible: the warm-up tries both */
  int stores_tried;      /* ... and did: stores_ms, a warm-up sweep's time, cached / nt */
  double stores_ms[2];
  int xwrap;             /* 3D sweeps wrap a periodic x themselves (not the halo) */
  hk_locations_t *locs;  /* --layout other than first-touch: the machine's locations */
  hk_mem_t *umem, *vmem; /* ... and the placed fields (u, v point into them) */
  double pages_max_node; /* share of u's and v's pages on their most used NUMA node */
} jac_run_t;

/* layout.c: --layout names; the two fields allocated by the layout, their pages counted
 * per NUMA node (r->pages_max_node); freed (either kind of allocation) */
extern const char *const jac_layout_names[];
int jac_layout_alloc(jac_run_t *r);
void jac_layout_free(jac_run_t *r);

/* the plan's thread count and whether a mode overlaps (both valid here: no error) */
static inline int jac_halo_threads(const hk_halo_t *h)
{
  int t = 1;
  hk_halo_threads(h, &t);
  return t;
}

static inline int jac_mode_overlaps(hk_mode_t m)
{
  int o = 0;
  hk_mode_overlaps(m, &o);
  return o;
}

/* the run on every rank (hk_app_run's callback; arg: the const jac_config_t) */
int jac_run(void *arg);

/* jacobi_verify.c */
void jac_owned_stats(const jac_run_t *r, double out[3]);
int jac_check_invariant(const jac_run_t *r, int sweep);
int jac_verify_reference(jac_run_t *r, int sweeps, long long *ndiff, double *maxdiff);

/* per-exchange time of the engine (the run's mode) and of the hand-written loop */
typedef struct jac_exchange_cmp {
  double engine, baseline;
  long long mismatches;
} jac_exchange_cmp_t;
/* sendrecv.c: time n exchanges of both and check they fill the same face ghosts */
int jac_compare_sendrecv(jac_run_t *r, int n, jac_exchange_cmp_t *out);

/* what the report needs beyond the run */
typedef struct jac_outcome {
  double t_iter;              /* this rank's time per timed sweep */
  int verified;               /* compared with the serial reference */
  long long ndiff;
  const jac_stream_t *bw;     /* NULL, or the bandwidth before and after the sweeps */
  double incore_mlups;        /* with bw, 3D: this rank's in-cache kernel rate (0: none) */
  double check_time;
  const jac_exchange_cmp_t *cmp; /* NULL without --compare-sendrecv */
} jac_outcome_t;
/* jacobi_report.c: the records.  Collective: the cart's comm. */
int jac_report(const jac_run_t *r, const jac_outcome_t *o);

#endif
