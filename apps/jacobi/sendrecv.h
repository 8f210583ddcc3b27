/* apps/jacobi/sendrecv.h: a hand-written halo exchange, the baseline the
 * engine's overhead is measured against (hk-jacobi --compare-sendrecv). */
#ifndef HK_JACOBI_SENDRECV_H
#define HK_JACOBI_SENDRECV_H

#include "hybridkit.h"

/* The textbook exchange of the faces (w layers, no edges/corners): for each
 * dimension and direction, pack the face with plain loops, MPI_Sendrecv with the
 * neighbours, unpack.  sbuf and rbuf hold the largest face.  skip[d]: dimension d
 * is left out, as the engine leaves out a dimension the sweeps wrap themselves
 * (hk_halo_desc_t.self_wrap), so both exchange the same faces.  MPI errors are
 * returned as HK_ERR_MPI. */
int jac_sendrecv_exchange(const hk_cart_t *cart, const hk_field_layout_t *L, const int skip[3],
                          double *field, double *sbuf, double *rbuf);
/* doubles of the largest face: the size of sbuf and rbuf */
size_t jac_sendrecv_bufsize(const hk_field_layout_t *L);

#endif
