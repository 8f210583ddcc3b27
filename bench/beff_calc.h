/* bench/beff_calc.h: the arithmetic of b_eff as the original defines it (HLRS
 * b_eff 3.6.0.1, Rabenseifner & Koniges), without MPI, so it is unit-tested
 * on fixed inputs (tests/unit/test_beff.c).
 *
 * b(pattern, L) = max over methods and repetitions of
 *                 min over processes of (L x loops x messages sent per loop / time)
 *                 x (messages of the pattern, as rank 0 counts them)
 *                 / (messages rank 0 sends per loop)
 * b_pattern     = arithmetic mean over the sizes L of b(pattern, L)
 * b_ring        = logarithmic mean over the ring patterns of b_pattern
 * b_random      = logarithmic mean over the random patterns
 * b_eff         = logarithmic mean of b_ring and b_random
 * "at Lmax": the same with b(pattern, Lmax) in place of b_pattern.
 */
#ifndef HK_BEFF_CALC_H
#define HK_BEFF_CALC_H

enum {
  BEFF_NMSG = 21, /* message sizes */
  BEFF_NPOW2 = 13 /* of which 1 B, 2 B, ... 4 KiB doubling; then geometric up to Lmax */
};

/* Lmax of a memory per process (bytes): memory / 128, and 128 MiB from 16 GiB
 * of memory on (the original's limit for int message counts) */
long long beff_lmax_of_memory(long long memory);
/* the 21 sizes up to lmax (lmax >= 4096); returns the geometric factor */
double beff_sizes(long long lmax, long long sizes[BEFF_NMSG]);
/* b(pattern, L) of one measurement from the slowest process's rate
 * (bytes/s it sent) and rank 0's message accounting */
double beff_pattern_bw(double min_rate, long long all_msg, int nsr);
double beff_arith_mean(const double *v, int n);
double beff_log_mean(const double *v, int n);

/* b_ring, b_random and b_eff from b[p * nmsg + m] (best method and
 * repetition) of nring ring patterns followed by nrand random ones;
 * at < 0: the mean over the sizes of each pattern, else the size index `at` */
double beff_combine(const double *b, int nring, int nrand, int nmsg, int at, double *ring,
                    double *random);

#endif
