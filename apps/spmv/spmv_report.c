/* apps/spmv/spmv_report.c: hk-spmv's records (spmv.h), of the kinds declared in
 * spmv_kinds.c: "spmv" (GFlop/s, bytes per non-zero of the traffic model, time split
 * local / halo / communication / exposed wait, f_comm; --roofline: the share of the
 * memory-bound limit) and, with --solver cg, "spmv.cg".
 * No error tests on the fields: a record keeps its first error, every rank still takes
 * part in each reduction (hk_record_stats), and the emit returns the first error of any
 * rank, agreed. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spmv.h"
#include "spmv_kinds.h"

/* the global sizes the record needs (every rank the same) */
typedef struct totals {
  long long nnz, stored;
  double bytes, min_bpn, gflops, bpn, gflops_best;
} totals_t;

static void reduce_totals(const hk_spmv_info_t *in, const spmv_measured_t *ms, totals_t *t)
{
  MPI_Comm comm = MPI_COMM_WORLD;
  long long nnz_l = in->nnz_local + in->nnz_halo, st_l = in->stored;
  double bytes_l[2] = {in->bytes_per_nnz * (double)nnz_l, in->min_bytes_per_nnz * (double)nnz_l};
  double sum[2] = {0.0, 0.0};
  t->nnz = t->stored = 0;
  MPI_Allreduce(&nnz_l, &t->nnz, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&st_l, &t->stored, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(bytes_l, sum, 2, MPI_DOUBLE, MPI_SUM, comm);
  t->bytes = sum[0];
  t->min_bpn = sum[1] / (double)t->nnz;
  hk_stats_t tt;
  hk_stats_reduce(comm, ms->t_mult, &tt);
  t->gflops = 2.0 * (double)t->nnz / tt.max / 1e9;
  t->bpn = t->bytes / (double)t->nnz;
  t->gflops_best = 2.0 * (double)t->nnz / ms->t_best / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* --roofline: each block against the better of the bandwidths measured just before and
 * after it (the limit that block saw); the median of the blocks' shares */
static void record_roofline(hk_record_t *rec, const totals_t *t, spmv_measured_t *ms, int rank)
{
  double *share = ms->share;
  for (int b = 0; b < ms->nblk; b++) {
    double lim = 2.0 * fmax(ms->bw_blk[b], ms->bw_blk[b + 1]) / t->min_bpn / 1e9;
    share[b] = 2.0 * (double)t->nnz / ms->t_blk[b] / 1e9 / lim;
    if (rank == 0)
      printf("# --roofline block %d: %.4f GFlop/s, bandwidth before %.4f GB/s, after %.4f GB/s, "
             "share %.4f\n", b, 2.0 * (double)t->nnz / ms->t_blk[b] / 1e9, ms->bw_blk[b] / 1e9,
             ms->bw_blk[b + 1] / 1e9, share[b]);
  }
  qsort(share, (size_t)ms->nblk, sizeof *share, cmp_double);
  const double median = ms->nblk % 2 ? share[ms->nblk / 2]
                                     : 0.5 * (share[ms->nblk / 2 - 1] + share[ms->nblk / 2]);
  double limit = 2.0 * ms->bw / t->bpn / 1e9;
  hk_record_value(rec, "stream_bw", ms->bw, "B/s");
  hk_record_value(rec, "stream_spread", ms->bw_spread, "fraction");
  hk_record_stats(rec, "stream_array_bytes", ms->stream_bytes, "B");
  hk_record_value(rec, "roofline_gflops", limit, "GFlop/s");
  hk_record_value(rec, "roofline_efficiency", t->gflops / limit, "fraction");
  /* the goal: GFlop/s over 2 bw / (the format's least bytes per entry), block by
   * block against the bandwidth around it; and both sides the best of their repetitions,
   * as STREAM reports itself (on a machine whose memory speed drifts the best multiply
   * and the best bandwidth may come from different minutes) */
  hk_record_value(rec, "memory_bound_gflops", 2.0 * ms->bw / t->min_bpn / 1e9, "GFlop/s");
  hk_record_value(rec, "memory_bound_share", median, "fraction");
  hk_record_value(rec, "memory_bound_share_min", share[0], "fraction");
  hk_record_value(rec, "memory_bound_share_max", share[ms->nblk - 1], "fraction");
  hk_record_value(rec, "memory_bound_share_best", t->gflops_best / (2.0 * ms->bw / t->min_bpn / 1e9),
                  "fraction");
}

/* the params and results of the "spmv" record */
static void record_run(hk_record_t *rec, const spmv_opt_t *o, const hk_spmv_info_t *in,
                       const spmv_measured_t *ms, const totals_t *t, hk_mode_t mode)
{
  const hk_spmv_stats_t *s = &ms->st;
  double busy = s->comm + s->pack + s->local + s->halo;
  const struct { const char *name; const char *v; } sp[] = {
    {"matrix", o->matrix}, {"format", o->format}, {"mode", hk_mode_name(mode)},
    {"verification", ms->ndiff < 0 ? "off" : "serial-product"}};
  for (size_t i = 0; i < sizeof sp / sizeof *sp; i++)
    hk_record_param_str(rec, sp[i].name, sp[i].v);
  const struct { const char *name; long long v; } ip[] = {
    {"rows", in->nglobal}, {"nnz", t->nnz}, {"stored", t->stored}, {"chunk", o->chunk},
    {"sigma", o->sigma}, {"threads", in->nthreads}, {"iters", o->iters},
    {"blocks", ms->nblk},
    {"reserved", o->reserved}};
  for (size_t i = 0; i < sizeof ip / sizeof *ip; i++)
    hk_record_param_int(rec, ip[i].name, ip[i].v);
  hk_record_value(rec, "gflops", t->gflops, "GFlop/s");
  hk_record_value(rec, "bytes_per_nnz", t->bpn, "B");
  hk_record_value(rec, "min_bytes_per_nnz", t->min_bpn, "B");
  const struct { const char *name; double v; const char *unit; } st[] = {
    {"time_per_mult", ms->t_mult, "s"}, {"pack", s->pack, "s"},
    {"local", s->local, "s"},           {"halo", s->halo, "s"},
    {"comm", s->comm, "s"},             {"wait", s->wait, "s"},
    {"exposed_wait", s->exposed, "s"},  {"f_comm", busy > 0 ? s->comm / busy : 0.0, "fraction"},
    {"halo_entries", (double)in->nhalo, NULL}, {"messages", (double)in->npeers_send, NULL}};
  for (size_t i = 0; i < sizeof st / sizeof *st; i++)
    hk_record_stats(rec, st[i].name, st[i].v, st[i].unit);
  if (ms->ndiff >= 0)
    hk_record_value_int(rec, "reference_diffs", ms->ndiff, NULL);
  hk_record_value(rec, "gflops_best", t->gflops_best, "GFlop/s");
}

static void record_cg(hk_record_t *rec, const spmv_opt_t *o, hk_mode_t mode, const spmv_cg_t *cgr)
{
  hk_record_param_str(rec, "matrix", o->matrix);
  hk_record_param_str(rec, "format", o->format);
  hk_record_param_str(rec, "mode", hk_mode_name(mode));
  hk_record_param_double(rec, "tol", o->tol);
  hk_record_value_int(rec, "iterations", cgr->iterations, NULL);
  hk_record_value(rec, "relative_residual", cgr->relres, NULL);
  hk_record_value(rec, "true_relative_residual", cgr->true_relres, NULL);
  hk_record_value(rec, "max_error", cgr->error, NULL);
  hk_record_value(rec, "time", cgr->time, "s");
}

int spmv_report(const char *program, const spmv_opt_t *o, const hk_spmv_info_t *in,
                spmv_measured_t *ms, const spmv_cg_t *cgr)
{
  int err = HK_SUCCESS, rank = 0;
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_rank(comm, &rank);
  hk_reporter_desc_t rd = {.program = program, .output = o->output, .table_style = HK_TABLE_LIST};
  HK_TRY(err, hk_reporter_create(comm, &rd, &rep)); /* the first collective: agreed */
  totals_t t;
  reduce_totals(in, ms, &t);
  hk_mode_t mode = HK_MODE_MASTERONLY;
  hk_mode_parse(o->mode, &mode);
  hk_reporter_config(rep, "problem", "%s: %lld rows, %lld non-zeros, %s%s", o->matrix, in->nglobal,
                     t.nnz, o->format, strcmp(o->format, "sell") ? "" : " (chunk and sigma below)");
  hk_record_create_declared(rep, &spmv_kind, &rec);
  record_run(rec, o, in, ms, &t, mode);
  if (ms->bw > 0)
    record_roofline(rec, &t, ms, rank);
  if (mode <= HK_MODE_PURE_NB && omp_get_max_threads() > 1)
    hk_record_warning(rec, "%s mode runs 1 thread per rank; %d OpenMP threads were available",
                      hk_mode_name(mode), omp_get_max_threads());
  HK_TRY(err, hk_record_emit(&rec)); /* agreed */
  if (cgr) {
    hk_record_create_declared(rep, &spmv_kind_cg, &rec);
    record_cg(rec, o, mode, cgr);
    err = hk_record_emit(&rec);
  }
cleanup:
  hk_reporter_destroy(&rep);
  return hk_agree(comm, err);
}
