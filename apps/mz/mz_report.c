/* apps/mz/mz_report.c: hk-mz's output: the zone map and the NPB-style results on
 * stdout, and the record (kind "mz", declared in mz_kinds.c). */
#include <stdio.h>
#include <sys/resource.h>
#include "mz.h"

void mz_print_map(const mz_run_t *r)
{
  printf("\n NAS Parallel Benchmarks (%s problems, hybridkit C) - %s\n\n",
         r->bench == MZ_BENCH_LU ? "NPB3.4-MZ" : "NPB3.3-MZ", mz_bench_name(r->bench));
  printf(" Number of zones: %3d x %3d\n Iterations: %4d    dt: %10.6f\n", r->cls->x_zones,
         r->cls->y_zones, r->niter, r->cls->dt);
  printf(" Number of active processes: %5d, threads per process: %d (%d zone(s) at once x %d)\n",
         r->nprocs, r->threads, r->outer, r->inner);
  if (r->bench == MZ_BENCH_LU)
    printf(" Process grid NXP x NZP: %d x %d (%s)\n", r->nxp, r->nzp,
           r->nxp > 1 ? "each zone's x range split over NXP ranks" : "zones only");
  if (r->cfg->quiet)
    return;
  printf("\n Zone-process mapping (%s):\n proc nzones  zone_size nthreads size_per_thread\n",
         r->map.kind == MZ_MAP_BLOCK ? "blocks" : "bin packing");
  if (r->cfg->load_file)
    printf(" (threads and processor groups from %s%s)\n", r->cfg->load_file,
           r->cfg->rebalance ? ", re-balanced within each group: --rebalance-threads" : "");
  else if (r->proc_threads)
    printf(" (threads re-balanced between processes: --rebalance-threads)\n");
  for (int p = 0; p < r->nprocs; p++) {
    int nt = r->proc_threads ? r->proc_threads[p] : r->threads;
    printf(" %4d  %5d  %9lld  %7d  %14lld\n", p, r->map.count[p / r->nxp], r->load[p], nt,
           r->load[p] / nt);
    for (int zone = 0; zone < r->zones.nzones; zone++)
      if (r->map.owner[zone] == p / r->nxp) {
        const mz_zone_t *q = &r->zones.zone[zone];
        int lo, hi;
        mz_xpiece(q->nx, r->nxp, p % r->nxp, &lo, &hi);
        printf("    zone %4d  %4d x %4d x %4d  %9lld", zone, q->nx, q->ny, q->nz,
               mz_zone_points(q));
        if (r->nxp > 1)
          printf("  (x %d..%d)", lo, hi - 1);
        printf("\n");
      }
  }
  printf("\n Load imbalance (max/avg points per process): %.4f\n\n", r->imbalance);
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

static void print_results(const mz_run_t *r, double tmax, double mops, const char *binding)
{
  printf("\n\n %s Benchmark Completed.\n", mz_bench_name(r->bench));
  printf(" Class           =                        %c\n", r->cls->name);
  printf(" Size            =            %4d x %4d x %4d\n", r->cls->gx, r->cls->gy, r->cls->gz);
  printf(" Iterations      =                     %4d\n", r->niter);
  printf(" Time in seconds =             %12.2f\n", tmax);
  printf(" Total processes =                     %4d\n", r->world_size);
  printf(" Total threads   =                     %4d\n", r->world_size * r->threads);
  printf(" Layout          =          %4d x %d (x %d zone(s) at once)\n", r->nprocs, r->threads,
         r->outer);
  if (r->bench == MZ_BENCH_LU)
    printf(" NXP x NZP       =                %4d x %d\n", r->nxp, r->nzp);
  printf(" Mop/s total     =             %12.2f\n", mops);
  if (r->nsub > 1)
    printf(" Second level    =   MPI, %4d x %d sub-ranks\n", r->nprocs, r->nsub);
  printf(" Mop/s/process   =             %12.2f\n", mops / r->world_size);
  printf(" Mop/s/thread    =             %12.2f\n", mops / (r->world_size * r->threads));
  printf(" Operation type  =           floating point\n");
  printf(" Verification    =             %12s\n", r->verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
  printf(" Binding         = %s\n\n", binding);
  fflush(stdout);
}

/* the fields of the record (kind "mz"); no error tests: the record keeps its first
 * error and every rank still takes part in each reduction */
static void record_fields(hk_record_t *rec, const mz_run_t *r, const char *size, double tmax,
                          double mops, const long long total[2])
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  hk_record_param_str(rec, "bench", mz_bench_key(r->bench));
  hk_record_param_str(rec, "class", (char[]){r->cls->name, 0});
  hk_record_param_int(rec, "procs", r->world_size);
  hk_record_param_int(rec, "threads", r->threads);
  hk_record_param_int(rec, "zone_threads", r->outer);
  hk_record_param_int(rec, "steps", r->niter);
  hk_record_param_str(rec, "grid", size);
  hk_record_param_int(rec, "zones", r->zones.nzones);
  hk_record_param_int(rec, "groups", r->nprocs); /* N1 */
  hk_record_param_int(rec, "n2", r->nsub > 1 ? r->nsub : r->threads);
  hk_record_param_str(rec, "second_level", r->nsub > 1 ? "mpi" : "omp");
  hk_record_param_str(rec, "assignment", r->map.kind == MZ_MAP_BLOCK ? "block" : "binpack");
  hk_record_param_str(rec, "layout", mz_layout_names[r->cfg->layout]);
  hk_record_param_int(rec, "nxp", r->nxp);
  hk_record_param_int(rec, "nzp", r->nzp);
  hk_record_value(rec, "mops", mops, "Mop/s");
  hk_record_value(rec, "mops_per_thread", mops / (r->world_size * r->threads), "Mop/s");
  hk_record_value_int(rec, "verified", r->verified, NULL);
  hk_record_value(rec, "imbalance", r->imbalance, "max/avg");
  hk_record_value(rec, "time", tmax, "s");
  hk_record_value_int(rec, "bytes_copy", total[0], "B/step");
  hk_record_value_int(rec, "bytes_mpi", total[1], "B/step");
  hk_record_stats(rec, "time_per_step", r->t_step, "s");
  hk_record_stats(rec, "comm", r->t_comm / r->niter, "s");
  hk_record_stats(rec, "compute", r->t_compute / r->niter, "s");
  hk_record_stats(rec, "maxrss", (double)ru.ru_maxrss, "KiB");
  hk_record_stats(rec, "pages_max_node", r->pages_max_node, "fraction");
  hk_record_stats(rec, "zones_per_proc", (double)r->nlocal, "zones");
  hk_record_param_int(rec, "split", r->cfg->split);
  hk_record_value_int(rec, "points", r->points_unsplit + r->ghosts, "points");
  hk_record_value_int(rec, "ghost_points", r->ghosts, "points");
  if (r->residual)
    hk_record_value(rec, "residual_final", r->residual[r->niter], NULL);
  if (r->cfg->split > 1)
    hk_record_warning(rec, "split into %d sub-zones per zone: a different numerical method, "
                      "not verified against the official values", r->cfg->split);
  if (r->niter != r->cls->niter)
    hk_record_warning(rec, "%d steps instead of the class's %d: cannot verify", r->niter,
                      r->cls->niter);
}

int mz_report(mz_run_t *r)
{
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  hk_reporter_desc_t rd = {.program = mz_app.program, .output = r->cfg->output,
                           .table_style = HK_TABLE_LIST};
  hk_stats_t ts;
  int err = HK_SUCCESS;
  HK_TRY(err, hk_stats_reduce(MPI_COMM_WORLD, r->t_step * r->niter, &ts));
  double mops = mz_mops(r->bench, &r->zones, r->niter, ts.max);
  char binding[512];
  HK_TRY(err, hk_reporter_create(MPI_COMM_WORLD, &rd, &rep)); /* agreed */
  binding_summary(hk_reporter_binding(rep), binding, sizeof binding);
  if (r->world_rank == 0)
    print_results(r, ts.max, mops, binding);
  mz_exchange_stats_t xs;
  mz_exchange_get_stats(r->ex, &xs);
  long long bytes[2] = {xs.bytes_copy, xs.bytes_sent}, total[2];
  MPI_Allreduce(bytes, total, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  char size[64];
  snprintf(size, sizeof size, "%dx%dx%d", r->cls->gx, r->cls->gy, r->cls->gz);
  hk_reporter_config(rep, "problem", "%s class %c, %s grid, %d zones (%dx%d), %d steps, dt %g",
                     mz_bench_name(r->bench), r->cls->name, size, r->zones.nzones,
                     r->cls->x_zones, r->cls->y_zones, r->niter, r->cls->dt);
  hk_reporter_config(rep, "zones", "%s assignment, process grid NXP x NZP %d x %d, load "
                     "imbalance %.4f (max/avg points)",
                     r->map.kind == MZ_MAP_BLOCK ? "block" : "bin-packing", r->nxp, r->nzp,
                     r->imbalance);
  hk_record_create_declared(rep, &mz_kind, &rec);
  record_fields(rec, r, size, ts.max, mops, total);
  err = hk_record_emit(&rec);
  hk_reporter_destroy(&rep);
cleanup:
  return err;
}
