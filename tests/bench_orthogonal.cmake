# hk-bench orthogonal: 4 ranks on 2 virtual nodes, records schema-checked; one
# node is refused once with exit code 2
set(tn bench.orthogonal.np4)
add_test(NAME ${tn} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 ${HK_MPIEXEC_PREFLAGS}
         ${BENCH} orthogonal -m 8:64K -i 20 -x 2 --output ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
add_test(NAME ${tn}.schema COMMAND ${HK_PYTHON} -m hybridkit records validate
         ${CMAKE_CURRENT_BINARY_DIR}/${tn}.jsonl)
set_tests_properties(${tn} PROPERTIES FIXTURES_SETUP ${tn}.out LABELS mpi TIMEOUT 120
  PROCESSORS 4 ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV};HK_NODE_SIZE=2")
set_tests_properties(${tn}.schema PROPERTIES FIXTURES_REQUIRED ${tn}.out LABELS mpi TIMEOUT 60)
hk_expect_test(bench.orthogonal.one_node 2
               "orthogonal needs at least 2 nodes of equal size >= 2 ranks \\(HK_NODE_SIZE=k or tools/vcluster\\)"
               ONCE NP 2 COMMAND ${BENCH} orthogonal)
hk_expect_test(bench.orthogonal.one_rank_nodes 2 "orthogonal needs at least 2 nodes of equal size >= 2"
               ONCE NP 2 ENV HK_NODE_SIZE=1 COMMAND ${BENCH} orthogonal)
