/* tests/unit/test_coll_table_kinds.c: version 2 of the tuning table (one table per
 * collective, src/coll/config.c): what it accepts, what it refuses and the reason it
 * names; version 1 still the allreduce's.  Expected rows written out by hand. */
#include <string.h>
#include "hk_test.h"
#include "coll/coll_internal.h"

/* config.c, for tests */
int hk__coll_parse_tables(const char *text, hk__coll_config_t out[HK__COLL_KINDS], char *why,
                          size_t nwhy);

#define V2 "{\"format\": \"hybridkit-coll-tuning\", \"version\": 2, "
#define ROW1 "{\"rows\": [{\"max_bytes\": null, \"algorithm\": \"mpi\"}]}"

static hk__coll_config_t k[HK__COLL_KINDS];
static char why[256];

static int parse(const char *text)
{
  memset(k, 0x5a, sizeof k); /* nothing left over from an earlier parse */
  why[0] = '\0';
  return hk__coll_parse_tables(text, k, why, sizeof why);
}

static void refused(const char *text, const char *reason)
{
  CHECK_EQ_INT(parse(text), HK_ERR_ARG);
  CHECK_CONTAINS(why, reason);
  for (int i = 0; i < HK__COLL_KINDS; i++) { /* no kind keeps a part of it */
    CHECK_EQ_INT(k[i].nrows, 0);
    CHECK_EQ_INT(k[i].table_min_bytes, -1);
  }
}

int main(void)
{
  /* the format `hybridkit tune` writes: a subset of the kinds, other keys ignored */
  CHECK_EQ_INT(parse(V2 "\"measured\": [1, 2], \"machine\": {\"cores\": 2}, \"collectives\": {"
                     "\"allreduce\": {\"min_bytes\": 16384, \"rows\": ["
                     "{\"max_bytes\": 8192, \"algorithm\": \"mpi\", \"threads\": 1},"
                     "{\"max_bytes\": null, \"algorithm\": \"chunked\", \"threads\": 2}]},"
                     "\"reduce\": {\"rows\": [{\"max_bytes\": 100, \"algorithm\": \"chunked-shifted\","
                     " \"threads\": 3}]},"
                     "\"alltoall\": {\"min_bytes\": 0, \"predicted\": 1.5, \"rows\": ["
                     "{\"max_bytes\": 10, \"algorithm\": \"hierarchical\"},"
                     "{\"max_bytes\": 20, \"algorithm\": \"mpi\"}]}}}"),
               HK_SUCCESS);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].nrows, 2);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].table_min_bytes, 16384);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].rows[0].max_bytes, 8192);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].rows[0].alg, HK_ALLREDUCE_MPI);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].rows[1].max_bytes, -1);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].rows[1].alg, HK_ALLREDUCE_CHUNKED);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].rows[1].threads, 2);
  CHECK_EQ_INT(k[HK__COLL_REDUCE].nrows, 1);
  CHECK_EQ_INT(k[HK__COLL_REDUCE].table_min_bytes, -1); /* absent: none */
  CHECK_EQ_INT(k[HK__COLL_REDUCE].rows[0].alg, HK_ALLREDUCE_CHUNKED_SHIFTED);
  CHECK_EQ_INT(k[HK__COLL_REDUCE].rows[0].threads, 3);
  CHECK_EQ_INT(k[HK__COLL_ALLTOALL].nrows, 2);
  CHECK_EQ_INT(k[HK__COLL_ALLTOALL].table_min_bytes, 0);
  CHECK_EQ_INT(k[HK__COLL_ALLTOALL].rows[0].alg, HK_ALLREDUCE_HIERARCHICAL);
  CHECK_EQ_INT(k[HK__COLL_ALLTOALL].rows[0].threads, 1);
  CHECK_EQ_INT(k[HK__COLL_ALLTOALL].rows[1].max_bytes, 20);
  /* the kinds not named: no table */
  CHECK_EQ_INT(k[HK__COLL_REDUCE_SCATTER].nrows, 0);
  CHECK_EQ_INT(k[HK__COLL_BCAST].nrows, 0);
  CHECK_EQ_INT(k[HK__COLL_ALLGATHER].nrows, 0);
  CHECK_EQ_INT(k[HK__COLL_ALLGATHER].table_min_bytes, -1);
  /* every kind by its name */
  CHECK_EQ_INT(parse(V2 "\"collectives\": {\"reduce_scatter\": " ROW1 ", \"bcast\": " ROW1
                     ", \"allgather\": " ROW1 ", \"scan\": " ROW1 ", \"exscan\": " ROW1
                     ", \"alltoallv\": " ROW1 "}}"),
               HK_SUCCESS);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].nrows, 0);
  CHECK_EQ_INT(k[HK__COLL_REDUCE].nrows, 0);
  CHECK_EQ_INT(k[HK__COLL_REDUCE_SCATTER].nrows, 1);
  CHECK_EQ_INT(k[HK__COLL_BCAST].nrows, 1);
  CHECK_EQ_INT(k[HK__COLL_ALLGATHER].nrows, 1);
  CHECK_EQ_INT(k[HK__COLL_ALLTOALL].nrows, 0);
  CHECK_EQ_INT(k[HK__COLL_SCAN].nrows, 1);
  CHECK_EQ_INT(k[HK__COLL_EXSCAN].nrows, 1);
  CHECK_EQ_INT(k[HK__COLL_ALLTOALLV].nrows, 1);
  /* no collective at all: accepted, no table */
  CHECK_EQ_INT(parse(V2 "\"collectives\": {}}"), HK_SUCCESS);
  for (int i = 0; i < HK__COLL_KINDS; i++)
    CHECK_EQ_INT(k[i].nrows, 0);
  /* version 1: the allreduce's, the others none */
  CHECK_EQ_INT(parse("{\"format\": \"hybridkit-allreduce-tuning\", \"version\": 1, \"min_bytes\": 7, "
                     "\"rows\": [{\"max_bytes\": 1, \"algorithm\": \"mpi\"},"
                     "{\"max_bytes\": null, \"algorithm\": \"hierarchical\", \"threads\": 2}]}"),
               HK_SUCCESS);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].nrows, 2);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].table_min_bytes, 7);
  CHECK_EQ_INT(k[HK__COLL_ALLREDUCE].rows[1].alg, HK_ALLREDUCE_HIERARCHICAL);
  for (int i = 1; i < HK__COLL_KINDS; i++)
    CHECK_EQ_INT(k[i].nrows, 0);
  /* hk__coll_parse_table: version 2's allreduce */
  hk__coll_config_t one;
  memset(&one, 0, sizeof one);
  CHECK_EQ_INT(hk__coll_parse_table(V2 "\"collectives\": {\"allreduce\": " ROW1 "}}", &one, why,
                                    sizeof why), HK_SUCCESS);
  CHECK_EQ_INT(one.nrows, 1);
  CHECK_EQ_INT(one.rows[0].alg, HK_ALLREDUCE_MPI);

  /* refused, with the collective named; one bad kind refuses the whole table */
  refused(V2 "\"collectives\": {\"reduce\": " ROW1 ", \"gatherv\": " ROW1 "}}",
          "collectives: unknown collective 'gatherv'");
  refused(V2 "\"collectives\": {\"allreduce\": " ROW1 ", \"bcast\": {\"rows\": []}}}",
          "collectives.bcast: rows must be a non-empty array");
  refused(V2 "\"collectives\": {\"allgather\": {\"rows\": [{\"max_bytes\": 8, \"algorithm\": "
          "\"ring\"}]}}}", "collectives.allgather: rows[0]: unknown algorithm 'ring'");
  refused(V2 "\"collectives\": {\"reduce\": {\"rows\": [{\"max_bytes\": 64, \"algorithm\": \"mpi\"},"
          "{\"max_bytes\": 64, \"algorithm\": \"chunked\"}]}}}",
          "collectives.reduce: rows[1]: max_bytes must increase");
  refused(V2 "\"collectives\": {\"alltoall\": {\"min_bytes\": \"1k\", \"rows\": []}}}",
          "collectives.alltoall: min_bytes must be an integer or null");
  refused(V2 "\"collectives\": {\"reduce_scatter\": {\"rows\": [{\"max_bytes\": 8, \"algorithm\": "
          "\"mpi\", \"threads\": 0}]}}}", "collectives.reduce_scatter: rows[0]: threads must be 1..64");
  refused(V2 "\"collectives\": {\"bcast\": [1]}}", "collectives.bcast: needs {\"rows\"");
  refused(V2 "\"collectives\": [1]}", "needs \"collectives\"");
  refused(V2 "\"rows\": []}", "needs \"collectives\"");
  refused("{\"format\": \"hybridkit-coll-tuning\", \"version\": 1, \"collectives\": {}}",
          "needs \"version\": 2");
  refused("{\"format\": \"hybridkit-coll-tuning\", \"collectives\": {}}", "needs \"version\": 2");
  refused(V2 "\"collectives\": {\"reduce\": " ROW1 ", \"reduce\": " ROW1 "}}", "at byte");
  refused("{\"format\": \"other\", \"collectives\": {}}", "needs \"format\"");
  return hk_test_report("coll tuning table, version 2");
}
