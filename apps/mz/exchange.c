/* apps/mz/exchange.c: plan and run of the zone boundary exchange (see exchange.h). */
#include "exchange.h"
#include <stdlib.h>
#include <string.h>
#include "hybridkit.h"
#include "hybridkit/ckd.h"

/* Walk of one face in a zone's local array: the offsets of its points in k, then in-plane
 * order, as runs of `run` doubles. */
typedef struct face {
  long long base, kstride, tstride;
  int nk, nt, run;
} face_t;

/* a link: src's interior plane next to `side` -> dst's opposite boundary plane, as the faces
 * of the two local arrays (src on rank from, dst on rank to) */
typedef struct link {
  int src, side, dst;
  face_t sf, df;
  long long offset;    /* in the send or receive buffer (doubles); -1 for a direct copy */
} link_t;

typedef struct peer {
  int rank;
  long long send_off, send_len, recv_off, recv_len; /* doubles */
} peer_t;

struct mz_exchange {
  MPI_Comm comm;
  link_t *copy, *send, *recv;
  int ncopy, nsend, nrecv, npeers;
  peer_t *peers;
  double *sbuf, *rbuf;
  MPI_Request *req;
  MPI_Status *status; /* an array, not MPI_STATUSES_IGNORE: GCC warns on MPICH's (pointer) 1 */
  mz_exchange_stats_t st;
};

static const int opposite[MZ_NSIDES] = {MZ_EAST, MZ_WEST, MZ_NORTH, MZ_SOUTH};

void mz_xlocal(int n, int nxp, int xpos, int *width, int *xoff)
{
  int lo, hi;
  mz_xpiece(n, nxp, xpos, &lo, &hi);
  *width = nxp == 1 ? n : hi - lo + 4;
  *xoff = nxp == 1 ? 0 : lo - 2;
}

/* the face of zone q (held at xpos of nxp) on `side`, at global plane `plane` (an i for
 * west/east, a j for south/north); a y face covers the piece's interior points */
static face_t face_of(const mz_zone_t *q, int nxp, int xpos, int side, int plane)
{
  int width, xoff, lo, hi;
  mz_xlocal(q->nx, nxp, xpos, &width, &xoff);
  mz_xpiece(q->nx, nxp, xpos, &lo, &hi);
  face_t f = {.kstride = 5LL * width * q->ny, .nk = q->nz - 2};
  if (side <= MZ_EAST) {      /* x face: points (plane, j) for j = 1..ny-2, one by one */
    f.base = 5LL * (width + plane - xoff) + f.kstride;
    f.tstride = 5LL * width;
    f.nt = q->ny - 2;
    f.run = 5;
  } else {                    /* y face: one contiguous run per k */
    int i0 = lo > 1 ? lo : 1, i1 = hi < q->nx - 1 ? hi : q->nx - 1;
    f.base = 5LL * ((long long)plane * width + i0 - xoff) + f.kstride;
    f.tstride = 0;
    f.nt = 1;
    f.run = 5 * (i1 - i0);
  }
  return f;
}

static long long face_len(const face_t *f) { return (long long)f->nk * f->nt * f->run; }

static int src_plane(const mz_zone_t *q, int side)
{
  return side == MZ_WEST ? 1 : side == MZ_EAST ? q->nx - 2 : side == MZ_SOUTH ? 1 : q->ny - 2;
}

static int dst_plane(const mz_zone_t *q, int side) /* side: the dst zone's side */
{
  return side == MZ_WEST ? 0 : side == MZ_EAST ? q->nx - 1 : side == MZ_SOUTH ? 0 : q->ny - 1;
}

/* copy a face to/from a packed buffer (to_buf) or between two faces (buf == NULL) */
static void face_copy(const face_t *from, const double *a, const face_t *to, double *b)
{
  for (int k = 0; k < from->nk; k++)
    for (int t = 0; t < from->nt; t++) {
      const double *s = a + from->base + k * from->kstride + t * from->tstride;
      double *d = b + to->base + k * to->kstride + t * to->tstride;
      memcpy(d, s, (size_t)from->run * sizeof *d);
    }
}

/* a packed face: contiguous, same walk as face f */
static face_t packed(const face_t *f, long long offset)
{
  face_t p = *f;
  p.base = offset;
  p.kstride = (long long)f->nt * f->run;
  p.tstride = f->run;
  return p;
}

/* The links of (zone, side): one (nxp = 1 or an x side: from the piece holding the plane) or
 * one per piece (a y side of a split zone).  Fills l[] and the ranks; returns the count. */
static int links_of(const mz_zones_t *z, const mz_map_t *m, int nxp, int zone, int s, link_t *l,
                    int *from, int *to)
{
  const mz_zone_t *q = &z->zone[zone];
  int dst = q->nb[s], ds = opposite[s], n = 0;
  for (int x = 0; x < nxp; x++) {
    int xs = x, xd = x;
    if (s <= MZ_EAST) {       /* the x ends: west face from xpos 0 to the west zone's last */
      if (x > 0)
        break;
      xs = s == MZ_WEST ? 0 : nxp - 1;
      xd = nxp - 1 - xs;
    }
    l[n] = (link_t){.src = zone, .side = s, .dst = dst, .offset = -1,
                    .sf = face_of(q, nxp, xs, s, src_plane(q, s)),
                    .df = face_of(&z->zone[dst], nxp, xd, ds, dst_plane(&z->zone[dst], ds))};
    from[n] = m->owner[zone] * nxp + xs;
    to[n] = m->owner[dst] * nxp + xd;
    if (l[n].sf.run > 0)
      n++;
  }
  return n;
}

int mz_exchange_create(const mz_zones_t *z, const mz_map_t *m, int nxp, int rank, MPI_Comm comm,
                       mz_exchange_t **out)
{
  int nl = z->nzones * MZ_NSIDES * nxp, nprocs = m->nprocs * nxp;
  mz_exchange_t *ex = calloc(1, sizeof *ex);
  if (!ex)
    return hk_error_set(HK_ERR_NOMEM, "no memory for the exchange plan");
  ex->comm = comm;
  ex->copy = malloc((size_t)nl * sizeof *ex->copy);
  ex->send = malloc((size_t)nl * sizeof *ex->send);
  ex->recv = malloc((size_t)nl * sizeof *ex->recv);
  ex->peers = calloc((size_t)nprocs, sizeof *ex->peers);
  ex->req = malloc(2 * (size_t)nprocs * sizeof *ex->req);
  ex->status = malloc(2 * (size_t)nprocs * sizeof *ex->status);
  link_t *ls = malloc((size_t)nxp * sizeof *ls);
  int *from = malloc((size_t)nxp * sizeof *from), *to = malloc((size_t)nxp * sizeof *to);
  if (!ex->copy || !ex->send || !ex->recv || !ex->peers || !ex->req || !ex->status || !ls ||
      !from || !to)
    goto nomem;
  long long soff = 0, roff = 0;
  for (int p = 0; p < nprocs; p++) { /* per peer, links in the order zone, side, piece */
    peer_t pe = {.rank = p, .send_off = soff, .recv_off = roff};
    for (int zone = 0; zone < z->nzones; zone++)
      for (int s = 0; s < MZ_NSIDES; s++)
        for (int i = 0, n = links_of(z, m, nxp, zone, s, ls, from, to); i < n; i++) {
          link_t l = ls[i];
          if (p == rank && from[i] == rank && to[i] == rank) {
            ex->copy[ex->ncopy++] = l;
            ex->st.bytes_copy += face_len(&l.sf) * (long long)sizeof(double);
          } else if (p != rank && from[i] == rank && to[i] == p) {
            l.offset = soff;
            soff += face_len(&l.sf);
            ex->send[ex->nsend++] = l;
          } else if (p != rank && from[i] == p && to[i] == rank) {
            l.offset = roff;
            roff += face_len(&l.df);
            ex->recv[ex->nrecv++] = l;
          }
        }
    pe.send_len = soff - pe.send_off;
    pe.recv_len = roff - pe.recv_off;
    int count;
    if (hk_ckd_mpi_count(&count, (size_t)pe.send_len) || hk_ckd_mpi_count(&count, (size_t)pe.recv_len)) {
      free(ls);
      free(from);
      free(to);
      mz_exchange_destroy(&ex);
      return hk_error_set(HK_ERR_NOMEM, "the faces exchanged with rank %d (%lld and %lld doubles) "
                          "exceed MPI's count limit", p, pe.send_len, pe.recv_len);
    }
    if (pe.send_len || pe.recv_len)
      ex->peers[ex->npeers++] = pe;
  }
  free(ls);
  free(from);
  free(to);
  ls = NULL;
  from = to = NULL;
  ex->st.bytes_sent = soff * (long long)sizeof(double);
  ex->st.peers = ex->npeers;
  size_t sbytes, rbytes;
  if (hk_ckd_mul(&sbytes, soff ? soff : 1, sizeof(double)) ||
      hk_ckd_mul(&rbytes, roff ? roff : 1, sizeof(double)))
    goto nomem;
  ex->sbuf = malloc(sbytes);
  ex->rbuf = malloc(rbytes);
  if (!ex->sbuf || !ex->rbuf)
    goto nomem;
  *out = ex;
  return HK_SUCCESS;
nomem:
  free(ls);
  free(from);
  free(to);
  mz_exchange_destroy(&ex);
  return hk_error_set(HK_ERR_NOMEM, "no memory for the exchange plan");
}

/* pack (dir 0: zone -> buffer), unpack (1: buffer -> zone) or copy (2: zone -> zone) */
static void run_links(const link_t *l, int n, int dir, double *buf,
                      double *const *u)
{
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
  for (int i = 0; i < n; i++) {
    const face_t s = l[i].sf, d = l[i].df;
    if (dir == 0) {
      face_t p = packed(&s, l[i].offset);
      face_copy(&s, u[l[i].src], &p, buf);
    } else if (dir == 1) {
      face_t p = packed(&d, l[i].offset);
      face_copy(&p, buf, &d, u[l[i].dst]);
    } else {
      face_copy(&s, u[l[i].src], &d, u[l[i].dst]);
    }
  }
}

int mz_exchange_run(mz_exchange_t *ex, double *const *u)
{
  int nreq = 0, err = MPI_SUCCESS;
  for (int p = 0; p < ex->npeers && err == MPI_SUCCESS; p++)
    if (ex->peers[p].recv_len)
      err = MPI_Irecv(ex->rbuf + ex->peers[p].recv_off, (int)ex->peers[p].recv_len, MPI_DOUBLE,
                      ex->peers[p].rank, 61, ex->comm, &ex->req[nreq++]);
  run_links(ex->send, ex->nsend, 0, ex->sbuf, u);
  for (int p = 0; p < ex->npeers && err == MPI_SUCCESS; p++)
    if (ex->peers[p].send_len)
      err = MPI_Isend(ex->sbuf + ex->peers[p].send_off, (int)ex->peers[p].send_len, MPI_DOUBLE,
                      ex->peers[p].rank, 61, ex->comm, &ex->req[nreq++]);
  run_links(ex->copy, ex->ncopy, 2, NULL, u);
  if (err == MPI_SUCCESS)
    err = MPI_Waitall(nreq, ex->req, ex->status);
  if (err != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "zone boundary exchange: MPI error %d", err);
  run_links(ex->recv, ex->nrecv, 1, ex->rbuf, u);
  return HK_SUCCESS;
}

void mz_exchange_get_stats(const mz_exchange_t *ex, mz_exchange_stats_t *st) { *st = ex->st; }

void mz_exchange_destroy(mz_exchange_t **ex)
{
  if (!ex || !*ex)
    return;
  free((*ex)->copy);
  free((*ex)->send);
  free((*ex)->recv);
  free((*ex)->peers);
  free((*ex)->sbuf);
  free((*ex)->rbuf);
  free((*ex)->req);
  free((*ex)->status);
  free(*ex);
  *ex = NULL;
}
