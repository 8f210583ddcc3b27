/* apps/mc/hk-mc.c: a Monte Carlo particle mini-app with one allreduce of a
 * tally array per time step, outside the parallel region: the pattern of the
 * hybrid-collectives paper's MC application (128 KB allreduce per step).
 *
 *   per step:  particles move (OpenMP parallel loop, private tallies)
 *              -> tally[cell]++ and absorption count, merged over threads
 *              -> allreduce(tally, SUM)    <- the master alone, other threads idle
 *              -> conservation check, checksum
 *
 *   tally: tally_bytes / 8 int64 counters: cells 0..n-2 count the particles in
 *   each cell of a periodic ring, the last one the absorptions of the step.
 *
 * Interaction: a particle in a crowded cell is absorbed with a higher probability
 * (p = 0.1 occ / (occ + mean), occ from the previous step's global tally) and
 * re-emitted by a source near the middle of the ring.  Every particle draws from
 * its own counter-based random stream (splitmix64 of seed, particle, step), so
 * the run is the same for any rank and thread count, and since the tallies are
 * integers the allreduce is exact whichever algorithm runs it: the checksum
 * (FNV-1a over the 64-bit words of every step's global tally) must be equal with and without the
 * preload library, and for any --allreduce.  Positions are 32-bit fixed point and
 * all arithmetic is integer, so the checksum does not depend on compiler flags.
 *
 * Verifies itself: the particle count is conserved every step (sum of the cell
 * tallies == particles), all ranks hold the same checksum, and --expect-checksum
 * compares it with a given value.  Exit code 1 when not.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "hk_app.h"
#include "hk_preload.h"
#include "hybridkit.h"
#include "internal/hk_ckd.h"

static struct {
  int particles, steps, warmup, tally_bytes, seed;
  const char *allreduce, *expect, *output;
} opt = {.particles = 100000, .steps = 100, .warmup = 2, .tally_bytes = 131072, .seed = 1,
         .allreduce = "mpi"};

static const hk_opt_t options[] = {
  {"particles", HK_OPT_INT, &opt.particles, "N", "particles in total (split over the ranks)", 0},
  {"steps", HK_OPT_INT, &opt.steps, "K", "timed time steps", 0},
  {"warmup", HK_OPT_INT, &opt.warmup, "W", "untimed time steps first (part of the simulation)", 0},
  {"tally-bytes", HK_OPT_INT, &opt.tally_bytes, "B",
   "bytes of the tally array allreduced every step (multiple of 8, >= 16)", 0},
  {"seed", HK_OPT_INT, &opt.seed, "S", "random seed", 0},
  {"allreduce", HK_OPT_STR, &opt.allreduce, "A",
   "mpi (MPI_Allreduce: what the preload library intercepts) | auto | chunked | "
   "chunked-shifted | hierarchical (hk_allreduce)", 0},
  {"expect-checksum", HK_OPT_STR, &opt.expect, "HEX", "fail unless the checksum is HEX", 0},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record to FILE", 0},
};

static const hk_app_t app = {
  .program = "hk-mc",
  .summary = "Monte Carlo particles with a per-step allreduce of a tally array (hybrid collectives)",
  .usage = "[--particles N] [--steps K] [--tally-bytes B] [--allreduce A] [--output FILE.jsonl]",
  .description =
      "Particles move and interact in OpenMP loops; every step ends with an allreduce of the\n"
      "tally array (default 128 KiB of int64 counters) outside the parallel region.  Run it\n"
      "under LD_PRELOAD=libhybridkit-preload.so to let the idle threads take part in that\n"
      "MPI_Allreduce, or pick a hybrid algorithm with --allreduce.  Deterministic for a seed:\n"
      "the checksum is the same for every rank and thread count and every algorithm.\n"
      "Verifies particle conservation every step; exits 1 when wrong.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

typedef struct sim {
  MPI_Comm comm;
  int rank, size, threads;
  long long first, count;        /* this rank's particles [first, first + count) */
  int nbins, ncells;
  uint32_t *x;                   /* positions: fixed point, the ring is [0, 2^32) */
  int64_t *local, *global;       /* tallies: this rank's, the allreduced one */
  int64_t *scratch;              /* the threads' private tallies, `stride` apart (heap: a
                                    tally of megabytes overflows a thread's stack) */
  size_t stride;
  uint64_t checksum;
  long long absorbed;             /* absorptions in the timed steps (global) */
  int use_hk;
  hk_allreduce_alg_t alg;
  hk_allreduce_info_t info;      /* of the last hk_allreduce */
  double t_allreduce, t_compute;
} sim_t;

static uint64_t splitmix(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* the k-th random 64-bit number of particle g at step s */
static uint64_t draw(long long g, int s, int k)
{
  uint64_t key = splitmix((uint64_t)opt.seed * 0x100000001b3ULL ^ (uint64_t)g);
  return splitmix(key ^ ((uint64_t)(uint32_t)s << 8 | (uint64_t)k));
}

/* positions are 32-bit fixed point on the ring (wrapping is free), so every
 * operation is an integer one: bit-identical for any compiler flags */
static int cell_of(const sim_t *m, uint32_t x) { return (int)(((uint64_t)x * m->ncells) >> 32); }

/* one step of this rank's particles; the previous global tally sets the crowding:
 * absorbed with probability 0.1 occ / (occ + mean) */
static void move(sim_t *m, int s)
{
  int64_t *t = m->local;
  const int64_t *prev = m->global;
  int nb = m->nbins, nc = m->ncells;
  uint64_t mean = (uint64_t)opt.particles / (uint64_t)nc + 1;
  uint64_t reach = (4ULL << 32) / (uint64_t)nc; /* up to 4 cells per step */
#pragma omp parallel num_threads(m->threads)
  {
    int nt = omp_get_num_threads();
    int64_t *mine = m->scratch + (size_t)omp_get_thread_num() * m->stride;
    memset(mine, 0, (size_t)nb * sizeof *mine);
#pragma omp for schedule(static)
    for (long long i = 0; i < m->count; i++) {
      long long g = m->first + i;
      uint32_t x = m->x[i] + (uint32_t)(draw(g, s, 0) % (2 * reach + 1) - reach);
      uint64_t occ = (uint64_t)prev[cell_of(m, x)];
      if ((draw(g, s, 1) >> 32) * 10 * (occ + mean) < (occ << 32)) {
        x = 0x73333333u + (uint32_t)(draw(g, s, 2) % 0x1999999au); /* re-emitted in [0.45, 0.55) */
        mine[nb - 1]++;
      }
      m->x[i] = x;
      mine[cell_of(m, x)]++;
    }
    /* (implicit barrier) each thread sums a share of the bins over all threads */
#pragma omp for schedule(static)
    for (int b = 0; b < nb; b++) {
      int64_t sum = 0;
      for (int k = 0; k < nt; k++)
        sum += m->scratch[(size_t)k * m->stride + (size_t)b];
      t[b] = sum;
    }
  }
}

static int allreduce(sim_t *m)
{
  if (!m->use_hk) {
    int rc = MPI_Allreduce(m->local, m->global, m->nbins, MPI_INT64_T, MPI_SUM, m->comm);
    return rc == MPI_SUCCESS ? HK_SUCCESS : hk_error_set(HK_ERR_MPI, "MPI_Allreduce failed");
  }
  hk_allreduce_opts_t o = {.algorithm = m->alg, .min_bytes = HK_DEFAULT, .info = &m->info};
  return hk_allreduce(m->local, m->global, m->nbins, MPI_INT64_T, MPI_SUM, m->comm, &o);
}

static int check_and_hash(sim_t *m, int s)
{
  int64_t sum = 0;
  for (int c = 0; c < m->ncells; c++)
    sum += m->global[c];
  m->absorbed += m->global[m->nbins - 1];
  for (int b = 0; b < m->nbins; b++) /* FNV-1a over 64-bit words */
    m->checksum = (m->checksum ^ (uint64_t)m->global[b]) * 0x100000001b3ULL;
  if (sum != opt.particles)
    return hk_error_set(HK_ERR_STATE, "step %d: %" PRId64 " particles in the tallies, %d "
                        "expected (particle count not conserved)", s, sum, opt.particles);
  return HK_SUCCESS;
}

static int step(sim_t *m, int s)
{
  double t0 = MPI_Wtime();
  move(m, s);
  double t1 = MPI_Wtime();
  int err = allreduce(m);
  double t2 = MPI_Wtime();
  m->t_compute += t1 - t0;
  m->t_allreduce += t2 - t1;
  return err == HK_SUCCESS ? check_and_hash(m, s) : err;
}

static int setup(sim_t *m)
{
  MPI_Comm_rank(m->comm, &m->rank);
  MPI_Comm_size(m->comm, &m->size);
  m->threads = omp_get_max_threads();
  /* positions, the two tallies and one private tally per thread (doubles: no overflow) */
  double need = (double)opt.particles / m->size * sizeof *m->x +
                (2.0 + m->threads) * (double)opt.tally_bytes;
  char what[96];
  snprintf(what, sizeof what, "%d particles and %d tallies of %d bytes", opt.particles,
           2 + m->threads, opt.tally_bytes);
  int err = hk_app_mem_check(m->comm, need, what);
  if (err != HK_SUCCESS)
    return err;
  m->nbins = opt.tally_bytes / 8;
  m->ncells = m->nbins - 1;
  m->first = (long long)opt.particles * m->rank / m->size;
  m->count = (long long)opt.particles * (m->rank + 1) / m->size - m->first;
  m->checksum = 0xcbf29ce484222325ULL;
  size_t xbytes = 0, sbytes = 0;
  m->stride = ((size_t)m->nbins + 7) / 8 * 8; /* a cache line apart */
  if (!hk_ckd_mul(&xbytes, m->count > 0 ? m->count : 1, sizeof *m->x) &&
      !hk_ckd_mul3(&sbytes, m->threads, (long long)m->stride, sizeof *m->scratch)) {
    m->x = malloc(xbytes);
    m->scratch = malloc(sbytes);
  }
  m->local = calloc((size_t)m->nbins, sizeof *m->local);
  m->global = calloc((size_t)m->nbins, sizeof *m->global);
  int local = m->x && m->local && m->global && m->scratch
                  ? HK_SUCCESS : hk_error_set(HK_ERR_NOMEM, "no memory for %lld particles",
                                              m->count);
  if (local == HK_SUCCESS) {
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < m->count; i++)
      m->x[i] = (uint32_t)(draw(m->first + i, -1, 0) >> 32);
  }
  return hk_agree(m->comm, local);
}

static int check_options(hk_allreduce_alg_t *alg, int *use_hk)
{
  if (opt.particles < 1 || opt.steps < 1 || opt.warmup < 0)
    return hk_error_set(HK_ERR_ARG, "--particles and --steps must be >= 1, --warmup >= 0");
  if (opt.tally_bytes < 16 || opt.tally_bytes % 8)
    return hk_error_set(HK_ERR_ARG, "--tally-bytes %d: a multiple of 8, at least 16",
                        opt.tally_bytes);
  *use_hk = strcmp(opt.allreduce, "mpi") != 0;
  *alg = HK_ALLREDUCE_MPI;
  if (*use_hk && hk_allreduce_alg_parse(opt.allreduce, alg) != HK_SUCCESS)
    return hk_error_set(HK_ERR_ARG, "--allreduce %s: mpi, auto, chunked, chunked-shifted or "
                        "hierarchical", opt.allreduce);
  if (opt.expect) {
    char *end = NULL;
    errno = 0;
    strtoull(opt.expect, &end, 16);
    if (!isxdigit((unsigned char)*opt.expect) || *end || errno)
      return hk_error_set(HK_ERR_ARG, "--expect-checksum %s: not a hexadecimal number",
                          opt.expect);
  }
  return HK_SUCCESS;
}

static int verify(sim_t *m)
{
  unsigned long long mine = m->checksum, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, m->comm);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, m->comm);
  if (lo != hi)
    return hk_error_set(HK_ERR_STATE, "the ranks disagree on the checksum (%016llx .. %016llx)",
                        lo, hi);
  if (opt.expect && strtoull(opt.expect, NULL, 16) != mine)
    return hk_error_set(HK_ERR_STATE, "checksum %016llx, expected %s", mine, opt.expect);
  return HK_SUCCESS;
}

static hk_preload_query_fn preload_query(void)
{
  return (hk_preload_query_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "hk_preload_query");
}

static const char *used_name(const sim_t *m, hk_preload_state_t *ps, long long accel0)
{
  static char buf[64];
  if (!m->use_hk) {
    if (!ps)
      return "mpi";
    snprintf(buf, sizeof buf, "%s", ps->accelerated > accel0 ? "preload" : "mpi");
    return buf;
  }
  snprintf(buf, sizeof buf, "%s", hk_allreduce_alg_name(m->info.algorithm));
  return buf;
}

static int report(sim_t *m, double t_step, hk_preload_state_t *ps, long long accel0)
{
  int err;
  hk_reporter_t *rep = NULL;
  hk_record_t *rec = NULL;
  hk_reporter_desc_t rd = {.program = app.program, .output = opt.output,
                           .table_style = HK_TABLE_LIST};
  if ((err = hk_reporter_create(m->comm, &rd, &rep)) != HK_SUCCESS)
    return err;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double per_ar = m->t_allreduce / opt.steps, per_comp = m->t_compute / opt.steps;
  hk_stats_t st_step, st_ar;
  hk_stats_reduce(m->comm, t_step, &st_step);
  hk_stats_reduce(m->comm, per_ar, &st_ar);
  hk_reporter_config(rep, "problem", "%d particles, %d steps (+%d warm-up), tally %d bytes "
                     "(%d cells + absorptions), seed %d", opt.particles, opt.steps, opt.warmup,
                     opt.tally_bytes, m->ncells, opt.seed);
  err = hk_record_create(rep, "mc", &rec);
  const char *preload = ps ? "on" : "off";
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "procs", m->size);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "threads", m->threads);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "particles", opt.particles);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "steps", opt.steps);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "tally_bytes", opt.tally_bytes);
  if (err == HK_SUCCESS)
    err = hk_record_param_int(rec, "seed", opt.seed);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "allreduce", opt.allreduce);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "preload", preload);
  if (err == HK_SUCCESS)
    err = hk_record_param_str(rec, "allreduce_used", used_name(m, ps, accel0));
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "time_per_step", t_step, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "allreduce", per_ar, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "compute", per_comp, "s");
  if (err == HK_SUCCESS)
    err = hk_record_stats(rec, "maxrss", (double)ru.ru_maxrss, "KiB");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "allreduce_fraction", st_step.max > 0 ? st_ar.max / st_step.max : 0,
                          "fraction");
  if (err == HK_SUCCESS)
    err = hk_record_value(rec, "allreduce_bandwidth",
                          st_ar.max > 0 ? opt.tally_bytes / st_ar.max / 1e6 : 0, "MB/s");
  if (err == HK_SUCCESS)
    err = hk_record_value_int(rec, "checksum", (long long)(m->checksum & ((1ULL << 53) - 1)),
                              "fnv1a64 & (2^53-1)");
  if (err == HK_SUCCESS)
    err = hk_record_value_int(rec, "absorptions", m->absorbed, "events");
  if (err == HK_SUCCESS && ps)
    err = hk_record_value_int(rec, "preload_accelerated", ps->accelerated - accel0, "calls");
  if (err == HK_SUCCESS)
    err = hk_record_emit(&rec);
  hk_record_discard(&rec);
  hk_reporter_destroy(&rep);
  return hk_agree(m->comm, err);
}

typedef struct mc_choice { /* what the options chose */
  hk_allreduce_alg_t alg;
  int use_hk;
} mc_choice_t;

static int run(void *arg)
{
  const hk_allreduce_alg_t alg = ((const mc_choice_t *)arg)->alg;
  const int use_hk = ((const mc_choice_t *)arg)->use_hk;
  sim_t m = {.comm = MPI_COMM_WORLD, .alg = alg, .use_hk = use_hk};
  int err = setup(&m);
  hk_preload_query_fn q = preload_query();
  hk_preload_state_t ps0 = {0}, ps = {0};
  for (int s = 0; s < opt.warmup && err == HK_SUCCESS; s++)
    err = hk_agree(m.comm, step(&m, s));
  m.t_allreduce = m.t_compute = 0.0;
  m.absorbed = 0;
  if (q)
    q(&ps0);
  MPI_Barrier(m.comm);
  double t0 = MPI_Wtime();
  int local = HK_SUCCESS;
  for (int s = opt.warmup; s < opt.warmup + opt.steps && err == HK_SUCCESS && !local; s++)
    local = step(&m, s);
  double t_step = (MPI_Wtime() - t0) / opt.steps;
  if (q)
    q(&ps);
  if (err == HK_SUCCESS)
    err = hk_agree(m.comm, local);
  if (err == HK_SUCCESS)
    err = hk_agree(m.comm, verify(&m));
  if (err == HK_SUCCESS)
    err = report(&m, t_step, q && ps.active ? &ps : NULL, ps0.accelerated);
  if (err == HK_SUCCESS && m.rank == 0)
    printf("# Verification = SUCCESSFUL (checksum %016" PRIx64 ", particles conserved every "
           "step)\n", m.checksum);
  free(m.x);
  free(m.local);
  free(m.global);
  free(m.scratch);
  return err;
}

int main(int argc, char **argv)
{
  int done = 0;
  mc_choice_t c = {.alg = HK_ALLREDUCE_MPI};
  int err = hk_app_parse(&app, argc, argv, &done);
  if (done)
    return HK_EXIT_OK;
  if (err == HK_SUCCESS)
    err = check_options(&c.alg, &c.use_hk);
  /* a typical program asks for what it needs (MASTERONLY); hk_allreduce wants more */
  return hk_app_run(&app, &argc, &argv, c.use_hk ? HK_THREAD_MULTIPLE : HK_THREAD_MASTERONLY,
                    HK_THREAD_MASTERONLY, err, run, &c);
}
