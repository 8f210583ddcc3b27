/* tests/unit/spmv_dump.c: print rows of a generated matrix (hk_spmv_generate) as Matrix
 * Market coordinate entries, for tests/scripts/spmv_hh_brute.py to compare with a
 * brute-force construction.  usage: spmv_dump SPEC [ROW_BEGIN NROWS] */
#include <stdio.h>
#include <stdlib.h>
#include "hybridkit.h"

int main(int argc, char **argv)
{
  long long n, begin = 0;
  hk_spmv_crs_t crs;
  if (argc != 2 && argc != 4) {
    fprintf(stderr, "usage: spmv_dump SPEC [ROW_BEGIN NROWS]\n");
    return 2;
  }
  if (hk_spmv_generate_size(argv[1], &n) != HK_SUCCESS) {
    fprintf(stderr, "spmv_dump: %s\n", hk_error_message());
    return 2;
  }
  int count = (int)n;
  if (argc == 4) {
    begin = atoll(argv[2]);
    count = atoi(argv[3]);
  }
  if (hk_spmv_generate(argv[1], begin, count, &crs) != HK_SUCCESS) {
    fprintf(stderr, "spmv_dump: %s\n", hk_error_message());
    return 2;
  }
  printf("%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", n, n,
         crs.rowptr[crs.nrows]);
  for (int r = 0; r < crs.nrows; r++)
    for (long long e = crs.rowptr[r]; e < crs.rowptr[r + 1]; e++)
      printf("%lld %lld %.17g\n", crs.row_begin + r + 1, crs.col[e] + 1, crs.val[e]);
  hk_spmv_crs_free(&crs);
  return 0;
}
