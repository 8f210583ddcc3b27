/* tests/mpi/test_record_kind.c: a record cannot hang a job, and declared kinds.
 *
 * A local failure on one rank (a bad field there only, or the test hook
 * HK_TEST_RECORD_FAIL=RANK:FIELD) leaves the later field calls no-ops on that rank
 * while every hk_record_stats still reduces on every rank; the emit returns the
 * error on all ranks, named by the failing rank.  A hang here is caught by the
 * ctest TIMEOUT.  Declared kinds: fields are checked against the declaration
 * (name, type, unit, reduction, completeness at emit), and inconsistent
 * declarations are refused by hk_kind_check.
 *   test_record_kind OUTPUT.jsonl */
#include <stdlib.h>
#include <string.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

static const hk_field_decl_t fields[] = {
  {"mode", HK_FIELD_PARAM_STR, NULL, HK_RANKS_SAME, HK_PHASE_NO, 0, "the mode"},
  {"rate", HK_FIELD_VALUE, "MLUP/s", HK_RANKS_SAME, HK_PHASE_NO, 0, "the headline"},
  {"time", HK_FIELD_STATS, "s", HK_RANKS_MIN_AVG_MAX, HK_PHASE_NO, 0, "time per iteration"},
  {"comm", HK_FIELD_STATS, "s", HK_RANKS_MIN_AVG_MAX, HK_PHASE_YES, 0, "communication"},
  {"work", HK_FIELD_STATS, "s", HK_RANKS_MIN_AVG_MAX, HK_PHASE_YES, 0, "computation"},
  {"rest", HK_FIELD_STATS, "s", HK_RANKS_MIN_AVG_MAX, HK_PHASE_REST, 0, "the rest"},
  {"note", HK_FIELD_VALUE_INT, NULL, HK_RANKS_SAME, HK_PHASE_NO, 1, "optional count"},
};
static const hk_kind_decl_t kind = {.kind = "test.kind", .caption = "a test kind",
                                    .metric = "rate", .better = "higher", .time = "time",
                                    .fields = fields, .nfields = 7};

/* stats calls after a failure on the last rank only: each must still reduce */
static void local_failure(hk_reporter_t *rep, int rank, int size)
{
  hk_record_t *r = NULL;
  CHECK_EQ_INT(hk_record_create(rep, "test.fail", &r), HK_SUCCESS);
  char longname[80];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  int e = hk_record_param_int(r, rank == size - 1 ? longname : "n", 1);
  CHECK_EQ_INT(e, rank == size - 1 ? HK_ERR_ARG : HK_SUCCESS);
  for (int i = 0; i < 3; i++)
    hk_record_stats(r, i == 0 ? "a" : i == 1 ? "b" : "c", 1.0 + rank, "s");
  CHECK_EQ_INT(hk_record_emit(&r), HK_ERR_ARG);
  CHECK(r == NULL);
  if (size > 1)
    CHECK_CONTAINS(hk_error_message(), "rank ");
  CHECK_CONTAINS(hk_error_message(), "a field name (1-63 chars) is required");
}

/* the test hook: rank size-1 fails adding "b" as if out of memory */
static void hook_failure(const char *out, int rank, int size)
{
  char hook[32];
  snprintf(hook, sizeof hook, "%d:b", size - 1);
  setenv("HK_TEST_RECORD_FAIL", hook, 1);
  hk_reporter_t *rep = NULL;
  hk_reporter_desc_t d = {.program = "test_record_kind", .output = out, .no_table = 1};
  CHECK_EQ_INT(hk_reporter_create(MPI_COMM_WORLD, &d, &rep), HK_SUCCESS);
  hk_record_t *r = NULL;
  hk_record_create(rep, "test.hook", &r);
  hk_record_stats(r, "a", 1.0, "s");
  int e = hk_record_stats(r, "b", 1.0, "s");
  CHECK_EQ_INT(e, rank == size - 1 ? HK_ERR_NOMEM : HK_SUCCESS);
  hk_record_stats(r, "c", 1.0, "s");
  CHECK_EQ_INT(hk_record_emit(&r), HK_ERR_NOMEM);
  CHECK_CONTAINS(hk_error_message(), "out of memory adding 'b' (test hook HK_TEST_RECORD_FAIL)");
  unsetenv("HK_TEST_RECORD_FAIL");
  CHECK_EQ_INT(hk_reporter_destroy(&rep), HK_SUCCESS);
}

static void declared(hk_reporter_t *rep)
{
  hk_record_t *r = NULL;
  /* complete and right: written */
  CHECK_EQ_INT(hk_record_create_declared(rep, &kind, &r), HK_SUCCESS);
  hk_record_param_str(r, "mode", "pure");
  hk_record_value(r, "rate", 12.5, NULL); /* the declared unit is used */
  hk_record_stats(r, "time", 1.0, "s");
  hk_record_stats(r, "comm", 0.25, "s");
  hk_record_stats(r, "work", 0.5, "s");
  hk_record_stats(r, "rest", 0.25, "s");
  CHECK_EQ_INT(hk_record_emit(&r), HK_SUCCESS);
  if (hk_test_failures)
    fprintf(stderr, "%s\n", hk_error_message());
  /* each kind of mistake fails the record on every rank */
  const char *const expect[] = {"not declared", "in 'MLUP/s', not 'GB/s'", "declared as stats",
                                "lacks its field 'rest'"};
  for (int c = 0; c < 4; c++) {
    CHECK_EQ_INT(hk_record_create_declared(rep, &kind, &r), HK_SUCCESS);
    hk_record_param_str(r, "mode", "pure");
    hk_record_value(r, "rate", 1.0, c == 1 ? "GB/s" : "MLUP/s");
    if (c == 0)
      hk_record_value(r, "bogus", 1.0, NULL);
    if (c == 2)
      hk_record_value(r, "time", 1.0, "s");
    hk_record_stats(r, "time", 1.0, "s");
    hk_record_stats(r, "comm", 0.5, "s");
    hk_record_stats(r, "work", 0.5, "s");
    if (c != 3)
      hk_record_stats(r, "rest", 0.0, "s");
    CHECK_EQ_INT(hk_record_emit(&r), HK_ERR_ARG);
    CHECK_CONTAINS(hk_error_message(), expect[c]);
  }
  /* a field the program reduces itself cannot be reduced by the reporter */
  static const hk_field_decl_t given[] = {
    {"t", HK_FIELD_STATS, "s", HK_RANKS_GIVEN, HK_PHASE_NO, 0, "given"}};
  hk_kind_decl_t k2 = {.kind = "test.given", .caption = "c", .fields = given, .nfields = 1};
  hk_stats_t st = {1, 1, 1};
  CHECK_EQ_INT(hk_record_create_declared(rep, &k2, &r), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_stats(r, "t", 1.0, "s"), HK_ERR_ARG);
  CHECK_EQ_INT(hk_record_emit(&r), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "not reduced over the ranks");
  CHECK_EQ_INT(hk_record_create_declared(rep, &k2, &r), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_stats_given(r, "t", &st, "s"), HK_SUCCESS);
  CHECK_EQ_INT(hk_record_emit(&r), HK_SUCCESS);
}

/* inconsistent declarations are refused */
static void bad_declarations(void)
{
  hk_field_decl_t f[3];
  hk_kind_decl_t k = kind;
  CHECK_EQ_INT(hk_kind_check(&kind), HK_SUCCESS);
  k.fields = f;
  k.nfields = 3;
  k.metric = NULL;
  k.time = "t";
  for (int c = 0; c < 6; c++) {
    f[0] = (hk_field_decl_t){"t", HK_FIELD_STATS, "s", HK_RANKS_MIN_AVG_MAX, HK_PHASE_NO, 0, "t"};
    f[1] = (hk_field_decl_t){"p", HK_FIELD_STATS, "s", HK_RANKS_MIN_AVG_MAX, HK_PHASE_YES, 0, "p"};
    f[2] = (hk_field_decl_t){"q", HK_FIELD_STATS, "s", HK_RANKS_MIN_AVG_MAX, HK_PHASE_REST, 0, "q"};
    if (c == 0)
      f[1].unit = "B"; /* a phase in another unit than the time */
    if (c == 1)
      f[1].phase = HK_PHASE_REST; /* two rests */
    if (c == 2)
      f[2].name = "p"; /* declared twice */
    if (c == 3)
      f[1].ranks = HK_RANKS_SAME; /* stats not over ranks */
    if (c == 4)
      k.time = "nothing";
    if (c == 5) {
      k.time = "t";
      f[1].type = HK_FIELD_VALUE; /* a phase that is not stats */
      f[1].ranks = HK_RANKS_SAME;
    }
    CHECK_EQ_INT(hk_kind_check(&k), HK_ERR_ARG);
  }
  /* the schema: the declaration, phases in order, the rest named */
  FILE *t = tmpfile();
  CHECK(t != NULL);
  CHECK_EQ_INT(hk_kind_schema_write(&kind, t), HK_SUCCESS);
  char buf[8192] = "";
  rewind(t);
  size_t n = fread(buf, 1, sizeof buf - 1, t);
  buf[n] = '\0';
  fclose(t);
  CHECK_CONTAINS(buf, "\"x-phases\":[\"comm\",\"work\",\"rest\"]");
  CHECK_CONTAINS(buf, "\"x-rest\":\"rest\"");
  CHECK_CONTAINS(buf, "\"unit\":{\"const\":\"MLUP/s\"}");
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_record_kind OUTPUT.jsonl\n");
    return 2;
  }
  hk_init(&argc, &argv, HK_THREAD_FUNNELED);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_test_rank = rank;
  if (rank == 0)
    remove(argv[1]);
  MPI_Barrier(MPI_COMM_WORLD);
  hk_reporter_t *rep = NULL;
  hk_reporter_desc_t d = {.program = "test_record_kind", .output = argv[1], .no_table = 1};
  CHECK_EQ_INT(hk_reporter_create(MPI_COMM_WORLD, &d, &rep), HK_SUCCESS);
  local_failure(rep, rank, size);
  declared(rep);
  CHECK_EQ_INT(hk_reporter_destroy(&rep), HK_SUCCESS);
  hook_failure(argv[1], rank, size);
  bad_declarations();
  int rc = hk_test_mpi_report("test_record_kind");
  hk_finalize();
  return rc;
}
