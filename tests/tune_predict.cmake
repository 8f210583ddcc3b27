# issue 39: the table `hybridkit tune allreduce --predict` writes from fixed bench.collparams
# records (python/tests/fixtures/coll) is one the C library loads without a warning
# (include after coll.cmake: test_coll)
if(HK_PYTHON)
  add_test(NAME coll.table_predicted COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/tune_predict.sh
           ${HK_PYTHON} ${PROJECT_SOURCE_DIR}/python/tests/fixtures/coll/collparams-2x1.jsonl
           ${CMAKE_CURRENT_BINARY_DIR}/tune_predict $<TARGET_FILE:test_coll> ${MPIEXEC_EXECUTABLE}
           ${HK_MPIEXEC_PREFLAGS})
  set_tests_properties(coll.table_predicted PROPERTIES LABELS "mpi;tools" TIMEOUT 120
    PROCESSORS 2 ENVIRONMENT "${HK_TEST_ENV};OMP_WAIT_POLICY=passive")
endif()
