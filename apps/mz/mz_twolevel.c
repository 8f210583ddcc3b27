/* apps/mz/mz_twolevel.c: hk-mz --second-level mpi: zones split in j over the sub-ranks of
 * a group (see mz_twolevel.h for the scheme and why the numerics stay bit-identical). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mz_twolevel.h"

struct mz_twolevel {
  MPI_Comm comm; /* the group */
  int nsub, me, err;
  mz_adi_part_t *part; /* per local zone */
  double *sbuf, *rbuf;
  int *scnt, *sdsp, *rcnt, *rdsp;
};

/* rows k in [k0, k1), j in [j0, j1) of a zone array of 5-vectors */
typedef struct blk {
  int k0, k1, j0, j1;
} blk_t;

/* block s of the interior 1..n-2 split over nsub */
static void block(int n, int nsub, int s, int *lo, int *hi)
{
  const long long in = n - 2;
  *lo = 1 + (int)(in * s / nsub);
  *hi = 1 + (int)(in * (s + 1) / nsub);
}

int mz_twolevel_comms(mz_run_t *r)
{
  MPI_Comm_rank(MPI_COMM_WORLD, &r->world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r->world_size);
  r->rank = r->world_rank;
  r->nprocs = r->world_size;
  r->nsub = 1;
  r->comm1 = MPI_COMM_WORLD;
  r->comm2 = MPI_COMM_NULL;
  if (!r->cfg->second_mpi)
    return HK_SUCCESS;
  const int n2 = r->cfg->sub_ranks;
  if (r->world_size % n2 != 0)
    return hk_error_set(HK_ERR_ARG, "--sub-ranks %d must divide the %d processes", n2,
                        r->world_size);
  r->nsub = n2;
  r->sub = r->world_rank % n2;
  r->rank = r->world_rank / n2;
  r->nprocs = r->world_size / n2;
  if (MPI_Comm_split(MPI_COMM_WORLD, r->rank, r->sub, &r->comm2) != MPI_SUCCESS ||
      MPI_Comm_split(MPI_COMM_WORLD, r->sub, r->rank, &r->comm1) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Comm_split into groups of %d failed", n2);
  return HK_SUCCESS;
}

int mz_twolevel_check(const mz_run_t *r)
{
  if (r->nsub == 1)
    return HK_SUCCESS;
  for (int zone = 0; zone < r->zones.nzones; zone++) {
    const mz_zone_t *q = &r->zones.zone[zone];
    if (q->ny - 2 < r->nsub || q->nz - 2 < r->nsub)
      return hk_error_set(HK_ERR_ARG,
                          "--second-level mpi: zone %d (%dx%dx%d) has %d interior j lines and "
                          "%d k planes, fewer than the %d sub-ranks of a group (--sub-ranks)",
                          zone, q->nx, q->ny, q->nz, q->ny - 2, q->nz - 2, r->nsub);
  }
  return HK_SUCCESS;
}

/* move the rows snd[s] of arr to sub-rank s and store rcv[s] from it (s != me) */
static int move_rows(struct mz_twolevel *t, mz_adi_zone_t *z, double *arr, const blk_t *snd,
                     const blk_t *rcv)
{
  const size_t row = (size_t)5 * z->nx;
  size_t at[2] = {0, 0};
  for (int s = 0; s < t->nsub; s++) {
    const blk_t *b[2] = {&snd[s], &rcv[s]};
    int *cnt[2] = {t->scnt, t->rcnt}, *dsp[2] = {t->sdsp, t->rdsp};
    for (int w = 0; w < 2; w++) {
      size_t n = s == t->me ? 0 : (size_t)(b[w]->k1 - b[w]->k0) * (b[w]->j1 - b[w]->j0) * row;
      cnt[w][s] = (int)n;
      dsp[w][s] = (int)at[w];
      if (w == 0)
        for (int k = b[0]->k0; n && k < b[0]->k1; k++)
          for (int j = b[0]->j0; j < b[0]->j1; j++, at[0] += row)
            memcpy(t->sbuf + at[0], arr + ((size_t)k * z->ny + j) * row, row * sizeof(double));
      else
        at[1] += n;
    }
  }
  if (MPI_Alltoallv(t->sbuf, t->scnt, t->sdsp, MPI_DOUBLE, t->rbuf, t->rcnt, t->rdsp,
                    MPI_DOUBLE, t->comm) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Alltoallv of a zone's rows failed");
  at[1] = 0;
  for (int s = 0; s < t->nsub; s++)
    for (int k = rcv[s].k0; s != t->me && k < rcv[s].k1; k++)
      for (int j = rcv[s].j0; j < rcv[s].j1; j++, at[1] += row)
        memcpy(arr + ((size_t)k * z->ny + j) * row, t->rbuf + at[1], row * sizeof(double));
  return HK_SUCCESS;
}

/* the parts of every sub-rank for zone z */
static void parts_of(const struct mz_twolevel *t, const mz_adi_zone_t *z, blk_t *rows,
                     blk_t *planes)
{
  for (int s = 0; s < t->nsub; s++) {
    int j0, j1, k0, k1;
    block(z->ny, t->nsub, s, &j0, &j1);
    block(z->nz, t->nsub, s, &k0, &k1);
    rows[s] = (blk_t){1, z->nz - 1, j0, j1};  /* my rows j, every interior plane */
    planes[s] = (blk_t){k0, k1, j0, j1};      /* used with the k range of one, j of another */
  }
}

/* between the sweeps: phase 0 rows -> planes, phase 1 planes -> rows (of rhs) */
static void between(mz_adi_zone_t *z, int phase)
{
  struct mz_twolevel *t = z->part->arg;
  if (t->err)
    return;
  blk_t rows[t->nsub], pl[t->nsub], snd[t->nsub], rcv[t->nsub];
  parts_of(t, z, rows, pl);
  const blk_t *me = &pl[t->me];
  for (int s = 0; s < t->nsub; s++) {
    const blk_t mine_to_s = {pl[s].k0, pl[s].k1, me->j0, me->j1};  /* s's planes, my rows */
    const blk_t s_to_mine = {me->k0, me->k1, pl[s].j0, pl[s].j1};  /* my planes, s's rows */
    snd[s] = phase == 0 ? mine_to_s : s_to_mine;
    rcv[s] = phase == 0 ? s_to_mine : mine_to_s;
  }
  t->err = move_rows(t, z, z->rhs, snd, rcv);
}

int mz_twolevel_setup(mz_run_t *r)
{
  if (r->nsub == 1)
    return HK_SUCCESS;
  struct mz_twolevel *t = calloc(1, sizeof *t);
  if (!t)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the second level");
  r->tl = t;
  t->comm = r->comm2;
  t->nsub = r->nsub;
  t->me = r->sub;
  size_t most = 0;
  for (int i = 0; i < r->nlocal; i++) {
    const mz_adi_zone_t *z = &r->zone[i];
    size_t n = (size_t)5 * z->nx * z->ny * z->nz;
    most = n > most ? n : most;
  }
  if (most > INT_MAX)
    return hk_error_set(HK_ERR_UNSUPPORTED, "--second-level mpi: a zone of %zu values is too "
                        "large for MPI_Alltoallv's int counts", most);
  t->part = calloc((size_t)(r->nlocal > 0 ? r->nlocal : 1), sizeof *t->part);
  t->sbuf = malloc((most ? most : 1) * sizeof(double));
  t->rbuf = malloc((most ? most : 1) * sizeof(double));
  int *ints = calloc(4 * (size_t)(t->nsub > 0 ? t->nsub : 1), sizeof *ints);
  if (!t->part || !t->sbuf || !t->rbuf || !ints) {
    free(ints);
    return hk_error_set(HK_ERR_NOMEM, "no memory for the second level's buffers");
  }
  t->scnt = ints;
  t->sdsp = ints + t->nsub;
  t->rcnt = ints + 2 * t->nsub;
  t->rdsp = ints + 3 * t->nsub;
  for (int i = 0; i < r->nlocal; i++) {
    mz_adi_zone_t *z = &r->zone[i];
    mz_adi_part_t *p = &t->part[i];
    block(z->ny, t->nsub, t->me, &p->jlo, &p->jhi);
    block(z->nz, t->nsub, t->me, &p->klo, &p->khi);
    p->between = between;
    p->arg = t;
    z->part = p;
  }
  return HK_SUCCESS;
}

int mz_twolevel_gather(mz_run_t *r)
{
  struct mz_twolevel *t = r->tl;
  if (!t)
    return HK_SUCCESS;
  for (int i = 0; i < r->nlocal && !t->err; i++) {
    mz_adi_zone_t *z = &r->zone[i];
    blk_t rows[t->nsub], pl[t->nsub], snd[t->nsub];
    parts_of(t, z, rows, pl);
    for (int s = 0; s < t->nsub; s++)
      snd[s] = rows[t->me]; /* my rows to everyone */
    t->err = move_rows(t, z, z->u, snd, rows);
  }
  int err = t->err;
  t->err = HK_SUCCESS;
  return err;
}

void mz_twolevel_detach(mz_run_t *r)
{
  for (int i = 0; r->tl && i < r->nlocal; i++)
    r->zone[i].part = NULL;
}

void mz_twolevel_free(mz_run_t *r)
{
  struct mz_twolevel *t = r->tl;
  mz_twolevel_detach(r);
  if (t) {
    free(t->part);
    free(t->sbuf);
    free(t->rbuf);
    free(t->scnt);
    free(t);
    r->tl = NULL;
  }
  if (r->comm2 != MPI_COMM_NULL)
    MPI_Comm_free(&r->comm2);
  if (r->comm1 != MPI_COMM_WORLD && r->comm1 != MPI_COMM_NULL)
    MPI_Comm_free(&r->comm1);
}
