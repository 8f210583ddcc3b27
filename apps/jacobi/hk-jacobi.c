/* apps/jacobi/hk-jacobi.c: 3D 7- or 27-point Jacobi (and the 2D 5-point heat equation
 * of the hybrid tutorial) on the halo engine, in every hybrid mode.
 *
 *   cart (decomposition, mapping) -> halo plan (mode) -> per batch of w sweeps:
 *     hk_halo_step(u -> v, extend w-1)   exchange + first sweep, the mode's way
 *     w-1 more sweeps on shrinking regions (multi-layer halo: no exchange)
 *   -> invariant checks -> gather + compare with jacobi_ref.c -> record
 *
 * It verifies itself: the periodic stencil conserves the global sum and the
 * Dirichlet one keeps values within the initial/boundary range (checked every
 * --check-every sweeps, untimed), and for small grids the gathered field must
 * equal the frozen serial reference bit for bit.  Exit code 1 when not.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "hk_app.h"
#include "hybridkit.h"
#include "jacobi_ref.h"
#include "kernel.h"
#include "sendrecv.h"
#include "stream.h"
#include "wavefront.h"

static struct {
  const char *mode, *grid, *map, *boundary, *output, *verify, *temporal, *stores, *xwrap;
  int size, iters, warmup, dims, reserved, width, roofline, check_every, compare, wave_rows, stencil;
  double min_time;
} opt = {.mode = "masteronly", .map = "sequential", .boundary = "periodic", .verify = "auto", .temporal = "on",
         .stores = "auto", .xwrap = "on",
         .size = 64, .iters = 20, .warmup = 2, .dims = 3, .width = 1, .check_every = -1, .stencil = 7};

static const hk_opt_t options[] = {
  {"mode", HK_OPT_STR, &opt.mode, "M", "hybrid mode, one of --list-modes", 0},
  {"size", HK_OPT_INT, &opt.size, "N", "global grid N^3 (N^2 with --dims 2)", 0},
  {"grid", HK_OPT_STR, &opt.grid, "NXxNYxNZ", "global grid (overrides --size; NXxNY in 2D)", 0},
  {"iters", HK_OPT_INT, &opt.iters, "K", "timed sweeps", 0},
  {"warmup", HK_OPT_INT, &opt.warmup, "W", "untimed sweeps first (part of the solution)", 0},
  {"min-time", HK_OPT_DOUBLE, &opt.min_time, "S",
   "time at least S seconds: more timed sweeps after --iters until then (0: just --iters)", 0},
  {"dims", HK_OPT_INT, &opt.dims, "2|3", "2: 5-point heat equation, 3: 7-point Jacobi", 0},
  {"stencil", HK_OPT_INT, &opt.stencil, "7|27",
   "3D: 7 points (faces-only halo) or 27 (weights 8/4/2/1 over 64; faces+edges+corners halo)", 0},
  {"reserved", HK_OPT_INT, &opt.reserved, "m", "communicating threads (multiple-reserved; 0: one)", 0},
  {"map", HK_OPT_STR, &opt.map, "P", "rank mapping: sequential|round-robin|node-aware", 0},
  {"halo-width", HK_OPT_INT, &opt.width, "w", "ghost layers; w sweeps per exchange", 0},
  {"boundary", HK_OPT_STR, &opt.boundary, "B", "periodic|dirichlet", 0},
  {"temporal", HK_OPT_STR, &opt.temporal, "on|off",
   "3D, w > 1, modes without overlap: the w sweeps of an exchange as one wavefront", 0},
  {"wave-rows", HK_OPT_INT, &opt.wave_rows, "R", "rows per wavefront strip (0: sized for the L2/L3 caches)", 0},
  {"x-wrap", HK_OPT_STR, &opt.xwrap, "on|off",
   "3D periodic, x not decomposed: the sweeps wrap x instead of the halo exchange", 0},
  {"stores", HK_OPT_STR, &opt.stores, "S",
   "3D: how sweeps write the field: auto (nt when fields are far larger than the L3)|nt|cached", 0},
  {"verify", HK_OPT_STR, &opt.verify, "V",
   "compare with the serial reference: auto (grids up to 2^21 cells)|on|off", 0},
  {"check-every", HK_OPT_INT, &opt.check_every, "k",
   "check the invariant every k sweeps (0: at the end; default 1 when verifying, else 0)", 0},
  {"roofline", HK_OPT_FLAG, &opt.roofline, "", "measure memory bandwidth and report efficiency", 0},
  {"compare-sendrecv", HK_OPT_INT, &opt.compare, "N",
   "time N halo exchanges of the engine and of a hand-written MPI_Sendrecv loop (faces)", 0},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record to FILE", 0},
};

static const hk_app_t app = {
  .program = "hk-jacobi",
  .list_modes = 1,
  .summary = "3D 7- or 27-point Jacobi / 2D 5-point heat equation in every hybrid MPI+OpenMP mode",
  .usage = "[--mode M] [--size N | --grid NXxNYxNZ] [--iters K] [--dims 2|3] [--stencil 7|27]\n"
           "       [--map P] [--halo-width w] [--reserved m] [--boundary periodic|dirichlet]\n"
           "       [--roofline] [--output FILE.jsonl]",
  .description =
      "Verifies itself (invariant every --check-every sweeps; bit-identical to the serial\n"
      "reference for small grids) and exits 1 when wrong.  MLUP/s = cells x sweeps / time\n"
      "of the slowest rank.  With --halo-width w > 1 the halo holds w layers and w sweeps\n"
      "run per exchange (edges and corners exchanged too); in 3D and the modes without\n"
      "overlap they run as one wavefront through the planes (temporal blocking: the field\n"
      "streams through memory once per w sweeps; --temporal off: one sweep after the\n"
      "other; MLUP/s can then exceed the roofline of a single sweep); --reserved m applies to\n"
      "multiple-reserved.  --roofline measures a STREAM-style scale bandwidth (one load and\n"
      "one store stream per element, as one lattice update) with the kind of stores the sweeps\n"
      "use (--stores: cached, 24 B with write-allocate; nt, non-temporal, 16 B).  --stencil 27:\n"
      "the 27-point stencil (tensor product of [1 2 1]/4 in x, y, z), whose halo exchanges\n"
      "edges and corners too (26 neighbours instead of 6); cached stores only.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

typedef struct run {
  hk_cart_t *cart;
  hk_cart_desc_t cd;
  hk_cart_info_t ci;
  hk_halo_t *halo;
  hk_field_layout_t L;
  double *u, *v;
  int periodic;
  hk_update_fn update;
  double lo0, hi0, sum0; /* invariants */
  jac_wave_t wave;       /* temporal blocking (mem NULL: off) */
  hk_box_t *regions;     /* per sweep of a wavefront pass */
  double t_sweeps;       /* sweeps outside the engine's step (for the compute time) */
  int nt;                /* 3D sweeps write with non-temporal stores */
  int xwrap;             /* 3D sweeps wrap a periodic x themselves (not the halo) */
} run_t;

static int parse_grid(long long G[3])
{
  G[0] = G[1] = opt.size;
  G[2] = opt.dims == 3 ? opt.size : 1;
  if (opt.grid) {
    int err = hk_app_parse_extents("grid", opt.grid, opt.dims, G);
    if (err != HK_SUCCESS)
      return err;
    G[2] = opt.dims == 3 ? G[2] : 1;
  }
  for (int d = 0; d < opt.dims; d++)
    if (G[d] < 1)
      return hk_error_set(HK_ERR_ARG, "grid extents must be >= 1 (got %lld in %c)", G[d], "xyz"[d]);
  if (!strcmp(opt.verify, "on") && (double)G[0] * (double)G[1] * (double)G[2] > 2147483647.0)
    return hk_error_set(HK_ERR_ARG, "--verify on gathers the whole grid on rank 0: at most "
                        "2147483647 cells (got %.0f)", (double)G[0] * (double)G[1] * (double)G[2]);
  return HK_SUCCESS;
}

static int check_options(void)
{
  if (opt.dims != 2 && opt.dims != 3)
    return hk_error_set(HK_ERR_ARG, "--dims %d: 2 or 3", opt.dims);
  if (opt.iters < 1 || opt.warmup < 0)
    return hk_error_set(HK_ERR_ARG, "--iters must be >= 1 and --warmup >= 0");
  if (!(opt.min_time >= 0.0) || opt.min_time > 3600.0)
    return hk_error_set(HK_ERR_ARG, "--min-time must be in 0..3600 seconds");
  if (opt.width < 1)
    return hk_error_set(HK_ERR_ARG, "--halo-width %d must be >= 1", opt.width);
  if (opt.compare < 0)
    return hk_error_set(HK_ERR_ARG, "--compare-sendrecv %d must be >= 0", opt.compare);
  if (opt.check_every < -1)
    return hk_error_set(HK_ERR_ARG, "--check-every %d must be >= 0", opt.check_every);
  if (opt.wave_rows < 0)
    return hk_error_set(HK_ERR_ARG, "--wave-rows %d must be >= 0", opt.wave_rows);
  if (opt.width > HK_WAVE_MAX && !strcmp(opt.temporal, "on"))
    return hk_error_set(HK_ERR_ARG, "--halo-width %d: the wavefront does at most %d sweeps per pass "
                        "(or --temporal off)", opt.width, HK_WAVE_MAX);
  if (opt.reserved < 0)
    return hk_error_set(HK_ERR_ARG, "--reserved %d must be >= 0", opt.reserved);
  if (strcmp(opt.boundary, "periodic") && strcmp(opt.boundary, "dirichlet"))
    return hk_error_set(HK_ERR_ARG, "--boundary %s: periodic or dirichlet", opt.boundary);
  if (strcmp(opt.temporal, "on") && strcmp(opt.temporal, "off"))
    return hk_error_set(HK_ERR_ARG, "--temporal %s: on or off", opt.temporal);
  if (strcmp(opt.xwrap, "on") && strcmp(opt.xwrap, "off"))
    return hk_error_set(HK_ERR_ARG, "--x-wrap %s: on or off", opt.xwrap);
  if (strcmp(opt.stores, "auto") && strcmp(opt.stores, "nt") && strcmp(opt.stores, "cached"))
    return hk_error_set(HK_ERR_ARG, "--stores %s: auto, nt or cached", opt.stores);
  if (strcmp(opt.verify, "auto") && strcmp(opt.verify, "on") && strcmp(opt.verify, "off"))
    return hk_error_set(HK_ERR_ARG, "--verify %s: auto, on or off", opt.verify);
  if (opt.stencil != 7 && opt.stencil != 27)
    return hk_error_set(HK_ERR_ARG, "--stencil %d: 7 or 27", opt.stencil);
  if (opt.stencil == 27 && opt.dims != 3)
    return hk_error_set(HK_ERR_ARG, "--stencil 27 is 3D only (--dims 2 runs the 5-point stencil)");
  if (opt.stencil == 27 && !strcmp(opt.stores, "nt"))
    return hk_error_set(HK_ERR_ARG, "--stores nt: the 27-point sweep writes with cached stores only");
  return HK_SUCCESS;
}

static long long gidx(const run_t *r, int d, int l) { return r->ci.lo[d] + l; }

/* initial values in u and v: owned cells, and the Dirichlet ghosts at global edges */
static void initialise(run_t *r)
{
  const hk_field_layout_t *L = &r->L;
  int w = L->width, kw = L->dims == 3 ? w : 0;
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = -kw; k < L->n[2] + kw; k++)
    for (int j = -w; j < L->n[1] + w; j++)
      for (int i = -w; i < L->n[0] + w; i++) {
        long long g[3] = {gidx(r, 0, i), gidx(r, 1, j), L->dims == 3 ? gidx(r, 2, k) : 0};
        int inside = 1;
        for (int d = 0; d < L->dims; d++)
          inside &= g[d] >= 0 && g[d] < r->cd.global[d];
        long long at = L->offset + i + j * L->sy + k * L->sz;
        double x = inside ? jac_initial(g[0], g[1], g[2])
                          : r->periodic ? 0.0 : jac_boundary(g[0], g[1], g[2]);
        r->u[at] = r->v[at] = x;
      }
}

/* global sum, min and max of the owned cells (untimed checks) */
static void owned_stats(const run_t *r, double out[3])
{
  const hk_field_layout_t *L = &r->L;
  double s = 0.0, lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for collapse(2) reduction(+ : s) reduction(min : lo) reduction(max : hi)
  for (int k = 0; k < L->n[2]; k++)
    for (int j = 0; j < L->n[1]; j++)
      for (int i = 0; i < L->n[0]; i++) {
        double x = r->u[L->offset + i + j * L->sy + k * L->sz];
        s += x;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
      }
  double in[2] = {lo, -hi}, mm[2];
  MPI_Allreduce(&s, &out[0], 1, MPI_DOUBLE, MPI_SUM, hk_cart_comm(r->cart));
  MPI_Allreduce(in, mm, 2, MPI_DOUBLE, MPI_MIN, hk_cart_comm(r->cart));
  out[1] = mm[0];
  out[2] = -mm[1];
}

static int check_invariant(const run_t *r, int sweep)
{
  double st[3];
  owned_stats(r, st);
  if (r->periodic) {
    double tol = 1e-10 * fmax(1.0, fabs(r->sum0));
    if (fabs(st[0] - r->sum0) > tol)
      return hk_error_set(HK_ERR_STATE,
                          "invariant violated after sweep %d: global sum %.17g, initially %.17g "
                          "(periodic Jacobi conserves it)",
                          sweep, st[0], r->sum0);
  } else {
    double slack = 1e-12 * fmax(fabs(r->lo0), fabs(r->hi0));
    if (st[1] < r->lo0 - slack || st[2] > r->hi0 + slack)
      return hk_error_set(HK_ERR_STATE,
                          "invariant violated after sweep %d: values in [%.17g, %.17g] leave "
                          "the initial range [%.17g, %.17g]",
                          sweep, st[1], st[2], r->lo0, r->hi0);
  }
  return HK_SUCCESS;
}

/* the plan's thread count and whether a mode overlaps (both valid here: no error) */
static int halo_threads(const hk_halo_t *h)
{
  int t = 1;
  hk_halo_threads(h, &t);
  return t;
}

static int mode_overlaps(hk_mode_t m)
{
  int o = 0;
  hk_mode_overlaps(m, &o);
  return o;
}

/* one further sweep u -> v on the region with `extend` ghost layers, all threads */
static void plain_sweep(run_t *r, int extend)
{
  hk_halo_regions_t rg;
  hk_halo_regions(r->halo, extend, &rg);
  const hk_box_t U = rg.all;
  jac_sweep_t s = {.u = r->u, .v = r->v, .L = r->L, .nt_stores = r->nt, .xwrap = r->xwrap};
  int outer = r->L.dims == 3 ? 2 : 1;
#pragma omp parallel for schedule(static) num_threads(halo_threads(r->halo))
  for (int q = U.lo[outer]; q < U.hi[outer]; q++) {
    hk_box_t b = U;
    b.lo[outer] = q;
    b.hi[outer] = q + 1;
    r->update(&b, &s);
  }
}

/* the L2 of one core and the share of the L3 of `threads` cores (hwloc; 0 where
 * unknown, e.g. a synthetic topology without caches) */
static void cache_shares(int threads, long long *l2, long long *l3)
{
  const hk_machine_t *m = NULL;
  hk_machine_info_t mi;
  if (hk_machine_this(&m) == HK_SUCCESS && hk_machine_info(m, &mi) == HK_SUCCESS && mi.cores > 0)
    for (int c = 0; c < mi.cache_levels; c++) {
      if (mi.cache[c].level == 2)
        *l2 = mi.cache[c].size_bytes;
      if (mi.cache[c].level == 3)
        *l3 = mi.cache[c].size_bytes * mi.cache[c].count / mi.cores * threads;
    }
}

static int measure_bandwidth(MPI_Comm comm, const run_t *r, jac_stream_t *bw)
{
  int local = jac_stream_measure(comm, 1LL << 24, 5, halo_threads(r->halo), bw) == 0
                  ? HK_SUCCESS
                  : hk_error_set(HK_ERR_NOMEM, "no memory for the bandwidth test");
  return hk_agree(comm, local);
}

/* b sweeps after one exchange as a wavefront, when on and no invariant check
 * falls inside the batch (the intermediate sweeps are never whole fields) */
static int wave_batch(run_t *r, int b, int done)
{
  if (!r->wave.mem || b < 2)
    return 0;
  if (opt.check_every > 0 && (done / opt.check_every + 1) * opt.check_every < done + b)
    return 0;
  return 1;
}

static int wavefront(run_t *r, int b)
{
  int err = hk_halo_exchange(r->halo, r->u);
  if (err != HK_SUCCESS)
    return err;
  hk_halo_regions_t rg;
  for (int s = 0; s < b && err == HK_SUCCESS; s++) {
    err = hk_halo_regions(r->halo, b - 1 - s, &rg);
    r->regions[s] = rg.all;
  }
  if (err == HK_SUCCESS) {
    double t0 = omp_get_wtime();
    jac_wave3d(&r->wave, r->u, r->v, &r->L, b, r->regions);
    r->t_sweeps += omp_get_wtime() - t0;
    double *t = r->u;
    r->u = r->v;
    r->v = t;
  }
  return err;
}

/* `sweeps` sweeps in batches of w: exchange + first sweep, then w-1 more */
static int sweep(run_t *r, int sweeps, int first, int *done, double *t_check)
{
  int err = HK_SUCCESS;
  while (*done < first + sweeps && err == HK_SUCCESS) {
    int b = first + sweeps - *done < r->L.width ? first + sweeps - *done : r->L.width;
    if (wave_batch(r, b, *done)) {
      err = wavefront(r, b); /* result in u (swapped) */
      *done += b;
      if (err == HK_SUCCESS && opt.check_every > 0 && *done % opt.check_every == 0) {
        double t0 = MPI_Wtime();
        err = check_invariant(r, *done);
        *t_check += MPI_Wtime() - t0;
      }
      continue;
    }
    jac_sweep_t s = {.u = r->u, .v = r->v, .L = r->L, .nt_stores = r->nt, .xwrap = r->xwrap};
    hk_halo_work_t work = {.update = r->update, .arg = &s, .extend = b - 1};
    err = hk_halo_step(r->halo, r->u, &work);
    for (int k = 1; k <= b && err == HK_SUCCESS; k++) {
      double *t = r->u;
      r->u = r->v;
      r->v = t;
      (*done)++;
      if (k < b) {
        double t0 = omp_get_wtime();
        plain_sweep(r, b - 1 - k);
        r->t_sweeps += omp_get_wtime() - t0;
      }
      if (opt.check_every > 0 && *done % opt.check_every == 0) {
        double t0 = MPI_Wtime();
        err = check_invariant(r, *done);
        *t_check += MPI_Wtime() - t0;
      }
    }
  }
  return err;
}

/* gather the owned field on rank 0 and compare with the serial reference */
static int verify_reference(run_t *r, int sweeps, long long *ndiff, double *maxdiff)
{
  const hk_field_layout_t *L = &r->L;
  MPI_Comm comm = hk_cart_comm(r->cart);
  long long cells = (long long)L->n[0] * L->n[1] * L->n[2];
  long long G = r->cd.global[0] * r->cd.global[1] * r->cd.global[2];
  double *mine = malloc((size_t)cells * sizeof *mine), *all = NULL, *ref = NULL;
  int *counts = NULL, *displs = NULL, local = HK_SUCCESS;
  if (!mine)
    local = hk_error_set(HK_ERR_NOMEM, "no memory for the gather");
  for (long long c = 0, k = 0; k < L->n[2] && mine; k++)
    for (int j = 0; j < L->n[1]; j++)
      for (int i = 0; i < L->n[0]; i++)
        mine[c++] = r->u[L->offset + i + j * L->sy + k * L->sz];
  if (r->ci.rank == 0) {
    all = malloc((size_t)G * sizeof *all);
    ref = malloc((size_t)G * sizeof *ref);
    counts = malloc((size_t)r->ci.size * sizeof *counts);
    displs = malloc((size_t)r->ci.size * sizeof *displs);
    if (!all || !ref || !counts || !displs)
      local = hk_error_set(HK_ERR_NOMEM, "no memory for the reference (%lld cells)", G);
  }
  int err = hk_agree(comm, local);
  if (err == HK_SUCCESS) {
    if (r->ci.rank == 0)
      for (int p = 0, off = 0; p < r->ci.size; p++) {
        long long lo[3];
        int n[3];
        hk_cart_block(r->cart, p, lo, n);
        counts[p] = n[0] * n[1] * n[2];
        displs[p] = off;
        off += counts[p];
      }
    MPI_Gatherv(mine, (int)cells, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, comm);
    if (r->ci.rank == 0) {
      *ndiff = 0;
      *maxdiff = 0.0;
      if (jacobi_ref_stencil(L->dims, r->cd.global, r->periodic, sweeps, opt.stencil, ref) != 0)
        local = hk_error_set(HK_ERR_NOMEM, "no memory for the reference");
      for (int p = 0; p < r->ci.size && local == HK_SUCCESS; p++) {
        long long lo[3];
        int n[3];
        hk_cart_block(r->cart, p, lo, n);
        const double *blk = all + displs[p];
        for (long long c = 0, k = 0; k < n[2]; k++)
          for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++, c++) {
              long long g = (lo[0] + i) +
                            r->cd.global[0] * ((lo[1] + j) + r->cd.global[1] * (lo[2] + k));
              if (blk[c] != ref[g]) {
                (*ndiff)++;
                *maxdiff = fmax(*maxdiff, fabs(blk[c] - ref[g]));
              }
            }
      }
      if (local == HK_SUCCESS && *ndiff)
        local = hk_error_set(HK_ERR_STATE,
                             "%lld of %lld cells differ from the serial reference (max |diff| "
                             "%.3g): not bit-identical",
                             *ndiff, G, *maxdiff);
    }
    err = hk_agree(comm, local);
  }
  free(mine);
  free(all);
  free(ref);
  free(counts);
  free(displs);
  return err;
}

/* per-exchange time of the engine (the run's mode) and of the hand-written loop */
typedef struct exchange_cmp {
  double engine, baseline;
  long long mismatches;
} exchange_cmp_t;

static int compare_sendrecv(run_t *r, int n, exchange_cmp_t *out)
{
  const hk_field_layout_t *L = &r->L;
  MPI_Comm comm = hk_cart_comm(r->cart);
  const int skip[3] = {r->xwrap, 0, 0}; /* the engine's plan leaves these out too */
  size_t nb = jac_sendrecv_bufsize(L);
  double *sbuf = malloc(nb * sizeof *sbuf), *rbuf = malloc(nb * sizeof *rbuf);
  double *ref = malloc(L->count * sizeof *ref);
  int local = sbuf && rbuf && ref ? HK_SUCCESS : hk_error_set(HK_ERR_NOMEM, "no memory");
  int err = hk_agree(comm, local);
  for (int rep = 0; err == HK_SUCCESS && rep < 2; rep++) { /* rep 0: warm-up */
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n && local == HK_SUCCESS; i++)
      local = hk_halo_exchange(r->halo, r->u);
    double t1 = MPI_Wtime();
    MPI_Barrier(comm);
    double t2 = MPI_Wtime();
    for (int i = 0; i < n && local == HK_SUCCESS; i++)
      local = jac_sendrecv_exchange(r->cart, L, skip, r->u, sbuf, rbuf);
    double t3 = MPI_Wtime();
    out->engine = (t1 - t0) / n;
    out->baseline = (t3 - t2) / n;
    err = hk_agree(comm, local);
  }
  /* the baseline fills the face ghosts exactly as the engine does */
  out->mismatches = 0;
  if (err == HK_SUCCESS) {
    for (size_t i = 0; i < L->count; i++)
      ref[i] = r->u[i];
    err = hk_agree(comm, hk_halo_exchange(r->halo, ref));
  }
  if (err == HK_SUCCESS) {
    for (size_t i = 0; i < L->count; i++)
      r->u[i] = -1.0;
    for (int k = 0; k < L->n[2]; k++)
      for (int j = 0; j < L->n[1]; j++)
        for (int i = 0; i < L->n[0]; i++) {
          long long at = L->offset + i + j * L->sy + k * L->sz;
          r->u[at] = ref[at];
        }
    err = hk_agree(comm, jac_sendrecv_exchange(r->cart, L, skip, r->u, sbuf, rbuf));
    int w = L->width, kw = L->dims == 3 ? w : 0;
    for (int k = -kw; k < L->n[2] + kw && err == HK_SUCCESS; k++)
      for (int j = -w; j < L->n[1] + w; j++)
        for (int i = -w; i < L->n[0] + w; i++) {
          int outside = (i < 0 || i >= L->n[0]) + (j < 0 || j >= L->n[1]) + (k < 0 || k >= L->n[2]);
          if (skip[0] && (i < 0 || i >= L->n[0]))
            continue; /* x ghosts nobody fills or reads */
          long long at = L->offset + i + j * L->sy + k * L->sz;
          if (outside == 1 && ref[at] != r->u[at])
            out->mismatches++;
        }
    for (size_t i = 0; i < L->count; i++) /* leave the field as it was */
      r->u[i] = ref[i];
    long long total = 0;
    MPI_Allreduce(&out->mismatches, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
    out->mismatches = total;
    if (total && err == HK_SUCCESS)
      err = hk_error_set(HK_ERR_STATE, "the hand-written exchange disagrees with the engine in "
                         "%lld face ghost cells", total);
  }
  free(sbuf);
  free(rbuf);
  free(ref);
  return err;
}

/* The time of one iteration on this rank split into disjoint phases that add up to the
 * measured time per iteration (the report stacks exactly these):
 *   pack, post, wait, unpack  what the communication costs the wall time: the engine's
 *                             post / wait / unpack scaled to its communicating threads'
 *                             span (comm); in modes where a thread communicates while others
 *                             compute the interior, only the part of comm that outlasts the
 *                             interior is exposed (the tail of post -> wait -> unpack)
 *   compute                   every update (whole region, interior, boundary, extra sweeps)
 *   other                     the measured time minus the phases (fork/join, imbalance)
 *   hidden                    communication done while the interior was computed: not a
 *                             phase of the wall time */
typedef struct jac_phases {
  double pack, post, wait, unpack, compute, other, hidden;
} jac_phases_t;

static jac_phases_t phases(const run_t *r, const hk_halo_stats_t *hs, double t_iter)
{
  jac_phases_t p = {0};
  double per = opt.iters > 0 ? 1.0 / opt.iters : 0.0;
  double post = hs->post * per, wait = hs->wait * per, unpack = hs->unpack * per;
  double comm = hs->comm * per, sum = post + wait + unpack;
  double scale = sum > 0 ? comm / sum : 0.0;
  post *= scale;
  wait *= scale;
  unpack *= scale;
  hk_mode_t mode = hk_halo_mode(r->halo);
  int m = mode == HK_MODE_MULTIPLE_RESERVED ? (opt.reserved > 0 ? opt.reserved : 1) : 1;
  int concurrent = mode_overlaps(mode) && mode != HK_MODE_PURE_NB &&
                   halo_threads(r->halo) > m;
  p.pack = hs->pack * per;
  p.compute = (hs->update + hs->interior + hs->boundary + r->t_sweeps) * per;
  if (concurrent) {
    double exposed = fmax(0.0, comm - hs->interior * per);
    p.hidden = comm - exposed;
    p.unpack = fmin(unpack, exposed);
    p.wait = fmin(wait, exposed - p.unpack);
    p.post = fmax(0.0, exposed - p.unpack - p.wait);
  } else {
    p.post = post;
    p.wait = wait;
    p.unpack = unpack;
  }
  p.other = t_iter - (p.pack + p.post + p.wait + p.unpack + p.compute);
  return p;
}

/* a bandwidth that differs more than this before and after the sweeps is reported */
#define JAC_ROOFLINE_SPREAD 0.15

/* bw: NULL, or the measurements before and after the sweeps */
static int report(run_t *r, double t_iter, int verified, long long ndiff, const jac_stream_t *bw,
                  double check_time, const exchange_cmp_t *cmp)
{
  int err;
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  hk_reporter_desc_t rd = {.program = app.program, .output = opt.output,
                           .table_style = HK_TABLE_LIST};
  MPI_Comm comm = hk_cart_comm(r->cart);
  if ((err = hk_reporter_create(comm, &rd, &rep)) != HK_SUCCESS)
    return err;
  hk_halo_stats_t hs;
  hk_halo_stats(r->halo, &hs);
  long long cells = r->cd.global[0] * r->cd.global[1] * r->cd.global[2];
  hk_stats_t tt;
  hk_stats_reduce(comm, t_iter, &tt);
  double per = hs.exchanges ? 1.0 / (double)hs.exchanges : 0.0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  char procs[48], grid[64];
  snprintf(procs, sizeof procs, "%dx%dx%d", r->ci.procs[0], r->ci.procs[1], r->ci.procs[2]);
  snprintf(grid, sizeof grid, "%lldx%lldx%lld", r->cd.global[0], r->cd.global[1], r->cd.global[2]);
  double mlups = (double)cells / tt.max / 1e6;
  hk_reporter_config(rep, "problem", "%dD %s, grid %s, %s boundaries, halo width %d, %s stencil",
                     r->L.dims, r->L.dims == 2 ? "5-point heat" : opt.stencil == 27 ? "27-point Jacobi"
                                                                   : "7-point Jacobi", grid,
                     opt.boundary, r->L.width,
                     r->cd.stencil == HK_STENCIL_FULL ? "full" : "faces");
  hk_reporter_config(rep, "decomposition", "%s processes, %s mapping%s%s", procs,
                     hk_cart_map_name(r->ci.map_used), r->ci.note[0] ? ": " : "", r->ci.note);
  err = hk_record_create(rep, "jacobi", &rec);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "mode", hk_mode_name(hk_halo_mode(r->halo)));
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "dims", r->L.dims);
  if (err == HK_SUCCESS) /* points of the stencil, and which ghosts its halo exchanges */
    err = hk_record_param_int(rec, "stencil", r->L.dims == 2 ? 5 : opt.stencil);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "halo_stencil", r->cd.stencil == HK_STENCIL_FULL ? "full" : "faces");
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "grid", grid);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "procs", procs);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "threads", halo_threads(r->halo));
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "iters", opt.iters);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "halo_width", r->L.width);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "boundary", opt.boundary);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "map", hk_cart_map_name(r->ci.map_used));
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "reserved", opt.reserved);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "temporal", r->wave.mem ? "wavefront" : "off");
  if (err == HK_SUCCESS && r->wave.mem)
    err = hk_record_param_int(rec, "wave_rows", r->wave.rows);
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "mlups", mlups, "MLUP/s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "time_per_iter", t_iter, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "pack", hs.pack * per, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "post", hs.post * per, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "wait", hs.wait * per, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "unpack", hs.unpack * per, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "comm", hs.comm * per, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "compute", (hs.update + hs.interior + hs.boundary + r->t_sweeps) * per,
                          "s");
  jac_phases_t ph = phases(r, &hs, t_iter);
  const struct { const char *name; double value; } phase_fields[] = {
    {"phase_pack", ph.pack},       {"phase_post", ph.post},   {"phase_wait", ph.wait},
    {"phase_unpack", ph.unpack},   {"phase_compute", ph.compute},
    {"phase_other", ph.other},     {"hidden_comm", ph.hidden}};
  for (size_t i = 0; i < sizeof phase_fields / sizeof *phase_fields && err == HK_SUCCESS; i++)
    err = hk_record_stats(rec, phase_fields[i].name, phase_fields[i].value, "s");
  if (mode_overlaps(hk_halo_mode(r->halo))) {
    double hidden = hs.comm > 0 ? fmin(hs.comm, hs.interior) / hs.comm : 1.0;
    if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "overlap", hidden, "fraction");
  }
  if (err == HK_SUCCESS)
    err = hk_app_record_halo_bytes(rec, comm, &hs, NULL);
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "maxrss", (double)ru.ru_maxrss, "KiB");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "check_time", check_time, "s");
  if (err == HK_SUCCESS)
    err = hk_record_value_int(rec, "reference_diffs", verified ? ndiff : -1, NULL);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "verification", verified ? "reference+invariant" : "invariant");
  if (err == HK_SUCCESS && r->L.dims == 3)
    err = hk_record_param_str(rec, "stores", r->nt ? "non-temporal" : "cached");
  if (err == HK_SUCCESS && r->L.dims == 3)
    err = hk_record_param_str(rec, "x_wrap", r->xwrap ? "sweeps" : "halo");
  if (bw) {
    /* the prediction for the stores the sweeps use: one element of the scale kernel
     * with the same kind of stores moves what one lattice update moves; the mean of
     * the measurements before and after the sweeps */
    double eps[2], sum[2];
    for (int k = 0; k < 2; k++)
      eps[k] = r->nt ? bw[k].elements_per_s_nt : bw[k].elements_per_s;
    MPI_Allreduce(eps, sum, 2, MPI_DOUBLE, MPI_SUM, comm);
    double pred = (sum[0] + sum[1]) / 2e6, spread = fabs(sum[0] - sum[1]) / fmax(sum[0], sum[1]);
    if (err == HK_SUCCESS)
      err = hk_record_stats(rec, "stream_bw", bw[0].bw_stream, "B/s");
    if (err == HK_SUCCESS && bw[0].elements_per_s_nt > 0)
      err = hk_record_stats(rec, "stream_nt_bw", 16.0 * bw[0].elements_per_s_nt, "B/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "roofline_mlups", pred, "MLUP/s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "roofline_efficiency", mlups / pred, "fraction");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "roofline_spread", spread, "fraction");
    if (err == HK_SUCCESS && spread > JAC_ROOFLINE_SPREAD)
      err = hk_record_warning(rec,
                              "the bandwidth changed by %.0f %% during the run (%.0f MLUP/s "
                              "predicted before the sweeps, %.0f after): the efficiency is uncertain",
                              100.0 * spread, sum[0] / 1e6, sum[1] / 1e6);
  }
  if (err == HK_SUCCESS && hk_halo_mode(r->halo) <= HK_MODE_PURE_NB && omp_get_max_threads() > 1)
    err = hk_record_warning(rec, "%s mode runs 1 thread per rank; %d OpenMP threads were available",
                            hk_mode_name(hk_halo_mode(r->halo)), omp_get_max_threads());
  if (err == HK_SUCCESS)
    err = hk_record_emit(&rec);
  if (err == HK_SUCCESS && cmp) {
    hk_stats_t e, b;
    hk_stats_reduce(comm, cmp->engine, &e);
    hk_stats_reduce(comm, cmp->baseline, &b);
    err = hk_record_create(rep, "jacobi.exchange", &rec);
    if (err == HK_SUCCESS)
      err = hk_record_param_str(rec, "mode", hk_mode_name(hk_halo_mode(r->halo)));
    if (err == HK_SUCCESS)
      err = hk_record_param_int(rec, "exchanges", opt.compare);
    if (err == HK_SUCCESS)
      err = hk_record_stats(rec, "engine", cmp->engine, "s");
    if (err == HK_SUCCESS)
      err = hk_record_stats(rec, "sendrecv_loop", cmp->baseline, "s");
    if (err == HK_SUCCESS)
      err = hk_record_value(rec, "engine_over_sendrecv", e.max / b.max, "ratio of max");
    if (err == HK_SUCCESS && r->cd.stencil != HK_STENCIL_FACES)
      err = hk_record_warning(rec, "the engine exchanges edges and corners too (halo width > 1 "
                                   "or 27 points); the loop only faces");
    if (err == HK_SUCCESS)
      err = hk_record_emit(&rec);
  }
  hk_record_discard(&rec);
  hk_reporter_destroy(&rep);
  return hk_agree(comm, err);
}

/* the memory of a run, estimated before allocating it (in double: no overflow): two
 * fields of the block with ghosts and row padding, the halo buffers (a face of w layers
 * on both sides of each decomposed or periodic dimension, sent and received), and on
 * rank 0 the gathered field and the reference when verifying */
static int check_memory(const run_t *r)
{
  const hk_cart_info_t *ci = &r->ci;
  const double w = opt.width;
  double ext[3], cells = 1, bufs = 0, global = 1;
  for (int d = 0; d < 3; d++) {
    ext[d] = d < opt.dims ? ci->n[d] + 2 * w : 1;
    global *= (double)ci->global[d];
  }
  ext[0] += 2 * HK_FIELD_ALIGN; /* front pad and row rounding */
  for (int d = 0; d < 3; d++)
    cells *= ext[d];
  for (int d = 0; d < opt.dims; d++)
    if (ci->procs[d] > 1 || ci->periodic[d])
      bufs += 2 * 2 * w * cells / ext[d];
  double need = (2 * cells + bufs) * sizeof(double);
  if (ci->rank == 0 && (!strcmp(opt.verify, "on") ||
                        (!strcmp(opt.verify, "auto") && global <= (double)(1LL << 21))))
    need += 2 * global * sizeof(double);
  char what[160];
  snprintf(what, sizeof what, "2 fields of %.0fx%.0fx%.0f cells", ext[0], ext[1],
           ext[2]);
  return hk_app_mem_check(hk_cart_comm(r->cart), need, what);
}

static int run(void *unused)
{
  (void)unused;
  int err = HK_SUCCESS;
  run_t r = {0};
  hk_mode_t mode;
  hk_cart_map_t map;
  long long G[3];
  if ((err = check_options()) || (err = parse_grid(G)) || (err = hk_mode_parse(opt.mode, &mode)) ||
      (err = hk_cart_map_parse(opt.map, &map)))
    return hk_agree(MPI_COMM_WORLD, err);
  r.periodic = !strcmp(opt.boundary, "periodic");
  r.update = opt.dims == 2 ? jac_update2d : opt.stencil == 27 ? jac_update27 : jac_update3d;
  /* edges and corners: read by the 27-point stencil, and by w > 1 sweeps per exchange */
  r.cd = (hk_cart_desc_t){.dims = opt.dims, .map = map, .halo_width = opt.width,
                          .stencil = opt.width > 1 || opt.stencil == 27 ? HK_STENCIL_FULL
                                                                        : HK_STENCIL_FACES};
  for (int d = 0; d < 3; d++) {
    r.cd.global[d] = G[d];
    r.cd.periodic[d] = d < opt.dims ? r.periodic : 0;
  }
  if ((err = hk_cart_create(MPI_COMM_WORLD, NULL, &r.cd, &r.cart)) != HK_SUCCESS)
    return err;
  hk_cart_info(r.cart, &r.ci);
  /* 3D, x periodic and not decomposed: every rank is its own x neighbour.  Then the
   * sweeps wrap x themselves and the halo engine leaves x to them (self_wrap): it
   * neither copies x faces (a cache line per row on each side) nor has the sweeps
   * update ghost columns (a whole vector on each side in x) */
  r.xwrap = opt.dims == 3 && r.periodic && r.ci.procs[0] == 1 && !strcmp(opt.xwrap, "on");
  MPI_Comm comm = hk_cart_comm(r.cart);
  if ((err = check_memory(&r)) != HK_SUCCESS)
    goto done;
  hk_halo_desc_t hd = {.cart = r.cart, .width = opt.width, .stencil = r.cd.stencil, .mode = mode,
                       .reserved = opt.reserved, .radius = 1, .self_wrap = {r.xwrap, 0, 0}};
  if ((err = hk_halo_create(&hd, &r.halo)) != HK_SUCCESS)
    goto done;
  hk_halo_layout(r.halo, &r.L);
  int local = hk_halo_field_alloc(r.halo, &r.u);
  if (local == HK_SUCCESS)
    local = hk_halo_field_alloc(r.halo, &r.v);
  if ((err = hk_agree(comm, local)) != HK_SUCCESS)
    goto done;
  initialise(&r);
  long long l2 = 0, l3 = 0;
  cache_shares(halo_threads(r.halo), &l2, &l3);
  /* non-temporal stores pay where the field leaves the caches before it is read again
   * anyway (a choice of each rank's own; the roofline follows it) */
  r.nt = opt.dims == 3 && opt.stencil == 7 && jac_nt_available() &&
         (!strcmp(opt.stores, "nt") ||
          (!strcmp(opt.stores, "auto") &&
           (double)r.L.count * sizeof(double) > 4.0 * (double)(l3 > 0 ? l3 : JAC_L3_DEFAULT)));
  if (opt.dims == 3 && opt.width > 1 && !strcmp(opt.temporal, "on") && !mode_overlaps(mode)) {
    local = jac_wave_alloc(&r.wave, &r.L, opt.width, opt.wave_rows, halo_threads(r.halo), l2, l3,
                           r.nt, r.xwrap);
    r.wave.stencil27 = opt.stencil == 27;
    if (local == HK_SUCCESS && !(r.regions = calloc((size_t)opt.width, sizeof *r.regions)))
      local = hk_error_set(HK_ERR_NOMEM, "no memory");
    if ((err = hk_agree(comm, local)) != HK_SUCCESS)
      goto done;
  }

  double cells = (double)G[0] * (double)G[1] * (double)G[2];
  int verify = !strcmp(opt.verify, "on") || (!strcmp(opt.verify, "auto") && cells <= (1LL << 21));
  if (opt.check_every < 0)
    opt.check_every = verify ? 1 : 0;
  double st[3];
  owned_stats(&r, st);
  r.sum0 = st[0];
  r.lo0 = st[1];
  r.hi0 = st[2];
  if (!r.periodic) { /* the boundary values bound the solution too */
    r.lo0 = fmin(r.lo0, 0.0);
    r.hi0 = fmax(r.hi0, 1.0);
  }

  /* the bandwidth before and after the timed sweeps: all ranks measure together (those
   * of a node share its bandwidth) */
  jac_stream_t bw[2], *bwp = NULL;
  if (opt.roofline) {
    if ((err = measure_bandwidth(comm, &r, &bw[0])) != HK_SUCCESS)
      goto done;
    bwp = bw;
  }

  int done_sweeps = 0;
  double t_check = 0.0;
  err = hk_agree(comm, sweep(&r, opt.warmup, 0, &done_sweeps, &t_check));
  if (err != HK_SUCCESS)
    goto done;
  hk_halo_stats_reset(r.halo);
  t_check = 0.0;
  r.t_sweeps = 0.0;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  local = sweep(&r, opt.iters, opt.warmup, &done_sweeps, &t_check);
  /* --min-time: more sweeps until the timed ones last that long (every rank agrees on the
   * slowest rank's time; the guess aims 10 % beyond, whole halo widths) */
  while ((err = hk_agree(comm, local)) == HK_SUCCESS && opt.min_time > 0.0) {
    double el = MPI_Wtime() - t0 - t_check, slowest = el;
    MPI_Allreduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (slowest >= opt.min_time)
      break;
    double want = slowest > 0 ? opt.iters * (1.1 * opt.min_time / slowest - 1.0) : opt.iters;
    int more = want > 1e6 ? 1000000 : (int)ceil(want);
    more = (more + r.L.width - 1) / r.L.width * r.L.width;
    local = sweep(&r, more, done_sweeps, &done_sweeps, &t_check);
    opt.iters += more;
  }
  double t_iter = (MPI_Wtime() - t0 - t_check) / opt.iters;
  if (err != HK_SUCCESS)
    goto done;
  if ((err = hk_agree(comm, check_invariant(&r, done_sweeps))) != HK_SUCCESS)
    goto done;
  if (opt.roofline && (err = measure_bandwidth(comm, &r, &bw[1])) != HK_SUCCESS)
    goto done;
  long long ndiff = 0;
  double maxdiff = 0.0;
  if (verify && (err = verify_reference(&r, done_sweeps, &ndiff, &maxdiff)) != HK_SUCCESS)
    goto done;
  exchange_cmp_t cmp, *cmpp = NULL;
  if (opt.compare > 0) {
    if ((err = compare_sendrecv(&r, opt.compare, &cmp)) != HK_SUCCESS)
      goto done;
    cmpp = &cmp;
  }
  err = report(&r, t_iter, verify, ndiff, bwp, t_check, cmpp);
  if (err == HK_SUCCESS && r.ci.rank == 0)
    printf("# Verification = SUCCESSFUL (%s)\n",
           verify ? "bit-identical to the serial reference, invariant holds" : "invariant holds");
done:
  jac_wave_free(&r.wave);
  free(r.regions);
  hk_halo_field_free(&r.u);
  hk_halo_field_free(&r.v);
  hk_halo_destroy(&r.halo);
  hk_cart_destroy(&r.cart);
  return err;
}

int main(int argc, char **argv)
{
  int done = 0;
  int err = hk_app_parse(&app, argc, argv, &done);
  if (done)
    return HK_EXIT_OK;
  hk_mode_t mode = HK_MODE_MASTERONLY;
  if (err == HK_SUCCESS)
    err = hk_mode_parse(opt.mode, &mode);
  hk_thread_level_t level = hk_mode_thread_level(err == HK_SUCCESS ? mode : HK_MODE_PURE);
  return hk_app_run(&app, &argc, &argv, level, level, err, run, NULL);
}
