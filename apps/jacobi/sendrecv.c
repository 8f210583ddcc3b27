/* apps/jacobi/sendrecv.c: the hand-written baseline exchange (faces only; dimension
 * by dimension, which also fills edges/corners when the field is periodic on one
 * rank, but only faces are compared). */
#include <stdlib.h>
#include "jacobi.h"
#include "sendrecv.h"

size_t jac_sendrecv_bufsize(const hk_field_layout_t *L)
{
  size_t w = (size_t)L->width, a = w * (size_t)L->n[1] * (size_t)L->n[2],
         b = w * (size_t)L->n[0] * (size_t)L->n[2], c = L->dims == 3 ? w * L->n[0] * L->n[1] : 0;
  size_t m = a > b ? a : b;
  return m > c ? m : c;
}

/* copy the face box between field and buffer (to_buf: pack) */
static size_t face_copy(const hk_field_layout_t *L, double *field, double *buf, const int lo[3],
                        const int hi[3], int to_buf)
{
  size_t c = 0;
  for (int k = lo[2]; k < hi[2]; k++)
    for (int j = lo[1]; j < hi[1]; j++)
      for (int i = lo[0]; i < hi[0]; i++, c++) {
        double *x = field + L->offset + i + j * L->sy + k * L->sz;
        if (to_buf)
          buf[c] = *x;
        else
          *x = buf[c];
      }
  return c;
}

int jac_sendrecv_exchange(const hk_cart_t *cart, const hk_field_layout_t *L, const int skip[3],
                          double *field, double *sbuf, double *rbuf)
{
  MPI_Comm comm = hk_cart_comm(cart);
  const int w = L->width;
  for (int d = 0; d < L->dims; d++) {
    if (skip[d])
      continue;
    for (int dir = -1; dir <= 1; dir += 2) {
      int to[3] = {0, 0, 0}, from[3] = {0, 0, 0};
      to[d] = dir;
      from[d] = -dir;
      int dst = MPI_PROC_NULL, src = MPI_PROC_NULL;
      hk_cart_neighbor(cart, to, &dst);
      hk_cart_neighbor(cart, from, &src);
      int slo[3] = {0, 0, 0}, shi[3] = {L->n[0], L->n[1], L->n[2]};
      int rlo[3] = {0, 0, 0}, rhi[3] = {L->n[0], L->n[1], L->n[2]};
      slo[d] = dir > 0 ? L->n[d] - w : 0;        /* my face towards dir */
      shi[d] = dir > 0 ? L->n[d] : w;
      rlo[d] = dir > 0 ? -w : L->n[d];           /* ghosts on the opposite side */
      rhi[d] = dir > 0 ? 0 : L->n[d] + w;
      size_t count = dst != MPI_PROC_NULL ? face_copy(L, field, sbuf, slo, shi, 1)
                                          : (size_t)(shi[0] - slo[0]) * (shi[1] - slo[1]) *
                                                (shi[2] - slo[2]);
      if (MPI_Sendrecv(sbuf, (int)count, MPI_DOUBLE, dst, d * 2 + (dir > 0), rbuf, (int)count,
                       MPI_DOUBLE, src, d * 2 + (dir > 0), comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return hk_error_set(HK_ERR_MPI, "MPI_Sendrecv failed");
      if (src != MPI_PROC_NULL)
        face_copy(L, field, rbuf, rlo, rhi, 0);
    }
  }
  return HK_SUCCESS;
}

/* hk-jacobi --compare-sendrecv: n exchanges of the engine (the run's mode) and of the
 * loop above, timed after a warm-up round; then both fill the face ghosts of the same
 * field, which must agree */
/* n exchanges of the engine, then n of the loop; per exchange into out (twice: the
 * first round warms up) */
static int time_both(jac_run_t *r, int n, const int skip[3], double *sbuf, double *rbuf,
                     jac_exchange_cmp_t *out)
{
  MPI_Comm comm = hk_cart_comm(r->cart);
  int err = HK_SUCCESS, local = HK_SUCCESS;
  for (int rep = 0; !err && rep < 2; rep++) { /* rep 0: warm-up */
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n && !local; i++)
      local = hk_halo_exchange(r->halo, r->u);
    double t1 = MPI_Wtime();
    MPI_Barrier(comm);
    double t2 = MPI_Wtime();
    for (int i = 0; i < n && !local; i++)
      local = jac_sendrecv_exchange(r->cart, &r->L, skip, r->u, sbuf, rbuf);
    double t3 = MPI_Wtime();
    out->engine = (t1 - t0) / n;
    out->baseline = (t3 - t2) / n;
    err = hk_agree(comm, local);
  }
  return err;
}

/* face ghost cells of u that differ from ref (x ghosts skipped when the sweeps wrap x) */
static long long face_mismatches(const hk_field_layout_t *L, const int skip[3], const double *u,
                                 const double *ref)
{
  long long n = 0;
  int w = L->width, kw = L->dims == 3 ? w : 0;
  for (int k = -kw; k < L->n[2] + kw; k++)
    for (int j = -w; j < L->n[1] + w; j++)
      for (int i = -w; i < L->n[0] + w; i++) {
        int outside = (i < 0 || i >= L->n[0]) + (j < 0 || j >= L->n[1]) + (k < 0 || k >= L->n[2]);
        if (skip[0] && (i < 0 || i >= L->n[0]))
          continue; /* x ghosts nobody fills or reads */
        long long at = L->offset + i + j * L->sy + k * L->sz;
        n += outside == 1 && ref[at] != u[at];
      }
  return n;
}

/* the baseline fills the face ghosts exactly as the engine does: ref gets the engine's
 * exchange, u (ghosts poisoned) the loop's; the field is left as it was */
static int same_faces(jac_run_t *r, const int skip[3], double *sbuf, double *rbuf, double *ref,
                      long long *mismatches)
{
  const hk_field_layout_t *L = &r->L;
  MPI_Comm comm = hk_cart_comm(r->cart);
  for (size_t i = 0; i < L->count; i++)
    ref[i] = r->u[i];
  int err = HK_SUCCESS;
  HK_LOCAL(err, hk_halo_exchange(r->halo, ref));
  HK_AGREE(err, comm);
  for (size_t i = 0; i < L->count; i++)
    r->u[i] = -1.0;
  for (int k = 0; k < L->n[2]; k++)
    for (int j = 0; j < L->n[1]; j++)
      for (int i = 0; i < L->n[0]; i++) {
        long long at = L->offset + i + j * L->sy + k * L->sz;
        r->u[at] = ref[at];
      }
  err = hk_agree(comm, jac_sendrecv_exchange(r->cart, L, skip, r->u, sbuf, rbuf));
  long long mine = err ? 0 : face_mismatches(L, skip, r->u, ref);
  for (size_t i = 0; i < L->count; i++) /* leave the field as it was */
    r->u[i] = ref[i];
  MPI_Allreduce(&mine, mismatches, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (!err && *mismatches)
    err = hk_error_set(HK_ERR_STATE, "the hand-written exchange disagrees with the engine in "
                       "%lld face ghost cells", *mismatches);
cleanup:
  return err;
}

int jac_compare_sendrecv(jac_run_t *r, int n, jac_exchange_cmp_t *out)
{
  const int skip[3] = {r->xwrap, 0, 0}; /* the engine's plan leaves these out too */
  size_t nb = jac_sendrecv_bufsize(&r->L);
  double *sbuf = NULL, *rbuf = NULL, *ref = NULL;
  int err = HK_SUCCESS;
  out->mismatches = 0;
  HK_ALLOC_LOCAL(err, sbuf, nb);
  HK_ALLOC_LOCAL(err, rbuf, nb);
  HK_ALLOC_LOCAL(err, ref, r->L.count);
  HK_AGREE(err, hk_cart_comm(r->cart));
  HK_TRY(err, time_both(r, n, skip, sbuf, rbuf, out)); /* agreed */
  err = same_faces(r, skip, sbuf, rbuf, ref, &out->mismatches);
cleanup:
  free(sbuf);
  free(rbuf);
  free(ref);
  return err;
}
