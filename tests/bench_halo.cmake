# hk-bench halo: every mode on a small block, face ghosts checked, records schema-valid; bad input.
add_test(NAME bench.halo.np2 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${HK_MPIEXEC_PREFLAGS}
         ${BENCH} halo -m 2K:4K -i 10 -x 2 --output ${CMAKE_CURRENT_BINARY_DIR}/bench.halo.np2.jsonl)
add_test(NAME bench.halo.np2.schema COMMAND ${HK_PYTHON} -m hybridkit records validate
         ${CMAKE_CURRENT_BINARY_DIR}/bench.halo.np2.jsonl)
set_tests_properties(bench.halo.np2 PROPERTIES FIXTURES_SETUP bench.halo.out LABELS mpi TIMEOUT 120
  PROCESSORS 2 ENVIRONMENT "OMP_NUM_THREADS=2;${HK_TEST_ENV}")
set_tests_properties(bench.halo.np2.schema PROPERTIES FIXTURES_REQUIRED bench.halo.out LABELS mpi
  TIMEOUT 60)
hk_expect_test(bench.halo.bad_mode 2 "--modes pure,hybrid: unknown mode 'hybrid'" ONCE NP 2
               COMMAND ${BENCH} halo --modes pure,hybrid)
hk_expect_test(bench.halo.needs_multiple 1 "multiple needs thread level multiple \\(MPI_THREAD_MULTIPLE\\)"
               ONCE NP 2 ENV HK_MPI_THREAD_LIMIT=funneled COMMAND ${BENCH} halo -m 2K --modes multiple)
# with FUNNELED only, the modes that need no more still run
add_test(NAME bench.halo.funneled_only COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
         ${HK_MPIEXEC_PREFLAGS} ${BENCH} halo -m 2K -i 5 --modes pure,masteronly,funneled,task)
set_tests_properties(bench.halo.funneled_only PROPERTIES LABELS mpi TIMEOUT 60
  ENVIRONMENT "OMP_NUM_THREADS=2;HK_MPI_THREAD_LIMIT=funneled;${HK_TEST_ENV}")
