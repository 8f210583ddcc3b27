/* apps/common/jacobi_ref.c: the frozen, obviously correct serial reference.
 * One global array with a one-cell frame; the frame is refilled before every
 * sweep (periodic copies or the Dirichlet values); one plain loop nest.
 * Do not optimise this file: tests compare hk-jacobi against it bit for bit. */
#include <stdlib.h>
#include <string.h>
#include "jacobi_ref.h"
#include "kernel.h"

int jacobi_ref(int dims, const long long G[3], int periodic, int sweeps, double *out)
{
  return jacobi_ref_stencil(dims, G, periodic, sweeps, 7, out);
}

int jacobi_ref_stencil(int dims, const long long G[3], int periodic, int sweeps, int stencil,
                       double *out)
{
  const long long X = G[0] + 2, Y = G[1] + 2, Z = dims == 3 ? G[2] + 2 : 1;
  const long long zlo = dims == 3 ? 1 : 0, zhi = dims == 3 ? G[2] + 1 : 1;
  double *u = calloc((size_t)(X * Y * Z), sizeof *u), *v = calloc((size_t)(X * Y * Z), sizeof *v);
  if (!u || !v) {
    free(u);
    free(v);
    return -1;
  }
#define AT(a, x, y, z) (a)[(x) + X * ((y) + Y * (z))]
  for (long long z = 0; z < Z; z++)
    for (long long y = 0; y < Y; y++)
      for (long long x = 0; x < X; x++) {
        long long gx = x - 1, gy = y - 1, gz = dims == 3 ? z - 1 : 0;
        int inside = gx >= 0 && gx < G[0] && gy >= 0 && gy < G[1] && gz >= 0 && gz < G[2];
        AT(u, x, y, z) = inside ? jac_initial(gx, gy, gz) : periodic ? 0.0 : jac_boundary(gx, gy, gz);
        AT(v, x, y, z) = AT(u, x, y, z);
      }
  for (int s = 0; s < sweeps; s++) {
    if (periodic) {
      /* refill the frame from the opposite side, dimension by dimension (corners too) */
      for (long long z = 0; z < Z; z++)
        for (long long y = 0; y < Y; y++) {
          AT(u, 0, y, z) = AT(u, G[0], y, z);
          AT(u, G[0] + 1, y, z) = AT(u, 1, y, z);
        }
      for (long long z = 0; z < Z; z++)
        for (long long x = 0; x < X; x++) {
          AT(u, x, 0, z) = AT(u, x, G[1], z);
          AT(u, x, G[1] + 1, z) = AT(u, x, 1, z);
        }
      if (dims == 3)
        for (long long y = 0; y < Y; y++)
          for (long long x = 0; x < X; x++) {
            AT(u, x, y, 0) = AT(u, x, y, G[2]);
            AT(u, x, y, G[2] + 1) = AT(u, x, y, 1);
          }
    }
    for (long long z = zlo; z < zhi; z++)
      for (long long y = 1; y <= G[1]; y++)
        for (long long x = 1; x <= G[0]; x++) {
          if (dims == 3 && stencil == 27) {
            /* kernel.h: [1 2 1] in y, then z, then x; weights 8/4/2/1 over 64 */
            double C[3];
            for (long long c = 0; c < 3; c++) {
              long long xc = x - 1 + c;
              double pm = (AT(u, xc, y - 1, z - 1) + 2.0 * AT(u, xc, y, z - 1)) + AT(u, xc, y + 1, z - 1);
              double p0 = (AT(u, xc, y - 1, z) + 2.0 * AT(u, xc, y, z)) + AT(u, xc, y + 1, z);
              double pp = (AT(u, xc, y - 1, z + 1) + 2.0 * AT(u, xc, y, z + 1)) + AT(u, xc, y + 1, z + 1);
              C[c] = (pm + 2.0 * p0) + pp;
            }
            AT(v, x, y, z) = ((C[0] + 2.0 * C[1]) + C[2]) * (1.0 / 64.0);
          } else if (dims == 3)
            AT(v, x, y, z) = (AT(u, x, y, z) + AT(u, x - 1, y, z) + AT(u, x + 1, y, z) +
                              AT(u, x, y - 1, z) + AT(u, x, y + 1, z) + AT(u, x, y, z - 1) +
                              AT(u, x, y, z + 1)) * (1.0 / 7.0);
          else
            AT(v, x, y, z) = (AT(u, x, y, z) + AT(u, x - 1, y, z) + AT(u, x + 1, y, z) +
                              AT(u, x, y - 1, z) + AT(u, x, y + 1, z)) * (1.0 / 5.0);
        }
    double *t = u;
    u = v;
    v = t;
  }
  for (long long z = zlo; z < zhi; z++)
    for (long long y = 1; y <= G[1]; y++)
      for (long long x = 1; x <= G[0]; x++)
        out[(x - 1) + G[0] * ((y - 1) + G[1] * (z - zlo))] = AT(u, x, y, z);
#undef AT
  free(u);
  free(v);
  return 0;
}
