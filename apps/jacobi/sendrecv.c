/* apps/jacobi/sendrecv.c: the hand-written baseline exchange (faces only; dimension
 * by dimension, which also fills edges/corners when the field is periodic on one
 * rank, but only faces are compared). */
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
