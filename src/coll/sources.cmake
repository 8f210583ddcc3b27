# Hybrid collectives (issue 5): hk_allreduce and its algorithms.
list(APPEND HK_LIB_SOURCES
  src/coll/config.c
  src/coll/cache.c
  src/coll/chunked.c
  src/coll/hierarchical.c
  src/coll/allreduce.c
  src/coll/reduce.c
  src/coll/reduce_node.c
  src/coll/decide.c
  src/coll/bcast.c
  src/coll/gather.c
  src/coll/gather_node.c
  src/coll/numa.c
  src/coll/scan.c
  src/coll/vcoll.c
  src/coll/alltoallv.c)
