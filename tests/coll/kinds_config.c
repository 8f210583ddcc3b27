/* tests/coll/kinds_config.c: the configuration per collective (src/coll/config.c) as
 * hk_coll_config reports it and as hk_reduce, hk_reduce_scatter_block and hk_allreduce
 * follow it, run at 2 ranks x 2 threads with MPI_THREAD_MULTIPLE.
 *
 * usage: kinds_config --min A,R,RS,B,AG,AT (the thresholds expected from the environment
 *        and table the test sets) CASE...; CASE is KIND:COUNT:ALG:THREADS:FALLBACK
 *        (KIND reduce|scatter|allreduce; COUNT ints per rank (scatter: per block);
 *        the algorithm, threads and fallback info must report), every result checked;
 *        or agree:COUNT: hk_reduce of COUNT ints must report the same on every rank and
 *        no fallback `chosen` (the ranks' configurations differ: none of them is used) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

static int P, R;

static void run_agree(int count)
{
  int *a = malloc(((size_t)count + 1) * sizeof *a), *b = malloc(((size_t)count + 1) * sizeof *b);
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_AUTO, .threads = HK_DEFAULT,
                           .min_bytes = HK_DEFAULT, .info = &info};
  for (int i = 0; i < count; i++)
    a[i] = R + i;
  CHECK_EQ_INT(hk_reduce(a, b, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o), HK_SUCCESS);
  for (int i = 0; R == 0 && i < count; i++)
    CHECK_EQ_INT(b[i], P * i + P * (P - 1) / 2);
  int mine[6] = {(int)info.algorithm, info.threads, (int)info.fallback}, all[6];
  for (int i = 0; i < 3; i++)
    mine[3 + i] = -mine[i];
  MPI_Allreduce(mine, all, 6, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (int i = 0; i < 3; i++)
    CHECK_EQ_INT(all[i], -all[3 + i]);
  CHECK(info.fallback != HK_FALLBACK_CHOSEN);
  free(a);
  free(b);
}

static void run_case(const char *spec, int multiple)
{
  char kind[16], alg[32], why[32];
  int count = 0, threads = 0;
  if (sscanf(spec, "agree:%d", &count) == 1) {
    run_agree(count);
    return;
  }
  if (sscanf(spec, "%15[^:]:%d:%31[^:]:%d:%31s", kind, &count, alg, &threads, why) != 5) {
    CHECK(!"case: KIND:COUNT:ALG:THREADS:FALLBACK");
    return;
  }
  int *a = malloc(((size_t)count * P + 1) * sizeof *a), *b = malloc(((size_t)count * P + 1) * sizeof *b);
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_AUTO, .threads = HK_DEFAULT,
                           .min_bytes = HK_DEFAULT, .info = &info};
  for (int i = 0; i < count * P; i++)
    a[i] = R + i;
  if (!strcmp(kind, "reduce")) {
    CHECK_EQ_INT(hk_reduce(a, b, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o), HK_SUCCESS);
    for (int i = 0; R == 0 && i < count; i++)
      CHECK_EQ_INT(b[i], P * i + P * (P - 1) / 2);
  } else if (!strcmp(kind, "scatter")) {
    CHECK_EQ_INT(hk_reduce_scatter_block(a, b, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                 HK_SUCCESS);
    for (int i = 0; i < count; i++)
      CHECK_EQ_INT(b[i], P * (R * count + i) + P * (P - 1) / 2);
  } else {
    CHECK_EQ_INT(hk_allreduce(a, b, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o), HK_SUCCESS);
    for (int i = 0; i < count; i++)
      CHECK_EQ_INT(b[i], P * i + P * (P - 1) / 2);
  }
  /* the threaded algorithms need MULTIPLE: without it only the fallbacks before them */
  if (multiple || !strcmp(why, "small") || !strcmp(why, "chosen")) {
    if (strcmp(hk_allreduce_alg_name(info.algorithm), alg) ||
        strcmp(hk_allreduce_fallback_name(info.fallback), why) || info.threads != threads) {
      if (R == 0)
        fprintf(stderr, "kinds-config: %s: got %s, %d threads, fallback %s\n", spec,
                hk_allreduce_alg_name(info.algorithm), info.threads,
                hk_allreduce_fallback_name(info.fallback));
      CHECK(!"the algorithm, threads and fallback of the case");
    } else {
      CHECK(1);
    }
  }
  free(a);
  free(b);
}

int main(int argc, char **argv)
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  hk_test_rank = R;
  hk_coll_config_t cfg;
  CHECK_EQ_INT(hk_coll_config(&cfg), HK_SUCCESS);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--min") && i + 1 < argc) {
      long long m[6];
      CHECK_EQ_INT(sscanf(argv[++i], "%lld,%lld,%lld,%lld,%lld,%lld", &m[0], &m[1], &m[2], &m[3],
                          &m[4], &m[5]), 6);
      CHECK_EQ_INT(cfg.min_bytes, m[0]);
      CHECK_EQ_INT(cfg.reduce_min_bytes, m[1]);
      CHECK_EQ_INT(cfg.reduce_scatter_min_bytes, m[2]);
      CHECK_EQ_INT(cfg.bcast_min_bytes, m[3]);
      CHECK_EQ_INT(cfg.allgather_min_bytes, m[4]);
      CHECK_EQ_INT(cfg.alltoall_min_bytes, m[5]);
    } else {
      run_case(argv[i], provided == MPI_THREAD_MULTIPLE);
    }
  }
  int rc = hk_test_mpi_report("kinds-config");
  MPI_Finalize();
  return rc;
}
