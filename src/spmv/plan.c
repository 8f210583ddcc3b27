/* src/spmv/plan.c: hk_spmv_create derives everything once: the row blocks of all
 * ranks, the halo columns (remote columns this rank's rows use, ascending), one
 * message per peer in each direction (the receiver tells each owner which of its
 * entries it needs), and the local and halo parts in the chosen format. */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "spmv/spmv_internal.h"

static int cmp_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* index of v in sorted a[0, n), or -1 */
static long long find_ll(const long long *a, long long n, long long v)
{
  long long lo = 0, hi = n;
  while (lo < hi) {
    long long mid = lo + (hi - lo) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && a[lo] == v ? lo : -1;
}

/* the rank whose block holds global row c (blocks contiguous, in rank order) */
static int owner_of(const long long *begin, int nprocs, long long c)
{
  int lo = 0, hi = nprocs - 1;
  while (lo < hi) { /* last rank with begin <= c (empty blocks share a begin: take the last) */
    int mid = (lo + hi + 1) / 2;
    if (begin[mid] <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static int check_rows(const hk_spmv_crs_t *crs)
{
  if (crs->nrows < 0 || crs->row_begin < 0 || crs->row_begin + crs->nrows > crs->nglobal)
    return HK_ERROR(HK_ERR_ARG, "rows [%lld, %lld) outside the matrix of %lld rows", crs->row_begin,
                    crs->row_begin + crs->nrows, crs->nglobal);
  if (crs->nrows > 0 && (!crs->rowptr || crs->rowptr[0] != 0))
    return HK_ERROR(HK_ERR_ARG, "rowptr must start at 0");
  for (int r = 0; r < crs->nrows; r++) {
    if (crs->rowptr[r + 1] < crs->rowptr[r])
      return HK_ERROR(HK_ERR_ARG, "rowptr decreases at row %lld", crs->row_begin + r);
    for (long long e = crs->rowptr[r]; e < crs->rowptr[r + 1]; e++) {
      long long c = crs->col[e];
      if (c < 0 || c >= crs->nglobal)
        return HK_ERROR(HK_ERR_ARG, "row %lld: column %lld outside [0, %lld)", crs->row_begin + r,
                        c, crs->nglobal);
      if (e > crs->rowptr[r] && c <= crs->col[e - 1])
        return HK_ERROR(HK_ERR_ARG, "row %lld: columns not ascending and unique (%lld after %lld)",
                        crs->row_begin + r, c, crs->col[e - 1]);
    }
  }
  return HK_SUCCESS;
}

/* the checks every rank makes on its own desc and rows (agreed by the caller) */
static int check_desc(const hk_spmv_desc_t *desc, int rank)
{
  const hk_spmv_crs_t *crs = desc->crs;
  int err = HK_SUCCESS;
  if ((int)desc->mode < 0 || desc->mode >= HK_MODE_COUNT)
    return HK_ERROR(HK_ERR_ARG, "invalid mode %d", (int)desc->mode);
  if ((int)desc->format < 0 || desc->format >= HK_SPMV_FORMAT_COUNT)
    return HK_ERROR(HK_ERR_ARG, "invalid format %d", (int)desc->format);
  if (desc->chunk < 0 || desc->sigma < 0)
    return HK_ERROR(HK_ERR_ARG, "SELL chunk and sigma must be >= 0");
  HK_TRY(err, hk_require_thread_level(hk_mode_thread_level(desc->mode), hk_mode_name(desc->mode)));
  HK_TRY(err, check_rows(crs));
  if (crs->nglobal >= INT_MAX / 2)
    return HK_ERROR(HK_ERR_ARG, "%lld rows: at most %d", crs->nglobal, INT_MAX / 2 - 1);
  const long long nnz = crs->nrows > 0 ? crs->rowptr[crs->nrows] : 0;
  if (nnz >= INT_MAX)
    return HK_ERROR(HK_ERR_ARG, "%lld entries on rank %d: at most %d", nnz, rank, INT_MAX - 1);
cleanup:
  return err;
}

/* begin[r] = the first row of rank r (begin[nprocs] = nglobal) from meta = {nglobal,
 * row_begin, nrows} of every rank; HK_ERR_ARG unless the blocks are contiguous in rank
 * order and of the same matrix */
static int check_blocks(const long long *meta, const hk_spmv_crs_t *crs, int nprocs, int rank,
                        long long *begin)
{
  long long next = 0;
  for (int r = 0; r < nprocs; r++) {
    if (meta[3 * r] != crs->nglobal)
      return HK_ERROR(HK_ERR_ARG, "rank %d has a matrix of %lld rows, rank %d of %lld", r,
                      meta[3 * r], rank, crs->nglobal);
    if (meta[3 * r + 1] != next)
      return HK_ERROR(HK_ERR_ARG, "rank %d's rows start at %lld; the blocks must be contiguous in "
                      "rank order (expected %lld)", r, meta[3 * r + 1], next);
    begin[r] = meta[3 * r + 1];
    next = meta[3 * r + 1] + meta[3 * r + 2];
  }
  if (next != crs->nglobal)
    return HK_ERROR(HK_ERR_ARG, "the row blocks cover %lld of the %lld rows", next, crs->nglobal);
  begin[nprocs] = next;
  return HK_SUCCESS;
}

/* the fields of s known from desc before planning (s->comm: MPI_COMM_NULL) */
static int init_spmv(hk_spmv_t *s, const hk_spmv_desc_t *desc, int rank, int nprocs)
{
  const hk_spmv_crs_t *crs = desc->crs;
  s->comm = MPI_COMM_NULL;
  s->desc = *desc;
  s->desc.crs = NULL;
  s->rank = rank;
  s->nprocs = nprocs;
  s->nglobal = crs->nglobal;
  s->row_begin = crs->row_begin;
  s->nrows = crs->nrows;
  s->nthreads = (desc->mode == HK_MODE_PURE || desc->mode == HK_MODE_PURE_NB) ? 1 : omp_get_max_threads();
  s->reserved = desc->mode == HK_MODE_MULTIPLE_RESERVED && desc->reserved > 0 ? desc->reserved : 1;
  return HK_SUCCESS;
}

/* remote[0, *nh): the remote columns of crs, ascending, unique; rcnt[r]: how many rank r owns */
static int halo_columns(const hk_spmv_crs_t *crs, const long long *begin, int nprocs,
                        long long *remote, long long *nh, int *rcnt)
{
  const long long lo = crs->row_begin, hi = crs->row_begin + crs->nrows;
  const long long nnz = crs->nrows > 0 ? crs->rowptr[crs->nrows] : 0;
  long long nremote = 0, n = 0;
  for (long long e = 0; e < nnz; e++)
    if (crs->col[e] < lo || crs->col[e] >= hi)
      remote[nremote++] = crs->col[e];
  qsort(remote, (size_t)nremote, sizeof *remote, cmp_ll);
  for (long long k = 0; k < nremote; k++)
    if (k == 0 || remote[k] != remote[k - 1])
      remote[n++] = remote[k];
  /* peers in rank order (ascending columns are grouped by owner) */
  for (long long k = 0; k < n; k++)
    rcnt[owner_of(begin, nprocs, remote[k])]++;
  *nh = n;
  return HK_SUCCESS;
}

/* one message per peer in each direction from the counts; *stotal: entries sent */
static int plan_peers(hk_spmv_t *s, const int *rcnt, const int *scnt, long long *stotal)
{
  int err = HK_SUCCESS;
  for (int r = 0; r < s->nprocs; r++) {
    s->nrecv += rcnt[r] > 0;
    s->nsend += scnt[r] > 0;
  }
  HK_ALLOC_TRY(err, s->recv_peer, s->nrecv);
  HK_ALLOC_TRY(err, s->recv_off, s->nrecv);
  HK_ALLOC_TRY(err, s->recv_cnt, s->nrecv);
  HK_ALLOC_TRY(err, s->send_peer, s->nsend);
  HK_ALLOC_TRY(err, s->send_off, s->nsend);
  HK_ALLOC_TRY(err, s->send_cnt, s->nsend);
  HK_ALLOC_TRY(err, s->sreq, s->nsend);
  HK_ALLOC_TRY(err, s->rreq, s->nrecv);
  *stotal = 0;
  for (int r = 0, i = 0, o = 0; r < s->nprocs; r++)
    if (rcnt[r] > 0) {
      s->recv_peer[i] = r;
      s->recv_off[i] = o;
      s->recv_cnt[i++] = rcnt[r];
      o += rcnt[r];
    }
  for (int r = 0, i = 0; r < s->nprocs; r++)
    if (scnt[r] > 0) {
      s->send_peer[i] = r;
      s->send_off[i] = (int)*stotal;
      s->send_cnt[i++] = scnt[r];
      *stotal += scnt[r];
    }
  for (int i = 0; i < s->nsend; i++)
    s->sreq[i] = MPI_REQUEST_NULL;
  for (int i = 0; i < s->nrecv; i++)
    s->rreq[i] = MPI_REQUEST_NULL;
cleanup:
  return err;
}

/* each owner learns which of its entries a peer needs (global indices into want, then
 * s->send_idx local ones).  Collective: the peers (every rank posts all its messages). */
static int exchange_wants(hk_spmv_t *s, const long long *remote, long long *want, long long stotal,
                          MPI_Request *req)
{
  int err = HK_SUCCESS;
  for (int i = 0; i < s->nsend; i++)
    HK_MPI_TRY(err, MPI_Irecv(want + s->send_off[i], s->send_cnt[i], MPI_LONG_LONG, s->send_peer[i],
                              1, s->comm, &req[i]));
  for (int i = 0; i < s->nrecv; i++)
    HK_MPI_TRY(err, MPI_Isend(remote + s->recv_off[i], s->recv_cnt[i], MPI_LONG_LONG,
                              s->recv_peer[i], 1, s->comm, &req[s->nsend + i]));
  HK_MPI_TRY(err, MPI_Waitall(s->nsend + s->nrecv, req, MPI_STATUSES_IGNORE));
  for (long long k = 0; k < stotal; k++)
    s->send_idx[k] = (int)(want[k] - s->row_begin);
cleanup:
  return err;
}

/* the local and halo parts over the extended x (halo column k is n + k), each row's
 * entries in ascending columns, stored in the desc's format; the per-thread times */
static int build_parts(hk_spmv_t *s, const hk_spmv_desc_t *desc, const long long *remote,
                       long long nh)
{
  const hk_spmv_crs_t *crs = desc->crs;
  const long long lo = crs->row_begin, hi = crs->row_begin + crs->nrows;
  const long long nnz = crs->nrows > 0 ? crs->rowptr[crs->nrows] : 0;
  const int n = crs->nrows;
  int err = HK_SUCCESS, *lrow = NULL, *lcol = NULL, *hrow = NULL, *hcol = NULL;
  double *lval = NULL, *hval = NULL;
  HK_ALLOC_TRY(err, lrow, n + 1);
  HK_ALLOC_TRY(err, hrow, n + 1);
  HK_ALLOC_TRY(err, lcol, nnz);
  HK_ALLOC_TRY(err, hcol, nnz);
  HK_ALLOC_TRY(err, lval, nnz);
  HK_ALLOC_TRY(err, hval, nnz);
  for (int r = 0; r < n; r++) {
    lrow[r + 1] = lrow[r];
    hrow[r + 1] = hrow[r];
    for (long long e = crs->rowptr[r]; e < crs->rowptr[r + 1]; e++) {
      long long c = crs->col[e];
      if (c >= lo && c < hi) {
        lcol[lrow[r + 1]] = (int)(c - lo);
        lval[lrow[r + 1]++] = crs->val[e];
      } else {
        hcol[hrow[r + 1]] = n + (int)find_ll(remote, nh, c);
        hval[hrow[r + 1]++] = crs->val[e];
      }
    }
  }
  HK_TRY(err, hk__spmv_part_build(&s->local, desc->format, n, lrow, lcol, lval, desc->chunk,
                                  desc->sigma));
  HK_TRY(err, hk__spmv_part_build(&s->halo, desc->format, n, hrow, hcol, hval, desc->chunk,
                                  desc->sigma));
cleanup:
  free(lrow);
  free(lcol);
  free(hrow);
  free(hcol);
  free(lval);
  free(hval);
  return err;
}

/* Collective steps, each preceded by an agreement on the local steps before it:
 * checks | Allgather of the row blocks | Comm_dup | Alltoall of the counts |
 * exchange of the wanted entries | build (agreed at the end). */
int hk_spmv_create(const hk_spmv_desc_t *desc, hk_spmv_t **spmv)
{
  int err = HK_SUCCESS, nprocs = 0, rank = 0, *scnt = NULL, *rcnt = NULL;
  hk_spmv_t *s = NULL;
  long long *meta = NULL, *begin = NULL, *remote = NULL, *want = NULL, nh = 0, stotal = 0;
  MPI_Request *req = NULL;
  if (!desc || !spmv || !desc->crs)
    return HK_ERROR(HK_ERR_ARG, "desc, its crs and spmv must not be NULL");
  *spmv = NULL;
  const hk_spmv_crs_t *crs = desc->crs;
  HK_MPI_TRY(err, MPI_Comm_size(desc->comm, &nprocs));
  HK_MPI_TRY(err, MPI_Comm_rank(desc->comm, &rank));
  HK_LOCAL(err, check_desc(desc, rank));
  HK_ALLOC_LOCAL(err, meta, 3LL * nprocs);
  HK_ALLOC_LOCAL(err, begin, nprocs + 1);
  HK_AGREE(err, desc->comm);

  long long mine[3] = {crs->nglobal, crs->row_begin, crs->nrows};
  HK_MPI_TRY(err, MPI_Allgather(mine, 3, MPI_LONG_LONG, meta, 3, MPI_LONG_LONG, desc->comm));
  HK_LOCAL(err, check_blocks(meta, crs, nprocs, rank, begin));
  HK_ALLOC_LOCAL(err, s, 1);
  HK_LOCAL(err, init_spmv(s, desc, rank, nprocs));
  HK_AGREE(err, desc->comm);
  HK_MPI_TRY(err, MPI_Comm_dup(desc->comm, &s->comm));

  HK_ALLOC_LOCAL(err, remote, crs->nrows > 0 ? crs->rowptr[crs->nrows] : 0);
  HK_ALLOC_LOCAL(err, rcnt, nprocs);
  HK_ALLOC_LOCAL(err, scnt, nprocs);
  HK_LOCAL(err, halo_columns(crs, begin, nprocs, remote, &nh, rcnt));
  HK_AGREE(err, desc->comm);
  s->nhalo = (int)nh;
  HK_MPI_TRY(err, MPI_Alltoall(rcnt, 1, MPI_INT, scnt, 1, MPI_INT, s->comm));

  HK_LOCAL(err, plan_peers(s, rcnt, scnt, &stotal));
  HK_ALLOC_LOCAL(err, want, stotal);
  HK_ALLOC_LOCAL(err, s->send_idx, stotal);
  HK_ALLOC_LOCAL(err, s->sendbuf, stotal);
  HK_ALLOC_LOCAL(err, req, s->nsend + s->nrecv);
  HK_AGREE(err, desc->comm);
  HK_LOCAL(err, exchange_wants(s, remote, want, stotal, req));

  HK_LOCAL(err, build_parts(s, desc, remote, nh));
  HK_AGREE(err, desc->comm);
  *spmv = s;
  s = NULL;
cleanup:
  if (s)
    hk_spmv_destroy(&s);
  free(meta);
  free(begin);
  free(remote);
  free(want);
  free(scnt);
  free(rcnt);
  free(req);
  return err;
}

int hk_spmv_destroy(hk_spmv_t **spmv)
{
  if (!spmv || !*spmv)
    return HK_SUCCESS;
  hk_spmv_t *s = *spmv;
  hk__spmv_part_free(&s->local);
  hk__spmv_part_free(&s->halo);
  free(s->send_peer);
  free(s->recv_peer);
  free(s->send_off);
  free(s->send_cnt);
  free(s->recv_off);
  free(s->recv_cnt);
  free(s->send_idx);
  free(s->sendbuf);
  free(s->sreq);
  free(s->rreq);
  if (s->comm != MPI_COMM_NULL)
    MPI_Comm_free(&s->comm);
  free(s);
  *spmv = NULL;
  return HK_SUCCESS;
}

int hk_spmv_info(const hk_spmv_t *s, hk_spmv_info_t *info)
{
  if (!s || !info)
    return HK_ERROR(HK_ERR_ARG, "spmv and info must not be NULL");
  memset(info, 0, sizeof *info);
  info->nglobal = s->nglobal;
  info->row_begin = s->row_begin;
  info->nrows = s->nrows;
  info->nhalo = s->nhalo;
  info->nnz_local = s->local.nnz;
  info->nnz_halo = s->halo.nnz;
  info->stored = s->local.stored + s->halo.stored;
  info->npeers_send = s->nsend;
  info->npeers_recv = s->nrecv;
  for (int i = 0; i < s->nsend; i++)
    info->send_count += s->send_cnt[i];
  for (int i = 0; i < s->nrecv; i++)
    info->recv_count += s->recv_cnt[i];
  /* traffic model of one multiply: both parts' arrays; x read once (local entries)
   * and the halo written by MPI and read; packing reads the sent entries and writes
   * the buffer; y written by the local part (write-allocate: read + write) and read
   * and written again by the halo part in the rows it has entries of (CRS; the other
   * formats' model counts every row) */
  double bytes = hk__spmv_part_bytes(&s->local) + hk__spmv_part_bytes(&s->halo);
  bytes += 8.0 * s->nrows + 16.0 * s->nhalo + 16.0 * (double)info->send_count;
  long long hrows = s->halo.nnz == 0 ? 0 : s->halo.format == HK_SPMV_CRS && s->halo.crow
                                            ? s->halo.ncrow : s->nrows;
  bytes += 16.0 * s->nrows + 16.0 * (double)hrows;
  long long nnz = info->nnz_local + info->nnz_halo;
  info->bytes_per_nnz = nnz > 0 ? bytes / (double)nnz : 0.0;
  /* the format's least traffic (STREAM's counting: see spmv.h) */
  const hk_spmv_format_t f = s->local.format;
  double least = 12.0 * (double)info->stored + 8.0 * (2.0 * s->nrows + s->nhalo);
  least += 4.0 * s->nrows + (f == HK_SPMV_CRS ? 4.0 : 0.0);
  if (f == HK_SPMV_SELL)
    least += 12.0 * (double)(s->local.nchunks + s->halo.nchunks);
  if (f == HK_SPMV_JDS)
    least += 16.0 * (double)nnz;
  info->min_bytes_per_nnz = nnz > 0 ? least / (double)nnz : 0.0;
  info->nthreads = s->nthreads;
  return HK_SUCCESS;
}

int hk_spmv_plan_counts(const hk_spmv_t *s, int *send_counts, int *recv_counts)
{
  if (!s || !send_counts || !recv_counts)
    return HK_ERROR(HK_ERR_ARG, "arguments must not be NULL");
  for (int r = 0; r < s->nprocs; r++)
    send_counts[r] = recv_counts[r] = 0;
  for (int i = 0; i < s->nsend; i++)
    send_counts[s->send_peer[i]] = s->send_cnt[i];
  for (int i = 0; i < s->nrecv; i++)
    recv_counts[s->recv_peer[i]] = s->recv_cnt[i];
  return HK_SUCCESS;
}

int hk_spmv_stats(const hk_spmv_t *s, hk_spmv_stats_t *stats)
{
  if (!s || !stats)
    return HK_ERROR(HK_ERR_ARG, "spmv and stats must not be NULL");
  *stats = s->stats;
  return HK_SUCCESS;
}

void hk_spmv_stats_reset(hk_spmv_t *s)
{
  if (s)
    memset(&s->stats, 0, sizeof s->stats);
}
