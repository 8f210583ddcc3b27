/* bench/bench_kinds.h: the record kinds hk-bench writes, declared once (bench_kinds.c);
 * their schemas python/src/hybridkit/schemas/bench.*.schema.json are generated from
 * there (tools/hk-kinds). */
#ifndef HK_BENCH_KINDS_H
#define HK_BENCH_KINDS_H

#include "hybridkit/record.h"

extern const hk_kind_decl_t bench_kind_pingpong;          /* "bench.pingpong" */
extern const hk_kind_decl_t bench_kind_pingpong_baseline; /* "bench.pingpong.baseline" */
extern const hk_kind_decl_t bench_kind_barrier;           /* "bench.barrier" */
extern const hk_kind_decl_t bench_kind_beff;              /* "bench.beff" */
extern const hk_kind_decl_t bench_kind_beff_pattern;      /* "bench.beff.pattern" */
extern const hk_kind_decl_t bench_kind_beff_summary;      /* "bench.beff.summary" */
extern const hk_kind_decl_t bench_kind_beff_hybrid;       /* "bench.beff.hybrid" */
extern const hk_kind_decl_t bench_kind_orthogonal;        /* "bench.orthogonal" */
extern const hk_kind_decl_t bench_kind_multipath;         /* "bench.multipath" */
extern const hk_kind_decl_t bench_kind_threads_pingpong;  /* "bench.threads-pingpong" */
extern const hk_kind_decl_t bench_kind_allreduce;         /* "bench.allreduce" */
extern const hk_kind_decl_t bench_kind_collparams;        /* "bench.collparams" */
extern const hk_kind_decl_t bench_kind_coll;              /* "bench.coll" */
extern const hk_kind_decl_t bench_kind_overlap;           /* "bench.overlap" */
extern const hk_kind_decl_t bench_kind_halo;              /* "bench.halo" */

#endif
