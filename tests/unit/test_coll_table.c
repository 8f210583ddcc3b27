/* tests/unit/test_coll_table.c: the tuning table of the hybrid collectives
 * (src/coll/config.c, read with jansson): what it accepts, what it refuses and
 * the reason it names.  Expected rows written out by hand from each text. */
#include <string.h>
#include "hk_test.h"
#include "coll/coll_internal.h"

#define HEAD "{\"format\": \"hybridkit-allreduce-tuning\", \"version\": 1, "

static hk__coll_config_t cfg;
static char why[256];

static int parse(const char *text)
{
  memset(&cfg, 0, sizeof cfg);
  why[0] = '\0';
  return hk__coll_parse_table(text, &cfg, why, sizeof why);
}

static void refused(const char *text, const char *reason)
{
  CHECK_EQ_INT(parse(text), HK_ERR_ARG);
  CHECK_CONTAINS(why, reason);
  CHECK_EQ_INT(cfg.nrows, 0); /* a refused table is not used, not even in part */
}

int main(void)
{
  /* the format `hybridkit tune allreduce` writes; other keys ignored; null last */
  CHECK_EQ_INT(parse(HEAD "\"min_bytes\": 4097, \"machine\": {\"cores\": [1, 2]}, \"rows\": ["
                     "{\"max_bytes\": 1024, \"algorithm\": \"mpi\"},"
                     "{\"max_bytes\": 65536, \"algorithm\": \"chunked-shifted\", \"threads\": 2},"
                     "{\"max_bytes\": null, \"algorithm\": \"hierarchical\", \"threads\": 4}]}"),
               HK_SUCCESS);
  CHECK_EQ_INT(cfg.nrows, 3);
  CHECK_EQ_INT(cfg.table_min_bytes, 4097);
  CHECK_EQ_INT(cfg.rows[0].max_bytes, 1024);
  CHECK_EQ_INT(cfg.rows[0].alg, HK_ALLREDUCE_MPI);
  CHECK_EQ_INT(cfg.rows[0].threads, 1); /* threads default to 1 */
  CHECK_EQ_INT(cfg.rows[1].alg, HK_ALLREDUCE_CHUNKED_SHIFTED);
  CHECK_EQ_INT(cfg.rows[1].threads, 2);
  CHECK_EQ_INT(cfg.rows[2].max_bytes, -1);
  CHECK_EQ_INT(cfg.rows[2].alg, HK_ALLREDUCE_HIERARCHICAL);
  CHECK_EQ_INT(cfg.rows[2].threads, 4);
  /* min_bytes null or negative: none from the table */
  CHECK_EQ_INT(parse(HEAD "\"min_bytes\": null, \"rows\": [{\"max_bytes\": 8, \"algorithm\": \"mpi\"}]}"),
               HK_SUCCESS);
  CHECK_EQ_INT(cfg.table_min_bytes, -1);
  CHECK_EQ_INT(parse(HEAD "\"min_bytes\": -5, \"rows\": [{\"max_bytes\": 8, \"algorithm\": \"mpi\"}]}"),
               HK_SUCCESS);
  CHECK_EQ_INT(cfg.table_min_bytes, -1);

  refused("{\"format\": \"hybridkit-allreduce-tuning\", \"rows\": [", "at byte");
  refused("", "at byte");
  refused(HEAD "\"rows\": []} trailing", "at byte");
  refused("[1, 2]", "needs \"format\"");
  refused(HEAD "\"rows\": [{\"max_bytes\": 8, \"algorithm\": \"mpi\"}], \"rows\": []}", "at byte");
  refused("{\"format\": \"other\", \"rows\": [{\"max_bytes\": 8, \"algorithm\": \"mpi\"}]}",
          "format is not hybridkit-allreduce-tuning");
  refused(HEAD "\"rows\": []}", "non-empty array");
  refused(HEAD "\"rows\": [{\"max_bytes\": 8}]}", "rows[0]: a row needs max_bytes and algorithm");
  refused(HEAD "\"rows\": [{\"max_bytes\": 8, \"algorithm\": \"ring\"}]}",
          "rows[0]: unknown algorithm 'ring'");
  refused(HEAD "\"rows\": [{\"max_bytes\": 8, \"algorithm\": \"auto\"}]}", "unknown algorithm 'auto'");
  refused(HEAD "\"rows\": [{\"max_bytes\": 8.5, \"algorithm\": \"mpi\"}]}", "integer >= 0 or null");
  refused(HEAD "\"rows\": [{\"max_bytes\": -1, \"algorithm\": \"mpi\"}]}", "integer >= 0 or null");
  refused(HEAD "\"rows\": [{\"max_bytes\": 8, \"algorithm\": \"mpi\", \"threads\": 65}]}",
          "threads must be 1..64");
  refused(HEAD "\"rows\": [{\"max_bytes\": 8, \"algorithm\": \"mpi\", \"threads\": 0}]}",
          "threads must be 1..64");
  refused(HEAD "\"rows\": [{\"max_bytes\": 64, \"algorithm\": \"mpi\"},"
               "{\"max_bytes\": 64, \"algorithm\": \"chunked\"}]}",
          "rows[1]: max_bytes must increase");
  refused(HEAD "\"rows\": [{\"max_bytes\": null, \"algorithm\": \"mpi\"},"
               "{\"max_bytes\": 64, \"algorithm\": \"chunked\"}]}",
          "null only last");
  refused(HEAD "\"min_bytes\": \"16k\", \"rows\": [{\"max_bytes\": 8, \"algorithm\": \"mpi\"}]}",
          "min_bytes must be an integer or null");
  /* 65 rows: one more than the table holds */
  char big[8192];
  size_t n = (size_t)snprintf(big, sizeof big, HEAD "\"rows\": [");
  for (int i = 0; i <= HK_COLL_MAX_ROWS; i++)
    n += (size_t)snprintf(big + n, sizeof big - n, "%s{\"max_bytes\": %d, \"algorithm\": \"mpi\"}",
                          i ? "," : "", i + 1);
  snprintf(big + n, sizeof big - n, "]}");
  refused(big, "more than 64 rows");
  return hk_test_report("coll tuning table");
}
