# hk-bench multipath tests: processes on 2 virtual nodes of 2, threads mode on 2 nodes of 1
foreach(cfg "proc;4;1;HK_NODE_SIZE=2;" "threads;2;2;HK_NODE_SIZE=1;--threads-mode")
  list(GET cfg 0 kind)
  list(GET cfg 1 np)
  list(GET cfg 2 nt)
  list(GET cfg 3 envx)
  list(GET cfg 4 flag)
  set(tn bench.multipath.${kind}.np${np})
  add_test(NAME ${tn} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${HK_MPIEXEC_PREFLAGS}
           ${BENCH} multipath ${flag} -m 8:16K -i 20 -x 2 --output ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
  add_test(NAME ${tn}.schema COMMAND ${HK_PYTHON} -m hybridkit records validate
           ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
  set_tests_properties(${tn} PROPERTIES FIXTURES_SETUP ${tn}.out LABELS mpi TIMEOUT 120
    PROCESSORS 2 ENVIRONMENT "OMP_NUM_THREADS=${nt};${HK_TEST_ENV};${envx}")
  set_tests_properties(${tn}.schema PROPERTIES FIXTURES_REQUIRED ${tn}.out LABELS mpi TIMEOUT 60)
endforeach()
hk_expect_test(bench.multipath.one_node 2 "multipath needs at least 2 nodes.*HK_NODE_SIZE" ONCE NP 2
               COMMAND ${BENCH} multipath -m 8)
hk_expect_test(bench.multipath.needs_multiple 1 "MPI_THREAD_MULTIPLE.*provides MPI_THREAD_FUNNELED"
               ONCE NP 2 ENV HK_NODE_SIZE=1 HK_MPI_THREAD_LIMIT=funneled OMP_NUM_THREADS=2
               COMMAND ${BENCH} multipath --threads-mode -m 8)
hk_expect_test(bench.multipath.bad_stride 2 "--stride 5: must be below the 2 ranks per node" ONCE NP 4
               ENV HK_NODE_SIZE=2 COMMAND ${BENCH} multipath --stride 5 -m 8)
