/* apps/mz/mz_problem.h: the NPB-MZ problems as data, the zones and their assignment to
 * processes.  Pure functions (no MPI, no OpenMP): the unit tests call them directly.
 *
 *   aggregate grid gx x gy x gz, cut into x_zones x y_zones zones (periodic in x and y):
 *
 *        j ^  +----+------+---------+      BT-MZ: zone widths grow geometrically
 *          |  | 8  |  9   |   10 ...|      (largest/smallest = ratio 4.5 for W..F),
 *          |  +----+------+---------+      SP-MZ: equal zones (ratio 1).
 *          |  | 4  |  5   |   6     |      zone = i + j * x_zones; each zone keeps one
 *          |  +----+------+---------+      boundary layer that the neighbours fill
 *          |  | 0  |  1   |   2     |      every time step (its west/east/south/north
 *          +--+----+------+---------+-> i  planes; the k planes stay fixed).
 */
#ifndef HK_MZ_PROBLEM_H
#define HK_MZ_PROBLEM_H

typedef enum mz_bench { MZ_BENCH_SP = 0, MZ_BENCH_BT = 1, MZ_BENCH_LU = 2, MZ_NBENCH } mz_bench_t;

/* One class of one benchmark: sizes, steps, dt and the official verification values. */
typedef struct mz_class {
  char name;                /* 'S', 'W', 'A', ... */
  int gx, gy, gz;           /* aggregate grid */
  int x_zones, y_zones;
  double ratio;             /* largest / smallest zone width (1: equal zones) */
  double dt;
  int niter;
  double xcr[5], xce[5];    /* reference RMS norms of the residual and of the error */
  double xci;               /* LU-MZ: reference surface integral (0: none) */
} mz_class_t;

/* mz_bench_parse: "sp"/"bt"/"lu" (either case); -1 when unknown. */
int mz_bench_parse(const char *s);
const char *mz_bench_name(mz_bench_t b);  /* "SP-MZ", "BT-MZ", "LU-MZ" */
const char *mz_bench_key(mz_bench_t b);   /* "sp", "bt", "lu" */
/* mz_class_find: the class `name` of benchmark b, NULL when there is none. */
const mz_class_t *mz_class_find(mz_bench_t b, char name);
/* mz_class_list: the class letters of b, e.g. "SWABCDEF". */
const char *mz_class_list(mz_bench_t b);

enum { MZ_WEST = 0, MZ_EAST, MZ_SOUTH, MZ_NORTH, MZ_NSIDES };

typedef struct mz_zone {
  int nx, ny, nz;          /* points incl. the boundary layer */
  int ix, jy;              /* position in the zone grid */
  int nb[MZ_NSIDES];       /* neighbour zone per side (periodic) */
} mz_zone_t;

typedef struct mz_zones {
  int nzones, x_zones, y_zones;
  mz_zone_t *zone;         /* nzones entries */
} mz_zones_t;

/* mz_zones_setup: zone sizes and neighbours of a class (NPB-MZ's zone_setup).  Returns 0,
 * or -1 when out of memory.  mz_zones_free releases. */
int mz_zones_setup(const mz_class_t *c, mz_zones_t *z);
void mz_zones_free(mz_zones_t *z);
long long mz_zone_points(const mz_zone_t *z); /* nx * ny * nz */

typedef enum mz_map_kind { MZ_MAP_BINPACK = 0, MZ_MAP_BLOCK = 1 } mz_map_kind_t;

/* The zone-to-process map. */
typedef struct mz_map {
  int nprocs;
  int *owner;              /* per zone: its process */
  long long *load;         /* per process: points of its zones */
  int *count;              /* per process: number of zones */
  mz_map_kind_t kind;      /* what was used (BLOCK falls back to BINPACK, as the reference) */
  double imbalance;        /* max load / average load */
} mz_map_t;

/* mz_map_zones: assign the zones to nprocs processes.  want = MZ_MAP_BLOCK tries the SP-MZ
 * block scheme first.  Returns 0, -1 out of memory, -2 when nprocs < 1 or nprocs > zones
 * (the reference refuses more processes than zones). */
int mz_map_zones(const mz_zones_t *z, int nprocs, mz_map_kind_t want, mz_map_t *m);
void mz_map_free(mz_map_t *m);

/* mz_rebalance_threads: the reference's thread re-balancing (NPB3.4-MZ BT-MZ setup_mpi.f,
 * one processor group = all processes): threads[p] (in: each process's threads; out: the new
 * counts, same total) so that points per thread are even: each process floor(load /
 * (total load / total threads)), at least 1; the threads left over go one at a time to the
 * process with the most points per thread (first such process on ties).  Returns 0, or -1
 * when nprocs < 1. */
int mz_rebalance_threads(int nprocs, const long long *load, int *threads);

/* mz_rebalance_threads_groups: the same within each processor group (group[p]: the group of
 * process p, as the reference's load file gives them; NULL: one group); the threads of a group
 * stay in it.  Returns 0, -1 when nprocs < 1 or out of memory. */
int mz_rebalance_threads_groups(int nprocs, const long long *load, int *threads,
                                const int *group);

/* mz_load_file_parse: the reference's load file (NPB3.4-MZ BT-MZ loadbt-mz.data, read by
 * setup_mpi.f): lines "p1[:p2] threads group" give processes p1..p2 (clipped to 0..nprocs-1)
 * their threads (at least 1) and processor group; lines starting with '#' or a blank are
 * skipped, '!' starts a comment; the last entry for a process wins.  Every process needs an
 * entry.  Returns 0, or -1 with a message in err (a line that does not parse, a missing
 * process). */
int mz_load_file_parse(const char *text, int nprocs, int *threads, int *group, char *err,
                       int errlen);

/* LU-MZ's 2-D process grid (NPB3.4-MZ LU-MZ proc_grid): nxp x nzp ranks, rank = group * nxp
 * + xpos; the zones are assigned to the nzp groups, the I dimension of each zone is split over
 * the nxp ranks of its group.  mz_proc_grid_auto: the nxp (nzp = nprocs / nxp <= zones) that
 * maximises zones * nx1 / (ceil(zones / nzp) * ceil(nx1 / nxp)) (nx1 the zones' x width), the
 * largest nzp on ties, as the reference chooses. */
int mz_proc_grid_auto(int nprocs, int zones, int nx1);
/* mz_xpiece: the points [*lo, *hi) of an x range of n points that position xpos of nxp holds
 * (n / nxp each, the first n mod nxp positions one more, as the reference's subdomain.f) */
void mz_xpiece(int n, int nxp, int xpos, int *lo, int *hi);

/* Mop/s of `niter` steps of benchmark b over all zones in `seconds` (NPB-MZ's formulas). */
double mz_mops(mz_bench_t b, const mz_zones_t *z, int niter, double seconds);

#endif
