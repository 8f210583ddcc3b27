/* apps/mc/mc_config.c: hk-mc's options: one table drives parsing and --help; the
 * values are checked and turned into a const mc_config_t once. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mc.h"

static struct {
  int particles, steps, warmup, tally_bytes, seed, collective;
  const char *algorithm, *allreduce, *expect, *output;
} opt = {.particles = 100000, .steps = 100, .warmup = 2, .tally_bytes = 131072, .seed = 1,
         .collective = MC_ALLREDUCE, .algorithm = "mpi"};

static const hk_opt_t options[] = {
  {"particles", HK_OPT_INT, &opt.particles, "N", "particles in total (split over the ranks)", 0},
  {"steps", HK_OPT_INT, &opt.steps, "K", "timed time steps", 0},
  {"warmup", HK_OPT_INT, &opt.warmup, "W", "untimed time steps first (part of the simulation)", 0},
  {"tally-bytes", HK_OPT_INT, &opt.tally_bytes, "B",
   "bytes of the tally array reduced every step (multiple of 8, >= 16)", 0},
  {"seed", HK_OPT_INT, &opt.seed, "S", "random seed", 0},
  {"collective", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.collective, mc_coll_names}, "C",
   "allreduce | reduce | reduce-scatter | allgather | alltoall | bcast (see above)", 0},
  {"algorithm", HK_OPT_STR, &opt.algorithm, "A",
   "mpi (MPI_*: what the preload library intercepts) | auto | chunked | "
   "chunked-shifted | hierarchical (the hk_* functions)", 0},
  {"allreduce", HK_OPT_STR, &opt.allreduce, "A", "the former name of --algorithm", 0},
  {"expect-checksum", HK_OPT_STR, &opt.expect, "HEX", "fail unless the checksum is HEX", 0},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record to FILE", 0},
};

const hk_app_t mc_app = {
  .program = "hk-mc",
  .summary = "Monte Carlo particles with a per-step allreduce of a tally array (hybrid collectives)",
  .usage = "[--particles N] [--steps K] [--tally-bytes B] [--collective C] [--algorithm A]\n"
           "       [--output FILE.jsonl]",
  .description =
      "Particles move and interact in OpenMP loops; every step ends with an allreduce of the\n"
      "tally array (default 128 KiB of int64 counters) outside the parallel region.  Run it\n"
      "under LD_PRELOAD=libhybridkit-preload.so to let the idle threads take part in the\n"
      "MPI collectives the preload intercepts, or pick a hybrid algorithm with --algorithm:\n"
      "every collective of the step then runs through its hk_* function with it.\n"
      "--collective: the collective(s) that give every rank the global tally each step:\n"
      "  allreduce       MPI_Allreduce (the default)\n"
      "  reduce          MPI_Reduce to rank 0, then MPI_Bcast of the result\n"
      "  reduce-scatter  MPI_Reduce_scatter_block of the tally padded to P blocks, then\n"
      "                  MPI_Allgather of the blocks\n"
      "  allgather       MPI_Allgather of the P tallies, summed locally in rank order\n"
      "  alltoall        MPI_Alltoall (block j of every rank to rank j), summed there, then\n"
      "                  MPI_Allgather of the blocks\n"
      "  bcast           P x MPI_Bcast (root r: rank r's tally), summed in rank order\n"
      "Deterministic for a seed: the checksum is the same for every rank and thread count,\n"
      "every collective and every algorithm (integer sums are exact).\n"
      "Verifies particle conservation every step; exits 1 when wrong.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

static int check_options(mc_config_t *c)
{
  if (opt.particles < 1 || opt.steps < 1 || opt.warmup < 0)
    return hk_error_set(HK_ERR_ARG, "--particles and --steps must be >= 1, --warmup >= 0");
  if (opt.tally_bytes < 16 || opt.tally_bytes % 8)
    return hk_error_set(HK_ERR_ARG, "--tally-bytes %d: a multiple of 8, at least 16",
                        opt.tally_bytes);
  /* --allreduce: the former name, alone or saying the same as --algorithm */
  const char *name = opt.allreduce ? "allreduce" : "algorithm";
  const char *alg = opt.allreduce ? opt.allreduce : opt.algorithm;
  if (opt.allreduce && strcmp(opt.algorithm, "mpi") != 0 && strcmp(opt.algorithm, alg) != 0)
    return hk_error_set(HK_ERR_ARG, "--allreduce %s and --algorithm %s: one algorithm (--allreduce "
                        "is the former name of --algorithm)", opt.allreduce, opt.algorithm);
  c->algorithm = alg;
  c->use_hk = strcmp(alg, "mpi") != 0;
  c->alg = HK_ALLREDUCE_MPI;
  if (c->use_hk && hk_allreduce_alg_parse(alg, &c->alg) != HK_SUCCESS)
    return hk_error_set(HK_ERR_ARG, "--%s %s: mpi, auto, chunked, chunked-shifted or "
                        "hierarchical", name, alg);
  if (opt.expect) {
    char *end = NULL;
    errno = 0;
    c->expected = strtoull(opt.expect, &end, 16);
    c->expect = opt.expect;
    if (!isxdigit((unsigned char)*opt.expect) || *end || errno)
      return hk_error_set(HK_ERR_ARG, "--expect-checksum %s: not a hexadecimal number",
                          opt.expect);
  }
  return HK_SUCCESS;
}

int mc_config_parse(int argc, char **argv, mc_config_t *c, int *done)
{
  int err = hk_app_parse(&mc_app, argc, argv, done);
  *c = (mc_config_t){.particles = opt.particles, .steps = opt.steps, .warmup = opt.warmup,
                     .tally_bytes = opt.tally_bytes, .seed = opt.seed,
                     .collective = (mc_coll_t)opt.collective, .alg = HK_ALLREDUCE_MPI,
                     .algorithm = opt.algorithm, .output = opt.output};
  if (err != HK_SUCCESS || *done)
    return err;
  return check_options(c);
}
