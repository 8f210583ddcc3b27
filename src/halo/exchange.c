/* src/halo/exchange.c: the halo's operations for the mode engine (src/modes): pack and
 * unpack of rows of the message boxes, post and wait (for any subset of the messages, so
 * several threads can share them), box splitting for static and dynamic work
 * distribution, and the statistics. */
#include <omp.h>
#include <string.h>
#include "halo/halo_internal.h"

/* Copy a run of cells.  Runs of x-faces are w cells long (mostly one or two): a
 * call to memcpy per run would cost more than the copy, so runs of up to four
 * cells are plain assignments (the compiler would turn a loop back into memcpy). */
static inline void copy_run(double *restrict dst, const double *restrict src, int len)
{
  switch (len) {
  case 4: dst[3] = src[3]; /* fall through */
  case 3: dst[2] = src[2]; /* fall through */
  case 2: dst[1] = src[1]; /* fall through */
  case 1: dst[0] = src[0]; break;
  default: memcpy(dst, src, (size_t)len * sizeof(double));
  }
}

/* Short runs (x-faces) are one or two cells a row stride apart, a cache line
 * each: fetched HK_PREFETCH_RUNS runs ahead, as the hardware prefetchers do not
 * follow strides that long fast enough */
#ifndef HK_PREFETCH_RUNS
#define HK_PREFETCH_RUNS 32
#endif
#define PREFETCH_RUN(row, base, c, write)                                                          \
  do {                                                                                             \
    if ((row)->len <= HK_SHORT_RUN && (c) + HK_PREFETCH_RUNS < (row)->count)                       \
      __builtin_prefetch((base) + ((c) + HK_PREFETCH_RUNS) * (row)->stride, write);                \
  } while (0)

/* Packing a row of a self message copies it into the ghost cells directly (the
 * pack phase only reads owned cells and a self message's ghosts are written by
 * its rows alone, so this is safe in every mode and thread split); its receive
 * rows then have nothing to unpack.  The field is not const for that reason. */
void hk__halo_pack_rows(const hk_halo_t *h, double *field, int first, int last)
{
  for (int r = first; r < last; r++) {
    const hk_row_t *row = &h->send_rows[r];
    if (row->self) {
      for (int c = 0; c < row->count; c++) {
        PREFETCH_RUN(row, field + row->at, c, 0);
        PREFETCH_RUN(row, field + row->self_at, c, 1);
        copy_run(field + row->self_at + c * row->stride, field + row->at + c * row->stride,
                 row->len);
      }
      continue;
    }
    double *buf = row->buf;
    for (int c = 0; c < row->count; c++, buf += row->len) {
      PREFETCH_RUN(row, field + row->at, c, 0);
      copy_run(buf, field + row->at + c * row->stride, row->len);
    }
  }
}

void hk__halo_unpack_rows(const hk_halo_t *h, double *field, int first, int last)
{
  for (int r = first; r < last; r++) {
    const hk_row_t *row = &h->recv_rows[r];
    if (row->self)
      continue; /* a self message: filled when packed */
    const double *buf = row->buf;
    for (int c = 0; c < row->count; c++, buf += row->len)
      copy_run(field + row->at + c * row->stride, buf, row->len);
  }
}

int hk__halo_post(hk_halo_t *h, int first, int stride)
{
  int err = HK_SUCCESS;
  for (int i = first; i < h->nmsg; i += stride) {
    hk_msg_t *m = &h->recv[i];
    if (m->kind == HK_PEER_SELF)
      continue;
    int back[3] = {-m->offset[0], -m->offset[1], -m->offset[2]};
    HK_MPI_TRY(err, MPI_Irecv(m->buf, (int)m->count, MPI_DOUBLE, m->peer, hk__offset_index(back), h->comm,
                              &h->rreq[i]));
  }
  for (int i = first; i < h->nmsg; i += stride) {
    hk_msg_t *m = &h->send[i];
    if (m->kind == HK_PEER_SELF)
      continue;
    HK_MPI_TRY(err, MPI_Isend(m->buf, (int)m->count, MPI_DOUBLE, m->peer, hk__offset_index(m->offset),
                              h->comm, &h->sreq[i]));
  }
cleanup:
  return err;
}

int hk__halo_wait(hk_halo_t *h, int first, int stride)
{
  int err = HK_SUCCESS;
  if (first == 0 && stride == 1) {
    HK_MPI_TRY(err, MPI_Waitall(h->nmsg, h->rreq, MPI_STATUSES_IGNORE));
    HK_MPI_TRY(err, MPI_Waitall(h->nmsg, h->sreq, MPI_STATUSES_IGNORE));
  } else {
    for (int i = first; i < h->nmsg; i += stride)
      HK_MPI_TRY(err, MPI_Wait(&h->rreq[i], MPI_STATUS_IGNORE));
    for (int i = first; i < h->nmsg; i += stride)
      HK_MPI_TRY(err, MPI_Wait(&h->sreq[i], MPI_STATUS_IGNORE));
  }
cleanup:
  return err;
}

int hk__box_empty(const hk_box_t *b)
{
  return b->hi[0] <= b->lo[0] || b->hi[1] <= b->lo[1] || b->hi[2] <= b->lo[2];
}

void hk__box_split(const hk_box_t *box, int parts, int part, hk_box_t *out)
{
  *out = *box;
  if (parts <= 1 || hk__box_empty(box))
    return;
  /* the outermost dimension long enough for every part to get a cell, else the longest */
  int d = -1;
  for (int k = 2; k >= 0 && d < 0; k--)
    if (box->hi[k] - box->lo[k] >= parts)
      d = k;
  if (d < 0) {
    d = 2;
    for (int k = 1; k >= 0; k--)
      if (box->hi[k] - box->lo[k] > box->hi[d] - box->lo[d])
        d = k;
  }
  int len = box->hi[d] - box->lo[d], chunk = len / parts, rem = len % parts;
  out->lo[d] = box->lo[d] + part * chunk + (part < rem ? part : rem);
  out->hi[d] = out->lo[d] + chunk + (part < rem);
}

void hk__update_boxes(const hk_halo_work_t *work, const hk_box_t *boxes, int nboxes, int parts,
                      int part)
{
  for (int b = 0; b < nboxes; b++) {
    hk_box_t mine;
    hk__box_split(&boxes[b], parts, part, &mine);
    if (!hk__box_empty(&mine))
      work->update(&mine, work->arg);
  }
}

void hk__halo_account(hk_halo_t *h, const hk_mode_times_t *t)
{
  hk_halo_stats_t *s = &h->stats;
  s->exchanges++;
  s->pack += t->pack;
  s->post += t->post;
  s->wait += t->wait;
  s->unpack += t->unpack;
  s->comm += t->comm;
  s->interior += t->local_overlap;
  s->boundary += t->boundary;
  s->update += t->whole;
}
