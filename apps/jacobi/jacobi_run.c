/* apps/jacobi/jacobi_run.c: hk-jacobi's run: decomposition and halo plan, the
 * sweeps in batches of w (exchange + first sweep the mode's way, w-1 more on
 * shrinking regions, or one wavefront), timing, then verification and records. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "jacobi.h"
#include "kernel.h"

static long long gidx(const jac_run_t *r, int d, int l) { return r->ci.lo[d] + l; }

/* initial values in u and v: owned cells, and the Dirichlet ghosts at global edges */
static void initialise(jac_run_t *r)
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

/* the sweep u -> v of this run (hk-jacobi's own sweeps take the lean streaming loop) */
static jac_sweep_t sweep_args(const jac_run_t *r)
{
  return (jac_sweep_t){.u = r->u, .v = r->v, .L = r->L, .nt_stores = r->nt, .xwrap = r->xwrap,
                       .layer_bytes = r->layer_bytes, .stream = 1};
}

/* one further sweep u -> v on the region with `extend` ghost layers, all threads */
static void plain_sweep(jac_run_t *r, int extend)
{
  hk_halo_regions_t rg;
  hk_halo_regions(r->halo, extend, &rg);
  const hk_box_t U = rg.all;
  jac_sweep_t s = sweep_args(r);
  int outer = r->L.dims == 3 ? 2 : 1;
#pragma omp parallel for schedule(static) num_threads(jac_halo_threads(r->halo))
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
  hk_machine_info_t mi;
  if (hk_app_machine_info(&mi) == HK_SUCCESS && mi.cores > 0)
    for (int c = 0; c < mi.cache_levels; c++) {
      if (mi.cache[c].level == 2)
        *l2 = mi.cache[c].size_bytes;
      if (mi.cache[c].level == 3)
        *l3 = mi.cache[c].size_bytes * mi.cache[c].count / mi.cores * threads;
    }
}

static int measure_bandwidth(MPI_Comm comm, const jac_run_t *r, jac_stream_t *bw)
{
  int local = jac_stream_measure(comm, jac_stream_elems(comm), 5, jac_halo_threads(r->halo), bw) == 0
                  ? HK_SUCCESS
                  : hk_error_set(HK_ERR_NOMEM, "no memory for the bandwidth test");
  return hk_agree(comm, local);
}

/* the kernel's in-core ceiling (stream.h), the run's threads, 200 sweeps x 5 */
static int measure_incore(MPI_Comm comm, const jac_run_t *r, double *mlups)
{
  int local = jac_incore_measure(comm, r->cfg->stencil, 200, 5, jac_halo_threads(r->halo), mlups) == 0
                  ? HK_SUCCESS
                  : hk_error_set(HK_ERR_NOMEM, "no memory for the in-core measurement");
  return hk_agree(comm, local);
}

/* in a mode that overlaps, the engine's step does the first sweep of a batch (the
 * interior hides the exchange) and the temporal scheme the others */
static int first_by_step(const jac_run_t *r) { return jac_mode_overlaps(hk_halo_mode(r->halo)); }

static void swap_fields(jac_run_t *r)
{
  double *t = r->u;
  r->u = r->v;
  r->v = t;
}

/* b sweeps after one exchange temporally blocked, when on, at least 2 of them are left
 * to the scheme and no invariant check falls inside the batch (the intermediate sweeps
 * are never whole fields) */
static int wave_batch(jac_run_t *r, int b, int done)
{
  if ((!r->wave.mem && !r->pipe.on) || b - first_by_step(r) < 2)
    return 0;
  if (r->check_every > 0 && (done / r->check_every + 1) * r->check_every < done + b)
    return 0;
  return 1;
}

/* the exchange (with the first sweep in a mode that overlaps), then the (other) sweeps of
 * the batch as a wavefront or a pipeline; the result in u */
static int temporal_batch(jac_run_t *r, int b)
{
  int err = HK_SUCCESS, first = first_by_step(r);
  if (first) {
    jac_sweep_t s = sweep_args(r);
    hk_halo_work_t work = {.update = r->update, .arg = &s, .extend = b - 1};
    HK_TRY(err, hk_halo_step(r->halo, r->u, &work));
    swap_fields(r);
  } else {
    HK_TRY(err, hk_halo_exchange(r->halo, r->u));
  }
  const int n = b - first;
  hk_halo_regions_t rg;
  for (int s = 0; s < n; s++) {
    HK_TRY(err, hk_halo_regions(r->halo, n - 1 - s, &rg));
    r->regions[s] = rg.all;
  }
  double t0 = hk_wtime();
  if (r->pipe.on) {
    jac_pipe_run(&r->pipe, &r->u, &r->v, &r->L, n, r->regions, r->update);
  } else {
    jac_wave3d(&r->wave, r->u, r->v, &r->L, n, r->regions);
    swap_fields(r);
  }
  r->t_sweeps += hk_wtime() - t0;
cleanup:
  return err;
}

/* the invariant after `done` sweeps when one falls due (untimed: *t_check) */
static int check_due(const jac_run_t *r, int done, double *t_check)
{
  if (r->check_every <= 0 || done % r->check_every != 0)
    return HK_SUCCESS;
  double t0 = MPI_Wtime();
  int err = jac_check_invariant(r, done);
  *t_check += MPI_Wtime() - t0;
  return err;
}

/* b sweeps: the engine's step (exchange + first sweep), then b-1 more */
static int step_batch(jac_run_t *r, int b, int *done, double *t_check)
{
  jac_sweep_t s = sweep_args(r);
  hk_halo_work_t work = {.update = r->update, .arg = &s, .extend = b - 1};
  int err = hk_halo_step(r->halo, r->u, &work);
  for (int k = 1; k <= b && !err; k++) {
    swap_fields(r);
    (*done)++;
    if (k < b) {
      double t0 = hk_wtime();
      plain_sweep(r, b - 1 - k);
      r->t_sweeps += hk_wtime() - t0;
    }
    err = check_due(r, *done, t_check);
  }
  return err;
}

/* `sweeps` sweeps in batches of w: exchange + first sweep, then w-1 more */
static int sweep(jac_run_t *r, int sweeps, int first, int *done, double *t_check)
{
  int err = HK_SUCCESS;
  while (*done < first + sweeps && !err) {
    int b = first + sweeps - *done < r->L.width ? first + sweeps - *done : r->L.width;
    if (wave_batch(r, b, *done)) {
      err = temporal_batch(r, b); /* result in u */
      *done += b;
      r->temporal_sweeps += b;
      HK_LOCAL(err, check_due(r, *done, t_check));
    } else {
      err = step_batch(r, b, done, t_check);
    }
  }
  return err;
}

/* compare with the serial reference: asked for, or automatic for small grids */
static int jac_verifies(const jac_config_t *c, double cells)
{
  return c->verify == JAC_VERIFY_ON || (c->verify == JAC_VERIFY_AUTO && cells <= (double)(1LL << 21));
}

/* the memory of a run, estimated before allocating it (in double: no overflow): two
 * fields of the block with ghosts and row padding, the halo buffers (a face of w layers
 * on both sides of each decomposed or periodic dimension, sent and received), and on
 * rank 0 the gathered field and the reference when verifying */
static int check_memory(const jac_run_t *r)
{
  const hk_cart_info_t *ci = &r->ci;
  const jac_config_t *c = r->cfg;
  const double w = c->width;
  double ext[3], cells = 1, bufs = 0, global = 1;
  for (int d = 0; d < 3; d++) {
    ext[d] = d < c->dims ? ci->n[d] + 2 * w : 1;
    global *= (double)ci->global[d];
  }
  ext[0] += 2 * HK_FIELD_ALIGN; /* front pad and row rounding */
  for (int d = 0; d < 3; d++)
    cells *= ext[d];
  for (int d = 0; d < c->dims; d++)
    if (ci->procs[d] > 1 || ci->periodic[d])
      bufs += 2 * 2 * w * cells / ext[d];
  double need = (2 * cells + bufs) * sizeof(double);
  if (ci->rank == 0 && jac_verifies(c, global))
    need += 2 * global * sizeof(double);
  char what[160];
  snprintf(what, sizeof what, "2 fields of %.0fx%.0fx%.0f cells", ext[0], ext[1],
           ext[2]);
  return hk_app_mem_check(hk_cart_comm(r->cart), need, what);
}

/* the temporal scheme: the wavefront or the pipeline for the sweeps of an exchange but the
 * first in a mode that overlaps (the engine's step does it); where the scheme asked for by
 * name does not apply, one line (rank 0) says why and the sweeps run one after the other */
static int temporal_setup(jac_run_t *r, long long l2, long long l3)
{
  const jac_config_t *c = r->cfg;
  const int threads = jac_halo_threads(r->halo), first = first_by_step(r);
  const int blocked = c->width - first, pipe = c->temporal == JAC_TEMPORAL_PIPELINE;
  const char *name = jac_temporal_names[c->temporal], *mode = hk_mode_name(hk_halo_mode(r->halo));
  const int say = r->ci.rank == 0 && c->temporal != JAC_TEMPORAL_ON;
  if (c->temporal == JAC_TEMPORAL_OFF)
    return HK_SUCCESS;
  if (!pipe && c->dims != 3) {
    if (say)
      printf("# --temporal %s: the wavefront is 3D only (--temporal pipeline runs in 2D); the "
             "sweeps run one after the other\n", name);
    return HK_SUCCESS;
  }
  if (blocked < 2) {
    if (say)
      printf("# --temporal %s: needs 2 sweeps per exchange after %s (--halo-width >= %d); the "
             "sweeps run one after the other\n", name,
             first ? "the first, which the engine's step overlaps with the exchange in this mode"
                   : "it",
             2 + first);
    return HK_SUCCESS;
  }
  if (say && first)
    printf("# --temporal %s in mode %s: the engine's step does the first sweep of each exchange "
           "(overlapped), the %s the other %d\n", name, mode, pipe ? "pipeline" : "wavefront",
           blocked);
  if (say && pipe && blocked < threads)
    printf("# --temporal pipeline: %d stages (sweeps per exchange) for %d threads: %d idle "
           "(--halo-width %d uses them all)\n", blocked, threads, threads - blocked,
           threads + first);
  int err = pipe ? jac_pipe_init(&r->pipe, &c->pipe, blocked, threads, r->nt, r->xwrap, &r->L,
                                 l2, l3)
                 : jac_wave_alloc(&r->wave, &r->L, blocked, c->wave_rows, threads, l2, l3, r->nt,
                                  r->xwrap);
  r->wave.stencil27 = c->stencil == 27;
  HK_ALLOC_LOCAL(err, r->regions, c->width);
  return err;
}

/* decomposition, halo plan, fields and their initial values, stores and temporal scheme */
static int setup(jac_run_t *r)
{
  const jac_config_t *c = r->cfg;
  int err = HK_SUCCESS;
  r->periodic = c->boundary == JAC_PERIODIC;
  r->update = c->dims == 2 ? jac_update2d : c->stencil == 27 ? jac_update27 : jac_update3d;
  r->iters = c->iters;
  /* outer_first: of the least-surface grids the one splitting z first: 2 ranks on 256^3 got
   * 2x1x1 before (x faces packed a cell per row, x no longer wrapped by the sweeps: 0.86-1.22x
   * a plain OpenMP Jacobi on the same 2 cores); 1x1x2 sends contiguous planes */
  r->cd = (hk_cart_desc_t){.dims = c->dims, .map = c->map, .halo_width = c->width, .outer_first = 1,
                           /* edges and corners: read by the 27-point stencil, and by
                            * w > 1 sweeps per exchange */
                           .stencil = c->width > 1 || c->stencil == 27 ? HK_STENCIL_FULL
                                                                       : HK_STENCIL_FACES};
  for (int d = 0; d < 3; d++) {
    r->cd.global[d] = c->global[d];
    r->cd.periodic[d] = d < c->dims ? r->periodic : 0;
  }
  HK_TRY(err, hk_cart_create(MPI_COMM_WORLD, NULL, &r->cd, &r->cart)); /* agreed */
  hk_cart_info(r->cart, &r->ci);
  /* 3D, x periodic and not decomposed: every rank is its own x neighbour.  Then the
   * sweeps wrap x themselves and the halo engine leaves x to them (self_wrap): it
   * neither copies x faces (a cache line per row on each side) nor has the sweeps
   * update ghost columns (a whole vector on each side in x) */
  r->xwrap = c->dims == 3 && r->periodic && r->ci.procs[0] == 1 && c->xwrap;
  MPI_Comm comm = hk_cart_comm(r->cart);
  HK_TRY(err, check_memory(r)); /* agreed */
  hk_halo_desc_t hd = {.cart = r->cart, .width = c->width, .stencil = r->cd.stencil,
                       .mode = c->mode, .reserved = c->reserved, .radius = 1,
                       .self_wrap = {r->xwrap, 0, 0}};
  HK_TRY(err, hk_halo_create(&hd, &r->halo)); /* agreed */
  hk_halo_layout(r->halo, &r->L);
  HK_LOCAL(err, jac_layout_alloc(r));
  HK_AGREE(err, comm);
  initialise(r);
  long long l2 = 0, l3 = 0;
  cache_shares(jac_halo_threads(r->halo), &l2, &l3);
  /* the three plane slices of a block of rows in 2/5 of a core's L2: the plane above
   * streams from memory past them (docs/performance.md, "Issue 42") */
  r->layer_bytes = l2 > 0 ? l2 * 2 / 5 : 0;
  /* non-temporal stores pay where the field leaves the caches before it is read again
   * anyway (a choice of each rank's own; the roofline follows it) */
  r->try_stores = c->dims == 3 && c->stencil == 7 && jac_nt_available() &&
                  c->stores == JAC_STORES_AUTO;
  r->nt = c->dims == 3 && c->stencil == 7 && jac_nt_available() &&
          (c->stores == JAC_STORES_NT ||
           (c->stores == JAC_STORES_AUTO &&
            (double)r->L.count * sizeof(double) > 4.0 * (double)(l3 > 0 ? l3 : JAC_L3_DEFAULT)));
  HK_LOCAL(err, temporal_setup(r, l2, l3));
  HK_AGREE(err, comm);
cleanup:
  return err;
}

/* the invariants of the initial field */
static void set_invariants(jac_run_t *r)
{
  double st[3];
  jac_owned_stats(r, st);
  r->sum0 = st[0];
  r->lo0 = st[1];
  r->hi0 = st[2];
  if (!r->periodic) { /* the boundary values bound the solution too */
    r->lo0 = fmin(r->lo0, 0.0);
    r->hi0 = fmax(r->hi0, 1.0);
  }
}

static void set_stores(jac_run_t *r, int nt)
{
  r->nt = nt;
  r->wave.nt = nt;
  r->pipe.nt = nt;
}

/* --stores auto where the sweeps can write either way (r->try_stores): the first two
 * batches of the warm-up run with cached, then non-temporal stores, and the rest of the
 * run keeps the faster; the slowest rank's times decide, so every rank keeps the same.
 * What the caches hold is the machine's, not what hwloc says of them (a VM's L3 of
 * 480 MiB did not keep a 256^3 field: docs/performance.md, "Issue 42").  Without two
 * batches of warm-up the size rule of setup stands. */
static int warm_up(jac_run_t *r, int *done, double *t_check)
{
  const int w = r->L.width, n = r->cfg->warmup;
  MPI_Comm comm = hk_cart_comm(r->cart);
  int err = HK_SUCCESS;
  if (!r->try_stores || n < 2 * w) {
    HK_LOCAL(err, sweep(r, n, 0, done, t_check));
    HK_AGREE(err, comm);
    return err;
  }
  /* the first batch after the set-up finds caches cold that later ones find warm: it is
   * left untimed where the warm-up is long enough, else it tries non-temporal stores
   * (what it loses, cached stores gain: a field in cache keeps cached ones) */
  const int cold = n >= 3 * w;
  if (cold)
    HK_LOCAL(err, sweep(r, w, *done, done, t_check));
  double t[2], slowest[2];
  for (int k = 0; k < 2; k++) {
    const int nt = cold ? k : !k;
    set_stores(r, nt);
    double t0 = MPI_Wtime(), c0 = *t_check;
    HK_LOCAL(err, sweep(r, w, *done, done, t_check));
    t[nt] = MPI_Wtime() - t0 - (*t_check - c0);
  }
  HK_AGREE(err, comm);
  MPI_Allreduce(t, slowest, 2, MPI_DOUBLE, MPI_MAX, comm);
  set_stores(r, slowest[1] < slowest[0]);
  r->stores_tried = 1;
  r->stores_ms[0] = 1e3 * slowest[0] / w;
  r->stores_ms[1] = 1e3 * slowest[1] / w;
  HK_LOCAL(err, sweep(r, n - (2 + cold) * w, *done, done, t_check));
  HK_AGREE(err, comm);
cleanup:
  return err;
}

/* the warm-up, then the timed sweeps (--min-time: more until they last that long);
 * *t_iter: this rank's time per timed sweep, invariant checks excluded */
static int timed_sweeps(jac_run_t *r, int *done_sweeps, double *t_check, double *t_iter)
{
  const jac_config_t *c = r->cfg;
  MPI_Comm comm = hk_cart_comm(r->cart);
  int err = HK_SUCCESS;
  HK_TRY(err, warm_up(r, done_sweeps, t_check)); /* agreed */
  hk_halo_stats_reset(r->halo);
  *t_check = 0.0;
  r->t_sweeps = 0.0;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  HK_LOCAL(err, sweep(r, r->iters, c->warmup, done_sweeps, t_check));
  /* --min-time: more sweeps until the timed ones last that long (every rank agrees on the
   * slowest rank's time; the guess aims 10 % beyond, whole halo widths) */
  for (;;) {
    HK_AGREE(err, comm);
    if (!(c->min_time > 0.0))
      break;
    double el = MPI_Wtime() - t0 - *t_check, slowest = el;
    MPI_Allreduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (slowest >= c->min_time)
      break;
    double want = slowest > 0 ? r->iters * (1.1 * c->min_time / slowest - 1.0) : r->iters;
    int more = want > 1e6 ? 1000000 : (int)ceil(want);
    more = (more + r->L.width - 1) / r->L.width * r->L.width;
    HK_LOCAL(err, sweep(r, more, *done_sweeps, done_sweeps, t_check));
    r->iters += more;
  }
  *t_iter = (MPI_Wtime() - t0 - *t_check) / r->iters;
cleanup:
  return err;
}

/* after the sweeps: invariant, bandwidth, reference, Sendrecv comparison, records */
static int finish(jac_run_t *r, jac_outcome_t *o, jac_stream_t bw[2], int done_sweeps)
{
  const jac_config_t *c = r->cfg;
  MPI_Comm comm = hk_cart_comm(r->cart);
  double maxdiff = 0.0;
  jac_exchange_cmp_t cmp;
  int err = HK_SUCCESS;
  HK_LOCAL(err, jac_check_invariant(r, done_sweeps));
  HK_AGREE(err, comm);
  /* each of these returns an agreed error */
  if (c->roofline)
    HK_TRY(err, measure_bandwidth(comm, r, &bw[1]));
  if (c->roofline && c->dims == 3)
    HK_TRY(err, measure_incore(comm, r, &o->incore_mlups));
  if (o->verified)
    HK_TRY(err, jac_verify_reference(r, done_sweeps, &o->ndiff, &maxdiff));
  if (c->compare > 0)
    HK_TRY(err, jac_compare_sendrecv(r, c->compare, &cmp));
  o->cmp = c->compare > 0 ? &cmp : NULL;
  err = jac_report(r, o);
  o->cmp = NULL;
cleanup:
  return err;
}

int jac_run(void *arg)
{
  const jac_config_t *c = arg;
  jac_run_t r = {.cfg = c};
  jac_stream_t bw[2];
  jac_outcome_t o = {0};
  int done_sweeps = 0;
  int err = HK_SUCCESS;
  HK_TRY(err, setup(&r)); /* agreed, as every step below */
  o.verified = jac_verifies(c, (double)c->global[0] * (double)c->global[1] * (double)c->global[2]);
  r.check_every = c->check_every >= 0 ? c->check_every : o.verified ? 1 : 0;
  set_invariants(&r);
  /* the bandwidth before and after the timed sweeps: all ranks measure together (those
   * of a node share its bandwidth) */
  if (c->roofline)
    HK_TRY(err, measure_bandwidth(hk_cart_comm(r.cart), &r, &bw[0]));
  o.bw = c->roofline ? bw : NULL;
  HK_TRY(err, timed_sweeps(&r, &done_sweeps, &o.check_time, &o.t_iter));
  HK_TRY(err, finish(&r, &o, bw, done_sweeps));
  if (r.ci.rank == 0 && r.stores_tried)
    printf("# --stores auto: %s, timed in the warm-up (a sweep %.3g ms with cached stores, %.3g ms "
           "with non-temporal ones)\n", r.nt ? "non-temporal" : "cached", r.stores_ms[0],
           r.stores_ms[1]);
  /* a scheme asked for by name that did not run every batch says so */
  if (r.ci.rank == 0 && c->temporal != JAC_TEMPORAL_ON && (r.wave.mem || r.pipe.on) &&
      r.temporal_sweeps < done_sweeps)
    printf("# --temporal %s: %lld of %d sweeps ran temporally blocked; the others one after the "
           "other (an invariant check fell inside their batch: --check-every 0 or a multiple of "
           "w that the batches meet, or a batch of 1 sweep)\n",
           jac_temporal_names[c->temporal], r.temporal_sweeps, done_sweeps);
  if (r.ci.rank == 0)
    printf("# Verification = SUCCESSFUL (%s)\n",
           o.verified ? "bit-identical to the serial reference, invariant holds" : "invariant holds");
cleanup:
  jac_wave_free(&r.wave);
  jac_pipe_free(&r.pipe);
  free(r.regions);
  jac_layout_free(&r);
  hk_halo_destroy(&r.halo);
  hk_cart_destroy(&r.cart);
  return err;
}
