# hk-bench beff: 2 ranks, and 4 ranks on 2 virtual nodes with the masteronly
# comparison; records schema-checked; bad sizes rejected once with exit code 2
foreach(cfg "2;;-m;8:64K" "4;HK_NODE_SIZE=2;-m;8:16K;--lmax;64K;--compare-hybrid")
  list(GET cfg 0 np)
  list(GET cfg 1 envx)
  list(SUBLIST cfg 2 -1 args)
  set(tn bench.beff.np${np})
  add_test(NAME ${tn} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${HK_MPIEXEC_PREFLAGS}
           ${BENCH} beff ${args} --output ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
  add_test(NAME ${tn}.schema COMMAND ${HK_PYTHON} -m hybridkit records validate
           ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
  set_tests_properties(${tn} PROPERTIES FIXTURES_SETUP ${tn}.out LABELS mpi TIMEOUT 120
    PROCESSORS ${np} ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV};${envx}")
  set_tests_properties(${tn}.schema PROPERTIES FIXTURES_REQUIRED ${tn}.out LABELS mpi TIMEOUT 60)
endforeach()
hk_expect_test(bench.beff.lmax_zero 2 "--lmax 0: Lmax is one positive byte count" ONCE NP 2
               COMMAND ${BENCH} beff --lmax 0)
hk_expect_test(bench.beff.lmax_below_min 2 "--lmax 4: Lmax is smaller than the smallest size 8" ONCE
               NP 2 COMMAND ${BENCH} beff -m 8:1K --lmax 4)
hk_expect_test(bench.beff.size_order 2 "-m 8:4: the minimum 8 is larger than the maximum 4" ONCE NP 2
               COMMAND ${BENCH} beff -m 8:4)
hk_expect_test(bench.beff.one_rank 2 "beff needs at least 2 ranks, got 1" ONCE NP 1
               COMMAND ${BENCH} beff)
