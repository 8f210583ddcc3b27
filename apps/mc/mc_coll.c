/* apps/mc/mc_coll.c: the collective(s) that turn the ranks' tallies into the global tally
 * every step (--collective).  Each MPI collective of a step goes to MPI_* (--algorithm mpi:
 * what libhybridkit-preload.so intercepts) or to its hk_* function with the algorithm asked
 * for.  Every variant leaves the same global tally on every rank (the tallies are integers:
 * sums in any order are exact), so the checksum is the same for all of them.
 *
 *   allreduce       allreduce of the tally
 *   reduce          reduce to rank 0, then bcast of the result
 *   reduce-scatter  the tally padded with zeros to P blocks of B = ceil(nbins / P) bins,
 *                   reduce_scatter_block (rank r: block r summed), allgather of the blocks
 *   allgather       allgather of the P tallies, every rank sums them in rank order
 *   alltoall        block j of every rank's padded tally to rank j (alltoall), which sums
 *                   them in rank order, then allgather of the blocks
 *   bcast           P bcasts: root r sends its tally, every rank adds it in rank order
 *                   (an allgather made of bcasts: P x the tally per step, hk_bcast at the
 *                   tally's size; a bcast of the root's state alone would move a few bytes
 *                   and need no reduction, nothing to accelerate)
 */
#include <stdlib.h>
#include <string.h>
#include "mc.h"

const char *const mc_coll_names[] = {"allreduce", "reduce", "reduce-scatter", "allgather",
                                     "alltoall", "bcast", NULL};

static int mpi_rc(int rc, const char *what)
{
  return rc == MPI_SUCCESS ? HK_SUCCESS : hk_error_set(HK_ERR_MPI, "%s of the tally failed", what);
}

/* the options of the k-th hk_* call of a step */
static hk_allreduce_opts_t opts(mc_sim_t *m, int k)
{
  return (hk_allreduce_opts_t){.algorithm = m->cfg->alg, .threads = HK_DEFAULT,
                               .min_bytes = HK_DEFAULT, .info = &m->info[k]};
}

/* ---- the MPI collectives of a step on int64 sums: MPI_* or hk_* (k: which info) ---- */

static int allreduce(mc_sim_t *m, const int64_t *in, int64_t *out, int n, int k)
{
  if (!m->cfg->use_hk)
    return mpi_rc(MPI_Allreduce(in, out, n, MPI_INT64_T, MPI_SUM, m->comm), "MPI_Allreduce");
  hk_allreduce_opts_t o = opts(m, k);
  return hk_allreduce(in, out, n, MPI_INT64_T, MPI_SUM, m->comm, &o);
}

static int reduce0(mc_sim_t *m, const int64_t *in, int64_t *out, int n, int k)
{
  if (!m->cfg->use_hk)
    return mpi_rc(MPI_Reduce(in, out, n, MPI_INT64_T, MPI_SUM, 0, m->comm), "MPI_Reduce");
  hk_allreduce_opts_t o = opts(m, k);
  return hk_reduce(in, out, n, MPI_INT64_T, MPI_SUM, 0, m->comm, &o);
}

static int bcast(mc_sim_t *m, int64_t *buf, int n, int root, int k)
{
  if (!m->cfg->use_hk)
    return mpi_rc(MPI_Bcast(buf, n, MPI_INT64_T, root, m->comm), "MPI_Bcast");
  hk_allreduce_opts_t o = opts(m, k);
  return hk_bcast(buf, n, MPI_INT64_T, root, m->comm, &o);
}

static int reduce_scatter(mc_sim_t *m, const int64_t *in, int64_t *out, int n, int k)
{
  if (!m->cfg->use_hk)
    return mpi_rc(MPI_Reduce_scatter_block(in, out, n, MPI_INT64_T, MPI_SUM, m->comm),
                  "MPI_Reduce_scatter_block");
  hk_allreduce_opts_t o = opts(m, k);
  return hk_reduce_scatter_block(in, out, n, MPI_INT64_T, MPI_SUM, m->comm, &o);
}

static int allgather(mc_sim_t *m, const int64_t *in, int64_t *out, int n, int k)
{
  if (!m->cfg->use_hk)
    return mpi_rc(MPI_Allgather(in, n, MPI_INT64_T, out, n, MPI_INT64_T, m->comm),
                  "MPI_Allgather");
  hk_allreduce_opts_t o = opts(m, k);
  return hk_allgather(in, n, MPI_INT64_T, out, n, MPI_INT64_T, m->comm, &o);
}

static int alltoall(mc_sim_t *m, const int64_t *in, int64_t *out, int n, int k)
{
  if (!m->cfg->use_hk)
    return mpi_rc(MPI_Alltoall(in, n, MPI_INT64_T, out, n, MPI_INT64_T, m->comm),
                  "MPI_Alltoall");
  hk_allreduce_opts_t o = opts(m, k);
  return hk_alltoall(in, n, MPI_INT64_T, out, n, MPI_INT64_T, m->comm, &o);
}

/* out[i] = sum over r of in[r * n + i], r = 0..P-1 in rank order (threads over i) */
static void sum_blocks(const mc_sim_t *m, const int64_t *in, int n, int64_t *out)
{
  int p = m->size;
#pragma omp parallel for num_threads(m->threads) schedule(static)
  for (int i = 0; i < n; i++) {
    int64_t s = 0;
    for (int r = 0; r < p; r++)
      s += in[(size_t)r * (size_t)n + (size_t)i];
    out[i] = s;
  }
}

/* ---- the variants: m->local -> m->global ---- */

static int by_allreduce(mc_sim_t *m) { return allreduce(m, m->local, m->global, m->nbins, 0); }

static int by_reduce(mc_sim_t *m)
{
  int err = reduce0(m, m->local, m->global, m->nbins, 0);
  return err == HK_SUCCESS ? bcast(m, m->global, m->nbins, 0, 1) : err;
}

static int by_reduce_scatter(mc_sim_t *m)
{
  memcpy(m->padded, m->local, (size_t)m->nbins * sizeof *m->local); /* the padding stays 0 */
  int err = reduce_scatter(m, m->padded, m->part, m->block, 0);
  return err == HK_SUCCESS ? allgather(m, m->part, m->global, m->block, 1) : err;
}

static int by_allgather(mc_sim_t *m)
{
  int err = allgather(m, m->local, m->gathered, m->nbins, 0);
  if (err == HK_SUCCESS)
    sum_blocks(m, m->gathered, m->nbins, m->global);
  return err;
}

static int by_alltoall(mc_sim_t *m)
{
  memcpy(m->padded, m->local, (size_t)m->nbins * sizeof *m->local);
  int err = alltoall(m, m->padded, m->gathered, m->block, 0);
  if (err != HK_SUCCESS)
    return err;
  sum_blocks(m, m->gathered, m->block, m->part);
  return allgather(m, m->part, m->global, m->block, 1);
}

static int by_bcast(mc_sim_t *m)
{
  int n = m->nbins, err = HK_SUCCESS;
  memset(m->global, 0, (size_t)n * sizeof *m->global);
  for (int r = 0; r < m->size && err == HK_SUCCESS; r++) {
    int64_t *buf = r == m->rank ? m->local : m->gathered; /* the root only reads it */
    err = bcast(m, buf, n, r, 0);
    if (err == HK_SUCCESS) {
#pragma omp parallel for num_threads(m->threads) schedule(static)
      for (int i = 0; i < n; i++)
        m->global[i] += buf[i];
    }
  }
  return err;
}

/* each variant: its MPI calls (for the record), how many of them fill m->info, whether it
 * pads the tally to P blocks (padded: P blocks, part: one block) and what `gathered` holds */
enum { NONE, ONE_TALLY, P_TALLIES, P_BLOCKS };
static const struct {
  const char *calls;
  int ncalls;
  int (*run)(mc_sim_t *m);
  int padded, gathered;
} colls[MC_COLL_COUNT] = {
  [MC_ALLREDUCE] = {"MPI_Allreduce", 1, by_allreduce, 0, NONE},
  [MC_REDUCE] = {"MPI_Reduce+MPI_Bcast", 2, by_reduce, 0, NONE},
  [MC_REDUCE_SCATTER] = {"MPI_Reduce_scatter_block+MPI_Allgather", 2, by_reduce_scatter, 1, NONE},
  [MC_ALLGATHER] = {"MPI_Allgather", 1, by_allgather, 0, P_TALLIES},
  [MC_ALLTOALL] = {"MPI_Alltoall+MPI_Allgather", 2, by_alltoall, 1, P_BLOCKS},
  [MC_BCAST] = {"MPI_Bcast", 1, by_bcast, 0, ONE_TALLY},
};

const char *mc_coll_calls(mc_coll_t c) { return colls[c].calls; }
int mc_coll_ncalls(mc_coll_t c) { return colls[c].ncalls; }

/* elements of each buffer (0: none) */
static void sizes(mc_coll_t c, long long nbins, long long size, long long *global,
                  long long *padded, long long *part, long long *gathered)
{
  long long block = (nbins + size - 1) / size;
  *global = block * size; /* the block-wise allgathers fill P blocks */
  *padded = colls[c].padded ? block * size : 0;
  *part = colls[c].padded || colls[c].gathered == P_BLOCKS ? block : 0;
  *gathered = colls[c].gathered == P_TALLIES ? nbins * size
            : colls[c].gathered == P_BLOCKS ? block * size
            : colls[c].gathered == ONE_TALLY ? nbins : 0;
}

double mc_coll_bytes(const mc_config_t *c, int size)
{
  long long g, pa, pt, ga;
  sizes(c->collective, c->tally_bytes / 8, size, &g, &pa, &pt, &ga);
  return 8.0 * ((double)g + (double)pa + (double)pt + (double)ga);
}

/* n zeroed int64 (n == 0: NULL); *ok = 0 when out of memory */
static int64_t *zeroed(long long n, int *ok)
{
  if (n == 0)
    return NULL;
  int64_t *p = calloc((size_t)n, sizeof *p);
  *ok &= p != NULL;
  return p;
}

int mc_coll_alloc(mc_sim_t *m)
{
  long long g, pa, pt, ga;
  int ok = 1;
  sizes(m->cfg->collective, m->nbins, m->size, &g, &pa, &pt, &ga);
  m->block = (int)((m->nbins + m->size - 1) / m->size);
  m->global = zeroed(g, &ok);
  m->padded = zeroed(pa, &ok);
  m->part = zeroed(pt, &ok);
  m->gathered = zeroed(ga, &ok);
  return ok ? HK_SUCCESS
            : hk_error_set(HK_ERR_NOMEM, "no memory for the buffers of --collective %s",
                           mc_coll_names[m->cfg->collective]);
}

void mc_coll_free(mc_sim_t *m)
{
  free(m->global);
  free(m->padded);
  free(m->part);
  free(m->gathered);
  m->global = m->padded = m->part = m->gathered = NULL;
}

int mc_coll_run(mc_sim_t *m) { return colls[m->cfg->collective].run(m); }
