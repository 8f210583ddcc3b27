/* tests/mpi/test_record.c: the reporter writes a table and JSON Lines from the
 * same records; bad input is refused on every rank.  The JSONL it writes is
 * validated against the schema by the ctest that follows (records.schema.*).
 *   test_record OUTPUT.jsonl */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

static int count_lines(const char *path)
{
  FILE *f = fopen(path, "r");
  int n = 0, c;
  if (!f)
    return -1;
  while ((c = fgetc(f)) != EOF)
    n += c == '\n';
  fclose(f);
  return n;
}

/* a reporter without communicator (what a PMPI tool uses after MPI_Finalize): the
 * provenance from the facts given, its records written at once, no reduction */
static void local_reporter(const char *out, int size)
{
  hk_binding_entry_t e[8];
  int n = size < 8 ? size : 8;
  for (int i = 0; i < n; i++)
    e[i] = (hk_binding_entry_t){.rank = i, .node = 0, .host = "h0", .cpuset = "0", .cpu = 0};
  hk_binding_t b = {.nentries = n, .entries = e};
  hk_provenance_facts_t f = {.mpi_library = "test MPI", .requested = HK_THREAD_FUNNELED,
                             .provided = HK_THREAD_MULTIPLE, .ranks = n, .threads_per_rank = 1,
                             .nodes = 1, .binding = &b};
  hk_reporter_desc_t d = {.program = "test_record", .output = out, .no_table = 1};
  hk_reporter_t *rep = NULL;
  hk_provenance_facts_t nobind = f;
  nobind.binding = NULL;
  CHECK_EQ_INT(hk_reporter_create_local(&d, &nobind, &rep), HK_ERR_ARG);
  CHECK(rep == NULL);
  CHECK_EQ_INT(hk_reporter_create_local(&d, &f, &rep), HK_SUCCESS);
  hk_record_t *r = NULL;
  CHECK_EQ_INT(hk_record_create(rep, "test.local", &r), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_stats(r, "time", 1.0, "s"), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "local reporter has no ranks");
  CHECK_EQ_INT(hk_record_emit(&r), HK_ERR_ARG);
  CHECK_EQ_INT(hk_record_create(rep, "test.local", &r), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_param_int(r, "procs", n), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_stats_given(r, "time", &(hk_stats_t){1.0, 2.0, 3.0}, "s"), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_emit(&r), HK_SUCCESS);
  CHECK(hk_reporter_binding(rep) == &b);
  CHECK_EQ_INT(hk_reporter_destroy(&rep), HK_SUCCESS);
  CHECK_EQ_INT(count_lines(out), 4);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_record OUTPUT.jsonl\n");
    return 2;
  }
  hk_init(&argc, &argv, HK_THREAD_FUNNELED);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_test_rank = rank;
  const char *out = argv[1];
  if (rank == 0)
    remove(out);
  MPI_Barrier(MPI_COMM_WORLD);

  /* no such directory: HK_ERR_IO on every rank, not just rank 0 */
  hk_reporter_t *rep = NULL;
  hk_reporter_desc_t bad = {.program = "test_record", .output = "/nonexistent/dir/x.jsonl"};
  CHECK_EQ_INT(hk_reporter_create(MPI_COMM_WORLD, &bad, &rep), HK_ERR_IO);
  CHECK_CONTAINS(hk_error_message(), "cannot open output '/nonexistent/dir/x.jsonl'");
  CHECK(rep == NULL);

  hk_reporter_desc_t d = {.program = "test_record", .output = out};
  CHECK_EQ_INT(hk_reporter_create(MPI_COMM_WORLD, &d, &rep), HK_SUCCESS);
  CHECK_EQ_INT(hk_reporter_config(rep, "size", "%d^3", 64), HK_SUCCESS);
  for (int size_kib = 1; size_kib <= 4; size_kib *= 2) {
    hk_record_t *r = NULL;
    CHECK_EQ_INT(hk_record_create(rep, "test.sweep", &r), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_param_int(r, "size", size_kib * 1024), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_param_str(r, "mode", "pure"), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_param_double(r, "ratio", 0.25), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_stats(r, "time", 1e-3 * (rank + 1), "s"), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_value(r, "bandwidth", 1.5e9, "B/s"), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_value_int(r, "messages", 6, NULL), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_warning(r, "size %d KiB is tiny", size_kib), HK_SUCCESS);
    CHECK_EQ_INT(hk_record_emit(&r), HK_SUCCESS);
    CHECK(r == NULL);
  }
  hk_record_t *r = NULL;
  /* a field added twice fails the record: later calls are no-ops returning that
   * error, and the emit returns it on every rank and writes nothing */
  CHECK_EQ_INT(hk_record_create(rep, "test.twice", &r), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_param_int(r, "size", 1), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_param_int(r, "size", 1), HK_ERR_ARG);
  CHECK_EQ_INT(hk_record_value(r, "bandwidth", 1.0, "B/s"), HK_ERR_ARG);
  CHECK_EQ_INT(hk_record_stats(r, "time", 1.0, "s"), HK_ERR_ARG);
  CHECK_EQ_INT(hk_record_emit(&r), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "field 'size' added twice");
  CHECK(r == NULL);
  /* a record that cannot be created is still a handle the calls accept */
  CHECK_EQ_INT(hk_record_create(rep, "Bad Kind", &r), HK_ERR_ARG);
  CHECK(r != NULL);
  CHECK_EQ_INT(hk_record_stats(r, "time", 1.0, "s"), HK_ERR_ARG);
  CHECK_EQ_INT(hk_record_emit(&r), HK_ERR_ARG);
  CHECK(r == NULL);
  CHECK_EQ_INT(hk_record_create(rep, "test.nan", &r), HK_SUCCESS);
  /* a non-finite per-rank quantity is a bug upstream: refused, on every rank */
  CHECK_EQ_INT(hk_record_stats(r, "time", rank == size - 1 ? NAN : 1.0, "s"), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "not finite");
  hk_record_discard(&r);
  CHECK(hk_reporter_binding(rep) != NULL);
  CHECK_EQ_INT(hk_reporter_destroy(&rep), HK_SUCCESS);
  CHECK(rep == NULL);
  if (rank == 0)
    CHECK_EQ_INT(count_lines(out), 3);
  if (rank == 0) /* local: no MPI call, the line validates like the others */
    local_reporter(out, size);
  int rc = hk_test_mpi_report("test_record");
  hk_finalize();
  return rc;
}
