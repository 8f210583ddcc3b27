/* tests/unit/test_beff.c: b_eff's formula as the original defines it (HLRS
 * b_eff 3.6.0.1, Rabenseifner & Koniges): the message sizes, the per-pattern
 * accounting, the arithmetic mean over sizes and the logarithmic mean over
 * patterns, on fixed per-size inputs against values computed by hand. */
#include <math.h>
#include "hk_test.h"
#include "beff_calc.h"

#define CHECK_NEAR(a, b) CHECK(fabs((a) - (b)) <= 1e-9 * fabs(b))

static void test_sizes(void)
{
  long long s[BEFF_NMSG];
  /* Lmax = 2 MiB (256 MiB per process): factor 2^(9/8); 4096 x 2^(9/8) =
   * 8933.4, 4096 x 2^(36/8) = 4096 x 16 sqrt(2) = 92681.9, the last is Lmax */
  double f = beff_sizes(2LL << 20, s);
  CHECK_NEAR(f, pow(2.0, 9.0 / 8.0));
  CHECK(s[0] == 1 && s[1] == 2 && s[12] == 4096);
  CHECK(s[13] == 8933);
  CHECK(s[16] == 92682);
  CHECK(s[20] == 2097152);
  for (int i = 1; i < BEFF_NMSG; i++)
    CHECK(s[i] > s[i - 1]);
  CHECK(beff_lmax_of_memory(256LL << 20) == 2LL << 20);
  CHECK(beff_lmax_of_memory(15LL << 30) == 120LL << 20);
  CHECK(beff_lmax_of_memory(64LL << 30) == 128LL << 20);
}

static void test_accounting(void)
{
  /* np = 2, ring: left = right neighbour, the pong is dropped: 1 message per
   * process and loop, 2 in all; the slower process sends 900 MB/s -> 1800 */
  CHECK_NEAR(beff_pattern_bw(900e6, 2, 1), 1800e6);
  /* np = 4, one ring of 4: 2 messages per process (ping and pong), 8 in all;
   * the slowest process sends 2 GB/s in its two messages -> 8 GB/s */
  CHECK_NEAR(beff_pattern_bw(2e9, 8, 2), 8e9);
}

static void test_means(void)
{
  /* 2 ring and 3 random patterns, 3 sizes (bytes/s) */
  const double b[5 * 3] = {
      1e6, 2e6,  3e6,  /* ring 0: arithmetic mean 2e6 */
      4e6, 8e6,  12e6, /* ring 1: 8e6 */
      1e6, 1e6,  1e6,  /* random 0: 1e6 */
      2e6, 2e6,  2e6,  /* random 1: 2e6 */
      4e6, 4e6,  4e6,  /* random 2: 4e6 */
  };
  double ring = 0.0, random = 0.0;
  /* rings: sqrt(2 x 8) = 4; random: cbrt(1 x 2 x 4) = 2; b_eff = sqrt(4 x 2) */
  double beff = beff_combine(b, 2, 3, 3, -1, &ring, &random);
  CHECK_NEAR(ring, 4e6);
  CHECK_NEAR(random, 2e6);
  CHECK_NEAR(beff, sqrt(8.0) * 1e6);
  /* at the last size: rings sqrt(3 x 12) = 6, random 2, b_eff sqrt(12) */
  beff = beff_combine(b, 2, 3, 3, 2, &ring, &random);
  CHECK_NEAR(ring, 6e6);
  CHECK_NEAR(random, 2e6);
  CHECK_NEAR(beff, sqrt(12.0) * 1e6);
  /* the means themselves */
  const double v[3] = {1.0, 2.0, 4.0};
  CHECK_NEAR(beff_arith_mean(v, 3), 7.0 / 3.0);
  CHECK_NEAR(beff_log_mean(v, 3), 2.0);
}

int main(void)
{
  test_sizes();
  test_accounting();
  test_means();
  return hk_test_report("beff formula");
}
