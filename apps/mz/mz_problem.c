/* apps/mz/mz_problem.c: NPB-MZ class table, zone geometry, zone-to-process assignment.
 *
 * Sources of the facts (values only, the code is our own):
 *  - sizes, zones, ratio, dt, steps: NPB3.3-MZ sys/setparams.c (write_sp_info, write_bt_info)
 *  - verification values: NPB3.3-MZ-MPI SP-MZ/verify.f and BT-MZ/verify.f
 *  - zone stretching: BT-MZ/zone_setup.f (zone_setup); assignment: {SP,BT}-MZ/mpi_setup.f
 *    (map_zones, get_comm_index); Mop/s formulas: SP-MZ/sp.f and BT-MZ/bt.f
 *  - LU-MZ's process grid: NPB3.4-MZ-MPI LU-MZ/proc_grid.f (the choice of NXP x NZP) and
 *    subdomain.f (the x pieces)
 */
#include "mz_problem.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* SP-MZ: equal zones.  {name, gx, gy, gz, x_zones, y_zones, ratio, dt, niter, xcr, xce} */
static const mz_class_t sp_classes[] = {
  {'S', 24, 24, 6, 2, 2, 1.0, 0.015, 100,
   {0.7698876173566e+01, 0.1517766790280e+01, 0.2686805141546e+01, 0.1893688083690e+01,
    0.1369739859738e+02},
   {0.9566808043467e+01, 0.3894109553741e+01, 0.4516022447464e+01, 0.4099103995615e+01,
    0.7776038881521e+01}, 0.0},
  {'W', 64, 64, 8, 4, 4, 1.0, 0.0015, 400,
   {0.1887636218359e+03, 0.1489637963542e+02, 0.4851711701400e+02, 0.3384633608154e+02,
    0.4036632495857e+03},
   {0.2975895149929e+02, 0.1341508175806e+02, 0.1585310846491e+02, 0.1450916426713e+02,
    0.5854137431023e+02}, 0.0},
  {'A', 128, 128, 16, 4, 4, 1.0, 0.0015, 400,
   {0.2800097900548e+03, 0.2268349014438e+02, 0.7000852739901e+02, 0.5000771004061e+02,
    0.5552068537578e+03},
   {0.3112046666578e+02, 0.1172197785348e+02, 0.1486616708032e+02, 0.1313680576292e+02,
    0.7365834058154e+02}, 0.0},
  {'B', 304, 208, 17, 8, 8, 1.0, 0.001, 400,
   {0.5190422977921e+04, 0.3655458539065e+03, 0.1261126592633e+04, 0.1002038338842e+04,
    0.1075902511165e+05},
   {0.5469182054223e+03, 0.4983658028989e+02, 0.1418301776602e+03, 0.1097717156175e+03,
    0.1260195162174e+04}, 0.0},
  {'C', 480, 320, 28, 16, 16, 1.0, 0.00067, 400,
   {0.5886814493676e+05, 0.3967324375474e+04, 0.1444126529019e+05, 0.1210582211196e+05,
    0.1278941567976e+06},
   {0.6414069213021e+04, 0.4069468353404e+03, 0.1585311908719e+04, 0.1270243185759e+04,
    0.1441398372869e+05}, 0.0},
  {'D', 1632, 1216, 34, 32, 32, 1.0, 0.0003, 500,
   {0.7650595424723e+06, 0.5111519817683e+05, 0.1857213937602e+06, 0.1624096784059e+06,
    0.1642416844328e+07},
   {0.8169589578340e+05, 0.5252150843148e+04, 0.1984739188642e+05, 0.1662852404547e+05,
    0.1761381855235e+06}, 0.0},
};

/* BT-MZ: zones stretched by `ratio` in x and y. */
static const mz_class_t bt_classes[] = {
  {'S', 24, 24, 6, 2, 2, 3.0, 0.010, 60,
   {0.1047687395830e+04, 0.9419911314792e+02, 0.2124737403068e+03, 0.1422173591794e+03,
    0.1135441572375e+04},
   {0.1775416062982e+03, 0.1875540250835e+02, 0.3863334844506e+02, 0.2634713890362e+02,
    0.1965566269675e+03}, 0.0},
  {'W', 64, 64, 8, 4, 4, 4.5, 0.0008, 200,
   {0.5562611195402e+05, 0.5151404119932e+04, 0.1080453907954e+05, 0.6576058591929e+04,
    0.4528609293561e+05},
   {0.7185154786403e+04, 0.7040472738068e+03, 0.1437035074443e+04, 0.8570666307849e+03,
    0.5991235147368e+04}, 0.0},
  {'A', 128, 128, 16, 4, 4, 4.5, 0.0008, 200,
   {0.5536703889522e+05, 0.5077835038405e+04, 0.1067391361067e+05, 0.6441179694972e+04,
    0.4371926324069e+05},
   {0.6716797714343e+04, 0.6512687902160e+03, 0.1332930740128e+04, 0.7848302089180e+03,
    0.5429053878818e+04}, 0.0},
  {'B', 304, 208, 17, 8, 8, 4.5, 0.0003, 200,
   {0.4461388343844e+06, 0.3799759138035e+05, 0.8383296623970e+05, 0.5301970201273e+05,
    0.3618106851311e+06},
   {0.4496733567600e+05, 0.3892068540524e+04, 0.8763825844217e+04, 0.5599040091792e+04,
    0.4082652045598e+05}, 0.0},
  {'C', 480, 320, 28, 16, 16, 4.5, 0.0001, 200,
   {0.3457703287806e+07, 0.3213621375929e+06, 0.7002579656870e+06, 0.4517459627471e+06,
    0.2818715870791e+07},
   {0.2059106993570e+06, 0.1680761129461e+05, 0.4080731640795e+05, 0.2836541076778e+05,
    0.2136807610771e+06}, 0.0},
  {'D', 1632, 1216, 34, 32, 32, 4.5, 0.00002, 250,
   {0.4250417034981e+08, 0.4293882192175e+07, 0.9121841878270e+07, 0.6201357771439e+07,
    0.3474801891304e+08},
   {0.9462418484583e+06, 0.7884728947105e+05, 0.1902874461259e+06, 0.1361858029909e+06,
    0.9816489456253e+06}, 0.0},
};

/* LU-MZ: 4 x 4 equal zones.  Sizes, dt, steps: NPB3.4-MZ sys/setparams.c (write_lu_info);
 * xcr, xce, xci: NPB3.4-MZ-MPI LU-MZ/verify.f. */
static const mz_class_t lu_classes[] = {
  {'S', 24, 24, 6, 4, 4, 1.0, 0.5, 50,
   {0.3778579699366e+01, 0.3120418698065e+00, 0.8386213407018e+00, 0.4452165980488e+00,
    0.7808656756434e+01},
   {0.2429480066305e+02, 0.9072817470024e+01, 0.1032621825644e+02, 0.9256791727838e+01,
    0.1639045777714e+02}, 0.4964435445706e+02},
  {'W', 64, 64, 8, 4, 4, 1.0, 1.5e-3, 300,
   {0.8285060230339e+03, 0.5753415004693e+02, 0.2023477570531e+03, 0.1586275182502e+03,
    0.1733925947816e+04},
   {0.7514670702651e+02, 0.9776687033238e+01, 0.2141754291209e+02, 0.1685405918675e+02,
    0.1856944519722e+03}, 0.3781055348911e+03},
  {'A', 128, 128, 16, 4, 4, 1.0, 2.0, 250,
   {0.1131574877175e+04, 0.7965206944742e+02, 0.2705587159526e+03, 0.2129567530746e+03,
    0.2260584655432e+04},
   {0.1115694885382e+03, 0.1089257673798e+02, 0.2905379922066e+02, 0.2216126755530e+02,
    0.2501762341026e+03}, 0.5904992211511e+03},
  {'B', 304, 208, 17, 4, 4, 1.0, 2.0, 250,
   {0.1734656959567e+05, 0.1238977748533e+04, 0.4123885357100e+04, 0.3613705834056e+04,
    0.3531187871586e+05},
   {0.1781612313296e+04, 0.1177971120769e+03, 0.4233792871440e+03, 0.3577260438230e+03,
    0.3659958544012e+04}, 0.6107041476456e+04},
  {'C', 480, 320, 28, 4, 4, 1.0, 2.0, 250,
   {0.4108743427233e+05, 0.3439004802235e+04, 0.9961331392486e+04, 0.8321426758084e+04,
    0.7463792419218e+05},
   {0.3429276307955e+04, 0.2336680861825e+03, 0.8216363109621e+03, 0.7143809828225e+03,
    0.7057470798773e+04}, 0.1125826349653e+05},
  {'D', 1632, 1216, 34, 4, 4, 1.0, 1.0, 300,
   {0.3282253166388e+06, 0.3490781637713e+05, 0.8610311978292e+05, 0.7004896022603e+05,
    0.4546838584391e+06},
   {0.6620775619126e+04, 0.5229798207352e+03, 0.1620218261697e+04, 0.1404783445006e+04,
    0.1222629805121e+05}, 0.2059421629621e+05},
};

static const struct {
  const char *key, *name;
  const mz_class_t *classes;
  int nclasses;
  /* Mop/s per zone: a*n3 + b*nsur + c*navg + d (n3 = points, navg and nsur averages) */
  double a, b, c, d;
} benches[MZ_NBENCH] = {
  [MZ_BENCH_SP] = {"sp", "SP-MZ", sp_classes, (int)(sizeof sp_classes / sizeof sp_classes[0]),
                   881.174, -4683.91, 11484.5, -19272.4},
  [MZ_BENCH_BT] = {"bt", "BT-MZ", bt_classes, (int)(sizeof bt_classes / sizeof bt_classes[0]),
                   3478.8, -17655.7, 28023.7, 0.0},
  /* LU-MZ/lu.f */
  [MZ_BENCH_LU] = {"lu", "LU-MZ", lu_classes, (int)(sizeof lu_classes / sizeof lu_classes[0]),
                   1984.77, -10923.3, 27770.9, -144010.0},
};

int mz_bench_parse(const char *s)
{
  for (int b = 0; s && b < MZ_NBENCH; b++)
    if (strcasecmp(s, benches[b].key) == 0 || strcasecmp(s, benches[b].name) == 0)
      return b;
  return -1;
}

const char *mz_bench_name(mz_bench_t b) { return benches[b].name; }
const char *mz_bench_key(mz_bench_t b) { return benches[b].key; }

const mz_class_t *mz_class_find(mz_bench_t b, char name)
{
  for (int i = 0; i < benches[b].nclasses; i++)
    if (benches[b].classes[i].name == toupper((unsigned char)name))
      return &benches[b].classes[i];
  return NULL;
}

const char *mz_class_list(mz_bench_t b)
{
  static char list[MZ_NBENCH][16];
  for (int i = 0; i < benches[b].nclasses && i < 15; i++)
    list[b][i] = benches[b].classes[i].name;
  return list[b];
}

/* Widths of n intervals covering g points.  ratio > 1: geometric growth (largest/smallest
 * = ratio), the upper ends rounded with +0.45 so that the widths grow monotonically
 * (BT-MZ zone_setup); otherwise the ends i*g/n. */
static void interval_widths(int g, int n, double ratio, int *width)
{
  int prev_end = 0;
  if (fabs(ratio - 1.0) > 1e-10) {
    double r = exp(log(ratio) / (n - 1)), rp = r;
    double smallest = (double)g * (r - 1.0) / (pow(r, (double)n) - 1.0);
    for (int i = 0; i < n; i++, rp *= r) {
      int end = (int)(smallest * (rp - 1.0) / (r - 1.0) + 0.45);
      width[i] = end - prev_end;
      prev_end = end;
    }
  } else {
    for (int i = 0; i < n; i++) {
      int end = (int)((long long)(i + 1) * g / n);
      width[i] = end - prev_end;
      prev_end = end;
    }
  }
}

int mz_zones_setup(const mz_class_t *c, mz_zones_t *z)
{
  int *wx = malloc((size_t)c->x_zones * sizeof *wx), *wy = malloc((size_t)c->y_zones * sizeof *wy);
  z->nzones = c->x_zones * c->y_zones;
  z->x_zones = c->x_zones;
  z->y_zones = c->y_zones;
  z->zone = calloc((size_t)z->nzones, sizeof *z->zone);
  if (!wx || !wy || !z->zone) {
    free(wx);
    free(wy);
    mz_zones_free(z);
    return -1;
  }
  interval_widths(c->gx, c->x_zones, c->ratio, wx);
  interval_widths(c->gy, c->y_zones, c->ratio, wy);
  for (int j = 0; j < c->y_zones; j++)
    for (int i = 0; i < c->x_zones; i++) {
      mz_zone_t *q = &z->zone[i + j * c->x_zones];
      q->nx = wx[i];
      q->ny = wy[j];
      q->nz = c->gz;
      q->ix = i;
      q->jy = j;
      q->nb[MZ_WEST] = (i + c->x_zones - 1) % c->x_zones + j * c->x_zones;
      q->nb[MZ_EAST] = (i + 1) % c->x_zones + j * c->x_zones;
      q->nb[MZ_SOUTH] = i + ((j + c->y_zones - 1) % c->y_zones) * c->x_zones;
      q->nb[MZ_NORTH] = i + ((j + 1) % c->y_zones) * c->x_zones;
    }
  free(wx);
  free(wy);
  return 0;
}

void mz_zones_free(mz_zones_t *z)
{
  free(z->zone);
  z->zone = NULL;
  z->nzones = 0;
}

long long mz_zone_points(const mz_zone_t *z) { return (long long)z->nx * z->ny * z->nz; }

/* Boundary a zone shares with the zones process p already holds (get_comm_index): its
 * y extent per west/east neighbour there, its x extent per south/north one. */
static long long comm_index(const mz_zones_t *z, const int *owner, int zone, int p)
{
  const mz_zone_t *q = &z->zone[zone];
  long long shared = 0;
  for (int s = 0; s < MZ_NSIDES; s++)
    if (owner[q->nb[s]] == p)
      shared += s <= MZ_EAST ? q->ny : q->nx;
  return shared;
}

static int least_loaded(const mz_map_t *m)
{
  int best = 0;
  for (int p = 1; p < m->nprocs; p++)
    if (m->load[p] < m->load[best])
      best = p;
  return best;
}

static void assign(const mz_zones_t *z, mz_map_t *m, int zone, int p)
{
  m->owner[zone] = p;
  m->load[p] += mz_zone_points(&z->zone[zone]);
  m->count[p]++;
}

/* Bin packing of the MPI+OpenMP reference: zones sorted by size (largest first); the
 * least-loaded process takes the largest unassigned zone, or among the unassigned zones
 * within 5% of its size the one sharing the most boundary with that process. */
static int map_binpack(const mz_zones_t *z, mz_map_t *m)
{
  int n = z->nzones, *order = malloc((size_t)n * sizeof *order);
  if (!order)
    return -1;
  for (int i = 0; i < n; i++)
    order[i] = i;
  for (int i = 0; i < n - 1; i++) { /* selection sort as the reference (same tie order) */
    int best = i;
    for (int k = i + 1; k < n; k++)
      if (mz_zone_points(&z->zone[order[k]]) > mz_zone_points(&z->zone[order[best]]))
        best = k;
    int t = order[i];
    order[i] = order[best];
    order[best] = t;
  }
  for (int i = 0; i < n; i++)
    m->owner[i] = -1;
  for (int iz = 0; iz < n;) {
    int p = least_loaded(m), pick = order[iz];
    long long top = mz_zone_points(&z->zone[order[iz]]);
    long long best = comm_index(z, m->owner, pick, p);
    for (int k = iz + 1; k < n; k++) {
      int cand = order[k];
      if ((double)(top - mz_zone_points(&z->zone[cand])) / (double)top > 0.05)
        break;
      long long ci;
      if (m->owner[cand] < 0 && (ci = comm_index(z, m->owner, cand, p)) > best) {
        pick = cand;
        best = ci;
      }
    }
    assign(z, m, pick, p);
    while (iz < n && m->owner[order[iz]] >= 0)
      iz++;
  }
  free(order);
  return 0;
}

/* SP-MZ block scheme: a p1 x p2 process grid (p1 * p2 = nprocs) that divides the zone grid
 * exactly, each process a block of zones; 0 when there is none (then bin packing). */
static int map_block(const mz_zones_t *z, mz_map_t *m)
{
  int P = m->nprocs, p1 = 0, p2 = 0, rest = z->y_zones % P;
  for (int n1 = 1, n2 = P; n1 <= n2; n1++, n2 = P / n1)
    if (n1 * n2 == P && z->x_zones % n1 + z->y_zones % n2 <= rest) {
      rest = z->x_zones % n1 + z->y_zones % n2;
      p1 = n1;
      p2 = n2;
    }
  if (rest != 0 || p1 == 0)
    return 0;
  int bx = z->x_zones / p1, by = z->y_zones / p2;
  for (int zone = 0; zone < z->nzones; zone++) {
    const mz_zone_t *q = &z->zone[zone];
    assign(z, m, zone, q->ix / bx + (q->jy / by) * p1);
  }
  return 1;
}

int mz_map_zones(const mz_zones_t *z, int nprocs, mz_map_kind_t want, mz_map_t *m)
{
  memset(m, 0, sizeof *m);
  if (nprocs < 1 || nprocs > z->nzones)
    return -2;
  m->nprocs = nprocs;
  m->owner = malloc((size_t)z->nzones * sizeof *m->owner);
  m->load = calloc((size_t)nprocs, sizeof *m->load);
  m->count = calloc((size_t)nprocs, sizeof *m->count);
  if (!m->owner || !m->load || !m->count) {
    mz_map_free(m);
    return -1;
  }
  m->kind = MZ_MAP_BINPACK;
  if (want == MZ_MAP_BLOCK && map_block(z, m))
    m->kind = MZ_MAP_BLOCK;
  else if (map_binpack(z, m) != 0) {
    mz_map_free(m);
    return -1;
  }
  long long max = 0, total = 0;
  for (int p = 0; p < nprocs; p++) {
    total += m->load[p];
    max = m->load[p] > max ? m->load[p] : max;
  }
  m->imbalance = (double)max * nprocs / (double)total;
  return 0;
}

void mz_map_free(mz_map_t *m)
{
  free(m->owner);
  free(m->load);
  free(m->count);
  memset(m, 0, sizeof *m);
}

double mz_mops(mz_bench_t b, const mz_zones_t *z, int niter, double seconds)
{
  double mops = 0.0;
  if (seconds <= 0.0)
    return 0.0;
  for (int i = 0; i < z->nzones; i++) {
    const mz_zone_t *q = &z->zone[i];
    double n3 = (double)mz_zone_points(q);
    double navg = (q->nx + q->ny + q->nz) / 3.0;
    double nsur = ((double)q->nx * q->ny + (double)q->nx * q->nz + (double)q->ny * q->nz) / 3.0;
    mops += 1e-6 * niter *
            (benches[b].a * n3 + benches[b].b * nsur + benches[b].c * navg + benches[b].d) /
            seconds;
  }
  return mops;
}

/* LU-MZ/proc_grid.f: the speed-up estimate of each factorisation, the best kept */
int mz_proc_grid_auto(int nprocs, int zones, int nx1)
{
  int best = 1;
  double best_spup = 0.0;
  for (int nzp = nprocs < zones ? nprocs : zones; nzp >= 1; nzp--) {
    if (nprocs % nzp != 0)
      continue;
    int nxp = nprocs / nzp;
    double spup = (double)zones * nx1 / ((double)((zones + nzp - 1) / nzp) *
                                         (double)((nx1 + nxp - 1) / nxp));
    if (spup > best_spup) {
      best_spup = spup;
      best = nxp;
    }
  }
  return best;
}

/* LU-MZ/subdomain.f: n / nxp points each, the first n mod nxp positions one more */
void mz_xpiece(int n, int nxp, int xpos, int *lo, int *hi)
{
  int q = n / nxp, mm = n % nxp;
  *lo = xpos * q + (xpos < mm ? xpos : mm);
  *hi = *lo + q + (xpos < mm);
}
