/* tests/mpi/test_env.c: thread-level negotiation, MASTERONLY checking,
 * collective error agreement and the timing helpers.
 *
 *   test_env --level L [--preinit M] [--expect ok|thread-level]
 *     --preinit M: the program calls MPI_Init_thread(M) itself before hk_init,
 *                  so the provided level is really M (no emulation involved).
 */
#include <omp.h>
#include <stdlib.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

static int mpi_level(const char *s)
{
  if (!strcmp(s, "single")) return MPI_THREAD_SINGLE;
  if (!strcmp(s, "funneled")) return MPI_THREAD_FUNNELED;
  if (!strcmp(s, "serialized")) return MPI_THREAD_SERIALIZED;
  return MPI_THREAD_MULTIPLE;
}

static int fail_on_last_rank(void *arg)
{
  int *calls = arg, rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  (*calls)++;
  return rank == size - 1 ? hk_error_set(HK_ERR_IO, "disk full on the last rank") : HK_SUCCESS;
}

static int count_calls(void *arg)
{
  (*(int *)arg)++;
  return HK_SUCCESS;
}

static void test_agree_and_timing(int rank, int size)
{
  /* agreement: the last rank fails, everybody learns its code and message */
  int local = rank == size - 1 ? hk_error_set(HK_ERR_NODES, "boom from rank %d", rank) : HK_SUCCESS;
  int err = hk_agree(MPI_COMM_WORLD, local);
  CHECK_EQ_INT(err, HK_ERR_NODES);
  CHECK_CONTAINS(hk_error_message(), "boom from rank");
  if (size > 1) {
    char want[64];
    snprintf(want, sizeof want, "rank %d: boom from rank %d", size - 1, size - 1);
    CHECK_STR(hk_error_message(), want);
  }
  /* the lowest failing rank wins */
  local = rank >= size / 2 ? hk_error_set(HK_ERR_ARG, "bad from %d", rank) : HK_SUCCESS;
  err = hk_agree(MPI_COMM_WORLD, local);
  CHECK_EQ_INT(err, HK_ERR_ARG);
  char want[64];
  snprintf(want, sizeof want, "bad from %d", size / 2);
  CHECK_CONTAINS(hk_error_message(), want);
  CHECK_EQ_INT(hk_agree(MPI_COMM_WORLD, HK_SUCCESS), HK_SUCCESS);

  /* min/avg/max over ranks */
  hk_stats_t st;
  CHECK_EQ_INT(hk_stats_reduce(MPI_COMM_WORLD, (double)rank, &st), HK_SUCCESS);
  CHECK(st.min == 0.0);
  CHECK(st.max == (double)(size - 1));
  CHECK(st.avg == (double)(size - 1) / 2.0);

  /* timed loop: warm-up + iterations, errors agreed */
  int calls = 0;
  hk_timing_desc_t td = {.comm = MPI_COMM_WORLD, .warmup = 2, .iters = 5};
  CHECK_EQ_INT(hk_time_loop(&td, count_calls, &calls, &st), HK_SUCCESS);
  CHECK_EQ_INT(calls, 7);
  CHECK(st.min >= 0.0 && st.min <= st.avg && st.avg <= st.max);
  calls = 0;
  CHECK_EQ_INT(hk_time_loop(&td, fail_on_last_rank, &calls, &st), HK_ERR_IO);
  CHECK_CONTAINS(hk_error_message(), "disk full on the last rank");
  td.iters = 0;
  CHECK_EQ_INT(hk_time_loop(&td, count_calls, &calls, &st), HK_ERR_ARG);
}

/* HK_CHECK_MASTERONLY=1: MPI through hybridkit against the rule of the level
 * asked for: from inside an active parallel region refused under SINGLE and
 * MASTERONLY, from a worker thread under FUNNELED too, nothing under MULTIPLE
 * (refused before any MPI call is made, so nothing can hang). */
static void test_masteronly_check(hk_thread_level_t level)
{
  const char *on = getenv("HK_CHECK_MASTERONLY");
  int enabled = on && !strcmp(on, "1");
  int region_rule = enabled && level <= HK_THREAD_MASTERONLY;
  enabled = enabled && level <= HK_THREAD_FUNNELED; /* the worker-thread rule */
  CHECK_EQ_INT(hk_check_masteronly("outside"), HK_SUCCESS);
  int in_region = HK_SUCCESS, active = 0;
  hk_stats_t st;
#pragma omp parallel
  {
#pragma omp master
    {
      active = omp_in_parallel();
      in_region = hk_stats_reduce(MPI_COMM_WORLD, 1.0, &st);
    }
  }
  /* a region of one thread is not active: that is legal under MASTERONLY */
  if (region_rule && active) {
    CHECK_EQ_INT(in_region, HK_ERR_MASTERONLY);
    CHECK_CONTAINS(hk_error_message(), "MASTERONLY violated");
  } else {
    CHECK_EQ_INT(in_region, HK_SUCCESS);
  }
  int other = HK_SUCCESS, named = 0;
#pragma omp parallel
  {
    if (omp_get_thread_num() == omp_get_num_threads() - 1 && omp_get_thread_num() > 0) {
      other = hk_check_masteronly("a worker thread");
      named = strstr(hk_error_message(), "FUNNELED violated by a worker thread") != NULL;
    }
  }
  CHECK_EQ_INT(other, enabled && omp_get_max_threads() > 1 ? HK_ERR_MASTERONLY : HK_SUCCESS);
  if (enabled && omp_get_max_threads() > 1 && level == HK_THREAD_FUNNELED)
    CHECK(named); /* the message (per thread) names the rule */
}

int main(int argc, char **argv)
{
  const char *level = "funneled", *preinit = NULL, *expect = "ok";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--level")) level = argv[i + 1];
    else if (!strcmp(argv[i], "--preinit")) preinit = argv[i + 1];
    else if (!strcmp(argv[i], "--expect")) expect = argv[i + 1];
  }
  if (preinit) {
    int provided;
    MPI_Init_thread(&argc, &argv, mpi_level(preinit), &provided);
  }
  hk_thread_level_t want;
  if (hk_thread_level_parse(level, &want) != HK_SUCCESS) {
    fprintf(stderr, "test_env: %s\n", hk_error_message());
    return 2;
  }
  int err = hk_init(&argc, &argv, want);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_test_rank = rank;
  hk_thread_level_t req, prov;
  CHECK_EQ_INT(hk_thread_levels(&req, &prov), HK_SUCCESS);
  CHECK_EQ_INT(req, want);
  if (!strcmp(expect, "thread-level")) {
    CHECK_EQ_INT(err, HK_ERR_THREAD_LEVEL);
    char part[96];
    snprintf(part, sizeof part, "thread level %s needs", level);
    CHECK_CONTAINS(hk_error_message(), part);
    if (preinit) {
      char upper[32];
      snprintf(upper, sizeof upper, "%s", preinit);
      for (char *p = upper; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
      snprintf(part, sizeof part, "provides MPI_THREAD_%s", upper);
      CHECK_CONTAINS(hk_error_message(), part);
    }
    CHECK(prov < want);
  } else {
    CHECK_EQ_INT(err, HK_SUCCESS);
    if (err != HK_SUCCESS && rank == 0)
      fprintf(stderr, "hk_init: %s\n", hk_error_message());
    CHECK(prov >= want);
    CHECK_EQ_INT(hk_require_thread_level(want, "this test"), HK_SUCCESS);
    if (want == HK_THREAD_MASTERONLY && preinit && !strcmp(preinit, "single"))
      CHECK_EQ_INT(prov, HK_THREAD_MASTERONLY);
    if (prov < HK_THREAD_MULTIPLE) {
      CHECK_EQ_INT(hk_require_thread_level(HK_THREAD_MULTIPLE, "the multiple mode"),
                   HK_ERR_THREAD_LEVEL);
      CHECK_CONTAINS(hk_error_message(), "the multiple mode needs thread level multiple");
    }
    CHECK_EQ_INT(hk_init(&argc, &argv, want), HK_ERR_STATE); /* twice */
    test_agree_and_timing(rank, size);
    test_masteronly_check(want);
  }
  int rc = hk_test_mpi_report("test_env");
  CHECK_EQ_INT(hk_finalize(), HK_SUCCESS);
  if (preinit)
    MPI_Finalize();
  return rc;
}
