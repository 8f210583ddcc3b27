# ---- hk_allgather and hk_alltoall (issue 39): every algorithm forced and auto against the
# values the program wrote (tests/coll/gather_conformance.c: int, double, char, contiguous
# and vector types, different send / receive types, in place, counts 0 .. 65537 per block,
# omp single, sub-communicators with different numbers of calls, interleaved with
# hk_allreduce, the fallback reasons certain from the inputs)
hk_test_exe(coll_gather_conformance coll/gather_conformance.c)
set(GC $<TARGET_FILE:coll_gather_conformance>)
hk_mpi_test(coll.gather coll_gather_conformance RANKS 1 2 3 4 THREADS 1 2 ENV ${COLL_ENV})
# FUNNELED: the chunked families fall back (thread-level), hierarchical runs one thread
hk_mpi_test(coll.gather.funneled coll_gather_conformance ARGS --level funneled RANKS 2 3
            THREADS 2 ENV ${COLL_ENV})
# virtual nodes: 2 nodes of 2 (the leaders' step; alltoall: nodes), 3 ranks (does not divide:
# nodes), nodes of one rank
hk_mpi_test(coll.gather.vnodes2 coll_gather_conformance RANKS 3 4 THREADS 1 2
            ENV HK_NODE_SIZE=2 ${COLL_ENV})
hk_mpi_test(coll.gather.vnodes1 coll_gather_conformance RANKS 2 THREADS 2
            ENV HK_NODE_SIZE=1 ${COLL_ENV})
hk_expect_test(coll.gather.fallback_named 0 "^fallbacks: .*thread-level [1-9][0-9]*.*datatype [1-9]"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} COMMAND ${GC} --level funneled)
# the hybrid algorithms ran (fallback none) at MULTIPLE
hk_expect_test(coll.gather.ran_named 0 "^fallbacks: none [1-9]"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} COMMAND ${GC})
foreach(t coll.gather.np1.t1 coll.gather.np1.t2 coll.gather.np2.t1 coll.gather.np2.t2
          coll.gather.np3.t1 coll.gather.np3.t2 coll.gather.np4.t1 coll.gather.np4.t2
          coll.gather.funneled.np2.t2 coll.gather.funneled.np3.t2 coll.gather.vnodes2.np3.t1
          coll.gather.vnodes2.np3.t2 coll.gather.vnodes2.np4.t1 coll.gather.vnodes2.np4.t2
          coll.gather.vnodes1.np2.t2 coll.gather.fallback_named coll.gather.ran_named)
  set_tests_properties(${t} PROPERTIES TIMEOUT 300)
endforeach()
