/* bench/beff.c: the effective bandwidth b_eff as the original defines it (HLRS
 * b_eff 3.6 / 3.6.0.1, Rabenseifner & Koniges, EuroPVM/MPI 2001), and its
 * masteronly-hybrid counterpart (Rabenseifner, EuroPVM/MPI 2002).
 *
 * Sizes: 21, the original's: 1 B, 2 B, ... 4 KiB doubling, then 8 geometric
 * steps up to Lmax = memory per process / 128 (beff_calc.c).
 * Patterns: 6 rings, 30 random rings and 3D-cyclic (beff_patterns.c).
 * Methods: Sendrecv per pair, one Alltoallv, Irecv+Isend per pair then Waitall.
 * Loop lengths: the original's time-per-loop rule (a pass of 10 loops at 1 B,
 * then per size the previous loop length scaled so that all patterns of one
 * method take --time-per-loop seconds, capped), 3 repetitions; when the two
 * largest sizes would take more than 60 s, they run the best method only, once,
 * the largest in 2 repetitions (the original's "shortlasttwo").
 * b(pattern, L) = max over methods and repetitions of the slowest process's
 * bytes sent per second x messages of the pattern / messages per process;
 * b_eff = logavg(logavg_rings(mean_L b), logavg_random(mean_L b)) (beff_calc.h).
 * --compare-hybrid: the same on the node leaders (local rank 0) with messages
 * of L x ranks-on-the-sending-node bytes, the others sleeping; per pattern
 *   T_hybrid / T_MPP = b_MPP per node / b_hybrid per node.
 * Every message carries a stamp (sender, pair, loop) in its first and last
 * byte, checked after every loop as the original does; one more untimed loop
 * after each measurement sends hk_bench_fill(sender) and is checked byte for
 * byte.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "beff.h"

const char *const beff_meth_names[NMETH] = {"sendrecv", "alltoallv", "nonblocking"};

static const char *opt_lmax = NULL;
static const char *opt_memory = NULL;
static double opt_time_per_loop = 0.5; /* the original's TIMEPERLOOP */
static int opt_compare_hybrid;
static int opt_seed = 12345;

static const hk_opt_t beff_opts[] = {
  {"lmax", HK_OPT_STR, &opt_lmax, "SIZE",
   "largest message Lmax, at least 4K (default: --memory / 128, or the maximum of -m)", 0},
  {"memory", HK_OPT_STR, &opt_memory, "SIZE",
   "memory per process, Lmax = SIZE / 128 (default: the node's memory / its ranks)", 0},
  {"time-per-loop", HK_OPT_DOUBLE, &opt_time_per_loop, "SEC",
   "seconds all patterns of one method take per size (the original's 0.5)", 0},
  {"compare-hybrid", HK_OPT_FLAG, &opt_compare_hybrid, "",
   "also run masteronly: node leaders only, messages of L x ranks-per-node", 0},
  {"seed", HK_OPT_INT, &opt_seed, "N", "seed of the random permutations", 0},
};


static int run_set(hk_bench_ctx_t *c, run_set_t *rs, const long long *sizes, double factor,
                   long long lmax, int procs, int nodes)
{
  int err = HK_SUCCESS;
  mbuf_t mb = {0};
  if (rs->comm != MPI_COMM_NULL) /* agreed over rs->comm, the others sleep */
    err = beff_measure(rs, sizes, factor, lmax, opt_time_per_loop, opt_seed, &mb);
  int barrier = hk_bench_idle_barrier(c->comm); /* on every rank, whatever its error */
  HK_LOCAL(err, barrier);
  HK_AGREE(err, c->comm);
  /* rank 0 of ctx->comm is rank 0 of rs->comm and writes the records (errors agreed) */
  beff_numbers_t x;
  beff_numbers(rs, &x);
  HK_TRY(err, beff_emit_sizes(c, rs, sizes, &x));
  HK_TRY(err, beff_emit_patterns(c, rs));
  HK_TRY(err, beff_emit_summary(c, rs, &x, procs, nodes, lmax));
cleanup:
  free(mb.sbuf);
  free(mb.rbuf);
  free(mb.scounts);
  if (rs->cyc_comm != MPI_COMM_NULL)
    MPI_Comm_free(&rs->cyc_comm);
  return err;
}

static int parse_one_size(const char *opt, const char *spec, long long *v)
{
  long long a, b;
  if (hk_bench_parse_sizes(spec, &a, &b) != HK_SUCCESS || a != b)
    return hk_error_set(HK_ERR_ARG, "--%s %s: one positive byte count with an optional K, M "
                                    "or G suffix", opt, spec);
  *v = b;
  return HK_SUCCESS;
}

/* Lmax and the other size arguments fit the original's sizes and int displacements */
static int lmax_fits(long long lmax, const char *from, const hk_nodes_info_t *ni)
{
  if (lmax < 4096)
    return hk_error_set(HK_ERR_ARG, "Lmax %lld (from %s) is below 4K: the original's sizes "
                                    "double from 1 B to 4 KiB before Lmax", lmax, from);
  if (!(opt_time_per_loop > 0.0))
    return hk_error_set(HK_ERR_ARG, "--time-per-loop %g: must be positive", opt_time_per_loop);
  long long maxmsg = lmax * (opt_compare_hybrid ? ni->max_local_size : 1);
  if ((maxmsg + 24) * MAXSR > INT_MAX) /* displacements are ints */
    return hk_error_set(HK_ERR_ARG, "messages of %lld bytes are too large: %d of them must fit "
                        "an int displacement", maxmsg, MAXSR);
  return HK_SUCCESS;
}

/* Lmax from --lmax, the maximum of -m, --memory or the node's memory: every rank uses the
 * smallest (nodes may differ in memory or ranks).  Collective: c->comm; errors agreed */
static int lmax_of(hk_bench_ctx_t *c, const hk_nodes_info_t *ni, long long *lmax,
                   const char **from)
{
  int err = HK_SUCCESS;
  long long memory = 0, a = 0;
  *lmax = 0;
  *from = "--lmax";
  if (opt_lmax) {
    err = parse_one_size("lmax", opt_lmax, lmax);
  } else if (c->common->sizes) {
    *from = "the maximum of -m";
    err = hk_bench_parse_sizes(c->common->sizes, &a, lmax);
  } else {
    if (opt_memory) {
      *from = "--memory / 128";
      err = parse_one_size("memory", opt_memory, &memory);
    } else {
      *from = "the node's memory / its ranks / 128";
      memory = (long long)sysconf(_SC_PHYS_PAGES) * (long long)sysconf(_SC_PAGESIZE) /
               (ni->local_size > 0 ? ni->local_size : 1);
    }
    *lmax = beff_lmax_of_memory(memory);
  }
  MPI_Allreduce(MPI_IN_PLACE, lmax, 1, MPI_LONG_LONG, MPI_MIN, c->comm);
  HK_LOCAL(err, lmax_fits(*lmax, *from, ni));
  HK_AGREE(err, c->comm);
cleanup:
  return err;
}

/* the node leaders' run set: their communicator and the ranks of each leader's node.
 * Collective: c->comm; errors agreed */
static int hybrid_set(hk_bench_ctx_t *c, const hk_nodes_info_t *ni, run_set_t *hyb)
{
  int err = HK_SUCCESS, ppn = ni->local_size, *mult = NULL;
  if (ni->nnodes < 2)
    hk_reporter_config(c->rep, "compare-hybrid",
                       "one node: the hybrid run has a single leader that exchanges with "
                       "itself only (degenerate; use real nodes, HK_NODE_SIZE or tools/vcluster)");
  else
    hk_reporter_config(c->rep, "compare-hybrid", "%d node leaders, messages of L x ranks on "
                       "the sending node (%d%s)", ni->nnodes, ni->max_local_size,
                       ni->max_local_size == ni->local_size ? "" : " at most");
  HK_LOCAL(err, hk_bench_mpi(MPI_Comm_split(c->comm, ni->local_rank == 0 ? 0 : MPI_UNDEFINED,
                                            c->rank, &hyb->comm),
                             "splitting the node leaders off"));
  if (hyb->comm != MPI_COMM_NULL) {
    MPI_Comm_rank(hyb->comm, &hyb->rank);
    MPI_Comm_size(hyb->comm, &hyb->size);
    HK_ALLOC_LOCAL(err, mult, hyb->size);
    hyb->mult = mult;
    err = hk_agree(hyb->comm, err); /* the leaders gather together, or none does */
    HK_LOCAL(err, hk_bench_mpi(MPI_Allgather(&ppn, 1, MPI_INT, mult, 1, MPI_INT, hyb->comm),
                               "gathering the node sizes"));
  }
  HK_AGREE(err, c->comm);
cleanup:
  return err;
}

static int run(hk_bench_ctx_t *c)
{
  int err = HK_SUCCESS;
  hk_nodes_info_t ni = {0};
  run_set_t *mpp = NULL, *hyb = NULL;
  long long lmax = 0, sizes[NMSG];
  const char *from = NULL;
  hk_nodes_info(c->nodes, &ni); /* c->nodes is valid: cannot fail */
  HK_TRY(err, lmax_of(c, &ni, &lmax, &from));
  double factor = beff_sizes(lmax, sizes);
  hk_reporter_config(c->rep, "beff sizes", "1 B to 4 KiB doubling, then x %.4f to Lmax = %lld "
                     "bytes (%s)", factor, lmax, from);
  hk_reporter_config(c->rep, "beff patterns", "%d rings, %d random rings, 3D-cyclic; methods "
                     "Sendrecv, Alltoallv, Irecv+Isend; best of %d repetitions; %.3g s per loop",
                     NRING, NRAND, NREP, opt_time_per_loop);
  HK_ALLOC_LOCAL(err, mpp, 1);
  HK_ALLOC_LOCAL(err, hyb, 1);
  HK_AGREE(err, c->comm);
  *mpp = (run_set_t){.comm = c->comm, .rank = c->rank, .size = c->size, .name = "mpp",
                     .cyc_comm = MPI_COMM_NULL};
  *hyb = (run_set_t){.comm = MPI_COMM_NULL, .name = "hybrid", .cyc_comm = MPI_COMM_NULL};
  HK_TRY(err, run_set(c, mpp, sizes, factor, lmax, c->size, ni.nnodes));
  if (!opt_compare_hybrid)
    goto cleanup;
  HK_TRY(err, hybrid_set(c, &ni, hyb));
  HK_TRY(err, run_set(c, hyb, sizes, factor, lmax, ni.nnodes, ni.nnodes));
  /* rank 0 is a leader (the lowest rank of node 0): its results count */
  beff_numbers_t xm, xh;
  beff_numbers(mpp, &xm);
  beff_numbers(hyb, &xh);
  err = beff_emit_compare(c, &xm, &xh, ni.nnodes);
cleanup:
  if (hyb) {
    free((int *)hyb->mult);
    if (hyb->comm != MPI_COMM_NULL)
      MPI_Comm_free(&hyb->comm);
  }
  free(mpp);
  free(hyb);
  return err;
}

const hk_experiment_t hk_exp_beff = {
  .name = "beff",
  .summary = "effective bandwidth b_eff as the original defines it; 3D-cyclic; MPP vs hybrid",
  .description =
      "Rabenseifner & Koniges' effective bandwidth b_eff, computed as HLRS b_eff 3.6.0.1 does.\n"
      "Sizes: 1 B to 4 KiB doubling, then 8 geometric steps to Lmax (memory per process / 128;\n"
      "--lmax, the maximum of -m, or --memory).  Patterns: 6 rings of about 2, 4, 8, n/4, n/2\n"
      "and n ranks, 30 random rings, and the 3D-cyclic grid.  Methods: Sendrecv, Alltoallv,\n"
      "Irecv+Isend+Waitall; loops sized so all patterns of a method take --time-per-loop s;\n"
      "3 repetitions.  b(pattern, L) = best method and repetition of the slowest process's\n"
      "rate x the pattern's messages / its messages per process; b_eff = logavg(logavg of the\n"
      "rings' means over L, logavg of the random rings' means over L); b_eff at Lmax likewise\n"
      "at Lmax; 3D-cyclic = its mean over L and its value at Lmax; all in MB/s = 1e6 B/s, in\n"
      "total, per process and per node.  --compare-hybrid repeats it masteronly on the node\n"
      "leaders with L x ranks-per-node messages: T_hybrid/T_MPP = b_MPP/b_hybrid per node\n"
      "(EuroPVM/MPI 2002).  Every message is checked.  A default run takes ~100 s; -i and\n"
      "-x do not apply (the original's loop lengths), -m gives Lmax by its maximum.",
  .default_sizes = NULL,
  .level = HK_THREAD_SINGLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 2,
  .opts = beff_opts,
  .nopts = (int)(sizeof beff_opts / sizeof beff_opts[0]),
  .run = run,
};
