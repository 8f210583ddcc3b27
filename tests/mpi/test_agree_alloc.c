/* tests/mpi/test_agree_alloc.c CASE: one collective constructor of the library, run with
 * HK_TEST_ALLOC_FAIL=1:FUNC (set by ctest) so that rank 1's first allocation in FUNC fails.
 * Every rank must return the same code (HK_ERR_NOMEM), with the same one message
 * "rank 1: out of memory ... (test hook HK_TEST_ALLOC_FAIL)", and nobody may hang
 * (ctest TIMEOUT).  A rank that jumps to cleanup alone between two collectives leaves
 * the others waiting in the next one: the test then times out (issue 38).
 *
 *   test_agree_alloc cart|nodes|spmv|dsm|dsm_barrier|binding|allreduce|halo|time_loop|reporter
 * (dsm_barrier: a collective that is no constructor, HK_TEST_ALLOC_FAIL=1:hk_dsm_barrier) */
#include <stdlib.h>
#include <string.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

static int run_cart(void)
{
  hk_cart_desc_t d = {.dims = 2, .global = {64, 64, 1}};
  hk_cart_t *cart = NULL;
  int err = hk_cart_create(MPI_COMM_WORLD, NULL, &d, &cart);
  CHECK(cart == NULL);
  hk_cart_destroy(&cart);
  return err;
}

static int run_nodes(void)
{
  hk_nodes_t *nodes = NULL;
  int err = hk_nodes_create(MPI_COMM_WORLD, &nodes);
  CHECK(nodes == NULL);
  hk_nodes_destroy(&nodes);
  return err;
}

static int run_spmv(void)
{
  const char *spec = "laplace3d:6";
  long long n = 0, begin = 0;
  int rank, size, count = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_spmv_crs_t crs;
  memset(&crs, 0, sizeof crs);
  CHECK_EQ_INT(hk_spmv_generate_size(spec, &n), HK_SUCCESS);
  hk_spmv_block(n, size, rank, &begin, &count);
  CHECK_EQ_INT(hk_spmv_generate(spec, begin, count, &crs), HK_SUCCESS);
  hk_spmv_desc_t d = {.comm = MPI_COMM_WORLD, .crs = &crs, .format = HK_SPMV_CRS,
                      .mode = HK_MODE_PURE};
  hk_spmv_t *s = NULL;
  int err = hk_spmv_create(&d, &s);
  CHECK(s == NULL);
  hk_spmv_destroy(&s);
  hk_spmv_crs_free(&crs);
  return err;
}

static int run_dsm(void)
{
  hk_dsm_desc_t d = {.size = 1 << 16};
  hk_dsm_t *dsm = NULL;
  void *base = NULL;
  int err = hk_dsm_create(MPI_COMM_WORLD, &d, &dsm, &base);
  CHECK(dsm == NULL);
  hk_dsm_free(&dsm);
  return err;
}

/* a barrier after every rank wrote its page: rank 1 cannot take the others' notices */
static int run_dsm_barrier(void)
{
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t page = hk_dsm_page_size();
  hk_dsm_desc_t d = {.size = page * (size_t)size};
  hk_dsm_t *dsm = NULL;
  void *base = NULL;
  CHECK_EQ_INT(hk_dsm_create(MPI_COMM_WORLD, &d, &dsm, &base), HK_SUCCESS);
  if (!dsm)
    return HK_ERR_STATE;
  ((char *)base)[page * (size_t)rank] = 1;
  int err = hk_dsm_barrier(dsm);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", hk_error_message());
  CHECK_EQ_INT(hk_dsm_free(&dsm), HK_SUCCESS);
  hk_error_set(err, "%s", msg);
  return err;
}

static int run_binding(void)
{
  hk_binding_t *b = NULL;
  int err = hk_binding_report(MPI_COMM_WORLD, NULL, &b);
  CHECK(b == NULL);
  hk_binding_destroy(&b);
  return err;
}

static int run_allreduce(void)
{
  double in[64], out[64];
  for (int i = 0; i < 64; i++)
    in[i] = i;
  hk_allreduce_opts_t o = HK_ALLREDUCE_OPTS_DEFAULT;
  o.algorithm = HK_ALLREDUCE_HIERARCHICAL;
  o.min_bytes = 1;
  return hk_allreduce(in, out, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &o);
}

static int run_halo(void)
{
  hk_cart_desc_t cd = {.dims = 2, .global = {32, 32, 1}};
  hk_cart_t *cart = NULL;
  CHECK_EQ_INT(hk_cart_create(MPI_COMM_WORLD, NULL, &cd, &cart), HK_SUCCESS);
  hk_halo_desc_t hd = {.cart = cart, .width = 1, .mode = HK_MODE_PURE};
  hk_halo_t *h = NULL;
  int err = hk_halo_create(&hd, &h);
  CHECK(h == NULL);
  hk_halo_destroy(&h);
  hk_cart_destroy(&cart);
  return err;
}

static int run_reporter(void)
{
  hk_reporter_desc_t d = {.program = "test_agree_alloc", .no_table = 1};
  hk_reporter_t *rep = NULL;
  int err = hk_reporter_create(MPI_COMM_WORLD, &d, &rep);
  CHECK(rep == NULL);
  hk_reporter_destroy(&rep);
  return err;
}

static int fails_on_rank1(void *arg)
{
  (void)arg;
  int rank = 0, err = HK_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *p = NULL;
  HK_ALLOC_LOCAL(err, p, 16);
  free(p);
  return err;
}

static int run_time_loop(void)
{
  hk_timing_desc_t d = {.comm = MPI_COMM_WORLD, .warmup = 1, .iters = 2};
  hk_stats_t st;
  return hk_time_loop(&d, fails_on_rank1, NULL, &st);
}

static const struct {
  const char *name;
  int (*run)(void);
} cases[] = {
  {"cart", run_cart},       {"nodes", run_nodes},         {"spmv", run_spmv},
  {"dsm", run_dsm},         {"dsm_barrier", run_dsm_barrier}, {"binding", run_binding},     {"allreduce", run_allreduce},
  {"halo", run_halo},       {"time_loop", run_time_loop}, {"reporter", run_reporter},
};

int main(int argc, char **argv)
{
  int rank = 0, size = 1;
  if (hk_init(&argc, &argv, HK_THREAD_MULTIPLE) != HK_SUCCESS) {
    fprintf(stderr, "hk_init: %s\n", hk_error_message());
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_test_rank = rank;
  int (*run)(void) = NULL;
  for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
    if (!strcmp(argv[1], cases[i].name))
      run = cases[i].run;
  const char *hook = getenv("HK_TEST_ALLOC_FAIL");
  if (!run || size < 2 || !hook || strncmp(hook, "1:", 2) != 0) {
    if (rank == 0)
      fprintf(stderr, "usage: HK_TEST_ALLOC_FAIL=1:FUNC mpirun -n 2.. %s CASE\n", argv[0]);
    hk_finalize();
    return 2;
  }
  hk_error_clear();
  int err = run();

  /* the same code and the same one message on every rank */
  enum { MSG = 512 };
  char mine[MSG], *all = malloc((size_t)size * MSG);
  int *codes = malloc((size_t)size * sizeof *codes);
  snprintf(mine, sizeof mine, "%s", hk_error_message());
  MPI_Allgather(&err, 1, MPI_INT, codes, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgather(mine, MSG, MPI_CHAR, all, MSG, MPI_CHAR, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) {
    CHECK_EQ_INT(codes[r], HK_ERR_NOMEM);
    CHECK_STR(all + (size_t)r * MSG, all);
  }
  CHECK(strncmp(mine, "rank 1: out of memory", 21) == 0);
  CHECK_CONTAINS(mine, "(test hook HK_TEST_ALLOC_FAIL)");
  if (rank == 0)
    printf("%s (%s): %s\n", argv[1], hook, mine);
  free(all);
  free(codes);
  int rc = hk_test_mpi_report("agree_alloc");
  hk_finalize();
  return rc;
}
