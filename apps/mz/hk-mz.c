/* apps/mz/hk-mz.c: the NPB multi-zone benchmarks SP-MZ and BT-MZ (NPB3.3-MZ, MPI+OpenMP).
 *
 *   class table -> zones -> zone-to-process map (bin packing / SP blocks) -> local zones
 *   -> one untimed step, re-initialise -> niter x { exchange boundaries; ADI per zone }
 *   -> verification (error and residual norms against the official values) -> report
 *
 * Two levels of parallelism as in Jin et al. (Parallel Computing 37, 2011): MPI across
 * zones (coarse grain), OpenMP inside each zone (fine grain); --zone-threads N additionally
 * runs N zones of a process at once, each with OMP_NUM_THREADS / N threads (nested OpenMP).
 * Exit code 1 when the verification fails.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "adi_common.h"
#include "bt.h"
#include "exchange.h"
#include "hk_app.h"
#include "hybridkit.h"
#include "mz_problem.h"
#include "sp.h"

static struct {
  const char *bench, *cls, *output;
  int zone_threads, steps, quiet;
} opt = {.bench = "bt", .cls = "S", .zone_threads = 1};

static const hk_opt_t options[] = {
  {"bench", HK_OPT_STR, &opt.bench, "sp|bt", "the benchmark: SP-MZ or BT-MZ", 'b'},
  {"class", HK_OPT_STR, &opt.cls, "C", "problem class S, W, A, B, C or D", 'c'},
  {"zone-threads", HK_OPT_INT, &opt.zone_threads, "N",
   "zones a process solves at once (N divides OMP_NUM_THREADS; nested OpenMP)", 0},
  {"steps", HK_OPT_INT, &opt.steps, "K",
   "time steps (0: the class's; others cannot verify)", 0},
  {"quiet", HK_OPT_FLAG, &opt.quiet, "", "do not print the zone assignment", 'q'},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record to FILE", 'o'},
};

static const hk_app_t app = {
  .program = "hk-mz",
  .summary = "NPB-MZ SP-MZ and BT-MZ (multi-zone ADI solvers) with MPI across zones and "
             "OpenMP inside",
  .usage = "--bench sp|bt --class S|W|A|B|C|D [--zone-threads N] [--output FILE.jsonl]",
  .description =
      "The NPB3.3-MZ problems: aggregate grid cut into zones (equal for SP-MZ, uneven for\n"
      "BT-MZ), zones assigned to processes (BT-MZ: bin packing, largest zone first to the\n"
      "least-loaded process; SP-MZ: blocks), zone boundaries exchanged every time step.\n"
      "Verifies the residual and error norms against the official values (relative 1e-8)\n"
      "and exits 1 when they differ.  Mop/s from the NPB formulas over the slowest rank's time.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

/* The zone solvers: one entry per benchmark. */
typedef struct mz_solver {
  int with_speed;
  mz_map_kind_t map;
  int (*setup)(mz_adi_zone_t *z);
  int (*adi)(mz_adi_zone_t *z);  /* one time step: 0, or -1 (no work space) */
  void (*release)(mz_adi_zone_t *z);
} mz_solver_t;

static const mz_solver_t solvers[MZ_NBENCH] = {
  [MZ_BENCH_SP] = {1, MZ_MAP_BLOCK, mz_sp_setup, mz_sp_adi, mz_sp_free},
  [MZ_BENCH_BT] = {0, MZ_MAP_BINPACK, mz_bt_setup, mz_bt_adi, mz_bt_free},
};

typedef struct run {
  mz_bench_t bench;
  const mz_class_t *cls;
  const mz_solver_t *solver;
  int rank, nprocs, threads, outer, inner, niter;
  mz_zones_t zones;
  mz_map_t map;
  int nlocal;
  int *local;              /* global ids of my zones, largest first */
  mz_adi_zone_t *zone;     /* my zones, same order */
  double **u;              /* per global zone: u of my zones, NULL otherwise */
  mz_exchange_t *ex;
  double t_step, t_comm, t_compute; /* per rank, seconds (per step for t_step) */
  double xcr[5], xce[5];
  int verified;
} run_t;

static int parse_problem(run_t *r)
{
  int b = mz_bench_parse(opt.bench);
  if (b < 0)
    return hk_error_set(HK_ERR_ARG, "unknown benchmark '%s' (sp or bt)", opt.bench);
  r->bench = (mz_bench_t)b;
  r->cls = strlen(opt.cls) == 1 ? mz_class_find(r->bench, opt.cls[0]) : NULL;
  if (!r->cls)
    return hk_error_set(HK_ERR_ARG, "unknown class '%s' for %s (classes: %s)", opt.cls,
                        mz_bench_name(r->bench), mz_class_list(r->bench));
  if (opt.steps < 0)
    return hk_error_set(HK_ERR_ARG, "--steps %d must be >= 0", opt.steps);
  r->niter = opt.steps ? opt.steps : r->cls->niter;
  r->solver = &solvers[r->bench];
  return HK_SUCCESS;
}

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
static int setup_threads(run_t *r)
{
  r->threads = omp_get_max_threads();
  int n = opt.zone_threads;
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

static int setup_zones(run_t *r)
{
  if (mz_zones_setup(r->cls, &r->zones) != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zones");
  int err = mz_map_zones(&r->zones, r->nprocs, r->solver->map, &r->map);
  if (err == -2)
    return hk_error_set(HK_ERR_ARG, "%s class %c has %d zones: at most %d processes (got %d)",
                        mz_bench_name(r->bench), r->cls->name, r->zones.nzones,
                        r->zones.nzones, r->nprocs);
  if (err != 0)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the zone map");
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
static int check_memory(const run_t *r)
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
static int setup_local(run_t *r)
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
    mz_adi_initialize(z);
    mz_adi_exact_rhs(z);
    r->u[r->local[i]] = z->u;
  }
  return HK_SUCCESS;
}

/* ADI on every zone of this process: one after the other (OpenMP inside), or --zone-threads
 * of them at once (largest first, dynamically), each with r->inner threads */
static int adi_all(run_t *r)
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

static int step(run_t *r)
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
static int warm_up(run_t *r)
{
  int err = step(r);
  for (int i = 0; i < r->nlocal; i++)
    mz_adi_initialize(&r->zone[i]);
  r->t_comm = r->t_compute = 0.0;
  return err;
}

static int time_steps(run_t *r)
{
  int err = HK_SUCCESS;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 1; s <= r->niter && err == HK_SUCCESS; s++) {
    err = step(r);
    if (r->rank == 0 && !opt.quiet && (s % 20 == 0 || s == 1))
      printf(" Time step %4d\n", s);
  }
  double t = MPI_Wtime() - t0;
  r->t_step = t / r->niter;
  return err;
}

/* NPB verify: sum over zones and ranks of the per-zone norms (the residual over dt) */
static int verify(run_t *r)
{
  double loc[10] = {0}, sum[10];
  for (int i = 0; i < r->nlocal; i++) {
    double e[5], rr[5];
    mz_adi_error_norm(&r->zone[i], e);
    mz_adi_compute_rhs(&r->zone[i]);
    mz_adi_rhs_norm(&r->zone[i], rr);
    for (int m = 0; m < 5; m++) {
      loc[m] += rr[m] / r->cls->dt;
      loc[5 + m] += e[m];
    }
  }
  if (MPI_Allreduce(loc, sum, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Allreduce of the norms failed");
  r->verified = r->niter == r->cls->niter;
  for (int m = 0; m < 5; m++) {
    r->xcr[m] = sum[m];
    r->xce[m] = sum[5 + m];
    r->verified &= fabs((r->xcr[m] - r->cls->xcr[m]) / r->cls->xcr[m]) <= 1e-8;
    r->verified &= fabs((r->xce[m] - r->cls->xce[m]) / r->cls->xce[m]) <= 1e-8;
  }
  return HK_SUCCESS;
}

static void print_map(const run_t *r)
{
  printf("\n NAS Parallel Benchmarks (NPB3.3-MZ problems, hybridkit C) - %s\n\n",
         mz_bench_name(r->bench));
  printf(" Number of zones: %3d x %3d\n Iterations: %4d    dt: %10.6f\n", r->cls->x_zones,
         r->cls->y_zones, r->niter, r->cls->dt);
  printf(" Number of active processes: %5d, threads per process: %d (%d zone(s) at once x %d)\n",
         r->nprocs, r->threads, r->outer, r->inner);
  if (opt.quiet)
    return;
  printf("\n Zone-process mapping (%s):\n proc nzones  zone_size nthreads size_per_thread\n",
         r->map.kind == MZ_MAP_BLOCK ? "blocks" : "bin packing");
  for (int p = 0; p < r->nprocs; p++) {
    printf(" %4d  %5d  %9lld  %7d  %14lld\n", p, r->map.count[p], r->map.load[p], r->threads,
           r->map.load[p] / r->threads);
    for (int zone = 0; zone < r->zones.nzones; zone++)
      if (r->map.owner[zone] == p) {
        const mz_zone_t *q = &r->zones.zone[zone];
        printf("    zone %4d  %4d x %4d x %4d  %9lld\n", zone, q->nx, q->ny, q->nz,
               mz_zone_points(q));
      }
  }
  printf("\n Load imbalance (max/avg points per process): %.4f\n\n", r->map.imbalance);
}

static void print_verification(const run_t *r)
{
  printf(" Verification being performed for class %c\n accuracy setting for epsilon = %20.13E\n",
         r->cls->name, 1e-8);
  if (r->niter != r->cls->niter)
    printf(" NITER does not match the reference value of %5d\n", r->cls->niter);
  const char *what[2] = {"residual", "solution error"};
  for (int t = 0; t < 2; t++) {
    printf(" Comparison of RMS-norms of %s\n", what[t]);
    for (int m = 0; m < 5; m++) {
      double v = t ? r->xce[m] : r->xcr[m], ref = t ? r->cls->xce[m] : r->cls->xcr[m];
      double dif = fabs((v - ref) / ref);
      printf(" %s %2d%20.13E%20.13E%20.13E\n", dif <= 1e-8 ? "        " : "FAILURE:", m + 1, v,
             ref, dif);
    }
  }
}

/* "rank 0: 0,1 | rank 1: 2,3": the PUs each thread of each rank may run on */
static void binding_summary(const hk_binding_t *b, char *out, size_t len)
{
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; b && i < b->nentries && at < len; i++) {
    const hk_binding_entry_t *e = &b->entries[i];
    int n = e->thread == 0 ? snprintf(out + at, len - at, "%srank %d: %s", i ? " | " : "",
                                      e->rank, e->cpuset)
                           : snprintf(out + at, len - at, ",%s", e->cpuset);
    at += n > 0 ? (size_t)n : 0;
  }
}

static void print_results(const run_t *r, double tmax, double mops, const char *binding)
{
  printf("\n\n %s Benchmark Completed.\n", mz_bench_name(r->bench));
  printf(" Class           =                        %c\n", r->cls->name);
  printf(" Size            =            %4d x %4d x %4d\n", r->cls->gx, r->cls->gy, r->cls->gz);
  printf(" Iterations      =                     %4d\n", r->niter);
  printf(" Time in seconds =             %12.2f\n", tmax);
  printf(" Total processes =                     %4d\n", r->nprocs);
  printf(" Total threads   =                     %4d\n", r->nprocs * r->threads);
  printf(" Layout          =          %4d x %d (x %d zone(s) at once)\n", r->nprocs, r->threads,
         r->outer);
  printf(" Mop/s total     =             %12.2f\n", mops);
  printf(" Mop/s/process   =             %12.2f\n", mops / r->nprocs);
  printf(" Mop/s/thread    =             %12.2f\n", mops / (r->nprocs * r->threads));
  printf(" Operation type  =           floating point\n");
  printf(" Verification    =             %12s\n", r->verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
  printf(" Binding         = %s\n\n", binding);
  fflush(stdout);
}

static int report(run_t *r)
{
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  hk_reporter_desc_t rd = {.program = app.program, .output = opt.output,
                           .table_style = HK_TABLE_LIST};
  hk_stats_t ts;
  int err = hk_stats_reduce(MPI_COMM_WORLD, r->t_step * r->niter, &ts);
  double mops = mz_mops(r->bench, &r->zones, r->niter, ts.max);
  char binding[512];
  if (err == HK_SUCCESS)
    err = hk_reporter_create(MPI_COMM_WORLD, &rd, &rep);
  if (err != HK_SUCCESS)
    return err;
  binding_summary(hk_reporter_binding(rep), binding, sizeof binding);
  if (r->rank == 0)
    print_results(r, ts.max, mops, binding);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  mz_exchange_stats_t xs;
  mz_exchange_get_stats(r->ex, &xs);
  long long bytes[2] = {xs.bytes_copy, xs.bytes_sent}, total[2];
  MPI_Allreduce(bytes, total, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  char procs[32], size[64];
  snprintf(procs, sizeof procs, "%d", r->nprocs);
  snprintf(size, sizeof size, "%dx%dx%d", r->cls->gx, r->cls->gy, r->cls->gz);
  hk_reporter_config(rep, "problem", "%s class %c, %s grid, %d zones (%dx%d), %d steps, dt %g",
                     mz_bench_name(r->bench), r->cls->name, size, r->zones.nzones,
                     r->cls->x_zones, r->cls->y_zones, r->niter, r->cls->dt);
  hk_reporter_config(rep, "zones", "%s assignment, load imbalance %.4f (max/avg points)",
                     r->map.kind == MZ_MAP_BLOCK ? "block" : "bin-packing", r->map.imbalance);
  err = hk_record_create(rep, "mz", &rec);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "bench", r->bench == MZ_BENCH_BT ? "bt" : "sp");
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "class", (char[]){r->cls->name, 0});
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "procs", r->nprocs);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "threads", r->threads);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "zone_threads", r->outer);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "steps", r->niter);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "grid", size);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "zones", r->zones.nzones);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "assignment", r->map.kind == MZ_MAP_BLOCK ? "block" : "binpack");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "mops", mops, "Mop/s");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "mops_per_thread", mops / (r->nprocs * r->threads), "Mop/s");
  if (err == HK_SUCCESS)
    err = hk_record_value_int(rec, "verified", r->verified, NULL);
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "imbalance", r->map.imbalance, "max/avg");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "time", ts.max, "s");
  if (err == HK_SUCCESS)
    err = hk_record_value_int(rec, "bytes_copy", total[0], "B/step");
  if (err == HK_SUCCESS)
    err = hk_record_value_int(rec, "bytes_mpi", total[1], "B/step");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "time_per_step", r->t_step, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "comm", r->t_comm / r->niter, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "compute", r->t_compute / r->niter, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "maxrss", (double)ru.ru_maxrss, "KiB");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "zones_per_proc", (double)r->nlocal, "zones");
  if (err == HK_SUCCESS && r->niter != r->cls->niter)
    err = hk_record_warning(rec, "%d steps instead of the class's %d: cannot verify", r->niter,
                            r->cls->niter);
  if (err == HK_SUCCESS)
    err = hk_record_emit(&rec);
  hk_record_discard(&rec);
  hk_reporter_destroy(&rep);
  return hk_agree(MPI_COMM_WORLD, err);
}

static void run_free(run_t *r)
{
  for (int i = 0; r->zone && i < r->nlocal; i++) {
    r->solver->release(&r->zone[i]);
    mz_adi_zone_free(&r->zone[i]);
  }
  free(r->zone);
  free(r->local);
  free(r->u);
  mz_exchange_destroy(&r->ex);
  mz_map_free(&r->map);
  mz_zones_free(&r->zones);
}

static int run(void *unused)
{
  (void)unused;
  run_t r = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.nprocs);
  int err = parse_problem(&r);
  if (err == HK_SUCCESS)
    err = setup_threads(&r);
  if (err == HK_SUCCESS)
    err = setup_zones(&r);
  if ((err = hk_agree(MPI_COMM_WORLD, err)) != HK_SUCCESS)
    goto done;
  if ((err = check_memory(&r)) != HK_SUCCESS)
    goto done;
  if (r.rank == 0)
    print_map(&r);
  err = setup_local(&r);
  if (err == HK_SUCCESS)
    err = mz_exchange_create(&r.zones, &r.map, r.rank, MPI_COMM_WORLD, &r.ex);
  if ((err = hk_agree(MPI_COMM_WORLD, err)) != HK_SUCCESS)
    goto done;
  if ((err = hk_agree(MPI_COMM_WORLD, warm_up(&r))) != HK_SUCCESS)
    goto done;
  if ((err = hk_agree(MPI_COMM_WORLD, time_steps(&r))) != HK_SUCCESS)
    goto done;
  if ((err = hk_agree(MPI_COMM_WORLD, verify(&r))) != HK_SUCCESS)
    goto done;
  if (r.rank == 0)
    print_verification(&r);
  err = report(&r);
  if (err == HK_SUCCESS && !r.verified)
    err = hk_error_set(HK_ERR_STATE, "%s class %c: verification UNSUCCESSFUL%s",
                       mz_bench_name(r.bench), r.cls->name,
                       r.niter != r.cls->niter ? " (steps differ from the class's)" : "");
done:
  run_free(&r);
  return err;
}

int main(int argc, char **argv)
{
  int done = 0;
  int err = hk_app_parse(&app, argc, argv, &done);
  if (done)
    return HK_EXIT_OK;
  return hk_app_run(&app, &argc, &argv, HK_THREAD_MASTERONLY, HK_THREAD_MASTERONLY, err, run, NULL);
}
