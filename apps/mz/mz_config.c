/* apps/mz/mz_config.c: hk-mz's options: one table drives parsing and --help; the
 * benchmark and class are looked up once into a const mz_config_t. */
#include <string.h>
#include "mz.h"

static struct {
  const char *bench, *cls, *output, *second, *load_file, *history;
  int zone_threads, steps, quiet, rebalance, layout, sub_ranks, norms_hex, xprocs, split,
      split_for;
} opt = {.bench = "bt", .cls = "S", .zone_threads = 1, .second = "omp", .sub_ranks = 1,
         .split = 1};

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
  {"layout", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.layout, mz_layout_names}, "L",
   "pages of the zone data: first-touch|one-location|block|interleave|random|access (by the "
   "threads' planes; Jin et al.'s BT layouts, docs/mem.md)", 0},
  {"second-level", HK_OPT_STR, &opt.second, "omp|mpi",
   "inside a zone: OpenMP threads (omp) or --sub-ranks MPI processes splitting the zone in j "
   "(mpi; same numerics, bit-identical norms; SP-MZ and BT-MZ)", 0},
  {"sub-ranks", HK_OPT_INT, &opt.sub_ranks, "N2",
   "with --second-level mpi: processes per group (N2; divides the processes; the groups, N1, "
   "share the zones)", 0},
  {"norms-hex", HK_OPT_FLAG, &opt.norms_hex, "",
   "also print the verification norms exactly (C99 hex floats), to compare runs bit by bit", 0},
  {"load-file", HK_OPT_STR, &opt.load_file, "FILE",
   "threads and processor groups per process, as the reference's load<bench>.data: lines "
   "\"p1[:p2] threads group\"; --rebalance-threads then re-balances within each group", 0},
  {"xprocs", HK_OPT_INT, &opt.xprocs, "NXP",
   "LU-MZ: ranks splitting each zone's x range, NPB3.4-MZ's process grid NXP x NZP (0: "
   "NPB_NUM_XPROCS, else the reference's automatic choice; NXP > 1 needs MPI_THREAD_MULTIPLE)",
   0},
  {"split", HK_OPT_INT, &opt.split, "K",
   "mesh splitting: cut every zone into K sub-zones along the larger average zone dimension, "
   "each solved as a zone of its own (more processes; a different numerical method: not "
   "verified against the official values for K > 1)", 0},
  {"split-for", HK_OPT_INT, &opt.split_for, "P",
   "mesh splitting for P processes: --split K with the smallest K such that zones x K >= P "
   "(the class's zones; K = 1 when P <= zones)", 0},
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
           "[--second-level omp|mpi [--sub-ranks N2]] "
           "[--load-file FILE] [--xprocs NXP] [--split K | --split-for P] [--history FILE.csv] [--output FILE.jsonl]",
  .description =
      "The NPB3.3-MZ problems: aggregate grid cut into zones (equal for SP-MZ, uneven for\n"
      "BT-MZ; LU-MZ: 4 x 4 equal zones, NPB3.4-MZ), zones assigned to processes (BT-MZ: bin\n"
      "packing, largest zone first to the least-loaded process; SP-MZ, LU-MZ: blocks), zone\n"
      "boundaries exchanged every time step (LU-MZ: every SSOR iteration; its lower and upper\n"
      "sweeps pipelined over the threads, each owning a block of j-rows).\n"
      "LU-MZ uses NPB3.4-MZ's 2-D process grid NXP x NZP: zones over NZP groups of ranks, each\n"
      "zone's x range split over the NXP ranks of its group (chosen as the reference does,\n"
      "--xprocs or NPB_NUM_XPROCS override); NXP > 1 needs MPI_THREAD_MULTIPLE, without it\n"
      "hk-mz says so and uses the zone-only grid.\n"
      "Verifies the residual and error norms (LU-MZ: and the surface integral) against the\n"
      "official values (relative 1e-8) and exits 1 when they differ.  Mop/s from the NPB\n"
      "formulas over the slowest rank's time.  --split K cuts every zone into K sub-zones\n"
      "(mesh splitting, for more processes than zones; --split-for P picks the smallest K\n"
      "with zones x K >= P): a different numerical method, never verified; the points incl.\n"
      "ghosts are reported.",
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
  c->load_file = opt.load_file;
  if (c->load_file && c->zone_threads != 1)
    return hk_error_set(HK_ERR_ARG, "--load-file works with --zone-threads 1 only");
  c->output = opt.output;
  c->layout = opt.layout;
  c->norms_hex = opt.norms_hex;
  c->second_mpi = !strcmp(opt.second, "mpi");
  c->sub_ranks = c->second_mpi ? opt.sub_ranks : 1;
  if (!c->second_mpi && strcmp(opt.second, "omp"))
    return hk_error_set(HK_ERR_ARG, "--second-level '%s': omp or mpi", opt.second);
  if (!c->second_mpi && opt.sub_ranks != 1)
    return hk_error_set(HK_ERR_ARG, "--sub-ranks needs --second-level mpi");
  if (c->second_mpi && c->bench == MZ_BENCH_LU)
    return hk_error_set(HK_ERR_UNSUPPORTED, "--second-level mpi is not supported for LU-MZ "
                        "(SP-MZ and BT-MZ only)");
  if (c->second_mpi && (c->sub_ranks < 1 || c->zone_threads != 1 || c->rebalance))
    return hk_error_set(HK_ERR_ARG, "--second-level mpi needs --sub-ranks >= 1, --zone-threads "
                        "1 and no --rebalance-threads");
  if (opt.xprocs < 0 || (opt.xprocs > 1 && c->bench != MZ_BENCH_LU))
    return hk_error_set(HK_ERR_ARG, "--xprocs %d: LU-MZ only, >= 0", opt.xprocs);
  c->xprocs = opt.xprocs;
  if (opt.split < 1)
    return hk_error_set(HK_ERR_ARG, "--split %d must be >= 1", opt.split);
  c->split = opt.split;
  if (opt.split_for < 0 || (opt.split_for > 0 && opt.split != 1))
    return hk_error_set(HK_ERR_ARG, "--split-for %d: a process count >= 1, not together with "
                        "--split", opt.split_for);
  if (opt.split_for > 0) { /* the smallest K with zones x K >= P (mz_split.h cuts K ways) */
    int zones = c->cls->x_zones * c->cls->y_zones;
    c->split = (opt.split_for + zones - 1) / zones;
  }
  c->history = opt.history;
  if (c->second_mpi && (c->split > 1 || c->history))
    return hk_error_set(HK_ERR_UNSUPPORTED, "--split and --history work with the OpenMP "
                        "second level only (not with --second-level mpi)");
  return HK_SUCCESS;
}
