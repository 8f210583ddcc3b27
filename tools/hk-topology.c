/* tools/hk-topology.c: the machine and where every rank and thread runs.
 *
 *   hk-topology                          machine tree + binding table of this run
 *   mpirun -np 2 ... hk-topology         the same for every rank/thread of the job
 *   hk-topology --dry-run --ranks 4 --threads 2 --policy scatter --topology "pack:2 core:4 pu:2"
 *                                        the map a launch would get (no MPI; like likwid-pin -p)
 *
 * Under MPI it writes one record of kind "topology.binding" (--output FILE.jsonl);
 * the binding of every thread is in the record's provenance.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_app.h"
#include "hybridkit.h"
#include "topology_kinds.h"

static struct {
  const char *policy;
  const char *topology;
  const char *output;
  const char *thread_level;
  int dry_run, ranks, threads, nodes, oversubscribe, no_tree;
} opt = {.policy = NULL, .thread_level = "masteronly", .ranks = 1, .threads = 1, .nodes = 1};

static const hk_opt_t options[] = {
  {"policy", HK_OPT_STR, &opt.policy, "P",
   "bind threads: none|compact|scatter (default: keep the launcher's binding; dry run: compact)", 0},
  {"topology", HK_OPT_STR, &opt.topology, "DESC",
   "machine to describe: hwloc synthetic string (at most 8192 PUs) or XML file (default "
   "$HK_TOPOLOGY, else this machine)", 0},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record to FILE", 0},
  {"thread-level", HK_OPT_STR, &opt.thread_level, "L",
   "MPI thread level to require: single|masteronly|funneled|serialized|multiple", 0},
  {"no-tree", HK_OPT_FLAG, &opt.no_tree, "", "do not print the machine tree", 0},
  {"dry-run", HK_OPT_FLAG, &opt.dry_run, "", "print the map a launch would get; no MPI", 0},
  {"ranks", HK_OPT_INT, &opt.ranks, "R", "dry run: number of ranks", 0},
  {"threads", HK_OPT_INT, &opt.threads, "T", "dry run: threads per rank", 0},
  {"nodes", HK_OPT_INT, &opt.nodes, "N", "dry run: nodes like the machine (ranks fill them in blocks)", 0},
  {"oversubscribe", HK_OPT_FLAG, &opt.oversubscribe, "",
   "dry run: allow more threads per node than cores", 0},
};

static const hk_app_t app = {
  .program = "hk-topology",
  .summary = "machine topology and the rank/thread -> PU binding of a run",
  .usage = "[--policy P] [--topology DESC] [--output FILE.jsonl]\n"
           "       hk-topology --dry-run --ranks R --threads T [--nodes N] [--policy P] "
           "[--topology DESC] [--oversubscribe]",
  .description =
      "Run it under mpirun/srun to see where every thread of every rank may run (cpuset) and\n"
      "where it ran last (cpu).  Warnings name threads that share PUs, threads not pinned to\n"
      "one core, ranks whose threads span packages or NUMA domains, threads pinned inside one\n"
      "core (SMT siblings), ranks owning more cores than threads (PE) and oversubscribed\n"
      "hosts.  The machine part shows the CPU model, the PUs sharing each cache and the NUMA\n"
      "distances when hwloc has them.  The dry run models `mpirun --map-by slot:PE=S\n"
      "--bind-to core` (S = the rank's share of the node's cores, at least T) with the\n"
      "thread policy inside each rank; policy none models `mpirun --bind-to none` without\n"
      "OMP_PLACES/OMP_PROC_BIND.\n"
      "Environment: HK_TOPOLOGY (machine), HK_NODE_SIZE (virtual nodes), OMP_NUM_THREADS.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

static int dry_run(void)
{
  hk_machine_t *m = NULL;
  hk_binding_t *map = NULL;
  hk_bind_policy_t policy = HK_BIND_COMPACT;
  int err = HK_SUCCESS;
  if (opt.policy)
    HK_TRY(err, hk_bind_policy_parse(opt.policy, &policy));
  HK_TRY(err, hk_machine_load(opt.topology, &m));
  hk_launch_map_desc_t d = {.ranks = opt.ranks, .threads = opt.threads, .nodes = opt.nodes,
                     .policy = policy, .oversubscribe = opt.oversubscribe};
  HK_TRY(err, hk_launch_map_compute(m, &d, &map));
  if (!opt.no_tree)
    hk_machine_print(m, stdout);
  hk_machine_info_t mi;
  hk_machine_info(m, &mi);
  int per_node = (opt.ranks + opt.nodes - 1) / opt.nodes, share = 0;
  hk_launch_map_share(mi.cores, per_node, opt.threads, &share);
  /* the launch the map models: policy none binds neither ranks nor threads */
  char launch[128];
  if (policy == HK_BIND_NONE)
    snprintf(launch, sizeof launch, "mpirun --bind-to none, no OMP_PLACES/OMP_PROC_BIND");
  else
    snprintf(launch, sizeof launch,
             "mpirun --map-by slot:PE=%d --bind-to core, OMP_PLACES=cores OMP_PROC_BIND=%s",
             share, policy == HK_BIND_SCATTER ? "spread" : "close");
  printf("# dry run: %d rank(s) x %d thread(s) on %d node(s), policy %s (%s)\n", opt.ranks,
         opt.threads, opt.nodes, hk_bind_policy_name(policy), launch);
  hk_binding_print(map, stdout);
  for (int i = 0; i < map->nwarnings; i++)
    printf("# WARNING: %s\n", map->warnings[i]);
cleanup:
  hk_binding_destroy(&map);
  hk_machine_destroy(&m);
  return err;
}

static int run(void *unused)
{
  (void)unused;
  int err = HK_SUCCESS, rank = 0;
  hk_machine_t *m = NULL;
  hk_nodes_t *nodes = NULL;
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  hk_bind_policy_t policy = HK_BIND_NONE;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* every rank checks the same inputs, so they fail together */
  if (opt.policy)
    HK_TRY(err, hk_bind_policy_parse(opt.policy, &policy));
  HK_TRY(err, hk_machine_load(opt.topology, &m));
  HK_TRY(err, hk_nodes_create(MPI_COMM_WORLD, &nodes));
  if (opt.policy) {
    HK_LOCAL(err, hk_bind_threads(policy));
    HK_AGREE(err, MPI_COMM_WORLD);
  }
  hk_reporter_desc_t rd = {.program = app.program, .output = opt.output, .nodes = nodes};
  HK_TRY(err, hk_reporter_create(MPI_COMM_WORLD, &rd, &rep));
  if (rank == 0 && !opt.no_tree)
    hk_machine_print(m, stdout);
  if (rank == 0)
    hk_binding_print(hk_reporter_binding(rep), stdout); /* its warnings are in the header */
  fflush(stdout);

  hk_machine_info_t mi;
  hk_nodes_info_t ni;
  hk_machine_info(m, &mi);
  hk_nodes_info(nodes, &ni);
  const hk_binding_t *b = hk_reporter_binding(rep);
  /* no error tests: a record keeps its first error and the emit returns it, agreed */
  hk_record_create_declared(rep, &topology_kind_binding, &rec);
  hk_record_param_str(rec, "policy", opt.policy ? opt.policy : "launcher");
  hk_record_param_str(rec, "machine", mi.source);
  hk_record_value_int(rec, "nodes", ni.nnodes, NULL);
  hk_record_value_int(rec, "cores", mi.cores, NULL);
  hk_record_value_int(rec, "pus", mi.pus, NULL);
  hk_record_value_int(rec, "threads", b->nentries, NULL);
  hk_record_value_int(rec, "binding_warnings", b->nwarnings, NULL);
  err = hk_record_emit(&rec);
cleanup:
  hk_reporter_destroy(&rep);
  hk_nodes_destroy(&nodes);
  hk_machine_destroy(&m);
  return err;
}

int main(int argc, char **argv)
{
  int done = 0;
  int err = hk_app_parse(&app, argc, argv, &done);
  if (done)
    return HK_EXIT_OK;
  if (opt.dry_run) { /* no MPI: under a launcher only its rank 0 prints */
    int quiet = hk_app_launcher_rank() != 0;
    if (quiet && !freopen("/dev/null", "w", stdout))
      return HK_EXIT_FAIL;
    if (err == HK_SUCCESS)
      err = dry_run();
    if (err != HK_SUCCESS && !quiet)
      fprintf(stderr, "%s: error: %s\n", app.program, hk_error_message());
    return hk_app_exit_code(err);
  }
  hk_thread_level_t level = HK_THREAD_MASTERONLY;
  if (opt.thread_level)
    HK_LOCAL(err, hk_thread_level_parse(opt.thread_level, &level));
  if (err != HK_SUCCESS)
    level = HK_THREAD_SINGLE;
  return hk_app_run(&app, &argc, &argv, level, level, err, run, NULL);
}
