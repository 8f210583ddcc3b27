/* tests/unit/test_mz_single.c: the NPB-MZ zone numerics (apps/mz/adi_common.c, sp.c, and
 * bt.c when built with HK_MZ_TEST_BT) checked WITHOUT the multi-zone framework. With one zone
 * covering the whole grid (x_zones = y_zones = 1, boundary values never exchanged) NPB-MZ
 * reduces to single-zone NPB, so the official NPB 3.x SP and BT verification values apply,
 * with their tolerance 1e-8 (relative).
 *
 *   test_mz_single [--bench sp|bt] [--class S|W|A|B] [--steps N]
 *                  [--zone NXxNYxNZ --zones XxY --dt DT --max-error E]
 *
 * --class runs the single-zone class and verifies it (exit 0 / 1), printing time and Mop/s
 * (op counts of NPB-MZ). --zone runs --steps steps on one zone of that size with the MZ
 * spacing of an XxY-zone grid and time step DT (default 0.015): no reference values, a speed
 * measurement of zone-sized work and a check: the forcing makes the exact solution the
 * scheme's steady state, so the error norms must fall below E (zones of fewer than 10 points
 * in x or y take the SP solver's partial-batch path, which the classes never reach).
 * Like NPB, one untimed step runs first and u is re-initialised. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hk_test.h"
#include "sp.h"
#ifdef HK_MZ_TEST_BT
#include "bt.h"
#endif

/* the zone solvers under test */
typedef struct solver {
  const char *name;
  int with_speed;
  int (*setup)(mz_adi_zone_t *z);
  int (*adi)(mz_adi_zone_t *z);
  void (*release)(mz_adi_zone_t *z);
  double (*ops)(int nx, int ny, int nz); /* per step, as NPB-MZ counts them */
} solver_t;

/* NPB3.x-MZ BT-MZ bt.f, Mop/s count per zone and iteration */
static double bt_step_ops(int nx, int ny, int nz)
{
  const double n3 = (double)nx * ny * nz, navg = (nx + ny + nz) / 3.0;
  const double nsur = ((double)nx * ny + (double)nx * nz + (double)ny * nz) / 3.0;
  return 3478.8 * n3 - 17655.7 * nsur + 28023.7 * navg;
}

static const solver_t solvers[] = {
  {"sp", 1, mz_sp_setup, mz_sp_adi, mz_sp_free, mz_sp_step_ops},
#ifdef HK_MZ_TEST_BT
  {"bt", 0, mz_bt_setup, mz_bt_adi, mz_bt_free, bt_step_ops},
#endif
};

typedef struct mz_class {
  const char *bench;
  char name;
  int n, steps;
  double dt;
  double xcr[5], xce[5]; /* residual and error norms after `steps` steps */
} mz_class_t;

/* NPB 3.x SP verify.f and BT verify.f: reference norms of classes S, W, A, B (grid n^3, steps,
 * dt) */
static const mz_class_t mz_classes[] = {
  {"sp", 'S', 12, 100, 0.015,
   {2.7470315451339479e-02, 1.0360746705285417e-02, 1.6235745065095532e-02,
    1.5840557224455615e-02, 3.4849040609362460e-02},
   {2.7289258557377227e-05, 1.0364446640837285e-05, 1.6154798287166471e-05,
    1.5750704994480102e-05, 3.4177666183390531e-05}},
  {"sp", 'W', 36, 400, 0.0015,
   {0.1893253733584e-02, 0.1717075447775e-03, 0.2778153350936e-03, 0.2887475409984e-03,
    0.3143611161242e-02},
   {0.7542088599534e-04, 0.6512852253086e-05, 0.1049092285688e-04, 0.1128838671535e-04,
    0.1212845639773e-03}},
  {"sp", 'A', 64, 400, 0.0015,
   {2.4799822399300195e+00, 1.1276337964368832e+00, 1.5028977888770491e+00,
    1.4217816211695179e+00, 2.1292113035138280e+00},
   {1.0900140297820550e-04, 3.7343951769282091e-05, 5.0092785406541633e-05,
    4.7671093939528255e-05, 1.3621613399213001e-04}},
  {"sp", 'B', 102, 400, 0.001,
   {0.6903293579998e+02, 0.3095134488084e+02, 0.4103336647017e+02, 0.3864769009604e+02,
    0.5643482272596e+02},
   {0.9810006190188e-02, 0.1022827905670e-02, 0.1720597911692e-02, 0.1694479428231e-02,
    0.1847456263981e-01}},
  {"bt", 'S', 12, 60, 0.01,
   {1.7034283709541311e-01, 1.2975252070034097e-02, 3.2527926989486055e-02,
    2.6436421275166801e-02, 1.9211784131744430e-01},
   {4.9976913345811579e-04, 4.5195666782961927e-05, 7.3973765172921357e-05,
    7.3821238632439731e-05, 8.9269630987491446e-04}},
  {"bt", 'W', 24, 200, 0.0008,
   {0.1125590409344e+03, 0.1180007595731e+02, 0.2710329767846e+02, 0.2469174937669e+02,
    0.2638427874317e+03},
   {0.4419655736008e+01, 0.4638531260002e+00, 0.1011551749967e+01, 0.9235878729944e+00,
    0.1018045837718e+02}},
  {"bt", 'A', 64, 200, 0.0008,
   {1.0806346714637264e+02, 1.1319730901220813e+01, 2.5974354511582465e+01,
    2.3665622544678910e+01, 2.5278963211748344e+02},
   {4.2348416040525025e+00, 4.4390282496995698e-01, 9.6692480136345650e-01,
    8.8302063039765474e-01, 9.7379901770829278e+00}},
};

typedef struct run {
  double seconds, cpu, mops, xcr[5], xce[5]; /* wall and process CPU time of the steps */
} run_t;

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* set up one zone, one untimed step, re-initialise, `steps` timed steps, then the norms as
 * NPB's verify does them (error norm, compute_rhs, rhs norm / dt) */
static int run_solver(const solver_t *sv, int nx, int ny, int nz, const mz_adi_grid_t *g, double dt,
                      int steps, run_t *out)
{
  mz_adi_zone_t z;
  memset(&z, 0, sizeof z);
  if (mz_adi_zone_alloc(&z, nx, ny, nz, sv->with_speed) != 0 || sv->setup(&z) != 0) {
    fprintf(stderr, "cannot allocate a %dx%dx%d zone\n", nx, ny, nz);
    mz_adi_zone_free(&z);
    return -1;
  }
  mz_adi_set_constants(&z, dt, g);
  mz_adi_exact_rhs(&z);
  mz_adi_initialize(&z);
  int rc = sv->adi(&z);
  mz_adi_initialize(&z);
  const double t0 = omp_get_wtime(), c0 = cpu_seconds();
  for (int s = 0; s < steps && rc == 0; s++)
    rc = sv->adi(&z);
  out->seconds = omp_get_wtime() - t0;
  out->cpu = cpu_seconds() - c0;
  out->mops = steps * sv->ops(nx, ny, nz) * 1e-6 / out->seconds;
  mz_adi_error_norm(&z, out->xce);
  mz_adi_compute_rhs(&z);
  mz_adi_rhs_norm(&z, out->xcr);
  for (int m = 0; m < 5; m++)
    out->xcr[m] /= dt;
  sv->release(&z);
  mz_adi_zone_free(&z);
  return rc;
}

static int verify_class(const solver_t *sv, const mz_class_t *c, int steps)
{
  const mz_adi_grid_t g = {c->n, c->n, c->n, 1, 1};
  run_t r;
  if (run_solver(sv, c->n, c->n, c->n, &g, c->dt, steps, &r) != 0)
    return 1;
  printf("%s class %c (%d^3, dt %g, %d steps), %d thread(s): %.3f s, %.1f Mop/s (CPU %.3f s)\n",
         sv->name, c->name, c->n, c->dt, steps, omp_get_max_threads(), r.seconds, r.mops, r.cpu);
  for (int m = 0; m < 5; m++) {
    const double dr = fabs((r.xcr[m] - c->xcr[m]) / c->xcr[m]);
    const double de = fabs((r.xce[m] - c->xce[m]) / c->xce[m]);
    printf("  %d residual %.13e ref %.13e rel %.1e | error %.13e ref %.13e rel %.1e\n", m + 1,
           r.xcr[m], c->xcr[m], dr, r.xce[m], c->xce[m], de);
    CHECK(dr <= 1e-8); /* NPB's epsilon */
    CHECK(de <= 1e-8);
  }
  return 0;
}

static void test_constants(void)
{
  /* one zone: MZ spacing is single-zone NPB's 1/(n-1); several zones: the average cell */
  mz_consts_t c;
  const mz_adi_grid_t one = {12, 12, 12, 1, 1}, four = {64, 64, 8, 4, 4};
  mz_adi_consts_init(&c, 0.015, &one);
  CHECK(c.dnxm1 == 1.0 / 11.0 && c.dnzm1 == 1.0 / 11.0);
  CHECK(c.comz5 == 5.0 * 0.015 * 0.25 && c.bt == sqrt(0.5));
  mz_adi_consts_init(&c, 0.0015, &four);
  CHECK(fabs(c.dnxm1 - 4.0 / 63.0) < 1e-16 && fabs(c.dnzm1 - 1.0 / 7.0) < 1e-16);
  /* dissipation rows: the five cases of rhs.f, and both middle cases at n = 5 */
  double w[5];
  mz_adi_dissipation_row(1, 12, w);
  CHECK(w[0] == 0 && w[1] == 0 && w[2] == 5 && w[3] == -4 && w[4] == 1);
  mz_adi_dissipation_row(6, 12, w);
  CHECK(w[0] == 1 && w[1] == -4 && w[2] == 6 && w[3] == -4 && w[4] == 1);
  mz_adi_dissipation_row(10, 12, w);
  CHECK(w[0] == 1 && w[1] == -4 && w[2] == 5 && w[3] == 0 && w[4] == 0);
  mz_adi_dissipation_row(2, 5, w);
  CHECK(w[0] == 1 && w[1] == -8 && w[2] == 12 && w[3] == -8 && w[4] == 1);
  mz_adi_zone_t z;
  memset(&z, 0, sizeof z);
  CHECK(mz_adi_zone_alloc(&z, 4, 12, 12, 1) == -1 && z.u == NULL);
  CHECK(mz_adi_zone_alloc(&z, 5, 6, 7, 0) == 0 && z.u && z.ut && !z.speed);
  CHECK(mz_adi_zone_bytes(5, 6, 7, 0) == 5 * 6 * 7 * 26 * sizeof(double));
  CHECK(mz_adi_zone_bytes(5, 6, 7, 1) == 5 * 6 * 7 * 27 * sizeof(double));
  CHECK(mz_sp_setup(&z) == -1); /* SP needs speed */
  mz_adi_zone_free(&z);
  CHECK(z.u == NULL);
}

int main(int argc, char **argv)
{
  char cls = 'S';
  const char *bench = "sp";
  int steps = -1, nx = 0, ny = 0, nz = 0, xz = 1, yz = 1;
  double dt = 0.015, max_error = 1e30;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--bench") && a + 1 < argc)
      bench = argv[++a];
    else if (!strcmp(argv[a], "--class") && a + 1 < argc)
      cls = argv[++a][0];
    else if (!strcmp(argv[a], "--steps") && a + 1 < argc)
      steps = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--zone") && a + 1 < argc)
      sscanf(argv[++a], "%dx%dx%d", &nx, &ny, &nz);
    else if (!strcmp(argv[a], "--max-error") && a + 1 < argc)
      max_error = atof(argv[++a]);
    else if (!strcmp(argv[a], "--dt") && a + 1 < argc)
      dt = atof(argv[++a]);
    else if (!strcmp(argv[a], "--zones") && a + 1 < argc)
      sscanf(argv[++a], "%dx%d", &xz, &yz);
    else {
      fprintf(stderr, "usage: %s [--bench sp|bt] [--class S|W|A|B] [--steps N] "
                      "[--zone NXxNYxNZ --zones XxY --dt DT --max-error E]\n", argv[0]);
      return 2;
    }
  }
  const solver_t *sv = NULL;
  for (size_t k = 0; k < sizeof solvers / sizeof *solvers; k++)
    if (!strcmp(solvers[k].name, bench))
      sv = &solvers[k];
  if (!sv) {
    fprintf(stderr, "solver '%s' not built in\n", bench);
    return 2;
  }
  test_constants();
  if (nx > 0) {
    const mz_adi_grid_t g = {nx * xz, ny * yz, nz, xz, yz};
    run_t r;
    if (steps < 0)
      steps = 100;
    if (run_solver(sv, nx, ny, nz, &g, dt, steps, &r) != 0)
      return 1;
    printf("%s zone %dx%dx%d (of %dx%d zones), %d steps, %d thread(s): %.3f s, %.1f Mop/s, "
           "CPU %.3f s (%.1f Mop/s per CPU second)\n", sv->name, nx, ny, nz, xz, yz, steps,
           omp_get_max_threads(), r.seconds, r.mops, r.cpu, r.mops * r.seconds / r.cpu);
    /* no reference here; but the forcing makes the exact solution the scheme's steady state,
     * so on small zones the error norm must fall far (--max-error) */
    for (int m = 0; m < 5; m++) {
      printf("  %d residual %.13e | error %.13e\n", m + 1, r.xcr[m], r.xce[m]);
      CHECK(r.xce[m] < max_error);
    }
    return hk_test_report("mz.single zone");
  }
  const mz_class_t *c = NULL;
  for (size_t k = 0; k < sizeof mz_classes / sizeof *mz_classes; k++)
    if (mz_classes[k].name == cls && !strcmp(mz_classes[k].bench, bench))
      c = &mz_classes[k];
  if (!c) {
    fprintf(stderr, "no class '%c' for %s\n", cls, bench);
    return 2;
  }
  if (verify_class(sv, c, steps < 0 ? c->steps : steps) != 0)
    return 1;
  return hk_test_report("mz.single");
}
