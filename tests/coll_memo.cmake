# ---- the preload's memo (issue 42): a call of a shape the library handed back to MPI goes
# straight to MPI the next time; tests/coll/preload_memo.c counts the accelerated calls of
# sizes of the same size class with different answers (tests/coll/memo_tuning.json), on
# MPI_COMM_WORLD and on duplicates made and freed in turn; the summary must show the memo's
# hits as "chosen" ----
add_executable(coll_preload_memo coll/preload_memo.c)
target_link_libraries(coll_preload_memo PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
target_include_directories(coll_preload_memo PRIVATE ${CMAKE_SOURCE_DIR}/include)
add_test(NAME coll.preload.memo COMMAND ${COLL_DIR}/preload_colls.sh ${HK_MPI_IMPL}
         ${MPIEXEC_EXECUTABLE} 2 ${PRELOAD_LIB}
         "hybridkit-preload: MPI_Reduce: [0-9]+ calls intercepted on 2 ranks, [1-9][0-9]* accelerated \\(hierarchical [0-9]+\\), [0-9]+ passed through \\(chosen [1-9][0-9][0-9]"
         -- $<TARGET_FILE:coll_preload_memo>)
set_tests_properties(coll.preload.memo PROPERTIES LABELS "mpi;conformance" TIMEOUT 120
  PROCESSORS 2 ENVIRONMENT
  "OMP_NUM_THREADS=1;HK_TEST_ALGS=auto;HK_COLL_TUNING=${COLL_DIR}/memo_tuning.json;${HK_TEST_ENV};${COLL_ENV}")
