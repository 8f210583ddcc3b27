/* hybridkit/topo.h: machines, nodes, binding (on hwloc).
 *
 *   machine  what one node looks like: packages, NUMA nodes, caches, cores, PUs.
 *            The real machine, or a synthetic one ("pack:2 numa:2 core:4 pu:2",
 *            hwloc synthetic syntax) or an hwloc XML file, so mapping code can be
 *            tested on a 2-core box.  HK_TOPOLOGY selects one for hk_machine_load(NULL).
 *   nodes    which ranks share memory: MPI_COMM_TYPE_SHARED, or virtual nodes
 *            HK_NODE_SIZE=k (k consecutive ranks per node; HK_NODE_UNEVEN=1
 *            lets the last node be smaller when k does not divide the ranks).
 *   binding  where every thread of every rank may run and last ran; binding
 *            threads with a policy inside the rank's cpuset.
 *   map      the rank/thread -> PU map a launch would get (dry run, no MPI).
 *
 * Policies (inside the PUs a rank owns):
 *   none     threads are not bound (each may run on every PU of the rank)
 *   compact  thread t on core t: neighbouring threads share caches
 *            (OMP_PLACES=cores OMP_PROC_BIND=close)
 *   scatter  threads spread as far apart as possible: over packages, then NUMA
 *            nodes, then caches (hwloc_distrib; OMP_PROC_BIND=spread)
 * A thread bound by compact or scatter gets all PUs of its core.  More threads
 * than cores wrap around, and the binding report warns.
 */
#ifndef HYBRIDKIT_TOPO_H
#define HYBRIDKIT_TOPO_H

#include <stdio.h>
#include <mpi.h>
#include "hybridkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ machine */

typedef struct hk_machine hk_machine_t;

#define HK_MAX_CACHE_LEVELS 5

typedef struct hk_machine_info {
  const char *source;       /* "this machine", "synthetic:<desc>" or "xml:<path>" */
  int packages;
  int numa_nodes;
  int cores;
  int pus;
  int cache_levels;         /* entries used in cache[] (data/unified caches) */
  struct {
    int level;              /* 1, 2, 3 ... */
    long long size_bytes;   /* of one cache */
    int count;              /* caches of this level in the machine */
  } cache[HK_MAX_CACHE_LEVELS];
} hk_machine_info_t;

/* The largest synthetic machine hk_machine_load builds (PUs). */
#define HK_SYNTHETIC_MAX_PUS 8192

/* hk_machine_load: desc NULL or "" -> $HK_TOPOLOGY if set, else the real
 * machine.  A desc naming an existing file (or ending in .xml) is read as hwloc
 * XML, anything else as an hwloc synthetic description.  HK_ERR_TOPOLOGY with
 * the parser's complaint for a description that does not parse, for a path that is
 * not a regular file (a FIFO, a directory), and for a synthetic machine of more than
 * HK_SYNTHETIC_MAX_PUS PUs (hwloc's time to build one grows faster than linearly:
 * 8192 PUs take ~0.5 s, 32768 ~10 s).
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_TOPOLOGY (as above), HK_ERR_ARG, HK_ERR_NOMEM. */
HK_EXPORT int hk_machine_load(const char *desc, hk_machine_t **machine);

/* hk_machine_this: the machine this process runs on (never $HK_TOPOLOGY), loaded
 * on the first call and kept until hk_finalize, so that callers asking for its caches
 * or packages do not each build an hwloc topology again.  Borrowed: do not destroy.
 * Collective: local.  Threads: one thread at a time (the first call loads it).
 * Errors: HK_ERR_ARG for NULL, HK_ERR_TOPOLOGY. */
HK_EXPORT int hk_machine_this(const hk_machine_t **machine);

/* hk_machine_destroy: free, set *machine = NULL.  NULL is fine.
 * Collective: local.  Threads: any thread.  Errors: none (NULL is fine). */
HK_EXPORT void hk_machine_destroy(hk_machine_t **machine);

/* hk_machine_info: summary counts (the strings live as long as the machine).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_machine_info(const hk_machine_t *machine, hk_machine_info_t *info);

/* hk_machine_is_this_system: *flag = 1 when the machine is the one we run on (binding
 * to it is possible), 0 for synthetic/XML machines.
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_machine_is_this_system(const hk_machine_t *machine, int *flag);

/* hk_machine_print: the machine as an indented tree (like lstopo --no-io),
 * with a one-line summary first.  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL, HK_ERR_IO. */
HK_EXPORT int hk_machine_print(const hk_machine_t *machine, FILE *out);

/* -------------------------------------------------------------------- nodes */

typedef struct hk_nodes hk_nodes_t;

typedef struct hk_nodes_info {
  int node;         /* this rank's node, 0 .. nnodes-1, numbered by lowest rank */
  int nnodes;
  int local_rank;   /* rank in the node communicator */
  int local_size;   /* ranks on this node */
  int max_local_size;
  int is_virtual;   /* 1 when HK_NODE_SIZE made the grouping */
} hk_nodes_info_t;

/* hk_nodes_create: group the ranks of comm into nodes (see the file comment).
 * HK_ERR_NODES, on every rank, when HK_NODE_SIZE is not a positive integer or
 * does not divide the number of ranks (and HK_NODE_UNEVEN is not 1).
 * Collective: comm.  Threads: outside parallel regions (masteronly).
 * Errors: HK_ERR_NODES (agreed), HK_ERR_NOMEM, HK_ERR_MPI. */
HK_EXPORT int hk_nodes_create(MPI_Comm comm, hk_nodes_t **nodes);
/* hk_nodes_destroy: free the node communicator; *nodes = NULL.  Collective: comm.
 * Threads: outside parallel regions.  Errors: HK_ERR_MPI (NULL is fine). */
HK_EXPORT int hk_nodes_destroy(hk_nodes_t **nodes);
/* hk_nodes_info: Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_nodes_info(const hk_nodes_t *nodes, hk_nodes_info_t *info);
/* The communicator of this rank's node (owned by nodes, do not free).
 * Collective: local.  Threads: any thread.  Errors: none (MPI_COMM_NULL for NULL); owned by nodes, do not free. */
HK_EXPORT MPI_Comm hk_nodes_comm(const hk_nodes_t *nodes);
/* hk_nodes_node_of: *node = the node of `rank` (a rank of the comm given to hk_nodes_create).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments or a rank out of range. */
HK_EXPORT int hk_nodes_node_of(const hk_nodes_t *nodes, int rank, int *node);

/* ------------------------------------------------------------------ binding */

typedef enum hk_bind_policy {
  HK_BIND_NONE = 0,
  HK_BIND_COMPACT = 1,
  HK_BIND_SCATTER = 2,
  HK_BIND_POLICY_COUNT
} hk_bind_policy_t;

/* hk_bind_policy_name: Collective: local.  Threads: any thread.
 * Errors: none (an unknown value gives "invalid"). */
HK_EXPORT const char *hk_bind_policy_name(hk_bind_policy_t policy);
/* hk_bind_policy_parse: Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG naming the known names. */
HK_EXPORT int hk_bind_policy_parse(const char *name, hk_bind_policy_t *policy);

/* hk_bind_threads: bind the threads of the next parallel regions
 * (omp_get_max_threads() of them) by policy inside the PUs this rank may use:
 * the union of its threads' cpusets at the first call (what the launcher gave),
 * remembered until hk_finalize so later calls can re-bind.  HK_BIND_NONE lets
 * every thread run on all of them.  Uses the real machine.  Returns HK_ERR_BIND if the OS refuses.
 * Collective: local.  Threads: outside parallel regions (opens one).
 * Errors: HK_ERR_ARG (bad policy), HK_ERR_BIND, HK_ERR_TOPOLOGY. */
HK_EXPORT int hk_bind_threads(hk_bind_policy_t policy);

typedef struct hk_binding_entry {
  int rank;            /* in the comm of the report */
  int thread;          /* OpenMP thread number */
  int node;            /* node id (hk_nodes) */
  char host[64];       /* MPI_Get_processor_name */
  char cpuset[128];    /* PUs it may run on, hwloc list syntax, OS indexes ("0-1,4"), for
                          display: a longer list is cut (ends in "..."); the exact
                          set is the entry's bitmap in hk_binding_t.sets */
  int cpu;             /* OS index of the PU it last ran on, -1 unknown */
} hk_binding_entry_t;

typedef struct hk_binding {
  int nentries;                  /* sum over ranks of their thread counts */
  hk_binding_entry_t *entries;   /* ordered by rank, then thread */
  int set_words;                 /* unsigned longs per entry in sets */
  unsigned long *sets;           /* entry i's PUs: sets[i * set_words + w], bit b = OS PU
                                    w * bits-per-long + b (hwloc_bitmap_from_ith_ulong) */
  int nwarnings;
  char **warnings;               /* e.g. "rank 0: 2 threads share 1 PU (0) ..." */
} hk_binding_t;

/* hk_binding_report: every thread of every rank (threads of a parallel region
 * of omp_get_max_threads() threads) reports its cpuset and current PU,
 * gathered to rank 0 of comm (MPI_Gatherv): rank 0 gets every entry and the
 * warnings (see hk_launch_map_compute); the other ranks get their own threads'
 * entries only, without warnings.  `nodes` may be NULL (node 0 for all).
 * Collective: comm.  Threads: outside parallel regions (opens one).
 * Errors: HK_ERR_NOMEM, HK_ERR_TOPOLOGY, HK_ERR_MPI (agreed over comm). */
HK_EXPORT int hk_binding_report(MPI_Comm comm, const hk_nodes_t *nodes, hk_binding_t **binding);
/* hk_binding_print: a table "rank thread node host cpuset cpu" (warnings are
 * the caller's to print: the reporter prints them in its header).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL, HK_ERR_IO. */
HK_EXPORT int hk_binding_print(const hk_binding_t *binding, FILE *out);
/* hk_binding_destroy: Collective: local.  Threads: any thread.
 * Errors: none (NULL is fine). */
HK_EXPORT void hk_binding_destroy(hk_binding_t **binding);

/* ---------------------------------------------------------------------- map */

typedef struct hk_launch_map_desc {
  int ranks;                 /* >= 1 */
  int threads;               /* per rank, >= 1 */
  int nodes;                 /* nodes like `machine`, >= 1; ranks fill nodes in blocks */
  hk_bind_policy_t policy;
  int oversubscribe;         /* allow more threads on a node than it has cores */
} hk_launch_map_desc_t;

/* hk_launch_map_compute: the rank/thread -> PU map that `hybridkit run` launches
 * (mpirun --map-by slot:PE=S --bind-to core, S = hk_launch_map_share()) with the policy
 * inside each rank would give on `nodes` copies of `machine`: rank r goes to node
 * r / ceil(ranks/nodes); the k-th rank of a node owns cores [k*S, (k+1)*S), and
 * its T threads go on T of them: the first T (compact) or spread (scatter).
 * HK_ERR_RESOURCES ("4 ranks x 2 threads need 8 cores per node, the machine has 4")
 * unless oversubscribe, which wraps around (and adds a warning).
 * Warnings (here and in hk_binding_report), as likwid-pin users expect: threads
 * of a rank sharing PUs, threads not pinned to one core, a rank whose threads
 * span packages or NUMA domains, two threads on SMT siblings of one core, a
 * rank with more cores than threads (PE != threads), an oversubscribed host.
 * The result uses the hk_binding_t layout (host "node<N>", cpu -1).
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (bad desc), HK_ERR_RESOURCES (as above), HK_ERR_NOMEM. */
HK_EXPORT int hk_launch_map_compute(const hk_machine_t *machine, const hk_launch_map_desc_t *desc,
                             hk_binding_t **map);

/* hk_launch_map_share: *share = cores each rank owns when `ranks_per_node` ranks of `threads`
 * threads share a node of `cores` cores: max(threads, cores / ranks_per_node).
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for a count < 1 or NULL. */
HK_EXPORT int hk_launch_map_share(int cores, int ranks_per_node, int threads, int *share);

#ifdef __cplusplus
}
#endif
#endif
