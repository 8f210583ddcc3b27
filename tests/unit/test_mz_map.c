/* tests/unit/test_mz_map.c: NPB-MZ zones and their assignment to processes (no MPI).
 *
 * For every class of SP-MZ and BT-MZ and every process count up to the number of zones:
 * each zone has exactly one owner, the per-process counts and loads add up, the imbalance
 * is max/avg of the loads; the zone widths cover the aggregate grid; BT-MZ's zones are
 * stretched by the class ratio; a hand-checked bin packing (BT-MZ class S, 2 processes) and
 * SP-MZ block maps; more processes than zones is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_test.h"
#include "mz_problem.h"

static void check_map(const mz_zones_t *z, const mz_map_t *m, int nprocs)
{
  int *count = calloc((size_t)nprocs, sizeof *count);
  long long *load = calloc((size_t)nprocs, sizeof *load), total = 0, max = 0;
  int bad = 0;
  for (int zone = 0; zone < z->nzones; zone++) {
    int p = m->owner[zone];
    if (p < 0 || p >= nprocs) {
      bad++;
      continue;
    }
    count[p]++;
    load[p] += mz_zone_points(&z->zone[zone]);
  }
  CHECK_EQ_INT(bad, 0);
  for (int p = 0; p < nprocs; p++) {
    CHECK_EQ_INT(count[p], m->count[p]);
    CHECK_EQ_INT(load[p], m->load[p]);
    CHECK(count[p] >= 1); /* nprocs <= zones: every process gets work */
    total += load[p];
    max = load[p] > max ? load[p] : max;
  }
  CHECK(fabs(m->imbalance - (double)max / ((double)total / nprocs)) < 1e-12);
  CHECK(m->imbalance >= 1.0);
  free(count);
  free(load);
}

static void check_geometry(mz_bench_t b, const mz_class_t *c, const mz_zones_t *z)
{
  long long sx = 0, sy = 0;
  int minw = 1 << 30, maxw = 0;
  for (int i = 0; i < c->x_zones; i++) {
    int w = z->zone[i].nx;
    sx += w;
    minw = w < minw ? w : minw;
    maxw = w > maxw ? w : maxw;
  }
  for (int j = 0; j < c->y_zones; j++)
    sy += z->zone[j * c->x_zones].ny;
  CHECK_EQ_INT(sx, c->gx);
  CHECK_EQ_INT(sy, c->gy);
  if (b == MZ_BENCH_SP) {
    CHECK(maxw - minw <= 1);
  } else { /* widths grow monotonically, largest/smallest near the ratio */
    for (int i = 1; i < c->x_zones; i++)
      CHECK(z->zone[i].nx >= z->zone[i - 1].nx);
    CHECK(fabs((double)maxw / minw - c->ratio) / c->ratio < 0.25);
  }
  for (int zone = 0; zone < z->nzones; zone++) { /* neighbours are mutual */
    const mz_zone_t *q = &z->zone[zone];
    CHECK_EQ_INT(z->zone[q->nb[MZ_WEST]].nb[MZ_EAST], zone);
    CHECK_EQ_INT(z->zone[q->nb[MZ_SOUTH]].nb[MZ_NORTH], zone);
    CHECK_EQ_INT(z->zone[q->nb[MZ_WEST]].ny, q->ny);
    CHECK_EQ_INT(z->zone[q->nb[MZ_SOUTH]].nx, q->nx);
  }
}

static void all_classes(void)
{
  for (int b = 0; b < MZ_NBENCH; b++)
    for (const char *cl = mz_class_list((mz_bench_t)b); *cl; cl++) {
      const mz_class_t *c = mz_class_find((mz_bench_t)b, *cl);
      mz_zones_t z;
      CHECK(c != NULL);
      CHECK_EQ_INT(mz_zones_setup(c, &z), 0);
      check_geometry((mz_bench_t)b, c, &z);
      int maxp = z.nzones < 70 ? z.nzones : 70;
      for (int p = 1; p <= maxp; p++) {
        mz_map_t m;
        CHECK_EQ_INT(mz_map_zones(&z, p, b == MZ_BENCH_SP ? MZ_MAP_BLOCK : MZ_MAP_BINPACK, &m), 0);
        check_map(&z, &m, p);
        mz_map_free(&m);
      }
      mz_map_t m;
      CHECK_EQ_INT(mz_map_zones(&z, z.nzones + 1, MZ_MAP_BINPACK, &m), -2);
      CHECK_EQ_INT(mz_map_zones(&z, 0, MZ_MAP_BINPACK, &m), -2);
      mz_zones_free(&z);
    }
}

/* BT-MZ class S: zones 6x6, 18x6, 6x18, 18x18 (x 6); the largest to process 0, then the
 * 648-point zones (equal: the first in sorted order, zone 1) and the smallest to process 1:
 * loads 1944 / 1512, imbalance 1944 / 1728 = 1.125. */
static void bt_class_s(void)
{
  mz_zones_t z;
  mz_map_t m;
  CHECK_EQ_INT(mz_zones_setup(mz_class_find(MZ_BENCH_BT, 'S'), &z), 0);
  CHECK_EQ_INT(z.zone[0].nx, 6);
  CHECK_EQ_INT(z.zone[1].nx, 18);
  CHECK_EQ_INT(z.zone[3].ny, 18);
  CHECK_EQ_INT(mz_map_zones(&z, 2, MZ_MAP_BINPACK, &m), 0);
  CHECK_EQ_INT(m.owner[3], 0);
  CHECK_EQ_INT(m.owner[0], 1);
  CHECK_EQ_INT(m.owner[1], 1);
  CHECK_EQ_INT(m.owner[2], 1);
  CHECK_EQ_INT(m.load[0], 1944);
  CHECK_EQ_INT(m.load[1], 1512);
  CHECK(fabs(m.imbalance - 1.125) < 1e-12);
  CHECK_EQ_INT(m.kind, MZ_MAP_BINPACK);
  mz_map_free(&m);
  mz_zones_free(&z);
}

/* SP-MZ class W (4x4 equal zones): 4 processes get 2x2 blocks, 3 processes cannot divide
 * the zone grid and fall back to bin packing (as the reference) */
static void sp_blocks(void)
{
  mz_zones_t z;
  mz_map_t m;
  CHECK_EQ_INT(mz_zones_setup(mz_class_find(MZ_BENCH_SP, 'W'), &z), 0);
  CHECK_EQ_INT(mz_map_zones(&z, 4, MZ_MAP_BLOCK, &m), 0);
  CHECK_EQ_INT(m.kind, MZ_MAP_BLOCK);
  static const int expect[16] = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3};
  for (int zone = 0; zone < 16; zone++)
    CHECK_EQ_INT(m.owner[zone], expect[zone]);
  CHECK(fabs(m.imbalance - 1.0) < 1e-12);
  mz_map_free(&m);
  CHECK_EQ_INT(mz_map_zones(&z, 3, MZ_MAP_BLOCK, &m), 0);
  CHECK_EQ_INT(m.kind, MZ_MAP_BINPACK);
  CHECK(fabs(m.imbalance - 6.0 / (16.0 / 3.0)) < 1e-12); /* 6 + 5 + 5 zones */
  mz_map_free(&m);
  mz_zones_free(&z);
}

/* bin packing prefers, among zones within 5% of the largest left, the one sharing more
 * boundary with the least-loaded process: SP-MZ class W, 2 processes (all zones equal)
 * gives each process connected zones, so fewer than all 32 links cross processes */
static void prefers_neighbours(void)
{
  mz_zones_t z;
  mz_map_t m;
  CHECK_EQ_INT(mz_zones_setup(mz_class_find(MZ_BENCH_SP, 'W'), &z), 0);
  CHECK_EQ_INT(mz_map_zones(&z, 2, MZ_MAP_BINPACK, &m), 0);
  int cut = 0;
  for (int zone = 0; zone < z.nzones; zone++)
    for (int s = 0; s < MZ_NSIDES; s++)
      cut += m.owner[zone] != m.owner[z.zone[zone].nb[s]];
  CHECK(cut < 32);
  CHECK_EQ_INT(m.count[0], 8);
  mz_map_free(&m);
  mz_zones_free(&z);
}

static void names(void)
{
  CHECK_EQ_INT(mz_bench_parse("bt"), MZ_BENCH_BT);
  CHECK_EQ_INT(mz_bench_parse("SP"), MZ_BENCH_SP);
  CHECK_EQ_INT(mz_bench_parse("lu"), MZ_BENCH_LU);
  CHECK_EQ_INT(mz_bench_parse("xy"), -1);
  CHECK(mz_class_find(MZ_BENCH_BT, 'Q') == NULL);
  CHECK(mz_class_find(MZ_BENCH_BT, 'w') != NULL);
  CHECK_STR(mz_class_list(MZ_BENCH_SP), "SWABCD");
  /* the Mop/s formula: BT-MZ class S, 60 steps in 1 s */
  mz_zones_t z;
  CHECK_EQ_INT(mz_zones_setup(mz_class_find(MZ_BENCH_BT, 'S'), &z), 0);
  double mops = mz_mops(MZ_BENCH_BT, &z, 60, 1.0);
  CHECK(mops > 0.0 && fabs(mz_mops(MZ_BENCH_BT, &z, 60, 2.0) - mops / 2) < 1e-9);
  mz_zones_free(&z);
}

/* LU-MZ: 4 x 4 equal zones in every class; the Mop/s formula of LU-MZ/lu.f by hand */
static void lu_zones(void)
{
  mz_zones_t z;
  CHECK_EQ_INT(mz_zones_setup(mz_class_find(MZ_BENCH_LU, 'S'), &z), 0);
  CHECK_EQ_INT(z.nzones, 16);
  for (int i = 0; i < z.nzones; i++)
    CHECK(z.zone[i].nx == 6 && z.zone[i].ny == 6 && z.zone[i].nz == 6);
  /* per zone: 1984.77*216 - 10923.3*36 + 27770.9*6 - 144010 = 58086.92; 16 zones, 50 it */
  CHECK(fabs(mz_mops(MZ_BENCH_LU, &z, 50, 1.0) - 46.469536) < 1e-9);
  mz_zones_free(&z);
  CHECK_EQ_INT(mz_zones_setup(mz_class_find(MZ_BENCH_LU, 'B'), &z), 0);
  CHECK(z.nzones == 16 && z.zone[15].nx == 76 && z.zone[15].ny == 52 && z.zone[15].nz == 17);
  mz_zones_free(&z);
  CHECK_STR(mz_class_list(MZ_BENCH_LU), "SWABCD");
}

/* thread re-balancing (BT-MZ setup_mpi.f), hand-computed */
static void rebalance(void)
{
  /* loads 6:3:1, 2 threads each: 10/6 points per thread -> floor 3, 1, 0->1 (5 threads);
   * the 6th goes to the most points per thread: 6/3 = 2, 3/1 = 3, 1/1 = 1 -> process 1 */
  long long load3[3] = {600, 300, 100};
  int t3[3] = {2, 2, 2};
  CHECK_EQ_INT(mz_rebalance_threads(3, load3, t3), 0);
  CHECK(t3[0] == 3 && t3[1] == 2 && t3[2] == 1);
  /* equal loads keep equal threads */
  long long eq[4] = {5, 5, 5, 5};
  int t4[4] = {2, 2, 2, 2};
  mz_rebalance_threads(4, eq, t4);
  CHECK(t4[0] == 2 && t4[1] == 2 && t4[2] == 2 && t4[3] == 2);
  /* one thread each cannot move: at least 1 */
  long long skew[2] = {1000, 1};
  int t2[2] = {1, 1};
  mz_rebalance_threads(2, skew, t2);
  CHECK(t2[0] == 1 && t2[1] == 1);
  /* a surplus (the minimum of 1 for tiny loads): 4 threads, loads 100:1:1:1 -> 3,1,1,1 = 6;
   * take back 2 where load/(n-1) is smallest: only process 0 has more than 1 -> 1,1,1,1 */
  long long tiny[4] = {100, 1, 1, 1};
  int tt[4] = {1, 1, 1, 1};
  mz_rebalance_threads(4, tiny, tt);
  CHECK(tt[0] == 1 && tt[1] == 1 && tt[2] == 1 && tt[3] == 1);
  CHECK_EQ_INT(mz_rebalance_threads(0, tiny, tt), -1);
}

/* processor groups (the reference's load file): re-balanced within each group, hand-computed */
static void groups(void)
{
  /* group 0: loads 600, 200 with 2 + 2 threads -> 200 per thread -> 3, 1; group 5: loads 100,
   * 100, 400 with 1 + 1 + 4 threads -> 100 per thread -> 1, 1, 4 (unchanged) */
  long long load[5] = {600, 100, 200, 100, 400};
  int t[5] = {2, 1, 2, 1, 4}, g[5] = {0, 5, 0, 5, 5};
  CHECK_EQ_INT(mz_rebalance_threads_groups(5, load, t, g), 0);
  CHECK(t[0] == 3 && t[1] == 1 && t[2] == 1 && t[3] == 1 && t[4] == 4);
  /* one group (NULL) moves threads across: 1400 points / 10 threads -> 4, 0->1, 1, 0->1, 2
   * = 9, the 10th to the most per thread (p2: 200) -> 4, 1, 2, 1, 2 */
  int u[5] = {2, 1, 2, 1, 4};
  mz_rebalance_threads_groups(5, load, u, NULL);
  CHECK(u[0] == 4 && u[1] == 1 && u[2] == 2 && u[3] == 1 && u[4] == 2);
  char err[128];
  int th[4], gr[4];
  const char *file = "# processes threads group\n0:1 3 1 ! the first two\n 2 9 9\n2 0 2\n3 4 2\n";
  CHECK_EQ_INT(mz_load_file_parse(file, 4, th, gr, err, sizeof err), 0);
  CHECK(th[0] == 3 && th[1] == 3 && th[2] == 1 && th[3] == 4);
  CHECK(gr[0] == 1 && gr[1] == 1 && gr[2] == 2 && gr[3] == 2);
  CHECK_EQ_INT(mz_load_file_parse("0 2 0\n", 2, th, gr, err, sizeof err), -1);
  CHECK(strstr(err, "no entry for process 1") != NULL);
  CHECK_EQ_INT(mz_load_file_parse("0 2 0\n1 x 0\n", 2, th, gr, err, sizeof err), -1);
  CHECK(strstr(err, "line 2") != NULL);
}

/* LU-MZ's process grid: the reference's choice (hand-computed speed-up estimates) */
static void proc_grid(void)
{
  CHECK_EQ_INT(mz_proc_grid_auto(1, 16, 6), 1);
  CHECK_EQ_INT(mz_proc_grid_auto(2, 16, 6), 1);  /* 1 x 2: 2, 2 x 1: 96/(16*3) = 2 (tie) */
  CHECK_EQ_INT(mz_proc_grid_auto(3, 16, 6), 3);  /* 1 x 3: 96/36 = 2.67, 3 x 1: 96/32 = 3 */
  CHECK_EQ_INT(mz_proc_grid_auto(3, 16, 16), 1); /* 256/96 both */
  CHECK_EQ_INT(mz_proc_grid_auto(12, 16, 16), 2); /* 1 x 12: 8, 2 x 6: 256/24 = 10.7 */
  CHECK_EQ_INT(mz_proc_grid_auto(18, 16, 6), 2);  /* 2 x 9: 96/6 = 16 (3 x 6 ties) */
  int lo, hi;
  mz_xpiece(6, 4, 0, &lo, &hi); /* 6 = 2 + 2 + 1 + 1 */
  CHECK(lo == 0 && hi == 2);
  mz_xpiece(6, 4, 2, &lo, &hi);
  CHECK(lo == 4 && hi == 5);
  mz_xpiece(6, 4, 3, &lo, &hi);
  CHECK(lo == 5 && hi == 6);
  mz_xpiece(64, 3, 1, &lo, &hi); /* 22 + 21 + 21 */
  CHECK(lo == 22 && hi == 43);
}

int main(void)
{
  lu_zones();
  groups();
  proc_grid();
  rebalance();
  all_classes();
  bt_class_s();
  sp_blocks();
  prefers_neighbours();
  names();
  return hk_test_report("test_mz_map");
}
