# ---- hk_bcast (issue 39): every algorithm forced and auto against the values the root
# wrote (tests/coll/bcast_conformance.c: int, double, char, contiguous and vector types, counts
# 0 .. 65537 and 1 << 20 doubles, every root, omp single and every thread in turn,
# sub-communicators with different numbers of calls, interleaved with hk_allreduce / hk_reduce,
# the fallback reasons certain from the inputs)
hk_test_exe(coll_bcast_conformance coll/bcast_conformance.c)
set(BC $<TARGET_FILE:coll_bcast_conformance>)
hk_mpi_test(coll.bcast coll_bcast_conformance RANKS 1 2 3 4 THREADS 1 2 ENV ${COLL_ENV})
# FUNNELED: the chunked families fall back (thread-level), hierarchical runs one thread
hk_mpi_test(coll.bcast.funneled coll_bcast_conformance ARGS --level funneled RANKS 2 3
            THREADS 2 ENV ${COLL_ENV})
# virtual nodes: 2 nodes of 2 (the leaders' step), 3 ranks (does not divide:
# nodes), nodes of one rank
hk_mpi_test(coll.bcast.vnodes2 coll_bcast_conformance RANKS 3 4 THREADS 1 2
            ENV HK_NODE_SIZE=2 ${COLL_ENV})
hk_mpi_test(coll.bcast.vnodes1 coll_bcast_conformance RANKS 2 THREADS 2
            ENV HK_NODE_SIZE=1 ${COLL_ENV})
hk_expect_test(coll.bcast.fallback_named 0 "^fallbacks: .*thread-level [1-9][0-9]*.*datatype [1-9]"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} COMMAND ${BC} --level funneled)
# the hybrid algorithms ran (fallback none) at MULTIPLE
hk_expect_test(coll.bcast.ran_named 0 "^fallbacks: none [1-9]"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} COMMAND ${BC})
foreach(t coll.bcast.np1.t1 coll.bcast.np1.t2 coll.bcast.np2.t1 coll.bcast.np2.t2
          coll.bcast.np3.t1 coll.bcast.np3.t2 coll.bcast.np4.t1 coll.bcast.np4.t2
          coll.bcast.funneled.np2.t2 coll.bcast.funneled.np3.t2 coll.bcast.vnodes2.np3.t1
          coll.bcast.vnodes2.np3.t2 coll.bcast.vnodes2.np4.t1 coll.bcast.vnodes2.np4.t2
          coll.bcast.vnodes1.np2.t2 coll.bcast.fallback_named coll.bcast.ran_named)
  set_tests_properties(${t} PROPERTIES TIMEOUT 300)
endforeach()
