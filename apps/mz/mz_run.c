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
#include "mz_twolevel.h"
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

/* NXP asked for: --xprocs, else NPB_NUM_XPROCS as the reference reads it (capped at the
 * processes, ignored when NXP * zones < processes); 0: automatic */
static int wanted_xprocs(const mz_run_t *r, int zones, const char **from)
{
  *from = "--xprocs";
  if (r->cfg->xprocs > 0)
    return r->cfg->xprocs;
  const char *v = getenv("NPB_NUM_XPROCS");
  int n = v ? atoi(v) : 0;
  *from = "NPB_NUM_XPROCS";
  n = n < r->nprocs ? n : r->nprocs;
  return n > 0 && (long long)n * zones >= r->nprocs ? n : 0;
}

/* LU-MZ's process grid NXP x NZP (NPB3.4-MZ proc_grid; SP-MZ, BT-MZ: 1 x nprocs): NXP asked
 * for or chosen, checked; NXP > 1 without MPI_THREAD_MULTIPLE falls back to 1 x nprocs */
static int setup_grid(mz_run_t *r)
{
  const int zones = r->cls->x_zones * r->cls->y_zones, nx1 = r->cls->gx / r->cls->x_zones;
  const char *from = "--xprocs";
  int nxp = r->bench == MZ_BENCH_LU ? wanted_xprocs(r, zones, &from) : 1;
  if (r->bench == MZ_BENCH_LU && nxp > 0 && (r->nprocs % nxp != 0 || r->nprocs / nxp > zones))
    return hk_error_set(HK_ERR_ARG, "%s %d: no process grid NXP x NZP for %d processes (%s)",
                        from, nxp, r->nprocs,
                        r->nprocs % nxp ? "not divisible" : "NZP would exceed the zones");
  if (nxp > 1 && r->cfg->zone_threads > 1)
    return hk_error_set(HK_ERR_ARG, "%s %d: the x split works with --zone-threads 1 only", from,
                        nxp);
  if (nxp == 0) /* the reference's choice; zones solved at once keep the zone-only grid */
    nxp = r->cfg->zone_threads > 1 ? 1 : mz_proc_grid_auto(r->nprocs, zones, nx1);
  int lo, hi;
  mz_xpiece(nx1, nxp, nxp - 1, &lo, &hi); /* the last piece is the smallest */
  if (hi - lo < 2)
    return hk_error_set(HK_ERR_ARG, "LU-MZ class %c: NXP %d leaves pieces of %d of a zone's %d "
                        "x points (at least 2 needed)", r->cls->name, nxp, hi - lo, nx1);
  hk_thread_level_t req, prov = HK_THREAD_MULTIPLE;
  hk_thread_levels(&req, &prov);
  if (nxp > 1 && prov < HK_THREAD_MULTIPLE) {
    if (r->rank == 0)
      printf(" LU-MZ process grid NXP x NZP = %d x %d needs MPI_THREAD_MULTIPLE, not available "
             "(thread level %s): using the zone-only grid 1 x %d\n", nxp, r->nprocs / nxp,
             hk_thread_level_name(prov), r->nprocs);
    nxp = 1;
    r->xfallback = 1;
  }
  r->nxp = nxp;
  if (nxp > 1 && (r->cfg->split > 1 || r->cfg->history))
    return hk_error_set(HK_ERR_UNSUPPORTED, "--split and --history do not work with LU-MZ's x "
                        "split (NXP = %d): use --xprocs 1", nxp);
  r->nzp = r->nprocs / nxp;
  r->group = r->rank / nxp;
  r->xpos = r->rank % nxp;
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
  int err = mz_map_zones(&r->zones, r->nzp, r->solver->map, &r->map);
  if (err == -2)
    return hk_error_set(HK_ERR_ARG, "%s class %c has %d zones%s: at most %d processes%s (got %d)",
                        mz_bench_name(r->bench), r->cls->name, r->zones.nzones,
                        r->cfg->split > 1 ? " after --split" : "", r->zones.nzones,
                        r->xfallback ? " without the x split (which needs MPI_THREAD_MULTIPLE)"
                                     : "", r->nprocs);
  if (err != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zone map");
  /* the points of each rank (its pieces of its group's zones) and their imbalance */
  r->load = calloc((size_t)r->nprocs, sizeof *r->load);
  if (!r->load)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the loads");
  double sum = 0.0, max = 0.0;
  for (int p = 0; p < r->nprocs; p++) {
    for (int zone = 0; zone < r->zones.nzones; zone++)
      if (r->map.owner[zone] == p / r->nxp) {
        const mz_zone_t *q = &r->zones.zone[zone];
        int lo, hi;
        mz_xpiece(q->nx, r->nxp, p % r->nxp, &lo, &hi);
        r->load[p] += (long long)(hi - lo) * q->ny * q->nz;
      }
    sum += (double)r->load[p];
    max = (double)r->load[p] > max ? (double)r->load[p] : max;
  }
  r->imbalance = r->nxp == 1 ? r->map.imbalance : max / (sum / r->nprocs);
  return HK_SUCCESS;
}

/* nxp > 1: the communicator of my zone group and the threads of its sweeps.
 * Collective: MPI_COMM_WORLD. */
static int setup_xsplit(mz_run_t *r)
{
  r->xs = (mz_xsplit_t){.nxp = r->nxp, .xpos = r->xpos, .comm = MPI_COMM_NULL};
  if (r->nxp == 1)
    return HK_SUCCESS;
  int mine = omp_get_max_threads();
  if (MPI_Comm_split(MPI_COMM_WORLD, r->group, r->rank, &r->xs.comm) != MPI_SUCCESS ||
      MPI_Allreduce(&mine, &r->xs.team, 1, MPI_INT, MPI_MIN, r->xs.comm) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "the zone group's communicator failed");
  return HK_SUCCESS;
}

/* --load-file: every process's threads and group from the file (read by every rank) */
static int read_load_file(mz_run_t *r)
{
  const char *path = r->cfg->load_file;
  FILE *f = fopen(path, "r");
  if (!f)
    return hk_error_set(HK_ERR_ARG, "--load-file %s: cannot open it", path);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  int ch;
  while (mem && (ch = fgetc(f)) != EOF)
    fputc(ch, mem);
  fclose(f);
  if (!mem || fclose(mem) != 0) {
    free(text);
    return hk_error_set(HK_ERR_NOMEM, "--load-file %s: no memory to read it", path);
  }
  char msg[160];
  int rc = mz_load_file_parse(text, r->nprocs, r->proc_threads, r->proc_group, msg,
                              (int)sizeof msg);
  free(text);
  return rc ? hk_error_set(HK_ERR_ARG, "--load-file %s: %s", path, msg) : HK_SUCCESS;
}

/* --rebalance-threads, --load-file: the threads of the processes (OMP_NUM_THREADS each, or the
 * load file's), re-distributed by their points (mz_rebalance_threads_groups: within each
 * processor group of the load file, else over all processes); this process then runs its
 * share.  Collective: MPI_COMM_WORLD. */
static int rebalance_threads(mz_run_t *r)
{
  if (!r->cfg->rebalance && !r->cfg->load_file)
    return HK_SUCCESS;
  r->proc_threads = malloc((size_t)r->nprocs * sizeof *r->proc_threads);
  r->proc_group = calloc((size_t)r->nprocs, sizeof *r->proc_group);
  int ok = r->proc_threads && r->proc_group, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the thread counts");
  if (MPI_Allgather(&r->threads, 1, MPI_INT, r->proc_threads, 1, MPI_INT, MPI_COMM_WORLD) !=
      MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Allgather of the thread counts failed");
  int err = HK_SUCCESS;
  if (r->cfg->load_file)
    HK_LOCAL(err, read_load_file(r));
  HK_AGREE(err, MPI_COMM_WORLD);
  if (r->cfg->rebalance &&
      mz_rebalance_threads_groups(r->nprocs, r->load, r->proc_threads,
                                  r->cfg->load_file ? r->proc_group : NULL) != 0)
    err = hk_error_set(HK_ERR_NOMEM, "no memory to re-balance the threads");
  HK_AGREE(err, MPI_COMM_WORLD);
  r->inner = r->proc_threads[r->rank];
  omp_set_num_threads(r->inner);
cleanup:
  return err;
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
    if (r->map.owner[zone] == r->group) {
      const mz_zone_t *q = &r->zones.zone[zone];
      int width, xoff;
      mz_xlocal(q->nx, r->nxp, r->xpos, &width, &xoff);
      need += (double)mz_adi_zone_bytes(width, q->ny, q->nz, r->solver->with_speed);
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
  int n = r->map.count[r->group], err = HK_SUCCESS;
  r->local = malloc((size_t)(n ? n : 1) * sizeof *r->local);
  r->zone = calloc((size_t)(n ? n : 1), sizeof *r->zone);
  r->u = calloc((size_t)r->zones.nzones, sizeof *r->u);
  if (!r->local || !r->zone || !r->u)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zone list");
  for (int zone = 0; zone < r->zones.nzones; zone++)
    if (r->map.owner[zone] == r->group)
      r->local[r->nlocal++] = zone;
  qsort_r(r->local, (size_t)r->nlocal, sizeof *r->local, by_size_desc, &r->zones);
  mz_adi_grid_t g = {.gx_size = r->cls->gx, .gy_size = r->cls->gy, .gz_size = r->cls->gz,
                     .x_zones = r->cls->x_zones, .y_zones = r->cls->y_zones};
  mz_consts_t c;
  mz_adi_consts_init(&c, r->cls->dt, &g);
  for (int i = 0; i < r->nlocal; i++) {
    const mz_zone_t *q = &r->zones.zone[r->local[i]];
    mz_adi_zone_t *z = &r->zone[i];
    int width, xoff, lo, hi;
    mz_xlocal(q->nx, r->nxp, r->xpos, &width, &xoff);
    HK_TRY(err, mz_layout_zone_alloc(r, r->local[i], z, width, q->ny, q->nz));
    z->c = c;
    if (r->nxp > 1) { /* my piece [lo, hi) of the zone's x range (exchange.h) */
      mz_xpiece(q->nx, r->nxp, r->xpos, &lo, &hi);
      z->gnx = q->nx;
      z->xoff = xoff;
      z->ilo = (lo > 1 ? lo : 1) - xoff;
      z->ihi = (hi < q->nx - 1 ? hi : q->nx - 1) - xoff;
      z->xs = &r->xs;
    }
    if (r->solver->setup(z) != 0)
      return hk_error_set(HK_ERR_NOMEM, "no memory for the solver of zone %d", r->local[i]);
    r->u[r->local[i]] = z->u;
  }
  r->pages_max_node = mz_layout_pages_max_node(r);
cleanup:
  return err;
}

/* the initial state of my zones (with the x split: collective over the zone group) */
static int init_local(mz_run_t *r)
{
  for (int i = 0; i < r->nlocal; i++)
    r->solver->init(&r->zone[i], 1);
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
  HK_LOCAL(err, adi_all(r));
  HK_LOCAL(err, mz_twolevel_gather(r)); /* --second-level mpi: the updated rows of u */
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
    HK_LOCAL(err, mz_history_step(r, s));
    if (r->world_rank == 0 && !r->cfg->quiet && (s % 20 == 0 || s == 1))
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
    mz_layout_zone_free(&r->zone[i]);
  }
  hk_locations_destroy(&r->locs);
  mz_twolevel_free(r); /* before r->zone: it detaches the zones from their parts */
  free(r->zone);
  free(r->local);
  free(r->proc_threads);
  free(r->proc_group);
  free(r->load);
  free(r->u);
  if (r->xs.comm != MPI_COMM_NULL)
    MPI_Comm_free(&r->xs.comm);
  free(r->residual);
  mz_exchange_destroy(&r->ex);
  mz_map_free(&r->map);
  mz_zones_free(&r->zones);
}

int mz_run(void *arg)
{
  const mz_config_t *c = arg;
  mz_run_t r = {.cfg = c, .bench = c->bench, .cls = c->cls, .niter = c->niter,
                .solver = &solvers[c->bench], .xs = {.comm = MPI_COMM_NULL}};
  int err = HK_SUCCESS;
  HK_LOCAL(err, mz_twolevel_comms(&r)); /* r.rank, r.nprocs: the first level */
  HK_LOCAL(err, setup_threads(&r));
  HK_LOCAL(err, setup_grid(&r));
  HK_LOCAL(err, setup_zones(&r));
  HK_LOCAL(err, mz_twolevel_check(&r));
  HK_AGREE(err, MPI_COMM_WORLD);
  HK_TRY(err, check_memory(&r));      /* agreed */
  HK_TRY(err, rebalance_threads(&r)); /* agreed */
  HK_LOCAL(err, setup_xsplit(&r));
  HK_AGREE(err, MPI_COMM_WORLD);
  if (r.world_rank == 0) {
    mz_print_map(&r);
    if (r.nsub > 1)
      printf(" Second level: MPI, %d group(s) x %d sub-rank(s), every zone split in j\n\n",
             r.nprocs, r.nsub);
  }
  if (r.world_rank == 0 && c->split > 1)
    printf(" Mesh split: every zone cut into %d sub-zones (%d zones), %lld points incl. "
           "%lld ghosts (unsplit %lld).\n NOTE: a split run is a different numerical method "
           "(sub-zones coupled explicitly at the cuts, each with its own local coordinates): "
           "it is not verified against the official values.\n\n",
           c->split, r.zones.nzones, mz_zones_total_points(&r.zones), r.ghosts,
           r.points_unsplit);
  HK_LOCAL(err, setup_local(&r));
  HK_LOCAL(err, mz_history_alloc(&r));
  HK_LOCAL(err, mz_twolevel_setup(&r));
  HK_LOCAL(err, mz_exchange_create(&r.zones, &r.map, r.nxp, r.rank, r.comm1, &r.ex));
  HK_AGREE(err, MPI_COMM_WORLD);
  HK_TRY(err, init_local(&r)); /* never fails */
  HK_LOCAL(err, warm_up(&r));
  HK_AGREE(err, MPI_COMM_WORLD);
  HK_LOCAL(err, time_steps(&r));
  HK_AGREE(err, MPI_COMM_WORLD);
  mz_twolevel_detach(&r); /* u is whole on every sub-rank: the norms alike */
  HK_LOCAL(err, mz_verify(&r));
  HK_AGREE(err, MPI_COMM_WORLD);
  if (c->split > 1)
    r.verified = 0; /* a different numerical method: the official values do not apply */
  if (r.world_rank == 0)
    mz_print_verification(&r);
  HK_LOCAL(err, mz_history_write(&r));
  HK_AGREE(err, MPI_COMM_WORLD);
  HK_TRY(err, mz_report(&r)); /* agreed */
  if (!r.verified && c->split == 1)
    err = hk_error_set(HK_ERR_STATE, "%s class %c: verification UNSUCCESSFUL%s",
                       mz_bench_name(r.bench), r.cls->name,
                       r.niter != r.cls->niter ? " (steps differ from the class's)" : "");
cleanup:
  run_free(&r);
  return err;
}
