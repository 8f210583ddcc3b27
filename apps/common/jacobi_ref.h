/* apps/common/jacobi_ref.h: the frozen serial reference (the test oracle). */
#ifndef HK_JACOBI_REF_H
#define HK_JACOBI_REF_H

/* Run `sweeps` Jacobi sweeps on the global grid G[0] x G[1] (x G[2] for dims 3)
 * from jac_initial, periodic or Dirichlet (jac_boundary), and store the owned
 * cells, x fastest, in out (G[0]*G[1]*G[2] doubles).  Returns 0, or -1 when out
 * of memory. */
int jacobi_ref(int dims, const long long G[3], int periodic, int sweeps, double *out);
/* the same with the stencil of 3D named: 7 or 27 points (kernel.h) */
int jacobi_ref_stencil(int dims, const long long G[3], int periodic, int sweeps, int stencil,
                       double *out);

#endif
