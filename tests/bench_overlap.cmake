# hk-bench overlap: runs, validates its data, writes schema-valid records; bad input.
# (Whether overlap is seen is a measurement, never asserted: it depends on the MPI
# library's progress and on free cores.)
add_test(NAME bench.overlap.np2 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${HK_MPIEXEC_PREFLAGS}
         ${BENCH} overlap -m 64K -i 2 --output ${CMAKE_CURRENT_BINARY_DIR}/bench.overlap.np2.jsonl)
add_test(NAME bench.overlap.np2.schema COMMAND ${HK_PYTHON} -m hybridkit records validate
         ${CMAKE_CURRENT_BINARY_DIR}/bench.overlap.np2.jsonl)
set_tests_properties(bench.overlap.np2 PROPERTIES FIXTURES_SETUP bench.overlap.out LABELS mpi
  TIMEOUT 120 PROCESSORS 2 ENVIRONMENT "OMP_NUM_THREADS=2;${HK_TEST_ENV}")
set_tests_properties(bench.overlap.np2.schema PROPERTIES FIXTURES_REQUIRED bench.overlap.out
  LABELS mpi TIMEOUT 60)
hk_expect_test(bench.overlap.one_rank 2 "overlap needs at least 2 ranks, got 1" ONCE NP 1
               COMMAND ${BENCH} overlap)
