/* bench/beff_emit.c: the records of hk-bench beff (see beff.c): per size, per pattern,
 * the original's summary and the hybrid comparison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "beff.h"

void beff_numbers(const run_set_t *rs, beff_numbers_t *x)
{
  x->beff = beff_combine(&rs->b[0][0], NRING, NRAND, NMSG, -1, &x->ring, &x->random);
  for (int i = 0; i < NMSG; i++)
    x->beff_at[i] =
        beff_combine(&rs->b[0][0], NRING, NRAND, NMSG, i, &x->ring_at[i], &x->random_at[i]);
  x->beff_lmax = x->beff_at[NMSG - 1];
  x->ring_lmax = x->ring_at[NMSG - 1];
  x->cyc = beff_arith_mean(rs->b[P_CYC], NMSG);
  x->cyc_lmax = rs->b[P_CYC][NMSG - 1];
  /* the original's "Latency": 1 byte over b_eff at 1 byte per process */
  x->latency = x->beff_at[0] > 0 ? rs->size / x->beff_at[0] : 0.0;
}

/* The records are built without testing each field call: a record keeps its first
 * error, and hk_record_emit returns the first error of any rank, agreed, so every rank
 * leaves a loop of records at the same record. */
int beff_emit_sizes(hk_bench_ctx_t *c, const run_set_t *rs, const long long *sizes,
                      const beff_numbers_t *x)
{
  static const char *const names[4] = {"ring", "random", "b_eff", "3d-cyclic"};
  int err = HK_SUCCESS;
  long long mmax = 1;
  for (int r = 0; rs->mult && r < rs->size; r++)
    mmax = rs->mult[r] > mmax ? rs->mult[r] : mmax;
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < NMSG; i++) {
      double v = k == 0 ? x->ring_at[i] : k == 1 ? x->random_at[i] : k == 2 ? x->beff_at[i]
                                                                               : rs->b[P_CYC][i];
      hk_record_t *rec = NULL;
      hk_record_create_declared(c->rep, &bench_kind_beff, &rec);
      hk_record_param_str(rec, "run", rs->name);
      hk_record_param_str(rec, "pattern", names[k]);
      hk_record_param_int(rec, "size", sizes[i]);
      hk_record_param_int(rec, "msg_bytes", sizes[i] * mmax);
      hk_record_param_int(rec, "loops", rs->loops[i][0][M_NONBLK]);
      hk_record_value(rec, "bandwidth", v / 1e6, "MB/s");
      hk_record_value(rec, "bandwidth_per_proc", v / rs->size / 1e6, "MB/s");
      HK_TRY(err, hk_record_emit(&rec));
    }
cleanup:
  return err;
}

int beff_emit_patterns(hk_bench_ctx_t *c, const run_set_t *rs)
{
  int err = HK_SUCCESS;
  for (int p = 0; p < NPAT; p++) {
    /* which method was best at Lmax (repetition-best), for information */
    int bm = 0;
    double bv = 0.0;
    for (int m = 0; m < NMETH; m++)
      for (int r = 0; r < NREP; r++)
        if (rs->rate[r][p][NMSG - 1][m] > bv) {
          bv = rs->rate[r][p][NMSG - 1][m];
          bm = m;
        }
    double avg = beff_arith_mean(rs->b[p], NMSG);
    hk_record_t *rec = NULL;
    hk_record_create_declared(c->rep, &bench_kind_beff_pattern, &rec);
    hk_record_param_str(rec, "run", rs->name);
    hk_record_param_str(rec, "pattern", rs->pat[p].name);
    hk_record_param_int(rec, "messages", rs->all_msg0[p]);
    hk_record_param_str(rec, "best_at_lmax", beff_meth_names[bm]);
    hk_record_value(rec, "bandwidth", avg / 1e6, "MB/s");
    hk_record_value(rec, "bandwidth_per_proc", avg / rs->size / 1e6, "MB/s");
    hk_record_value(rec, "bandwidth_lmax", rs->b[p][NMSG - 1] / 1e6, "MB/s");
    HK_TRY(err, hk_record_emit(&rec));
  }
cleanup:
  return err;
}

int beff_emit_summary(hk_bench_ctx_t *c, const run_set_t *rs, const beff_numbers_t *x,
                      int procs, int nodes, long long lmax)
{
  static const char *const names[4] = {"b_eff", "b_eff_lmax", "cyclic3d", "cyclic3d_lmax"};
  const double v[4] = {x->beff, x->beff_lmax, x->cyc, x->cyc_lmax};
  hk_record_t *rec = NULL;
  char name[48];
  hk_record_create_declared(c->rep, &bench_kind_beff_summary, &rec);
  hk_record_param_str(rec, "run", rs->name);
  hk_record_param_int(rec, "procs", procs);
  hk_record_param_int(rec, "nodes", nodes);
  hk_record_param_int(rec, "lmax", lmax);
  for (int i = 0; i < 4; i++) {
    hk_record_value(rec, names[i], v[i] / 1e6, "MB/s");
    snprintf(name, sizeof name, "%s_per_proc", names[i]);
    hk_record_value(rec, name, v[i] / procs / 1e6, "MB/s");
    snprintf(name, sizeof name, "%s_per_node", names[i]);
    hk_record_value(rec, name, v[i] / nodes / 1e6, "MB/s");
  }
  hk_record_value(rec, "b_eff_lmax_ring", x->ring_lmax / 1e6, "MB/s");
  hk_record_value(rec, "latency", x->latency * 1e6, "us");
  hk_record_value(rec, "elapsed", rs->elapsed, "s");
  return hk_record_emit(&rec);
}

int beff_emit_compare(hk_bench_ctx_t *c, const beff_numbers_t *xm, const beff_numbers_t *xh,
                      int nodes)
{
  static const char *const names[4] = {"ring", "random", "3d-cyclic", "b_eff"};
  int err = HK_SUCCESS;
  for (int p = 0; p < 4; p++) {
    const double ma[4] = {xm->ring, xm->random, xm->cyc, xm->beff};
    const double ha[4] = {xh->ring, xh->random, xh->cyc, xh->beff};
    const double ml[4] = {xm->ring_lmax, xm->random_at[NMSG - 1], xm->cyc_lmax, xm->beff_lmax};
    const double hl[4] = {xh->ring_lmax, xh->random_at[NMSG - 1], xh->cyc_lmax, xh->beff_lmax};
    hk_record_t *rec = NULL;
    hk_record_create_declared(c->rep, &bench_kind_beff_hybrid, &rec);
    hk_record_param_str(rec, "pattern", names[p]);
    hk_record_value(rec, "b_mpp_per_node", ma[p] / nodes / 1e6, "MB/s");
    hk_record_value(rec, "b_hybrid_per_node", ha[p] / nodes / 1e6, "MB/s");
    hk_record_value(rec, "t_hybrid_over_t_mpp", ma[p] / ha[p], "ratio");
    hk_record_value(rec, "b_mpp_lmax_per_node", ml[p] / nodes / 1e6, "MB/s");
    hk_record_value(rec, "b_hybrid_lmax_per_node", hl[p] / nodes / 1e6, "MB/s");
    hk_record_value(rec, "t_hybrid_over_t_mpp_lmax", ml[p] / hl[p], "ratio");
    HK_TRY(err, hk_record_emit(&rec));
  }
cleanup:
  return err;
}

/* one run set, collective over ctx->comm: the ranks outside rs->comm sleep */
