# hybridkit tune reduce --predict (issue 39): the table the cost model writes from a fitted
# model (python/tests/fixtures/collmodel/params_chunked.json: the model picks chunked x2 for
# every size) is one the library loads without a warning, and hk-mc's reduce with
# --algorithm auto runs what the table names.  Included after coll.cmake and
# mc_collective.cmake (COLL_ENV, MCC, MCC_ARGS).
set(PREDICTED ${CMAKE_CURRENT_BINARY_DIR}/tune.predict.json)
add_test(NAME tune.predict COMMAND ${HK_PYTHON} -m hybridkit tune reduce --predict
         --params ${PROJECT_SOURCE_DIR}/python/tests/fixtures/collmodel/params_chunked.json
         --np 2 --threads 2 --sizes 1K:16M --output ${PREDICTED})
set_tests_properties(tune.predict PROPERTIES FIXTURES_SETUP tune.predicted LABELS "tools"
  TIMEOUT 60 ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python/src"
  PASS_REGULAR_EXPRESSION "[0-9]+\\.\\. B  chunked x2")
hk_expect_test(tune.predict.use 0 "^ +allreduce_used +chunked" ONCE NP 2
               ENV OMP_NUM_THREADS=2 HK_COLL_TUNING=${PREDICTED} ${COLL_ENV}
               COMMAND ${MCC} ${MCC_ARGS} --collective reduce --algorithm auto)
set_tests_properties(tune.predict.use PROPERTIES FIXTURES_REQUIRED tune.predicted
  FAIL_REGULAR_EXPRESSION "warning")

# measured `hybridkit tune all` (issue 39): hk-bench coll for every collective, scan, exscan
# and alltoallv included, at 2 ranks x 1 thread on tiny sizes; the version 2 table it writes
# loads without a warning (hk-bench coll reads the configuration, HK_COLL_TUNING included).
set(MEASURED_ALL ${CMAKE_CURRENT_BINARY_DIR}/tune.measured.json)
add_test(NAME tune.measured COMMAND ${CMAKE_COMMAND} -E env HK_BIN_DIR=${CMAKE_BINARY_DIR}/bin
         ${HK_PYTHON} -m hybridkit tune all --mpi ${HK_MPI_IMPL} --np 2 --threads 1
         --sizes 1K:4K --iters 5 --output ${MEASURED_ALL})
set_tests_properties(tune.measured PROPERTIES FIXTURES_SETUP tune.measured.out LABELS "mpi"
  TIMEOUT 120 PROCESSORS 2 ENVIRONMENT "${HK_TEST_ENV};PYTHONPATH=${PROJECT_SOURCE_DIR}/python/src"
  PASS_REGULAR_EXPRESSION "## scan\n.*## exscan\n.*## alltoallv\n.*written to .*tune.measured.json")
hk_expect_test(tune.measured.use 0 "^ +alltoallv +byte +mpi " ONCE NP 2
               ENV OMP_NUM_THREADS=1 HK_COLL_TUNING=${MEASURED_ALL}
               COMMAND $<TARGET_FILE:hk-bench> coll --collective alltoallv -m 1K:1K -i 2 -x 1
               --algorithms mpi,chunked --threads 1
               --output ${CMAKE_CURRENT_BINARY_DIR}/tune.measured.use.jsonl)
set_tests_properties(tune.measured.use PROPERTIES FIXTURES_REQUIRED tune.measured.out
  FAIL_REGULAR_EXPRESSION "warning|HK_COLL_TUNING")
