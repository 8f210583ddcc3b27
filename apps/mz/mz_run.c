/* apps/mz/mz_run.c: hk-mz's run: threads (nested with --zone-threads), zones and
 * their assignment to processes, the local zones, one untimed step, the timed steps
 * (exchange of the zone boundaries, then ADI per zone), verification and report. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bt.h"
#include "lu.h"
#include "mz.h"
#include "mz_split.h"
#include "sp.h"

/* SP and BT: initialize (and exact_rhs the first time); norms as verify.f of SP/BT-MZ */
static void adi_init(mz_adi_zone_t *z, int first)
{
  mz_adi_initialize(z);
  if (first)
    mz_adi_exact_rhs(z);
}

static void adi_norms(mz_adi_zone_t *z, double xcr[5], double xce[5], double *xci)
{
  mz_adi_error_norm(z, xce);
  mz_adi_compute_rhs(z);
  mz_adi_rhs_norm(z, xcr);
  for (int m = 0; m < 5; m++)
    xcr[m] /= z->c.dt;
  *xci = 0.0;
}

static const mz_solver_t solvers[MZ_NBENCH] = {
  [MZ_BENCH_SP] = {1, MZ_MAP_BLOCK, mz_sp_setup, mz_sp_adi, mz_sp_free, adi_init, adi_norms},
  [MZ_BENCH_BT] = {0, MZ_MAP_BINPACK, mz_bt_setup, mz_bt_adi, mz_bt_free, adi_init, adi_norms},
  [MZ_BENCH_LU] = {0, MZ_MAP_BLOCK, mz_lu_setup, mz_lu_ssor, mz_lu_free, mz_lu_init,
                   mz_lu_norms},
};

/* name the environment setting that switched nesting off, for the error message */
static const char *nesting_source(void)
{
  const char *v = getenv("OMP_MAX_ACTIVE_LEVELS");
  if (v && atoi(v) < 2)
    return "OMP_MAX_ACTIVE_LEVELS";
  v = getenv("OMP_NESTED");
  if (v && (!strcasecmp(v, "false") || !strcmp(v, "0")))
    return "OMP_NESTED";
  return NULL;
}

/* --zone-threads N: N outer threads over zones, OMP_NUM_THREADS / N inside each zone */
static int setup_threads(mz_run_t *r)
{
  r->threads = omp_get_max_threads();
  int n = r->cfg->zone_threads;
  if (n < 1 || n > r->threads || r->threads % n != 0)
    return hk_error_set(HK_ERR_ARG, "--zone-threads %d must divide the %d OpenMP thread(s) of "
                        "a process (OMP_NUM_THREADS)", n, r->threads);
  r->outer = n;
  r->inner = r->threads / n;
  if (n > 1 && r->inner > 1) {
    const char *off = nesting_source();
    if (!off)
      omp_set_max_active_levels(2);
    if (off || omp_get_max_active_levels() < 2)
      return hk_error_set(HK_ERR_UNSUPPORTED,
                          "--zone-threads %d with %d threads per process needs nested OpenMP "
                          "parallelism (%d zones x %d threads), which is unavailable: "
                          "max-active-levels is %d%s%s (supported: %d)",
                          n, r->threads, n, r->inner, off ? 1 : omp_get_max_active_levels(),
                          off ? ", set by " : "", off ? off : "",
                          omp_get_supported_active_levels());
  }
  return HK_SUCCESS;
}

static int setup_zones(mz_run_t *r)
{
  mz_zones_t whole;
  char why[200];
  if (mz_zones_setup(r->cls, &whole) != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zones");
  /* --split K (mz_split.h); K = 1 copies the zones unchanged */
  int split = mz_zones_split(&whole, r->cfg->split, &r->zones, why, sizeof why);
  r->points_unsplit = mz_zones_total_points(&whole);
  r->ghosts = split == 0 ? mz_split_ghosts(&whole, r->cfg->split) : 0;
  mz_zones_free(&whole);
  if (split == -2)
    return hk_error_set(HK_ERR_ARG, "%s class %c: %s", mz_bench_name(r->bench), r->cls->name,
                        why);
  if (split != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zones");
  int err = mz_map_zones(&r->zones, r->nprocs, r->solver->map, &r->map);
  if (err == -2)
    return hk_error_set(HK_ERR_ARG, "%s class %c has %d zones%s: at most %d processes (got %d)",
                        mz_bench_name(r->bench), r->cls->name, r->zones.nzones,
                        r->cfg->split > 1 ? " after --split" : "", r->zones.nzones, r->nprocs);
  if (err != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zone map");
  return HK_SUCCESS;
}

/* --rebalance-threads: the threads of all processes re-distributed by their points
 * (mz_rebalance_threads); this process then runs its share.  Collective: MPI_COMM_WORLD. */
static int rebalance_threads(mz_run_t *r)
{
  if (!r->cfg->rebalance)
    return HK_SUCCESS;
  r->proc_threads = malloc((size_t)r->nprocs * sizeof *r->proc_threads);
  int ok = r->proc_threads != NULL, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the thread counts");
  if (MPI_Allgather(&r->threads, 1, MPI_INT, r->proc_threads, 1, MPI_INT, MPI_COMM_WORLD) !=
      MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Allgather of the thread counts failed");
  mz_rebalance_threads(r->nprocs, r->map.load, r->proc_threads);
  r->inner = r->proc_threads[r->rank];
  omp_set_num_threads(r->inner);
  return HK_SUCCESS;
}

static int by_size_desc(const void *a, const void *b, void *zones)
{
  const mz_zones_t *z = zones;
  long long pa = mz_zone_points(&z->zone[*(const int *)a]);
  long long pb = mz_zone_points(&z->zone[*(const int *)b]);
  return pa != pb ? (pa < pb ? 1 : -1) : *(const int *)a - *(const int *)b;
}

/* the memory of my zones' point arrays (the bulk of a run), checked against the limits
 * of the process and the node before any is allocated */
static int check_memory(const mz_run_t *r)
{
  double need = 0;
  int mine = 0;
  for (int zone = 0; zone < r->zones.nzones; zone++)
    if (r->map.owner[zone] == r->rank) {
      const mz_zone_t *q = &r->zones.zone[zone];
      need += (double)mz_adi_zone_bytes(q->nx, q->ny, q->nz, r->solver->with_speed);
      mine++;
    }
  char what[96];
  snprintf(what, sizeof what, "%s class %c (the arrays of %d zone%s)", mz_bench_name(r->bench),
           r->cls->name, mine, mine == 1 ? "" : "s");
  return hk_app_mem_check(MPI_COMM_WORLD, need, what);
}

/* allocate, initialise and set up the solver of my zones (local, no MPI) */
static int setup_local(mz_run_t *r)
{
  int n = r->map.count[r->rank];
  r->local = malloc((size_t)(n ? n : 1) * sizeof *r->local);
  r->zone = calloc((size_t)(n ? n : 1), sizeof *r->zone);
  r->u = calloc((size_t)r->zones.nzones, sizeof *r->u);
  if (!r->local || !r->zone || !r->u)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zone list");
  for (int zone = 0; zone < r->zones.nzones; zone++)
    if (r->map.owner[zone] == r->rank)
      r->local[r->nlocal++] = zone;
  qsort_r(r->local, (size_t)r->nlocal, sizeof *r->local, by_size_desc, &r->zones);
  mz_adi_grid_t g = {.gx_size = r->cls->gx, .gy_size = r->cls->gy, .gz_size = r->cls->gz,
                     .x_zones = r->cls->x_zones, .y_zones = r->cls->y_zones};
  mz_consts_t c;
  mz_adi_consts_init(&c, r->cls->dt, &g);
  for (int i = 0; i < r->nlocal; i++) {
    const mz_zone_t *q = &r->zones.zone[r->local[i]];
    mz_adi_zone_t *z = &r->zone[i];
    if (mz_adi_zone_alloc(z, q->nx, q->ny, q->nz, r->solver->with_speed) != 0)
      return hk_error_set(HK_ERR_NOMEM, "no memory for zone %d (%dx%dx%d)", r->local[i], q->nx,
                          q->ny, q->nz);
    z->c = c;
    if (r->solver->setup(z) != 0)
      return hk_error_set(HK_ERR_NOMEM, "no memory for the solver of zone %d", r->local[i]);
    r->solver->init(z, 1);
    r->u[r->local[i]] = z->u;
  }
  return HK_SUCCESS;
}

/* ADI on every zone of this process: one after the other (OpenMP inside), or --zone-threads
 * of them at once (largest first, dynamically), each with r->inner threads */
static int adi_all(mz_run_t *r)
{
  int failed = -1;
  if (r->outer == 1) {
    for (int i = 0; i < r->nlocal; i++)
      if (r->solver->adi(&r->zone[i]) != 0 && failed < 0)
        failed = i;
  } else {
#pragma omp parallel num_threads(r->outer)
    {
      omp_set_num_threads(r->inner);
#pragma omp for schedule(dynamic, 1) reduction(max : failed)
      for (int i = 0; i < r->nlocal; i++)
        if (r->solver->adi(&r->zone[i]) != 0)
          failed = i > failed ? i : failed;
    }
  }
  if (failed >= 0)
    return hk_error_set(HK_ERR_NOMEM, "zone %d: no memory for the solver's work space",
                        r->local[failed]);
  return HK_SUCCESS;
}

static int step(mz_run_t *r)
{
  double t0 = MPI_Wtime();
  int err = mz_exchange_run(r->ex, r->u);
  double t1 = MPI_Wtime();
  if (err == HK_SUCCESS)
    err = adi_all(r);
  r->t_comm += t1 - t0;
  r->t_compute += MPI_Wtime() - t1;
  return err;
}

/* the reference's warm-up: one step touching all code, then u re-initialised */
static int warm_up(mz_run_t *r)
{
  int err = step(r);
  for (int i = 0; i < r->nlocal; i++)
    r->solver->init(&r->zone[i], 0);
  r->t_comm = r->t_compute = 0.0;
  return err;
}

static int time_steps(mz_run_t *r)
{
  int err = HK_SUCCESS;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 1; s <= r->niter && err == HK_SUCCESS; s++) {
    err = step(r);
    if (err == HK_SUCCESS)
      err = mz_history_step(r, s);
    if (r->rank == 0 && !r->cfg->quiet && (s % 20 == 0 || s == 1))
      printf(" Time step %4d\n", s);
  }
  double t = MPI_Wtime() - t0 - r->t_history; /* --history's residuals are not timed */
  r->t_step = t / r->niter;
  return err;
}

static void run_free(mz_run_t *r)
{
  for (int i = 0; r->zone && i < r->nlocal; i++) {
    r->solver->release(&r->zone[i]);
    mz_adi_zone_free(&r->zone[i]);
  }
  free(r->zone);
  free(r->local);
  free(r->proc_threads);
  free(r->u);
  free(r->residual);
  mz_exchange_destroy(&r->ex);
  mz_map_free(&r->map);
  mz_zones_free(&r->zones);
}

int mz_run(void *arg)
{
  const mz_config_t *c = arg;
  mz_run_t r = {.cfg = c, .bench = c->bench, .cls = c->cls, .niter = c->niter,
                .solver = &solvers[c->bench]};
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.nprocs);
  int err = setup_threads(&r);
  if (!err)
    err = setup_zones(&r);
  if ((err = hk_agree(MPI_COMM_WORLD, err)) || (err = check_memory(&r)) ||
      (err = rebalance_threads(&r)))
    goto done;
  if (r.rank == 0)
    mz_print_map(&r);
  if (r.rank == 0 && c->split > 1)
    printf(" Mesh split: every zone cut into %d sub-zones (%d zones), %lld points incl. "
           "%lld ghosts (unsplit %lld).\n NOTE: a split run is a different numerical method "
           "(sub-zones coupled explicitly at the cuts, each with its own local coordinates): "
           "it is not verified against the official values.\n\n",
           c->split, r.zones.nzones, mz_zones_total_points(&r.zones), r.ghosts,
           r.points_unsplit);
  err = setup_local(&r);
  if (!err)
    err = mz_history_alloc(&r);
  if (!err)
    err = mz_exchange_create(&r.zones, &r.map, r.rank, MPI_COMM_WORLD, &r.ex);
  if ((err = hk_agree(MPI_COMM_WORLD, err)) || (err = hk_agree(MPI_COMM_WORLD, warm_up(&r))) ||
      (err = hk_agree(MPI_COMM_WORLD, time_steps(&r))) ||
      (err = hk_agree(MPI_COMM_WORLD, mz_verify(&r))))
    goto done;
  if (c->split > 1)
    r.verified = 0; /* a different numerical method: the official values do not apply */
  if (r.rank == 0)
    mz_print_verification(&r);
  if ((err = hk_agree(MPI_COMM_WORLD, mz_history_write(&r))) || (err = mz_report(&r)))
    goto done;
  if (!r.verified && c->split == 1)
    err = hk_error_set(HK_ERR_STATE, "%s class %c: verification UNSUCCESSFUL%s",
                       mz_bench_name(r.bench), r.cls->name,
                       r.niter != r.cls->niter ? " (steps differ from the class's)" : "");
done:
  run_free(&r);
  return err;
}
