/* preload/hk_profile_out.h: what hk_profile_out.c (gathering, merging, symbolising,
 * the summary) shares with hk_profile_records.c (the JSON Lines records).  Hidden. */
#ifndef HK_PROFILE_OUT_H
#define HK_PROFILE_OUT_H

#include <math.h>
#include <stdio.h>
#include "hk_profile.h"

#define MODLEN 200
#define FUNCLEN 120

/* one site of one rank, position-independent (gathered as bytes) */
typedef struct out_site {
  int call, rank;
  char module[MODLEN];
  char func[FUNCLEN];          /* dladdr's symbol, "" when not exported */
  unsigned long long offset, func_offset, base; /* base: where the module is loaded */
  prof_site_t c;               /* the counters (c.ret unused) */
} out_site_t;

/* one rank's totals */
typedef struct out_rank {
  double wall, mpi, mpi_outside, mpi_parallel, sleeping, cpu;
  long long vmhwm_kib, dropped;
  int node, max_threads, tasks, busy_tasks, cpu_now;
  char host[64], cpuset[96];
} out_rank_t;

typedef struct prof_out {
  out_rank_t *ranks;
  out_site_t *sites;
  int nsites;
  long long hist[PROF_NCLS][PROF_NBIN][2];
  char lib[MPI_MAX_LIBRARY_VERSION_STRING], command[512];
} prof_out_t;

/* the gathered profile (rank 0) */
HK_HIDDEN extern prof_out_t hk__prof_out;

/* one site merged over the ranks (rank 0) */
typedef struct site_sum {
  int call, ranks;
  const char *module, *func;
  unsigned long long offset, func_offset, base;
  prof_site_t c;
  double tmin, tmax;
  char where[300];              /* file:line (function) from addr2line (hk_tool_src_t), or "" */
} site_sum_t;

typedef struct totals {
  long long calls, parallel, off_main, p2p_intra, p2p_inter, p2p_bytes_intra, p2p_bytes_inter;
  long long coll_intra, coll_inter, allreduce_calls, allreduce_bytes_max;
} totals_t;

/* min/avg/max over ranks of a field of out_rank_t */
#define RANK_STATS(expr, mn, avg, mx)                                                          \
  do {                                                                                         \
    mn = INFINITY;                                                                             \
    mx = -INFINITY;                                                                            \
    avg = 0.0;                                                                                 \
    for (int r_ = 0; r_ < hk__prof.size; r_++) {                                               \
      const out_rank_t *R = &hk__prof_out.ranks[r_];                                                      \
      double v_ = (expr);                                                                      \
      mn = fmin(mn, v_);                                                                       \
      mx = fmax(mx, v_);                                                                       \
      avg += v_ / hk__prof.size;                                                               \
    }                                                                                          \
  } while (0)


/* the largest omp_get_max_threads() of the ranks */
HK_HIDDEN int hk__prof_max_threads(void);
/* "file:line (function)", "function+0x.. (module)" or "module+0x.." */
HK_HIDDEN void hk__prof_site_name(const site_sum_t *s, char *out, size_t n);
/* the records of kinds profile, profile.site, profile.size appended to `path`
 * (hk_profile_records.c); an HK_ERR_* with its message (hk_error_message) */
HK_HIDDEN int hk__prof_records(const char *path, const site_sum_t *s, int n, const totals_t *t);

#endif
