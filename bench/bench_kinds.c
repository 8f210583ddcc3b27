/* bench/bench_kinds.c: the fields of every record kind of hk-bench, declared once; the
 * schemas python/src/hybridkit/schemas/bench.*.schema.json are generated from here.
 * The fields most experiments share (message size, iterations, threads, the time of
 * one iteration, a bandwidth) are declared once below and reused by each kind.
 * Kinds whose app description (python/src/hybridkit/apps/NAME.toml) still names its own
 * metric declare none here. */
#include "hybridkit/kind_fields.h"
#include "bench_kinds.h"

#define MBS "MB/s"

/* ---- the shared field block ---- */
#define F_SIZE {"size", PI, NULL, SAME, 0, 0, "message size in bytes"}
#define F_ITERS {"iters", PI, NULL, SAME, 0, 0, "timed iterations (after an untimed warm-up)"}
#define F_THREADS {"threads", PI, NULL, SAME, 0, 0, "OpenMP threads per rank"}
/* the time of one iteration, min/avg/max over the ranks that took part */
#define F_TIME(unit, ranks) \
  {"time", ST, unit, ranks, 0, 0, "time of one iteration, min/avg/max over the ranks that took part"}
#define F_BANDWIDTH(meaning) {"bandwidth", V, MBS, SAME, 0, 0, meaning}
/* the latency and ping-pong bandwidth of one pair (pingpong.c add_latency) */
#define F_LATENCY(pair, opt) \
  {pair "_latency", ST, "us", GIVEN, 0, opt, "half the round trip of a Send/Recv ping-pong (osu_latency), min/avg/max of the pair"}, \
  {pair "_pingpong_bandwidth", V, MBS, SAME, 0, opt, "size / latency (IMB PingPong), from the slower side"}

static const hk_field_decl_t pingpong_fields[] = {
  F_SIZE,
  {"iters", PI, NULL, SAME, 0, 0, "timed ping-pong iterations"},
  {"bw_iters", PI, NULL, SAME, 0, 0, "timed iterations of the bandwidth windows (0: not measured)"},
  {"window", PI, NULL, SAME, 0, 0, "messages in flight per bandwidth iteration (0: latency only)"},
  F_LATENCY("intra", OPT),
  {"intra_uni_bandwidth", V, MBS, SAME, 0, OPT, "window x size / time of one window, rank 0 sending (osu_bw), same node"},
  {"intra_bi_bandwidth", V, MBS, SAME, 0, OPT, "2 x window x size / time, both sending (osu_bibw), same node"},
  F_LATENCY("inter", OPT),
  {"inter_uni_bandwidth", V, MBS, SAME, 0, OPT, "as intra_uni_bandwidth, a rank of another node"},
  {"inter_bi_bandwidth", V, MBS, SAME, 0, OPT, "as intra_bi_bandwidth, a rank of another node"},
};

const hk_kind_decl_t bench_kind_pingpong = {
  .kind = "bench.pingpong",
  .caption = "hk-bench pingpong: latency and bandwidths of an intra-node and an inter-node pair",
  .metric = "intra_pingpong_bandwidth",
  .better = "higher",
  HK_KIND_FIELDS(pingpong_fields),
};

static const hk_field_decl_t baseline_fields[] = {
  {"pair", PS, NULL, SAME, 0, 0, "intra (same node) or inter (another node)"},
  F_SIZE,
  F_LATENCY("harness", 0),
  F_LATENCY("plain", 0),
  {"harness_over_plain", V, "time ratio", SAME, 0, 0,
   "the benchmark's latency (stamped and checked messages) over a plain Send/Recv loop's"},
};

const hk_kind_decl_t bench_kind_pingpong_baseline = {
  .kind = "bench.pingpong.baseline",
  .caption = "hk-bench pingpong --baseline: the harness's latency against a plain Send/Recv loop",
  .metric = "harness_over_plain",
  .better = "lower",
  HK_KIND_FIELDS(baseline_fields),
};

static const hk_field_decl_t barrier_fields[] = {
  F_THREADS,
  {"placement", PS, NULL, SAME, 0, 0, "thread placement: compact or scatter"},
  {"barrier", PS, NULL, SAME, 0, 0, "omp, pthread or spin (sense-reversing)"},
  F_ITERS,
  {"time", ST, "ns", RANKS, 0, 0, "time of one barrier on thread 0, min/avg/max over the ranks"},
  {"tsc_cycles", ST, "cycles", RANKS, 0, OPT, "the same in time-stamp counter cycles (x86 only)"},
};

const hk_kind_decl_t bench_kind_barrier = {
  .kind = "bench.barrier",
  .caption = "hk-bench barrier: the cost of synchronising the threads of a rank, by barrier and placement",
  .metric = "time",
  .better = "lower",
  HK_KIND_FIELDS(barrier_fields),
};

#define F_RUN {"run", PS, NULL, SAME, 0, 0, "mpp (every rank) or hybrid (the node leaders, --compare-hybrid)"}
#define F_PER_PROC(name, what) {name "_per_proc", V, MBS, SAME, 0, 0, what " per process"}
#define F_PER_NODE(name, what) {name "_per_node", V, MBS, SAME, 0, 0, what " per node"}

static const hk_field_decl_t beff_fields[] = {
  F_RUN,
  {"pattern", PS, NULL, SAME, 0, 0, "ring, random, b_eff (both combined) or 3d-cyclic"},
  {"size", PI, NULL, SAME, 0, 0, "message size L in bytes"},
  {"msg_bytes", PI, NULL, SAME, 0, 0, "bytes of the largest message (L x ranks of a sending node in the hybrid run)"},
  {"loops", PI, NULL, SAME, 0, 0, "loop length of the nonblocking method at this size"},
  F_BANDWIDTH("b(pattern, L): bytes sent per second by all processes, best method and repetition"),
  F_PER_PROC("bandwidth", "the same"),
};

const hk_kind_decl_t bench_kind_beff = {
  .kind = "bench.beff",
  .caption = "hk-bench beff: the bandwidth of a b_eff pattern at one message size",
  .metric = "bandwidth",
  .better = "higher",
  HK_KIND_FIELDS(beff_fields),
};

static const hk_field_decl_t beff_pattern_fields[] = {
  F_RUN,
  {"pattern", PS, NULL, SAME, 0, 0, "the pattern (one ring, random ring or 3D-cyclic)"},
  {"messages", PI, NULL, SAME, 0, 0, "messages of the pattern per loop"},
  {"best_at_lmax", PS, NULL, SAME, 0, 0, "the fastest method at Lmax (sendrecv, alltoallv or nonblocking)"},
  F_BANDWIDTH("the pattern's bandwidth, arithmetic mean over the message sizes"),
  F_PER_PROC("bandwidth", "the same"),
  {"bandwidth_lmax", V, MBS, SAME, 0, 0, "the pattern's bandwidth at Lmax"},
};

const hk_kind_decl_t bench_kind_beff_pattern = {
  .kind = "bench.beff.pattern",
  .caption = "hk-bench beff: the bandwidth of one pattern over all message sizes",
  .metric = "bandwidth",
  .better = "higher",
  HK_KIND_FIELDS(beff_pattern_fields),
};

#define F_BEFF_VALUE(name, what) {name, V, MBS, SAME, 0, 0, what}, F_PER_PROC(name, what), \
  F_PER_NODE(name, what)

static const hk_field_decl_t beff_summary_fields[] = {
  F_RUN,
  {"procs", PI, NULL, SAME, 0, 0, "processes that communicated"},
  {"nodes", PI, NULL, SAME, 0, 0, "nodes"},
  {"lmax", PI, NULL, SAME, 0, 0, "the largest message size Lmax in bytes (memory per process / 128)"},
  F_BEFF_VALUE("b_eff", "b_eff: logavg of the ring and random means over the sizes"),
  F_BEFF_VALUE("b_eff_lmax", "b_eff at Lmax"),
  F_BEFF_VALUE("cyclic3d", "the 3D-cyclic pattern's mean over the sizes"),
  F_BEFF_VALUE("cyclic3d_lmax", "the 3D-cyclic pattern at Lmax"),
  {"b_eff_lmax_ring", V, MBS, SAME, 0, 0, "the rings' logavg at Lmax"},
  {"latency", V, "us", SAME, 0, 0, "the original's latency: 1 byte over b_eff at 1 byte per process"},
  {"elapsed", V, "s", SAME, 0, 0, "wall time of the measurement"},
};

const hk_kind_decl_t bench_kind_beff_summary = {
  .kind = "bench.beff.summary",
  .caption = "hk-bench beff: the effective bandwidth b_eff of a run (HLRS b_eff 3.6)",
  .metric = "b_eff",
  .better = "higher",
  HK_KIND_FIELDS(beff_summary_fields),
};

static const hk_field_decl_t beff_hybrid_fields[] = {
  {"pattern", PS, NULL, SAME, 0, 0, "ring, random, 3d-cyclic or b_eff"},
  F_PER_NODE("b_mpp", "the bandwidth of every rank communicating (MPP), mean over the sizes,"),
  F_PER_NODE("b_hybrid", "the bandwidth of the node leaders (masteronly), mean over the sizes,"),
  {"t_hybrid_over_t_mpp", V, "ratio", SAME, 0, 0, "T_hybrid / T_MPP = b_MPP per node / b_hybrid per node"},
  F_PER_NODE("b_mpp_lmax", "the MPP bandwidth at Lmax"),
  F_PER_NODE("b_hybrid_lmax", "the masteronly bandwidth at Lmax"),
  {"t_hybrid_over_t_mpp_lmax", V, "ratio", SAME, 0, 0, "the same ratio at Lmax"},
};

const hk_kind_decl_t bench_kind_beff_hybrid = {
  .kind = "bench.beff.hybrid",
  .caption = "hk-bench beff --compare-hybrid: masteronly node leaders against every rank communicating",
  .metric = "t_hybrid_over_t_mpp",
  .better = "lower",
  HK_KIND_FIELDS(beff_hybrid_fields),
};

static const hk_field_decl_t orthogonal_fields[] = {
  {"size", PI, NULL, SAME, 0, 0, "bytes each rank exchanges with each neighbour (pure MPI)"},
  {"hybrid_size", PI, NULL, SAME, 0, 0, "bytes a node leader exchanges with each neighbour node (size x ranks per node)"},
  F_ITERS,
  {"pattern", PS, NULL, SAME, 0, OPT, "sendrecv (the seed's: vertical then horizontal MPI_Sendrecv) or concurrent (all four neighbours at once); absent before session 20: concurrent"},
  {"t_pure", ST, "us", GIVEN, 0, 0, "pure MPI: time of one exchange (sendrecv: vertical + horizontal phase; concurrent: all four neighbours), min/avg/max over the ranks"},
  {"t_pure_inter", ST, "us", GIVEN, 0, OPT, "sendrecv: the vertical (inter-node) phase, min/avg/max over the ranks"},
  {"t_pure_intra", ST, "us", GIVEN, 0, OPT, "sendrecv: the horizontal (intra-node) phase, min/avg/max over the ranks"},
  {"t_hybrid", ST, "us", GIVEN, 0, 0, "masteronly: time of one exchange of the node leaders, min/avg/max over them"},
  {"t_hybrid_over_t_pure", V, "ratio", SAME, 0, 0, "slowest masteronly time over slowest pure MPI time"},
};

const hk_kind_decl_t bench_kind_orthogonal = {
  .kind = "bench.orthogonal",
  .caption = "hk-bench orthogonal: pure MPI with inter- and intra-node messages against masteronly",
  .metric = "t_hybrid_over_t_pure",
  .better = "lower",
  HK_KIND_FIELDS(orthogonal_fields),
};

static const hk_field_decl_t multipath_fields[] = {
  {"mode", PS, NULL, SAME, 0, 0, "processes (k ranks per node) or threads (k threads of one rank)"},
  {"paths", PI, NULL, SAME, 0, 0, "communication paths k per node"},
  {"stride", PI, NULL, SAME, 0, 0, "stride between the local ranks (or threads) that communicate"},
  F_SIZE,
  F_ITERS,
  {"node_bandwidth", ST, MBS, GIVEN, 0, 0, "bytes a node sends per second, min/avg/max over the paired nodes"},
  {"time", ST, "us", GIVEN, 0, 0, "time of one exchange of the slowest path of a node, min/avg/max over the paired nodes"},
};

const hk_kind_decl_t bench_kind_multipath = {
  .kind = "bench.multipath",
  .caption = "hk-bench multipath: inter-node bandwidth with several communication paths per node",
  .metric = "node_bandwidth",
  .better = "higher",
  HK_KIND_FIELDS(multipath_fields),
};

static const hk_field_decl_t threads_pingpong_fields[] = {
  {"variant", PS, NULL, SAME, 0, 0, "masteronly, funneled or multiple (EPCC mixed-mode ping-pong)"},
  F_THREADS,
  F_SIZE,
  F_ITERS,
  {"latency", ST, "us", GIVEN, 0, OPT, "half the round trip, min/avg/max of ranks 0 and 1 (none: the variant could not run)"},
  {"bandwidth", V, MBS, SAME, 0, OPT, "size / the slower rank's latency"},
};

const hk_kind_decl_t bench_kind_threads_pingpong = {
  .kind = "bench.threads-pingpong",
  .caption = "hk-bench threads-pingpong: the EPCC mixed-mode ping-pong, masteronly vs funneled vs multiple",
  .metric = "latency",
  .better = "lower",
  HK_KIND_FIELDS(threads_pingpong_fields),
};

static const hk_field_decl_t allreduce_fields[] = {
  {"type", PS, NULL, SAME, 0, 0, "element type: double or int (sum)"},
  {"algorithm", PS, NULL, SAME, 0, 0, "the row: mpi (MPI_Allreduce) or an hk_allreduce algorithm"},
  F_THREADS,
  {"ran", PS, NULL, SAME, 0, 0, "the algorithm that ran"},
  {"threads_used", PI, NULL, SAME, 0, 0, "threads the hybrid allreduce used"},
  {"fallback", PS, NULL, SAME, 0, 0, "why a hybrid row fell back (none: it did not)"},
  {"size", PI, NULL, SAME, 0, 0, "bytes reduced (count x size of the type)"},
  {"count", PI, NULL, SAME, 0, 0, "elements reduced"},
  F_ITERS,
  {"timing", PS, NULL, SAME, 0, 0, "back-to-back (one timer around the calls) or osu (each call timed, a barrier after it)"},
  F_TIME("us", RANKS),
  F_BANDWIDTH("bytes reduced over the slowest rank's time per call"),
};

const hk_kind_decl_t bench_kind_allreduce = {
  .kind = "bench.allreduce",
  .caption = "hk-bench allreduce: MPI_Allreduce against the hybrid allreduce, time per call",
  .metric = "time",
  .better = "lower",
  HK_KIND_FIELDS(allreduce_fields),
};

static const hk_field_decl_t collparams_fields[] = {
  {"quantity", PS, NULL, SAME, 0, 0, "p2p (ping-pong), copy (memcpy) or reduce (a[i] += b[i], doubles)"},
  {"link", PS, NULL, SAME, 0, 0, "p2p: intra or inter node; copy and reduce: none"},
  F_THREADS,
  {"size", PI, NULL, SAME, 0, 0, "bytes: of the message, copied or reduced"},
  F_ITERS,
  F_TIME("us", GIVEN),
  {"rate", V, MBS, SAME, 0, 0, "size over the slowest time (p2p: one way)"},
};

const hk_kind_decl_t bench_kind_collparams = {
  .kind = "bench.collparams",
  .caption = "hk-bench collparams: p2p latency and bandwidth, copy and reduction rates per thread count",
  .metric = "time",
  .better = "lower",
  HK_KIND_FIELDS(collparams_fields),
};

static const hk_field_decl_t coll_fields[] = {
  {"collective", PS, NULL, SAME, 0, 0, "allreduce, reduce, reduce-scatter, bcast, allgather, alltoall, scan, exscan or alltoallv"},
  {"type", PS, NULL, SAME, 0, 0, "element type: double or int (sums and scans), byte (bcast, allgather, alltoall(v))"},
  {"algorithm", PS, NULL, SAME, 0, 0, "the row: mpi (the MPI call) or an hk_<collective> algorithm"},
  F_THREADS,
  {"ran", PS, NULL, SAME, 0, 0, "the algorithm that ran"},
  {"threads_used", PI, NULL, SAME, 0, 0, "threads the hybrid collective used"},
  {"fallback", PS, NULL, SAME, 0, 0, "why a hybrid row fell back (none: it did not)"},
  {"size", PI, NULL, SAME, 0, 0, "message bytes as the tuning table counts them (reduce-scatter, allgather, alltoall(v): P x per-rank bytes; alltoallv: the same count for every pair)"},
  {"count", PI, NULL, SAME, 0, 0, "the count argument of the call (per rank where it is one)"},
  F_ITERS,
  {"timing", PS, NULL, SAME, 0, 0, "back-to-back (one timer around the calls) or osu (each call timed, a barrier after it)"},
  {"ranks", PI, NULL, SAME, 0, 0, "ranks P"},
  {"ranks_per_node", PI, NULL, SAME, 0, 0, "ranks per node L (the library's node split, HK_NODE_SIZE too)"},
  {"nodes", PI, NULL, SAME, 0, 0, "nodes N"},
  F_TIME("us", RANKS),
  F_BANDWIDTH("message bytes over the slowest rank's time per call"),
};

const hk_kind_decl_t bench_kind_coll = {
  .kind = "bench.coll",
  .caption = "hk-bench coll: plain MPI against the hybrid collectives, time per call",
  .metric = "time",
  .better = "lower",
  HK_KIND_FIELDS(coll_fields),
};

static const hk_field_decl_t overlap_fields[] = {
  F_SIZE,
  {"variant", PS, NULL, SAME, 0, 0, "nonblocking (Isend/Irecv, compute, Waitall) or task (a thread communicates, another computes)"},
  {"delay_factor", PD, NULL, SAME, 0, 0, "the compute delay in units of T_comm"},
  {"t_comm", V, "us", SAME, 0, 0, "T_comm: Irecv + Isend, then Waitall, alone"},
  {"t_compute", V, "us", SAME, 0, 0, "T_compute: the calibrated delay alone"},
  {"t_total", V, "us", SAME, 0, 0, "T_total: communication and delay together"},
  {"overlap", V, "fraction", SAME, 0, 0, "(T_comm + T_compute - T_total) / min(T_comm, T_compute), clamped to [0, 1]"},
};

const hk_kind_decl_t bench_kind_overlap = {
  .kind = "bench.overlap",
  .caption = "hk-bench overlap: does MPI progress a transfer while the program computes",
  .metric = "overlap",
  .better = "higher",
  HK_KIND_FIELDS(overlap_fields),
};

#define F_EXCHANGED(name, unit, what) {name, VI, unit, SAME, 0, 0, what}

static const hk_field_decl_t halo_fields[] = {
  {"mode", PS, NULL, SAME, 0, 0, "the hybrid mode of the halo engine"},
  {"block", PS, NULL, SAME, 0, 0, "cells per rank, NXxNYxNZ"},
  {"stencil", PS, NULL, SAME, 0, 0, "faces (6 neighbours) or full (faces, edges, corners: 26)"},
  {"face_bytes", PI, NULL, SAME, 0, 0, "bytes of one face"},
  F_THREADS,
  F_TIME("us", GIVEN),
  F_EXCHANGED("bytes_intra", "B/exchange", "bytes per exchange to ranks of the same node, all ranks"),
  F_EXCHANGED("bytes_inter", "B/exchange", "bytes per exchange to ranks of other nodes, all ranks"),
  F_EXCHANGED("bytes_self", "B/exchange", "bytes per exchange a rank copies to itself (periodic), all ranks"),
  F_EXCHANGED("msgs_intra", "msgs/exchange", "messages per exchange to ranks of the same node, all ranks"),
  F_EXCHANGED("msgs_inter", "msgs/exchange", "messages per exchange to ranks of other nodes, all ranks"),
  F_EXCHANGED("msgs_self", "msgs/exchange", "copies per exchange of a rank to itself, all ranks"),
  F_BANDWIDTH("bytes per exchange over the slowest rank's time"),
};

const hk_kind_decl_t bench_kind_halo = {
  .kind = "bench.halo",
  .caption = "hk-bench halo: the halo engine in every hybrid mode, time per exchange",
  .metric = "time",
  .better = "lower",
  HK_KIND_FIELDS(halo_fields),
};
