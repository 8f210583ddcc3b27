/* apps/mc/mc_report.c: hk-mc's record (kind "mc", declared in mc_kinds.c). */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "mc.h"

/* what ran: mpi, preload (the preload library accelerated calls) or, with an hk_*
 * algorithm, the algorithm of each call of the step joined by '+' (used) and why mpi ran
 * instead (fallback, "none" when it did not) */
static void what_ran(const mc_sim_t *m, const hk_preload_state_t *ps, long long accel0,
                     char *used, char *fallback, size_t size)
{
  if (!m->cfg->use_hk) {
    snprintf(used, size, "%s", ps && ps->accelerated > accel0 ? "preload" : "mpi");
    return;
  }
  used[0] = fallback[0] = '\0';
  for (int k = 0; k < mc_coll_ncalls(m->cfg->collective); k++) {
    const char *sep = k ? "+" : "";
    size_t nu = strlen(used), nf = strlen(fallback);
    snprintf(used + nu, size - nu, "%s%s", sep, hk_allreduce_alg_name(m->info[k].algorithm));
    snprintf(fallback + nf, size - nf, "%s%s", sep,
             hk_allreduce_fallback_name(m->info[k].fallback));
  }
}

/* the fields; no error tests: the record keeps its first error and every rank still
 * takes part in each reduction */
static void record_fields(hk_record_t *rec, const mc_sim_t *m, double t_step,
                          const hk_preload_state_t *ps, long long accel0)
{
  const mc_config_t *c = m->cfg;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double per_ar = m->t_coll / c->steps, per_comp = m->t_compute / c->steps;
  char used[64], fallback[64];
  what_ran(m, ps, accel0, used, fallback, sizeof used);
  double in[2] = {t_step, per_ar}, slowest[2] = {0, 0};
  MPI_Allreduce(in, slowest, 2, MPI_DOUBLE, MPI_MAX, m->comm);
  hk_record_param_int(rec, "procs", m->size);
  hk_record_param_int(rec, "threads", m->threads);
  hk_record_param_int(rec, "particles", c->particles);
  hk_record_param_int(rec, "steps", c->steps);
  hk_record_param_int(rec, "tally_bytes", c->tally_bytes);
  hk_record_param_int(rec, "seed", c->seed);
  hk_record_param_str(rec, "collective", mc_coll_names[c->collective]);
  hk_record_param_str(rec, "calls", mc_coll_calls(c->collective));
  hk_record_param_str(rec, "allreduce", c->algorithm);
  hk_record_param_str(rec, "preload", ps ? "on" : "off");
  hk_record_param_str(rec, "allreduce_used", used);
  if (c->use_hk)
    hk_record_param_str(rec, "fallback", fallback);
  hk_record_stats(rec, "time_per_step", t_step, "s");
  hk_record_stats(rec, "allreduce", per_ar, "s");
  hk_record_stats(rec, "compute", per_comp, "s");
  hk_record_stats(rec, "maxrss", (double)ru.ru_maxrss, "KiB");
  hk_record_value(rec, "allreduce_fraction", slowest[0] > 0 ? slowest[1] / slowest[0] : 0,
                  "fraction");
  hk_record_value(rec, "allreduce_bandwidth",
                  slowest[1] > 0 ? c->tally_bytes / slowest[1] / 1e6 : 0, "MB/s");
  hk_record_value_int(rec, "checksum", (long long)(m->checksum & ((1ULL << 53) - 1)),
                      "fnv1a64 & (2^53-1)");
  hk_record_value_int(rec, "absorptions", m->absorbed, "events");
  if (ps)
    hk_record_value_int(rec, "preload_accelerated", ps->accelerated - accel0, "calls");
}

int mc_report(const mc_sim_t *m, double t_step, const hk_preload_state_t *ps, long long accel0)
{
  const mc_config_t *c = m->cfg;
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  hk_reporter_desc_t rd = {.program = mc_app.program, .output = c->output,
                           .table_style = HK_TABLE_LIST};
  int err = HK_SUCCESS;
  HK_TRY(err, hk_reporter_create(m->comm, &rd, &rep)); /* agreed */
  hk_reporter_config(rep, "problem", "%d particles, %d steps (+%d warm-up), tally %d bytes "
                     "(%d cells + absorptions), seed %d", c->particles, c->steps, c->warmup,
                     c->tally_bytes, m->ncells, c->seed);
  hk_reporter_config(rep, "collective", "%s per step: %s (%s)", mc_coll_names[c->collective],
                     mc_coll_calls(c->collective), c->use_hk ? "hk_* functions" : "MPI_*");
  hk_record_create_declared(rep, &mc_kind, &rec);
  record_fields(rec, m, t_step, ps, accel0);
  err = hk_record_emit(&rec);
  hk_reporter_destroy(&rep);
cleanup:
  return err;
}
