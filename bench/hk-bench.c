/* bench/hk-bench.c: `hk-bench EXPERIMENT [options]`, the communication
 * micro-benchmarks of the hybrid-programming literature.  The experiment table
 * below is the only list of experiments: help, dispatch and checks come from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static const hk_experiment_t *const experiments[] = {
  &hk_exp_pingpong, &hk_exp_beff, &hk_exp_orthogonal, &hk_exp_multipath, &hk_exp_overlap,
  &hk_exp_barrier, &hk_exp_threads_pingpong, &hk_exp_allreduce, &hk_exp_halo,
  &hk_exp_collparams, &hk_exp_coll};
enum { NEXP = sizeof experiments / sizeof experiments[0] };

static hk_bench_common_t common = {.iters = 0, .warmup = -1};

static const hk_opt_t common_opts[] = {
  {"sizes", HK_OPT_STR, &common.sizes, "MIN:MAX",
   "message sizes in bytes, doubling (K, M, G suffixes)", 'm'},
  {"iters", HK_OPT_INT, &common.iters, "N", "timed iterations per size (0: adaptive)", 'i'},
  {"warmup", HK_OPT_INT, &common.warmup, "N", "untimed iterations first (-1: adaptive)", 'x'},
  {"output", HK_OPT_STR, &common.output, "FILE", "append JSON Lines records to FILE", 0},
};

static void general_help(FILE *out)
{
  fprintf(out, "hk-bench: communication micro-benchmarks of hybrid MPI+OpenMP programming\n\n"
               "usage: hk-bench EXPERIMENT [options]     (hk-bench EXPERIMENT --help for details)\n\n"
               "experiments:\n");
  for (int e = 0; e < NEXP; e++)
    fprintf(out, "  %-12s %s\n", experiments[e]->name, experiments[e]->summary);
  fprintf(out, "\nCommon options: -m MIN:MAX, -i ITERS, -x WARMUP, --output FILE.jsonl.  Results: an\n"
               "OSU-style table on stdout and JSON Lines records\n"
               "(python/src/hybridkit/schemas/record.schema.json).\n");
}

/* the common options, checked once they are parsed */
static int check_common(const hk_experiment_t *exp)
{
  int err = HK_SUCCESS;
  if (exp->default_sizes)
    HK_TRY(err, hk_bench_parse_sizes(common.sizes, &common.min_size, &common.max_size));
  if (common.iters < 0 || common.warmup < -1)
    err = hk_error_set(HK_ERR_ARG, "-i must be >= 0 and -x >= -1");
cleanup:
  return err;
}

/* the experiment on every rank, after the ranks agreed on `err` (the arguments' error);
 * ctx->nodes and ctx->rep are left to the caller to destroy */
static int run_experiment(const hk_experiment_t *exp, hk_bench_ctx_t *ctx, int err)
{
  if (exp && ctx->size < exp->min_ranks) /* NULL: an unknown experiment, err is set */
    HK_LOCAL(err, hk_error_set(HK_ERR_ARG, "%s needs at least %d ranks, got %d", exp->name,
                               exp->min_ranks, ctx->size));
  HK_AGREE(err, ctx->comm);
  /* every experiment with message sizes holds at least a send and a receive buffer of
   * the largest size: refused at once when that cannot fit (not by malloc, or by the
   * sanitizer's allocator, on some ranks) */
  if (exp->default_sizes) {
    char what[64];
    snprintf(what, sizeof what, "2 buffers of %lld bytes (-m)", common.max_size);
    HK_TRY(err, hk_app_mem_check(ctx->comm, 2.0 * (double)common.max_size, what));
  }
  HK_TRY(err, hk_nodes_create(ctx->comm, &ctx->nodes));
  hk_reporter_desc_t rd = {.program = "hk-bench", .output = common.output, .nodes = ctx->nodes};
  HK_TRY(err, hk_reporter_create(ctx->comm, &rd, &ctx->rep));
  hk_reporter_config(ctx->rep, "experiment", "%s: %s", exp->name, exp->summary);
  if (exp->default_sizes)
    hk_reporter_config(ctx->rep, "sizes", "%lld to %lld bytes, iterations %s", common.min_size,
                       common.max_size, common.iters ? "as given" : "adaptive");
  err = exp->run(ctx);
cleanup:
  return err;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    general_help(stdout);
    return HK_EXIT_OK;
  }
  if (argc < 2) { /* no MPI yet: under a launcher only its rank 0 complains */
    if (hk_app_launcher_rank() == 0) {
      fprintf(stderr, "hk-bench: error: no experiment given; one of:");
      for (int e = 0; e < NEXP; e++)
        fprintf(stderr, " %s", experiments[e]->name);
      fprintf(stderr, " (see hk-bench --help)\n");
    }
    return HK_EXIT_USAGE;
  }
  const hk_experiment_t *exp = NULL;
  for (int e = 0; e < NEXP; e++)
    if (!strcmp(argv[1], experiments[e]->name))
      exp = experiments[e];
  int err = HK_SUCCESS, done = 0;
  hk_opt_t opts[32];
  int nopts = 0;
  for (int i = 0; i < (int)(sizeof common_opts / sizeof common_opts[0]); i++)
    opts[nopts++] = common_opts[i];
  char usage[96];
  hk_app_t app = {.program = "hk-bench", .usage = usage, .opts = opts};
  if (!exp) {
    err = hk_error_set(HK_ERR_ARG, "unknown experiment '%s' (see hk-bench --help)", argv[1]);
  } else {
    for (int i = 0; i < exp->nopts && nopts < 32; i++)
      opts[nopts++] = exp->opts[i];
    snprintf(usage, sizeof usage, "%s [options]", exp->name);
    app.summary = exp->summary;
    app.description = exp->description;
    app.nopts = nopts;
    app.list_modes = exp->list_modes;
    common.sizes = exp->default_sizes;
    err = hk_app_parse(&app, argc - 1, argv + 1, &done);
    if (done)
      return HK_EXIT_OK;
    HK_LOCAL(err, check_common(exp));
  }
  int mpi_up = 0;
  err = hk_app_init_request(&app, &argc, &argv, exp ? exp->level : HK_THREAD_SINGLE,
                            exp ? exp->min_level : HK_THREAD_SINGLE, err, &mpi_up);
  if (!mpi_up)
    return HK_EXIT_FAIL;
  hk_bench_ctx_t ctx = {.comm = MPI_COMM_WORLD, .common = &common};
  MPI_Comm_rank(ctx.comm, &ctx.rank);
  MPI_Comm_size(ctx.comm, &ctx.size);
  err = run_experiment(exp, &ctx, err);
  hk_reporter_destroy(&ctx.rep);
  hk_nodes_destroy(&ctx.nodes);
  return hk_app_finish(&app, MPI_COMM_WORLD, err);
}
