/* preload/hk_profile_kinds.c: the fields of the records of libhybridkit-profile.so
 * (hk_profile_out.c writes them), declared once; the schemas
 * python/src/hybridkit/schemas/profile*.schema.json are generated from here. */
#include "hybridkit/kind_fields.h"
#include "hk_profile_kinds.h"

#define CL "calls"

static const hk_field_decl_t run_fields[] = {
  {"command", PS, NULL, SAME, 0, 0, "the profiled command line (rank 0's)"},
  {"procs", PI, NULL, SAME, 0, 0, "MPI processes"},
  {"threads", PI, NULL, SAME, 0, 0, "OpenMP threads per process (omp_get_max_threads, largest rank)"},
  {"nodes", PI, NULL, SAME, 0, 0, "nodes (MPI_Comm_split_type SHARED, or HK_NODE_SIZE)"},
  {"thread_level", PS, NULL, SAME, 0, 0, "MPI thread level the program asked for"},
  {"thread_level_provided", PS, NULL, SAME, 0, 0, "MPI thread level the library provided"},
  {"wall_time", ST, "s", RANKS, 0, 0, "MPI_Init to MPI_Finalize"},
  {"mpi_time", ST, "s", RANKS, 0, 0, "time inside MPI calls, summed over the rank's threads"},
  {"mpi_time_outside", ST, "s", RANKS, 0, 0, "time inside MPI calls made outside parallel regions"},
  {"mpi_time_parallel", ST, "s", RANKS, 0, 0,
   "time inside MPI calls made inside parallel regions, summed over threads"},
  {"f_comm", ST, "fraction", RANKS, 0, 0, "MPI time outside parallel regions over the wall time"},
  {"sleeping_threads", ST, "thread-s", RANKS, 0, 0,
   "MPI time outside parallel regions x (omp_get_max_threads() - 1): threads idle while the master communicates"},
  {"sleeping_share", ST, "fraction", RANKS, 0, 0,
   "sleeping thread-seconds over wall time x threads: the share of the rank's thread capacity asleep in MPI"},
  {"busy_threads", ST, "threads", RANKS, 0, 0,
   "CPU time of all the process's tasks (/proc/self/task, schedstat) from MPI_Init to MPI_Finalize over the wall time"},
  {"vmhwm", ST, "KiB", RANKS, 0, 0, "peak resident memory (VmHWM) at MPI_Finalize"},
  {"calls", VI, CL, SAME, 0, 0, "MPI calls profiled, all ranks"},
  {"calls_parallel", VI, CL, SAME, 0, 0, "of them made inside an active OpenMP parallel region"},
  {"calls_off_main", VI, CL, SAME, 0, 0, "of them made by another thread than the one that initialised MPI"},
  {"p2p_calls_intra", VI, CL, SAME, 0, 0, "point-to-point calls to or from a rank of the same node"},
  {"p2p_calls_inter", VI, CL, SAME, 0, 0, "point-to-point calls to or from a rank of another node"},
  {"p2p_bytes_intra", VI, "B", SAME, 0, 0, "their bytes (sent, or the posted receive buffer), same node"},
  {"p2p_bytes_inter", VI, "B", SAME, 0, 0, "their bytes, another node"},
  {"coll_calls_intra", VI, CL, SAME, 0, 0, "collective calls on communicators inside one node"},
  {"coll_calls_inter", VI, CL, SAME, 0, 0, "collective calls on communicators spanning nodes"},
  {"allreduce_calls", VI, CL, SAME, 0, 0, "MPI_Allreduce and MPI_Iallreduce calls"},
  {"sites", VI, "sites", SAME, 0, 0, "distinct (MPI function, call site) pairs"},
  {"dropped_calls", VI, CL, SAME, 0, 0, "calls of sites that did not fit a thread's table (counted in no site)"},
};

const hk_kind_decl_t hk_profile_kind = {
  .kind = "profile",
  .caption = "libhybridkit-profile.so: an MPI+OpenMP program's MPI time, sleeping threads, peers and sizes",
  .metric = "f_comm",
  .better = "lower",
  HK_KIND_FIELDS(run_fields),
};

static const hk_field_decl_t site_fields[] = {
  {"function", PS, NULL, SAME, 0, 0, "the MPI function"},
  {"site", PS, NULL, SAME, 0, 0, "the call site: file:line (function) with debug info, else symbol+offset"},
  {"address", PS, NULL, SAME, 0, 0, "module+offset of the return address"},
  {"calls", VI, CL, SAME, 0, 0, "calls, all ranks and threads"},
  {"time", ST, "s", HK_RANKS_GIVEN, 0, 0, "time inside the calls per rank (a rank without the site: 0)"},
  {"time_outside", V, "s", SAME, 0, 0, "time inside the calls made outside parallel regions, all ranks"},
  {"mpi_share", V, "fraction", SAME, 0, 0, "share of all profiled MPI time"},
  {"bytes", VI, "B", SAME, 0, 0, "bytes (sent, posted receive buffers, collective contributions)"},
  {"calls_intra", VI, CL, SAME, 0, 0, "calls with a peer (or a communicator) on the same node"},
  {"calls_inter", VI, CL, SAME, 0, 0, "calls with a peer on another node (or a communicator spanning nodes)"},
  {"bytes_intra", VI, "B", SAME, 0, 0, "bytes of the intra-node calls"},
  {"bytes_inter", VI, "B", SAME, 0, 0, "bytes of the inter-node calls"},
  {"calls_parallel", VI, CL, SAME, 0, 0, "calls inside an active OpenMP parallel region"},
  {"calls_off_main", VI, CL, SAME, 0, 0, "calls by another thread than the one that initialised MPI"},
  {"threads", VI, "threads", SAME, 0, 0, "distinct OpenMP thread numbers that made the call"},
  {"ranks", VI, "ranks", SAME, 0, 0, "ranks that made the call"},
};

const hk_kind_decl_t hk_profile_site_kind = {
  .kind = "profile.site",
  .caption = "libhybridkit-profile.so: one MPI function at one call site",
  .metric = "time",
  .better = "lower",
  HK_KIND_FIELDS(site_fields),
};

static const hk_field_decl_t size_fields[] = {
  {"class", PS, NULL, SAME, 0, 0, "p2p (sends), collective (a rank's contribution) or allreduce"},
  {"bytes_min", PI, NULL, SAME, 0, 0, "the bin's smallest size in bytes (log2 bins)"},
  {"bytes_max", PI, NULL, SAME, 0, 0, "the bin's largest size in bytes"},
  {"calls", VI, CL, SAME, 0, 0, "calls of that size, all ranks"},
  {"bytes", VI, "B", SAME, 0, 0, "their bytes"},
};

const hk_kind_decl_t hk_profile_size_kind = {
  .kind = "profile.size",
  .caption = "libhybridkit-profile.so: message sizes, one log2 bin",
  HK_KIND_FIELDS(size_fields),
};
