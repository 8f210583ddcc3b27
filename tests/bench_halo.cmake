# hk-bench halo: every mode on a small block, face ghosts checked, records schema-valid; bad input.
hk_record_test(bench.halo.np2 2 2 COMMAND ${BENCH} halo -m 2K:4K -i 10 -x 2)
hk_expect_test(bench.halo.bad_mode 2 "--modes pure,hybrid: unknown mode 'hybrid'" ONCE NP 2
               COMMAND ${BENCH} halo --modes pure,hybrid)
hk_expect_test(bench.halo.needs_multiple 1 "multiple needs thread level multiple \\(MPI_THREAD_MULTIPLE\\)"
               ONCE NP 2 ENV HK_MPI_THREAD_LIMIT=funneled COMMAND ${BENCH} halo -m 2K --modes multiple)
# with FUNNELED only, the modes that need no more still run
add_test(NAME bench.halo.funneled_only COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
         ${HK_MPIEXEC_PREFLAGS} ${BENCH} halo -m 2K -i 5 --modes pure,masteronly,funneled,task)
set_tests_properties(bench.halo.funneled_only PROPERTIES LABELS mpi TIMEOUT 60
  ENVIRONMENT "OMP_NUM_THREADS=2;HK_MPI_THREAD_LIMIT=funneled;${HK_TEST_ENV}")
