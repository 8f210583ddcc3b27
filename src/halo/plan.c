/* src/halo/plan.c: building the halo plan once (neighbour table, message boxes,
 * row tables, buffers, requests) and freeing it; the fields, regions and
 * statistics a plan gives are in field.c.
 *
 *   message boxes along one dimension (n owned cells, width w):
 *     offset -1: send [0, w)      receive ghosts [-w, 0)
 *     offset  0: send [0, n)      receive [0, n)        (edges/corners: other dims)
 *     offset +1: send [n-w, n)    receive ghosts [n, n+w)
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "halo/halo_internal.h"
#include "internal/hk_ckd.h"

static void side_range(int d, int n, int w, int send, int *lo, int *hi)
{
  if (d < 0) {
    *lo = send ? 0 : -w;
    *hi = send ? w : 0;
  } else if (d > 0) {
    *lo = send ? n - w : n;
    *hi = send ? n : n + w;
  } else {
    *lo = 0;
    *hi = n;
  }
}

static int build_rows(hk_msg_t *msgs, int nmsg, const hk_field_layout_t *L, hk_row_t **rows,
                      int *nrows)
{
  int err = HK_SUCCESS, total = 0, r = 0;
  hk_row_t *t = NULL;
  for (int i = 0; i < nmsg; i++) {
    int ny = msgs[i].box.hi[1] - msgs[i].box.lo[1], nz = msgs[i].box.hi[2] - msgs[i].box.lo[2];
    long long n = msgs[i].box.hi[0] - msgs[i].box.lo[0] <= HK_SHORT_RUN ? nz : (long long)ny * nz;
    if (n > INT_MAX - total)
      return HK_ERROR(HK_ERR_NOMEM, "the halo's row table needs more than %d rows", INT_MAX);
    total += (int)n;
  }
  HK_ALLOC_TRY(err, t, total);
  for (int i = 0; i < nmsg; i++) {
    hk_msg_t *m = &msgs[i];
    int len = m->box.hi[0] - m->box.lo[0], ny = m->box.hi[1] - m->box.lo[1];
    int per_plane = len <= HK_SHORT_RUN; /* one row covers all y-lines of a plane */
    double *b = m->buf;
    m->row_begin = r;
    for (int k = m->box.lo[2]; k < m->box.hi[2]; k++)
      for (int j = m->box.lo[1]; j < m->box.hi[1]; j += per_plane ? ny : 1) {
        t[r].msg = i;
        t[r].at = L->offset + m->box.lo[0] + j * L->sy + k * L->sz;
        t[r].stride = L->sy;
        t[r].len = len;
        t[r].count = per_plane ? ny : 1;
        t[r].buf = b;
        t[r].self = m->kind == HK_PEER_SELF;
        t[r].self_at = -1;
        b += (size_t)len * (size_t)t[r].count;
        r++;
      }
    m->row_end = r;
  }
  *rows = t;
  *nrows = total;
cleanup:
  return err;
}

void hk__free_plan(hk_halo_t *h);

/* the send rows of a self message write the ghost runs of the matching receive */
static int pair_self_rows(hk_halo_t *h)
{
  for (int i = 0; i < h->nmsg; i++) {
    const hk_msg_t *mr = &h->recv[i];
    if (mr->kind != HK_PEER_SELF)
      continue;
    int j = 0;
    while (j < h->nmsg && h->send[j].buf != mr->buf)
      j++;
    const hk_msg_t *ms = &h->send[j];
    if (j == h->nmsg || ms->row_end - ms->row_begin != mr->row_end - mr->row_begin)
      return HK_ERROR(HK_ERR_STATE, "self message %d has no matching send rows", i);
    for (int r = 0; r < mr->row_end - mr->row_begin; r++) {
      hk_row_t *sr = &h->send_rows[ms->row_begin + r];
      const hk_row_t *rr = &h->recv_rows[mr->row_begin + r];
      if (sr->len != rr->len || sr->count != rr->count || sr->stride != rr->stride)
        return HK_ERROR(HK_ERR_STATE, "self message %d: rows of different shapes", i);
      sr->self_at = rr->at;
    }
  }
  return HK_SUCCESS;
}

/* the field's extents with ghosts and padding (rows start on a cache line, and owned
 * column 0 too: a front pad of w rounded up to HK_FIELD_ALIGN doubles) */
typedef struct extents {
  long long front, X, XY;
  size_t cells;
} extents_t;

/* the checks every rank makes the same way (agreed by the caller) */
static int check_desc(const hk_halo_desc_t *desc, const hk_cart_info_t *ci, int nthreads)
{
  const int w = desc->width, dims = ci->dims;
  int tasks = desc->mode == HK_MODE_TASK || desc->mode == HK_MODE_TASK_BALANCED;
  if ((int)desc->mode < 0 || desc->mode >= HK_MODE_COUNT)
    return HK_ERROR(HK_ERR_ARG, "invalid halo mode %d", (int)desc->mode);
  if (w < 1)
    return HK_ERROR(HK_ERR_ARG, "halo width %d must be >= 1", w);
  if (desc->radius < 0 || desc->radius > w)
    return HK_ERROR(HK_ERR_ARG, "stencil radius %d must be between 1 and the halo width %d",
                    desc->radius, w);
  if (desc->stencil != HK_STENCIL_FACES && desc->stencil != HK_STENCIL_FULL)
    return HK_ERROR(HK_ERR_ARG, "invalid stencil %d", (int)desc->stencil);
  for (int d = 0; d < 3; d++)
    if (desc->self_wrap[d] && (d >= dims || !ci->periodic[d] || ci->procs[d] != 1))
      return HK_ERROR(HK_ERR_ARG,
                      "self_wrap in dimension %c needs it periodic with one process across it "
                      "(%d-D grid, %s, %d processes)",
                      "xyz"[d], dims, d < dims && ci->periodic[d] ? "periodic" : "not periodic",
                      d < dims ? ci->procs[d] : 0);
  int err = hk_require_thread_level(hk_mode_thread_level(desc->mode), hk_mode_name(desc->mode));
  if (err != HK_SUCCESS)
    return err;
  if (desc->mode == HK_MODE_MULTIPLE_RESERVED && desc->reserved > 0 && desc->reserved >= nthreads)
    return HK_ERROR(HK_ERR_ARG,
                    "multiple-reserved reserves %d thread(s) for communication but only %d "
                    "run: no thread is left to compute (reserved must be < threads)",
                    desc->reserved, nthreads);
  if (tasks && desc->reserved > 1)
    return HK_ERROR(HK_ERR_ARG,
                    "%s reserves exactly one thread (the master calls MPI under FUNNELED); "
                    "use multiple-reserved for %d communicating threads",
                    hk_mode_name(desc->mode), desc->reserved);
  if (tasks && desc->reserved == 1 && nthreads < 2)
    return HK_ERROR(HK_ERR_ARG, "%s with 1 reserved thread needs at least 2 threads, %d run",
                    hk_mode_name(desc->mode), nthreads);
  for (int d = 0; d < dims; d++)
    if ((ci->procs[d] > 1 || ci->periodic[d]) && !desc->self_wrap[d] && ci->n[d] < w)
      return HK_ERROR(HK_ERR_ARG,
                      "block %dx%dx%d of rank %d is thinner than halo width %d in dimension %c",
                      ci->n[0], ci->n[1], ci->n[2], ci->rank, w, "xyz"[d]);
  return HK_SUCCESS;
}

/* the field's extents, checked: a field whose cells or bytes overflow, or whose
 * messages exceed MPI's int count, is refused before anything is allocated */
static int check_extents(const hk_cart_info_t *ci, int w, extents_t *e)
{
  const int dims = ci->dims;
  long long nx = ci->n[0], ny = dims >= 2 ? ci->n[1] : 1, nz = dims == 3 ? ci->n[2] : 1;
  e->front = (w + HK_FIELD_ALIGN - 1) / HK_FIELD_ALIGN * HK_FIELD_ALIGN;
  e->X = (e->front + nx + w + HK_FIELD_ALIGN - 1) / HK_FIELD_ALIGN * HK_FIELD_ALIGN;
  long long Y = ny + 2LL * w, Z = dims == 3 ? nz + 2LL * w : 1;
  /* the largest message: a face (w layers) across a decomposed dimension */
  size_t face = 0, bytes = 0;
  for (int d = 0; d < dims; d++) {
    long long ext[3] = {nx, ny, nz};
    if (ci->procs[d] == 1) /* none, or a copy to itself (no MPI count) */
      continue;
    size_t f = 0;
    ext[d] = w;
    if (hk_ckd_mul3(&f, ext[0], ext[1], ext[2]))
      f = SIZE_MAX;
    face = f > face ? f : face;
  }
  if (hk_ckd_mul_ll(&e->XY, e->X, Y) || hk_ckd_mul3(&e->cells, e->X, Y, Z) ||
      hk_ckd_mulz(&bytes, e->cells, sizeof(double)) || bytes > (size_t)PTRDIFF_MAX)
    return HK_ERROR(HK_ERR_NOMEM,
                    "block %dx%dx%d with halo width %d: a field of %lldx%lldx%lld cells "
                    "does not fit in the address space",
                    ci->n[0], ci->n[1], ci->n[2], w, e->X, Y, Z);
  if (face > (size_t)INT_MAX)
    return HK_ERROR(HK_ERR_NOMEM,
                    "block %dx%dx%d with halo width %d: a halo message of %zu doubles exceeds "
                    "MPI's count limit (%d)",
                    ci->n[0], ci->n[1], ci->n[2], w, face, INT_MAX);
  return HK_SUCCESS;
}

/* the field layout (docs/performance.md: why rows start on a cache line) */
static void plan_layout(hk_halo_t *h, const hk_cart_info_t *ci, const extents_t *e)
{
  hk_field_layout_t *L = &h->L;
  const int w = h->desc.width, dims = ci->dims;
  L->dims = dims;
  L->width = w;
  for (int d = 0; d < 3; d++)
    L->n[d] = d < dims ? ci->n[d] : 1;
  L->sy = e->X;
  L->sz = e->XY;
  L->offset = e->front + w * L->sy + (dims == 3 ? w * L->sz : 0);
  L->count = e->cells; /* checked, as cells * sizeof(double) */
}

/* every offset in {-1,0,1}^dims \ {0} the stencil needs, none across a wrapped dimension */
static int stencil_sides(const hk_halo_desc_t *desc, int dims, int sides[26][3])
{
  int n = 0;
  for (int dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int nz = (dx != 0) + (dy != 0) + (dz != 0);
        if (nz == 0 || (desc->stencil == HK_STENCIL_FACES && nz > 1))
          continue;
        if ((dx && desc->self_wrap[0]) || (dy && desc->self_wrap[1]) || (dz && desc->self_wrap[2]))
          continue;
        sides[n][0] = dx;
        sides[n][1] = dy;
        sides[n][2] = dz;
        n++;
      }
  return n;
}

/* one send and one receive message towards `side` (peer), its boxes and statistics */
static void add_message(hk_halo_t *h, const int side[3], int peer, int kind)
{
  const hk_field_layout_t *L = &h->L;
  hk_msg_t *ms = &h->send[h->nmsg], *mr = &h->recv[h->nmsg];
  h->nmsg++;
  memcpy(ms->offset, side, sizeof ms->offset);
  memcpy(mr->offset, side, sizeof mr->offset);
  ms->peer = mr->peer = peer;
  ms->kind = mr->kind = kind;
  ms->count = 1;
  for (int d = 0; d < 3; d++) {
    if (d < L->dims) {
      side_range(side[d], L->n[d], L->width, 1, &ms->box.lo[d], &ms->box.hi[d]);
      side_range(side[d], L->n[d], L->width, 0, &mr->box.lo[d], &mr->box.hi[d]);
    } else {
      ms->box.lo[d] = mr->box.lo[d] = 0;
      ms->box.hi[d] = mr->box.hi[d] = 1;
    }
    ms->count *= (size_t)(ms->box.hi[d] - ms->box.lo[d]);
  }
  mr->count = ms->count;
  long long mbytes = (long long)(ms->count * sizeof(double)); /* checked in check_extents */
  if (kind == HK_PEER_SELF) { h->stats.msgs_self++; h->stats.bytes_self += mbytes; }
  else if (kind == HK_PEER_INTRA) { h->stats.msgs_intra++; h->stats.bytes_intra += mbytes; }
  else { h->stats.msgs_inter++; h->stats.bytes_inter += mbytes; }
}

/* the neighbour table and a message per neighbour the stencil needs */
static int plan_messages(hk_halo_t *h, const hk_cart_info_t *ci)
{
  int err = HK_SUCCESS, sides[26][3];
  const hk_halo_desc_t *desc = &h->desc;
  HK_ALLOC_TRY(err, h->send, 26);
  HK_ALLOC_TRY(err, h->recv, 26);
  for (int d = 0; d < ci->dims; d++)
    for (int s = 0; s < 2; s++) {
      int off[3] = {0, 0, 0};
      off[d] = s ? 1 : -1;
      h->has_nb[d][s] = !desc->self_wrap[d] && hk__cart_neighbor(desc->cart, off) != MPI_PROC_NULL;
    }
  int nsides = stencil_sides(desc, ci->dims, sides);
  for (int s = 0; s < nsides; s++) {
    int peer = hk__cart_neighbor(desc->cart, sides[s]);
    if (peer == MPI_PROC_NULL)
      continue;
    int kind = peer == ci->rank ? HK_PEER_SELF
               : hk__cart_node_of(desc->cart, peer) == ci->node ? HK_PEER_INTRA : HK_PEER_INTER;
    add_message(h, sides[s], peer, kind);
  }
cleanup:
  return err;
}

/* buffers and requests; a self neighbour at d receives what I send towards -d */
static int plan_buffers(hk_halo_t *h)
{
  int err = HK_SUCCESS;
  size_t sendtotal = 0, recvtotal = 0;
  for (int i = 0; i < h->nmsg; i++) {
    sendtotal += h->send[i].count;
    recvtotal += h->recv[i].kind != HK_PEER_SELF ? h->recv[i].count : 0;
  }
  HK_ALLOC_TRY(err, h->sendbuf, sendtotal);
  HK_ALLOC_TRY(err, h->recvbuf, recvtotal);
  HK_ALLOC_TRY(err, h->sreq, h->nmsg);
  HK_ALLOC_TRY(err, h->rreq, h->nmsg);
  for (size_t i = 0, so = 0, ro = 0; i < (size_t)h->nmsg; i++) {
    h->send[i].buf = h->sendbuf + so;
    so += h->send[i].count;
    h->sreq[i] = h->rreq[i] = MPI_REQUEST_NULL;
    if (h->recv[i].kind != HK_PEER_SELF) {
      h->recv[i].buf = h->recvbuf + ro;
      ro += h->recv[i].count;
    }
  }
  for (int i = 0; i < h->nmsg; i++) {
    if (h->recv[i].kind != HK_PEER_SELF)
      continue;
    int neg[3] = {-h->recv[i].offset[0], -h->recv[i].offset[1], -h->recv[i].offset[2]};
    for (int j = 0; j < h->nmsg; j++)
      if (hk__offset_index(h->send[j].offset) == hk__offset_index(neg))
        h->recv[i].buf = h->send[j].buf;
    if (!h->recv[i].buf)
      return HK_ERROR(HK_ERR_STATE, "self neighbour without the opposite message");
  }
  HK_TRY(err, build_rows(h->send, h->nmsg, &h->L, &h->send_rows, &h->nsend_rows));
  HK_TRY(err, build_rows(h->recv, h->nmsg, &h->L, &h->recv_rows, &h->nrecv_rows));
  HK_TRY(err, pair_self_rows(h));
cleanup:
  return err;
}

int hk_halo_create(const hk_halo_desc_t *desc, hk_halo_t **halo)
{
  int err = HK_SUCCESS;
  hk_halo_t *h = NULL;
  hk_cart_info_t ci;
  extents_t e = {0};
  if (!desc || !halo || !desc->cart)
    return HK_ERROR(HK_ERR_ARG, "desc, desc->cart and halo must not be NULL");
  *halo = NULL;
  HK_TRY(err, hk_cart_info(desc->cart, &ci));
  int nthreads = omp_get_max_threads();
  err = check_desc(desc, &ci, nthreads);
  HK_LOCAL(err, check_extents(&ci, desc->width, &e));
  HK_ALLOC_LOCAL(err, h, 1);
  if (h)
    h->comm = MPI_COMM_NULL;
  HK_AGREE(err, hk_cart_comm(desc->cart));

  h->desc = *desc;
  h->radius = desc->radius > 0 ? desc->radius : 1;
  h->nthreads = (desc->mode == HK_MODE_PURE || desc->mode == HK_MODE_PURE_NB) ? 1 : nthreads;
  h->reserved = desc->mode == HK_MODE_MULTIPLE_RESERVED && desc->reserved > 0 ? desc->reserved : 1;
  HK_MPI_TRY(err, MPI_Comm_dup(hk_cart_comm(desc->cart), &h->comm));
  HK_MPI_TRY(err, MPI_Comm_rank(h->comm, &h->rank));
  plan_layout(h, &ci, &e);
  HK_LOCAL(err, plan_messages(h, &ci));
  HK_LOCAL(err, plan_buffers(h));
  HK_AGREE(err, h->comm); /* a failure on one rank: every rank frees the duplicate */
  *halo = h;
  return HK_SUCCESS;
cleanup:
  if (h) {
    hk__free_plan(h);
    if (h->comm != MPI_COMM_NULL)
      MPI_Comm_free(&h->comm);
    free(h);
  }
  return err;
}

void hk__free_plan(hk_halo_t *h)
{
  free(h->send);
  free(h->recv);
  free(h->send_rows);
  free(h->recv_rows);
  free(h->sendbuf);
  free(h->recvbuf);
  free(h->sreq);
  free(h->rreq);
}

int hk_halo_destroy(hk_halo_t **halo)
{
  int err = HK_SUCCESS;
  if (!halo || !*halo)
    return HK_SUCCESS;
  hk_halo_t *h = *halo;
  hk__free_plan(h);
  if (h->comm != MPI_COMM_NULL)
    HK_MPI_TRY(err, MPI_Comm_free(&h->comm));
cleanup:
  free(h);
  *halo = NULL;
  return err;
}
