/* apps/mz/mz_config.c: hk-mz's options: one table drives parsing and --help; the
 * benchmark and class are looked up once into a const mz_config_t. */
#include <string.h>
#include "mz.h"

static struct {
  const char *bench, *cls, *output, *history;
  int zone_threads, steps, quiet, rebalance, split;
} opt = {.bench = "bt", .cls = "S", .zone_threads = 1, .split = 1};

static const hk_opt_t options[] = {
  {"bench", HK_OPT_STR, &opt.bench, "sp|bt|lu", "the benchmark: SP-MZ, BT-MZ or LU-MZ", 'b'},
  {"class", HK_OPT_STR, &opt.cls, "C", "problem class S, W, A, B, C or D", 'c'},
  {"zone-threads", HK_OPT_INT, &opt.zone_threads, "N",
   "zones a process solves at once (N divides OMP_NUM_THREADS; nested OpenMP)", 0},
  {"steps", HK_OPT_INT, &opt.steps, "K",
   "time steps (0: the class's; others cannot verify)", 0},
  {"rebalance-threads", HK_OPT_FLAG, &opt.rebalance, "",
   "move threads between processes so that points per thread are even (the reference's "
   "BT-MZ re-balancing; the total stays)", 0},
  {"split", HK_OPT_INT, &opt.split, "K",
   "mesh splitting: cut every zone into K sub-zones along the larger average zone dimension, "
   "each solved as a zone of its own (more processes; a different numerical method: not "
   "verified against the official values for K > 1)", 0},
  {"history", HK_OPT_STR, &opt.history, "FILE",
   "write the residual history (step, global RMS residual over all interior points) as CSV",
   0},
  {"quiet", HK_OPT_FLAG, &opt.quiet, "", "do not print the zone assignment", 'q'},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record to FILE", 'o'},
};

const hk_app_t mz_app = {
  .program = "hk-mz",
  .summary = "NPB-MZ SP-MZ, BT-MZ (multi-zone ADI solvers) and LU-MZ (SSOR) with MPI across "
             "zones and OpenMP inside",
  .usage = "--bench sp|bt|lu --class S|W|A|B|C|D [--zone-threads N] [--rebalance-threads] "
           "[--split K] [--history FILE.csv] [--output FILE.jsonl]",
  .description =
      "The NPB3.3-MZ problems: aggregate grid cut into zones (equal for SP-MZ, uneven for\n"
      "BT-MZ; LU-MZ: 4 x 4 equal zones, NPB3.4-MZ), zones assigned to processes (BT-MZ: bin\n"
      "packing, largest zone first to the least-loaded process; SP-MZ, LU-MZ: blocks), zone\n"
      "boundaries exchanged every time step (LU-MZ: every SSOR iteration; its lower and upper\n"
      "sweeps pipelined over the threads, each owning a block of j-rows).\n"
      "Verifies the residual and error norms (LU-MZ: and the surface integral) against the\n"
      "official values (relative 1e-8) and exits 1 when they differ.  Mop/s from the NPB\n"
      "formulas over the slowest rank's time.  --split K cuts every zone into K sub-zones\n"
      "(mesh splitting, for more processes than zones): a different numerical method, never\n"
      "verified; the points incl. ghosts are reported.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

int mz_config_parse(int argc, char **argv, mz_config_t *c, int *done)
{
  int err = hk_app_parse(&mz_app, argc, argv, done);
  memset(c, 0, sizeof *c);
  if (err != HK_SUCCESS || *done)
    return err;
  int b = mz_bench_parse(opt.bench);
  if (b < 0)
    return hk_error_set(HK_ERR_ARG, "unknown benchmark '%s' (sp, bt or lu)", opt.bench);
  c->bench = (mz_bench_t)b;
  c->cls = strlen(opt.cls) == 1 ? mz_class_find(c->bench, opt.cls[0]) : NULL;
  if (!c->cls)
    return hk_error_set(HK_ERR_ARG, "unknown class '%s' for %s (classes: %s)", opt.cls,
                        mz_bench_name(c->bench), mz_class_list(c->bench));
  if (opt.steps < 0)
    return hk_error_set(HK_ERR_ARG, "--steps %d must be >= 0", opt.steps);
  c->niter = opt.steps ? opt.steps : c->cls->niter;
  c->zone_threads = opt.zone_threads;
  c->quiet = opt.quiet;
  c->rebalance = opt.rebalance;
  if (c->rebalance && c->zone_threads != 1)
    return hk_error_set(HK_ERR_ARG, "--rebalance-threads works with --zone-threads 1 only");
  c->output = opt.output;
  if (opt.split < 1)
    return hk_error_set(HK_ERR_ARG, "--split %d must be >= 1", opt.split);
  c->split = opt.split;
  c->history = opt.history;
  return HK_SUCCESS;
}
