/* bench/beff_calc.c: b_eff's means and sizes (see beff_calc.h). */
#include <math.h>
#include <stddef.h>
#include "beff_calc.h"

long long beff_lmax_of_memory(long long memory)
{
  long long lmax = memory / 128;
  return memory >= (16LL << 30) ? (128LL << 20) : lmax;
}

double beff_sizes(long long lmax, long long sizes[BEFF_NMSG])
{
  sizes[0] = 1;
  for (int i = 1; i < BEFF_NPOW2; i++)
    sizes[i] = 2 * sizes[i - 1];
  double len = (double)sizes[BEFF_NPOW2 - 1];
  double factor = pow((double)lmax / len, 1.0 / (BEFF_NMSG - BEFF_NPOW2));
  /* the original multiplies step by step and rounds each size */
  for (int i = BEFF_NPOW2; i < BEFF_NMSG; i++) {
    len *= factor;
    sizes[i] = (long long)(len + 0.5);
  }
  return factor;
}

double beff_pattern_bw(double min_rate, long long all_msg, int nsr)
{
  return nsr > 0 ? min_rate * (double)all_msg / nsr : 0.0;
}

double beff_arith_mean(const double *v, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return n > 0 ? s / n : 0.0;
}

double beff_log_mean(const double *v, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (!(v[i] > 0.0))
      return 0.0;
    s += log(v[i]);
  }
  return n > 0 ? exp(s / n) : 0.0;
}

double beff_combine(const double *b, int nring, int nrand, int nmsg, int at, double *ring,
                    double *random)
{
  double per[2][64];
  int n[2] = {nring < 64 ? nring : 64, nrand < 64 ? nrand : 64};
  for (int k = 0; k < 2; k++)
    for (int p = 0; p < n[k]; p++) {
      const double *row = b + (size_t)((k ? nring : 0) + p) * (size_t)nmsg;
      per[k][p] = at < 0 ? beff_arith_mean(row, nmsg) : row[at];
    }
  double two[2] = {beff_log_mean(per[0], n[0]), beff_log_mean(per[1], n[1])};
  if (ring)
    *ring = two[0];
  if (random)
    *random = two[1];
  return beff_log_mean(two, 2);
}
