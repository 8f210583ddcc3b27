/* apps/mc/mc_sim.c: a Monte Carlo particle mini-app with one allreduce of a
 * tally array per time step, outside the parallel region: the pattern of the
 * hybrid-collectives paper's MC application (128 KB allreduce per step).
 *
 *   per step:  particles move (OpenMP parallel loop, private tallies)
 *              -> tally[cell]++ and absorption count, merged over threads
 *              -> allreduce(tally, SUM)    <- the master alone, other threads idle
 *                 (or another collective that gives every rank the same global
 *                 tally: --collective, mc_coll.c)
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
 * integers the sums are exact whichever collective and algorithm run them: the checksum
 * (FNV-1a over the 64-bit words of every step's global tally) must be equal with and without the
 * preload library, and for any --collective and --algorithm.  Positions are 32-bit fixed point and
 * all arithmetic is integer, so the checksum does not depend on compiler flags.
 *
 * Verifies itself: the particle count is conserved every step (sum of the cell
 * tallies == particles), all ranks hold the same checksum, and --expect-checksum
 * compares it with a given value.  Exit code 1 when not.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hybridkit/ckd.h"
#include "mc.h"

static uint64_t splitmix(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* the k-th random 64-bit number of particle g at step s */
static uint64_t draw(const mc_sim_t *m, long long g, int s, int k)
{
  uint64_t key = splitmix((uint64_t)m->cfg->seed * 0x100000001b3ULL ^ (uint64_t)g);
  return splitmix(key ^ ((uint64_t)(uint32_t)s << 8 | (uint64_t)k));
}

/* positions are 32-bit fixed point on the ring (wrapping is free), so every
 * operation is an integer one: bit-identical for any compiler flags */
static int cell_of(const mc_sim_t *m, uint32_t x) { return (int)(((uint64_t)x * m->ncells) >> 32); }

/* one step of this rank's particles; the previous global tally sets the crowding:
 * absorbed with probability 0.1 occ / (occ + mean) */
static void move(mc_sim_t *m, int s)
{
  int64_t *t = m->local;
  const int64_t *prev = m->global;
  int nb = m->nbins, nc = m->ncells;
  uint64_t mean = (uint64_t)m->cfg->particles / (uint64_t)nc + 1;
  uint64_t reach = (4ULL << 32) / (uint64_t)nc; /* up to 4 cells per step */
#pragma omp parallel num_threads(m->threads)
  {
    int nt = omp_get_num_threads();
    int64_t *mine = m->scratch + (size_t)omp_get_thread_num() * m->stride;
    memset(mine, 0, (size_t)nb * sizeof *mine);
#pragma omp for schedule(static)
    for (long long i = 0; i < m->count; i++) {
      long long g = m->first + i;
      uint32_t x = m->x[i] + (uint32_t)(draw(m, g, s, 0) % (2 * reach + 1) - reach);
      uint64_t occ = (uint64_t)prev[cell_of(m, x)];
      if ((draw(m, g, s, 1) >> 32) * 10 * (occ + mean) < (occ << 32)) {
        x = 0x73333333u + (uint32_t)(draw(m, g, s, 2) % 0x1999999au); /* re-emitted in [0.45, 0.55) */
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

static int check_and_hash(mc_sim_t *m, int s)
{
  int64_t sum = 0;
  for (int c = 0; c < m->ncells; c++)
    sum += m->global[c];
  m->absorbed += m->global[m->nbins - 1];
  for (int b = 0; b < m->nbins; b++) /* FNV-1a over 64-bit words */
    m->checksum = (m->checksum ^ (uint64_t)m->global[b]) * 0x100000001b3ULL;
  if (sum != m->cfg->particles)
    return hk_error_set(HK_ERR_STATE, "step %d: %" PRId64 " particles in the tallies, %d "
                        "expected (particle count not conserved)", s, sum, m->cfg->particles);
  return HK_SUCCESS;
}

static int step(mc_sim_t *m, int s)
{
  double t0 = MPI_Wtime();
  move(m, s);
  double t1 = MPI_Wtime();
  int err = mc_coll_run(m);
  double t2 = MPI_Wtime();
  m->t_compute += t1 - t0;
  m->t_coll += t2 - t1;
  return err == HK_SUCCESS ? check_and_hash(m, s) : err;
}

static int setup(mc_sim_t *m)
{
  MPI_Comm_rank(m->comm, &m->rank);
  MPI_Comm_size(m->comm, &m->size);
  m->threads = omp_get_max_threads();
  /* positions, the local tally, one private tally per thread, the global one and the
   * collective's buffers (doubles: no overflow) */
  double need = (double)m->cfg->particles / m->size * sizeof *m->x +
                (1.0 + m->threads) * (double)m->cfg->tally_bytes +
                mc_coll_bytes(m->cfg, m->size);
  char what[128];
  snprintf(what, sizeof what, "%d particles, %d tallies of %d bytes and --collective %s's buffers",
           m->cfg->particles, 1 + m->threads, m->cfg->tally_bytes,
           mc_coll_names[m->cfg->collective]);
  int err = HK_SUCCESS;
  HK_TRY(err, hk_app_mem_check(m->comm, need, what)); /* agreed */
  m->nbins = m->cfg->tally_bytes / 8;
  m->ncells = m->nbins - 1;
  m->first = (long long)m->cfg->particles * m->rank / m->size;
  m->count = (long long)m->cfg->particles * (m->rank + 1) / m->size - m->first;
  m->checksum = 0xcbf29ce484222325ULL;
  size_t xbytes = 0, sbytes = 0;
  m->stride = ((size_t)m->nbins + 7) / 8 * 8; /* a cache line apart */
  if (!hk_ckd_mul(&xbytes, m->count > 0 ? m->count : 1, sizeof *m->x) &&
      !hk_ckd_mul3(&sbytes, m->threads, (long long)m->stride, sizeof *m->scratch)) {
    m->x = malloc(xbytes);
    m->scratch = malloc(sbytes);
  }
  m->local = calloc((size_t)m->nbins, sizeof *m->local);
  int local = m->x && m->local && m->scratch
                  ? HK_SUCCESS : hk_error_set(HK_ERR_NOMEM, "no memory for %lld particles",
                                              m->count);
  if (local == HK_SUCCESS)
    local = mc_coll_alloc(m);
  if (local == HK_SUCCESS) {
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < m->count; i++)
      m->x[i] = (uint32_t)(draw(m, m->first + i, -1, 0) >> 32);
  }
  err = local;
  HK_AGREE(err, m->comm);
cleanup:
  return err;
}

static int verify(mc_sim_t *m)
{
  unsigned long long mine = m->checksum, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, m->comm);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, m->comm);
  if (lo != hi)
    return hk_error_set(HK_ERR_STATE, "the ranks disagree on the checksum (%016llx .. %016llx)",
                        lo, hi);
  if (m->cfg->expect && m->cfg->expected != mine)
    return hk_error_set(HK_ERR_STATE, "checksum %016llx, expected %s", mine, m->cfg->expect);
  return HK_SUCCESS;
}

static hk_preload_query_fn preload_query(void)
{
  return (hk_preload_query_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "hk_preload_query");
}

/* the warm-up steps, then the timed ones; *t_step: this rank's time per timed step;
 * ps0/ps: the preload's state before and after them (when it is loaded) */
static int time_steps(mc_sim_t *m, double *t_step, hk_preload_state_t *ps0, hk_preload_state_t *ps)
{
  const mc_config_t *c = m->cfg;
  hk_preload_query_fn q = preload_query();
  int err = HK_SUCCESS;
  for (int s = 0; s < c->warmup; s++) {
    HK_LOCAL(err, step(m, s));
    HK_AGREE(err, m->comm);
  }
  m->t_coll = m->t_compute = 0.0;
  m->absorbed = 0;
  if (q)
    q(ps0);
  MPI_Barrier(m->comm);
  double t0 = MPI_Wtime();
  for (int s = c->warmup; s < c->warmup + c->steps; s++)
    HK_LOCAL(err, step(m, s)); /* after a failure: no more steps on this rank */
  *t_step = (MPI_Wtime() - t0) / c->steps;
  if (q)
    q(ps);
  HK_AGREE(err, m->comm);
cleanup:
  return err;
}

int mc_run(void *arg)
{
  mc_sim_t m = {.cfg = arg, .comm = MPI_COMM_WORLD};
  hk_preload_state_t ps0 = {0}, ps = {0};
  double t_step = 0.0;
  int err = HK_SUCCESS;
  HK_TRY(err, setup(&m));                             /* agreed */
  HK_TRY(err, time_steps(&m, &t_step, &ps0, &ps));    /* agreed */
  HK_LOCAL(err, verify(&m));
  HK_AGREE(err, m.comm);
  HK_TRY(err, mc_report(&m, t_step, ps.active ? &ps : NULL, ps0.accelerated)); /* agreed */
  if (m.rank == 0)
    printf("# Verification = SUCCESSFUL (checksum %016" PRIx64 ", particles conserved every "
           "step)\n", m.checksum);
cleanup:
  free(m.x);
  free(m.local);
  mc_coll_free(&m);
  free(m.scratch);
  return err;
}
