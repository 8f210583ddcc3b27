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
