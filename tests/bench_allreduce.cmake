# hk-bench allreduce tests: 2 and 3 ranks, records checked; bad -m refused
foreach(np 2 3)
  set(tn bench.allreduce.np${np})
  add_test(NAME ${tn} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${HK_MPIEXEC_PREFLAGS}
           ${BENCH} allreduce -m 2:64K -i 10 -x 1 --output ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
  add_test(NAME ${tn}.schema COMMAND ${HK_PYTHON} -m hybridkit records validate
           ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
  set_tests_properties(${tn} PROPERTIES FIXTURES_SETUP ${tn}.out LABELS mpi TIMEOUT 120
    PROCESSORS 2 ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV}")
  set_tests_properties(${tn}.schema PROPERTIES FIXTURES_REQUIRED ${tn}.out LABELS mpi TIMEOUT 60)
endforeach()
hk_expect_test(bench.allreduce.bad_sizes 2 "-m 64K:8: the minimum 65536 is larger than the maximum 8"
               ONCE NP 2 COMMAND ${BENCH} allreduce -m 64K:8)
hk_expect_test(bench.allreduce.too_small 2 "allreduce sizes must reach at least 4 bytes" ONCE NP 2
               COMMAND ${BENCH} allreduce -m 1:2)
