/* apps/jacobi/jacobi_report.c: hk-jacobi's records: the time of one iteration split
 * into disjoint phases, and the fields declared in jacobi_kinds.c. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <sys/resource.h>
#include "jacobi.h"
#include "jacobi_kinds.h"

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

static jac_phases_t phases(const jac_run_t *r, const hk_halo_stats_t *hs, double t_iter)
{
  jac_phases_t p = {0};
  double per = r->iters > 0 ? 1.0 / r->iters : 0.0;
  double post = hs->post * per, wait = hs->wait * per, unpack = hs->unpack * per;
  double comm = hs->comm * per, sum = post + wait + unpack;
  double scale = sum > 0 ? comm / sum : 0.0;
  post *= scale;
  wait *= scale;
  unpack *= scale;
  hk_mode_t mode = hk_halo_mode(r->halo);
  int m = mode == HK_MODE_MULTIPLE_RESERVED ? (r->cfg->reserved > 0 ? r->cfg->reserved : 1) : 1;
  int concurrent = jac_mode_overlaps(mode) && mode != HK_MODE_PURE_NB &&
                   jac_halo_threads(r->halo) > m;
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

/* the bandwidth fields: the prediction for the stores the sweeps use (one element of
 * the scale kernel with the same kind of stores moves what one lattice update moves),
 * the mean of the measurements before and after the sweeps */
static void roofline_fields(hk_record_t *rec, const jac_run_t *r, const jac_stream_t *bw,
                            double mlups, double incore_mlups)
{
  double eps[2], sum[2];
  for (int k = 0; k < 2; k++)
    eps[k] = r->nt ? bw[k].elements_per_s_nt : bw[k].elements_per_s;
  MPI_Allreduce(eps, sum, 2, MPI_DOUBLE, MPI_SUM, hk_cart_comm(r->cart));
  double pred = (sum[0] + sum[1]) / 2e6, spread = fabs(sum[0] - sum[1]) / fmax(sum[0], sum[1]);
  hk_record_stats(rec, "stream_bw", bw[0].bw_stream, "B/s");
  hk_record_stats(rec, "stream_array_bytes", 8.0 * (double)bw[0].elements, "B");
  if (bw[0].elements_per_s_nt > 0)
    hk_record_stats(rec, "stream_nt_bw", 16.0 * bw[0].elements_per_s_nt, "B/s");
  hk_record_value(rec, "roofline_mlups", pred, "MLUP/s");
  hk_record_value(rec, "roofline_efficiency", mlups / pred, "fraction");
  hk_record_value(rec, "roofline_spread", spread, "fraction");
  /* the limit of the run: the memory roofline times the sweeps per pass through memory
   * (w with the wavefront or the pipeline, else 1), or the kernel's in-core rate, whichever
   * is lower */
  double incore = 0.0;
  MPI_Allreduce(&incore_mlups, &incore, 1, MPI_DOUBLE, MPI_SUM, hk_cart_comm(r->cart));
  if (incore > 0) {
    double mem = pred * (r->wave.mem || r->pipe.on ? r->L.width : 1), limit = fmin(mem, incore);
    hk_record_value(rec, "incore_mlups", incore, "MLUP/s");
    hk_record_value(rec, "limit_mlups", limit, "MLUP/s");
    hk_record_value(rec, "limit_efficiency", mlups / limit, "fraction");
    hk_record_param_str(rec, "bound", mem <= incore ? "memory" : "in-core");
  }
  if (spread > JAC_ROOFLINE_SPREAD)
    hk_record_warning(rec, "the bandwidth changed by %.0f %% during the run (%.0f MLUP/s "
                      "predicted before the sweeps, %.0f after): the efficiency is uncertain",
                      100.0 * spread, sum[0] / 1e6, sum[1] / 1e6);
}

/* the parameters of the run record */
static void run_params(hk_record_t *rec, const jac_run_t *r, const char *grid, const char *procs,
                       int verified)
{
  hk_record_param_str(rec, "mode", hk_mode_name(hk_halo_mode(r->halo)));
  hk_record_param_int(rec, "dims", r->L.dims);
  /* points of the stencil, and which ghosts its halo exchanges */
  hk_record_param_int(rec, "stencil", r->L.dims == 2 ? 5 : r->cfg->stencil);
  hk_record_param_str(rec, "halo_stencil", r->cd.stencil == HK_STENCIL_FULL ? "full" : "faces");
  hk_record_param_str(rec, "grid", grid);
  hk_record_param_str(rec, "procs", procs);
  hk_record_param_int(rec, "threads", jac_halo_threads(r->halo));
  hk_record_param_int(rec, "iters", r->iters);
  hk_record_param_int(rec, "halo_width", r->L.width);
  hk_record_param_str(rec, "boundary", jac_boundary_names[r->cfg->boundary]);
  hk_record_param_str(rec, "map", hk_cart_map_name(r->ci.map_used));
  hk_record_param_int(rec, "reserved", r->cfg->reserved);
  hk_record_param_str(rec, "temporal", r->pipe.on ? "pipeline" : r->wave.mem ? "wavefront" : "off");
  if (r->wave.mem)
    hk_record_param_int(rec, "wave_rows", r->wave.rows);
  if (r->pipe.on) {
    char loose[32];
    snprintf(loose, sizeof loose, "%d:%d", r->pipe.d.dl, r->pipe.d.du);
    hk_record_param_str(rec, "looseness", loose);
    hk_record_param_int(rec, "tile_planes", r->pipe.d.planes);
    hk_record_param_int(rec, "tile_rows", r->pipe.d.rows);
    hk_record_param_int(rec, "tile_shift", r->pipe.d.shift);
    hk_record_param_int(rec, "tile_strip", r->pipe.d.strip);
  }
  hk_record_param_str(rec, "verification", verified ? "reference+invariant" : "invariant");
  hk_record_param_str(rec, "layout", jac_layout_names[r->cfg->layout]);
  if (r->L.dims == 3) {
    hk_record_param_str(rec, "stores", r->nt ? "non-temporal" : "cached");
    hk_record_param_str(rec, "x_wrap", r->xwrap ? "sweeps" : "halo");
  }
}

/* the record of the run (kind "jacobi", jacobi_kinds.c); no error tests: the record
 * keeps its first error and every rank still takes part in each reduction */
static int run_record(hk_reporter_t *rep, const jac_run_t *r, const jac_outcome_t *o,
                      const char *grid, const char *procs)
{
  MPI_Comm comm = hk_cart_comm(r->cart);
  hk_record_t *rec = NULL;
  hk_halo_stats_t hs;
  hk_halo_stats(r->halo, &hs);
  long long cells = r->cd.global[0] * r->cd.global[1] * r->cd.global[2];
  hk_stats_t tt;
  int err = hk_stats_reduce(comm, o->t_iter, &tt);
  double per = hs.exchanges ? 1.0 / (double)hs.exchanges : 0.0;
  double mlups = (double)cells / tt.max / 1e6;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  hk_record_create_declared(rep, &jac_kind_run, &rec);
  run_params(rec, r, grid, procs, o->verified);
  hk_record_value(rec, "mlups", mlups, "MLUP/s");
  hk_record_stats(rec, "time_per_iter", o->t_iter, "s");
  const struct { const char *name; double value; } counters[] = {
    {"pack", hs.pack}, {"post", hs.post}, {"wait", hs.wait}, {"unpack", hs.unpack},
    {"comm", hs.comm}, {"compute", hs.update + hs.interior + hs.boundary + r->t_sweeps}};
  for (size_t i = 0; i < sizeof counters / sizeof *counters; i++)
    hk_record_stats(rec, counters[i].name, counters[i].value * per, "s");
  jac_phases_t ph = phases(r, &hs, o->t_iter);
  const struct { const char *name; double value; } phase_fields[] = {
    {"phase_pack", ph.pack},       {"phase_post", ph.post},   {"phase_wait", ph.wait},
    {"phase_unpack", ph.unpack},   {"phase_compute", ph.compute},
    {"phase_other", ph.other},     {"hidden_comm", ph.hidden}};
  for (size_t i = 0; i < sizeof phase_fields / sizeof *phase_fields; i++)
    hk_record_stats(rec, phase_fields[i].name, phase_fields[i].value, "s");
  if (jac_mode_overlaps(hk_halo_mode(r->halo)))
    hk_record_stats(rec, "overlap", hs.comm > 0 ? fmin(hs.comm, hs.interior) / hs.comm : 1.0,
                    "fraction");
  hk_app_record_halo_bytes(rec, comm, &hs, NULL);
  hk_record_stats(rec, "maxrss", (double)ru.ru_maxrss, "KiB");
  hk_record_stats(rec, "pages_max_node", r->pages_max_node, "fraction");
  hk_record_stats(rec, "check_time", o->check_time, "s");
  hk_record_value_int(rec, "reference_diffs", o->verified ? o->ndiff : -1, NULL);
  if (r->wave.mem || r->pipe.on)
    hk_record_value_int(rec, "temporal_sweeps", r->temporal_sweeps, NULL);
  if (o->bw)
    roofline_fields(rec, r, o->bw, mlups, o->incore_mlups);
  if (hk_halo_mode(r->halo) <= HK_MODE_PURE_NB && omp_get_max_threads() > 1)
    hk_record_warning(rec, "%s mode runs 1 thread per rank; %d OpenMP threads were available",
                      hk_mode_name(hk_halo_mode(r->halo)), omp_get_max_threads());
  int emitted = hk_record_emit(&rec);
  return err != HK_SUCCESS ? hk_agree(comm, err) : emitted;
}

/* --compare-sendrecv: the engine against the hand-written loop (kind "jacobi.exchange") */
static int exchange_record(hk_reporter_t *rep, const jac_run_t *r, const jac_exchange_cmp_t *cmp)
{
  MPI_Comm comm = hk_cart_comm(r->cart);
  hk_record_t *rec = NULL;
  double mine[2] = {cmp->engine, cmp->baseline}, slowest[2];
  int err = MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, comm) == MPI_SUCCESS
                ? HK_SUCCESS
                : hk_error_set(HK_ERR_MPI, "MPI_Allreduce of the exchange times failed");
  hk_record_create_declared(rep, &jac_kind_exchange, &rec);
  hk_record_param_str(rec, "mode", hk_mode_name(hk_halo_mode(r->halo)));
  hk_record_param_int(rec, "exchanges", r->cfg->compare);
  hk_record_stats(rec, "engine", cmp->engine, "s");
  hk_record_stats(rec, "sendrecv_loop", cmp->baseline, "s");
  hk_record_value(rec, "engine_over_sendrecv", slowest[0] / slowest[1], "ratio of max");
  if (r->cd.stencil != HK_STENCIL_FACES)
    hk_record_warning(rec, "the engine exchanges edges and corners too (halo width > 1 "
                           "or 27 points); the loop only faces");
  int emitted = hk_record_emit(&rec);
  return err != HK_SUCCESS ? hk_agree(comm, err) : emitted;
}

int jac_report(const jac_run_t *r, const jac_outcome_t *o)
{
  int err = HK_SUCCESS;
  hk_reporter_t *rep = NULL;
  hk_reporter_desc_t rd = {.program = jac_app.program, .output = r->cfg->output,
                           .table_style = HK_TABLE_LIST};
  MPI_Comm comm = hk_cart_comm(r->cart);
  HK_TRY(err, hk_reporter_create(comm, &rd, &rep)); /* agreed */
  char procs[48], grid[64];
  snprintf(procs, sizeof procs, "%dx%dx%d", r->ci.procs[0], r->ci.procs[1], r->ci.procs[2]);
  snprintf(grid, sizeof grid, "%lldx%lldx%lld", r->cd.global[0], r->cd.global[1], r->cd.global[2]);
  hk_reporter_config(rep, "problem", "%dD %s, grid %s, %s boundaries, halo width %d, %s stencil",
                     r->L.dims, r->L.dims == 2 ? "5-point heat"
                                : r->cfg->stencil == 27 ? "27-point Jacobi" : "7-point Jacobi", grid,
                     jac_boundary_names[r->cfg->boundary], r->L.width,
                     r->cd.stencil == HK_STENCIL_FULL ? "full" : "faces");
  hk_reporter_config(rep, "decomposition", "%s processes, %s mapping%s%s", procs,
                     hk_cart_map_name(r->ci.map_used), r->ci.note[0] ? ": " : "", r->ci.note);
  HK_TRY(err, run_record(rep, r, o, grid, procs)); /* agreed, as exchange_record's */
  if (o->cmp)
    err = exchange_record(rep, r, o->cmp);
cleanup:
  hk_reporter_destroy(&rep);
  return hk_agree(comm, err);
}
