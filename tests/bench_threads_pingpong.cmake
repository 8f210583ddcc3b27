# hk-bench threads-pingpong tests: 2 ranks x 2 threads, records checked; 1 rank refused
set(tn bench.threads_pingpong.np2)
add_test(NAME ${tn} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${HK_MPIEXEC_PREFLAGS}
         ${BENCH} threads-pingpong -m 1:1K -i 10 -x 1 --output ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
add_test(NAME ${tn}.schema COMMAND ${HK_PYTHON} -m hybridkit records validate
         ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
set_tests_properties(${tn} PROPERTIES FIXTURES_SETUP ${tn}.out LABELS mpi TIMEOUT 120
  PROCESSORS 2 ENVIRONMENT "OMP_NUM_THREADS=2;${HK_TEST_ENV}")
set_tests_properties(${tn}.schema PROPERTIES FIXTURES_REQUIRED ${tn}.out LABELS mpi TIMEOUT 60)
hk_expect_test(bench.threads_pingpong.one_rank 2 "threads-pingpong needs at least 2 ranks, got 1"
               ONCE NP 1 ENV OMP_NUM_THREADS=2 COMMAND ${BENCH} threads-pingpong)
