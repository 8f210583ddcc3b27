# hk-mz (NPB-MZ SP-MZ and BT-MZ): zone assignment unit test; both benchmarks verify against
# the official values at 1-4 ranks x 1-2 threads, on virtual nodes and with zones solved
# concurrently (--zone-threads, nested); bad input gives one collective error; the record
# validates against the schema.
hk_test_exe(test_mz_map unit/test_mz_map.c)
target_link_libraries(test_mz_map PRIVATE hkmz_problem)
add_test(NAME unit.mz_map COMMAND test_mz_map)
set_tests_properties(unit.mz_map PROPERTIES LABELS unit TIMEOUT 30
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")

set(MZ $<TARGET_FILE:hk-mz>)
# threads that wait sleep: spinning OpenMP barriers of 4 ranks x 2 threads on a 2-core
# machine make class S take a minute instead of a second (no timing is checked here)
set(MZ_ENV OMP_WAIT_POLICY=passive)
foreach(bench sp bt)
  hk_mpi_test(mz.${bench}.S hk-mz ARGS --bench ${bench} --class S --quiet ENV ${MZ_ENV} LABELS apps)
  hk_mpi_test(mz.${bench}.S.vnodes hk-mz ARGS --bench ${bench} --class S --quiet RANKS 4 THREADS 2
              ENV HK_NODE_SIZE=2 ${MZ_ENV} LABELS apps)
  # two zones at once per process: one thread each (2 threads), nested 2 x 2 (4 threads)
  hk_mpi_test(mz.${bench}.S.zone_threads hk-mz ARGS --bench ${bench} --class S --zone-threads 2
              --quiet RANKS 1 2 THREADS 2 4 ENV ${MZ_ENV} LABELS apps)
  # class W: a few layouts (a few seconds each)
  hk_mpi_test(mz.${bench}.W hk-mz ARGS --bench ${bench} --class W --quiet RANKS 2 3 THREADS 1
              ENV ${MZ_ENV} LABELS apps)
  hk_mpi_test(mz.${bench}.W.hybrid hk-mz ARGS --bench ${bench} --class W --quiet RANKS 4 THREADS 2
              ENV HK_NODE_SIZE=2 ${MZ_ENV} LABELS apps)
endforeach()
hk_record_test(mz.record 2 2 ENV ${MZ_ENV} LABELS apps COMMAND ${MZ} --bench bt --class S --quiet)
hk_record_test(mz.record_sp 3 1 ENV ${MZ_ENV} LABELS apps COMMAND ${MZ} --bench sp --class S --quiet)

hk_expect_test(mz.help 0 "^usage: hk-mz --bench sp\\|bt" COMMAND ${MZ} --help)
hk_expect_test(mz.bad_class 2 "hk-mz: error: (rank 0: )?unknown class 'Q' for BT-MZ \\(classes: SWABCD\\)"
               ONCE NP 2 COMMAND ${MZ} --bench bt --class Q)
hk_expect_test(mz.bad_bench 2 "unknown benchmark 'xy' \\(sp, bt or lu\\)" ONCE NP 2
               COMMAND ${MZ} --bench xy --class S)
hk_expect_test(mz.too_many_procs 2 "SP-MZ class S has 4 zones: at most 4 processes \\(got 5\\)"
               ONCE NP 5 COMMAND ${MZ} --bench sp --class S)
hk_expect_test(mz.zone_threads_divide 2 "--zone-threads 3 must divide the 2 OpenMP thread\\(s\\)"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 COMMAND ${MZ} --bench bt --class S --zone-threads 3)
hk_expect_test(mz.no_nesting 1
               "--zone-threads 2 with 4 threads per process needs nested OpenMP parallelism .*OMP_MAX_ACTIVE_LEVELS"
               ONCE NP 2 ENV OMP_NUM_THREADS=4 OMP_MAX_ACTIVE_LEVELS=1
               COMMAND ${MZ} --bench bt --class S --zone-threads 2)
# the verification can fail: fewer steps than the class's
hk_expect_test(mz.unverified 1 "BT-MZ class S: verification UNSUCCESSFUL \\(steps differ" ONCE NP 2
               COMMAND ${MZ} --bench bt --class S --steps 5 --quiet)

# ---- LU-MZ (issue 19): 4 x 4 equal zones, SSOR with the sweeps pipelined over the threads ----
hk_test_exe(test_progress unit/test_progress.c)
target_include_directories(test_progress PRIVATE ${CMAKE_SOURCE_DIR}/apps/common)
target_link_libraries(test_progress PRIVATE OpenMP::OpenMP_C)
add_test(NAME unit.progress COMMAND test_progress)
set_tests_properties(unit.progress PROPERTIES LABELS unit TIMEOUT 60
  ENVIRONMENT "OMP_WAIT_POLICY=passive")
hk_mpi_test(mz.lu.S hk-mz ARGS --bench lu --class S --quiet ENV ${MZ_ENV} LABELS apps)
# more threads than a zone's 4 interior rows of class S: empty row blocks in the pipeline
hk_mpi_test(mz.lu.S.threads hk-mz ARGS --bench lu --class S --quiet RANKS 1 THREADS 3 5
            ENV ${MZ_ENV} LABELS apps)
hk_mpi_test(mz.lu.S.zone_threads hk-mz ARGS --bench lu --class S --zone-threads 2 --quiet
            RANKS 2 THREADS 4 ENV ${MZ_ENV} LABELS apps)
hk_mpi_test(mz.lu.W hk-mz ARGS --bench lu --class W --quiet RANKS 3 4 THREADS 2
            ENV ${MZ_ENV} LABELS apps)
hk_mpi_test(mz.lu.W hk-mz ARGS --bench lu --class W --quiet RANKS 2 THREADS 1
            ENV ${MZ_ENV} LABELS apps)
hk_record_test(mz.record_lu 2 2 ENV ${MZ_ENV} LABELS apps COMMAND ${MZ} --bench lu --class S --quiet)
hk_expect_test(mz.lu.bad_class 2 "unknown class 'E' for LU-MZ \\(classes: SWABCD\\)" ONCE NP 2
               COMMAND ${MZ} --bench lu --class E)
hk_expect_test(mz.lu.unverified 1 "LU-MZ class S: verification UNSUCCESSFUL \\(steps differ" ONCE
               NP 2 COMMAND ${MZ} --bench lu --class S --steps 5 --quiet)
# --rebalance-threads (the reference's BT-MZ thread re-balancing): BT-MZ class S on 3 ranks x 2
# threads, loads 1944, 864, 648 points: 576 per thread -> 3, 1, 1 + the leftover to the most
# points per thread (rank 1: 864) -> 3, 2, 1 (hand-computed), and the run still verifies
hk_expect_test(mz.rebalance_threads 0 "1944 +3 +648\n +1 +2 +864 +2 +432\n +2 +1 +648 +1 +648.*SUCCESSFUL"
               NP 3 ENV OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
               COMMAND ${MZ} --bench bt --class S --rebalance-threads)
hk_expect_test(mz.rebalance_zone_threads 2 "--rebalance-threads works with --zone-threads 1 only"
               ONCE NP 2 COMMAND ${MZ} --bench bt --class S --rebalance-threads --zone-threads 2)
include(mz_lu_grid.cmake)

# ---- mesh splitting (issue 24): --split K ----
hk_test_exe(test_mz_split unit/test_mz_split.c)
target_link_libraries(test_mz_split PRIVATE hkmz_problem)
add_test(NAME unit.mz_split COMMAND test_mz_split)
set_tests_properties(unit.mz_split PROPERTIES LABELS unit TIMEOUT 30)
# --split 1 is bit-identical to unsplit (norms and the residual history of every step; both
# verify against the official values, so that a change of the shared path shows), and a
# split run gives the same at 1 and N ranks x threads (history to 12 digits: the ranks' partial
# sums meet in another order); SP-MZ class S --split 2: 8 sub-zones of 7 x 12 x 6
function(mz_same name np nt)
  cmake_parse_arguments(T "VERIFY" "DIGITS" "A;B" ${ARGN})
  set(d "")
  if(T_VERIFY)
    set(d -v)
  endif()
  if(T_DIGITS)
    list(APPEND d -d ${T_DIGITS})
  endif()
  set(run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
  add_test(NAME ${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mz_split_same.sh ${d}
           ${CMAKE_CURRENT_BINARY_DIR}/${name}.d ${run} ${np} ${HK_MPIEXEC_PREFLAGS} ${MZ} ${T_A}
           :: ${run} ${np} ${HK_MPIEXEC_PREFLAGS} ${MZ} ${T_B})
  set_tests_properties(${name} PROPERTIES LABELS "mpi;apps" TIMEOUT 120 PROCESSORS ${np}
    ENVIRONMENT "OMP_NUM_THREADS=${nt};${HK_TEST_ENV};${MZ_ENV}")
endfunction()
foreach(bench sp bt lu)
  mz_same(mz.split1_identical.${bench} 2 1 VERIFY A --bench ${bench} --class S --quiet
          B --bench ${bench} --class S --quiet --split 1)
endforeach()
foreach(np 2 3 4)
  add_test(NAME mz.split2.np${np} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mz_split_same.sh -d 12
           ${CMAKE_CURRENT_BINARY_DIR}/mz.split2.np${np}.d ${MZ} --bench sp --class S --quiet
           --split 2 :: ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${HK_MPIEXEC_PREFLAGS}
           ${MZ} --bench sp --class S --quiet --split 2)
  set_tests_properties(mz.split2.np${np} PROPERTIES LABELS "mpi;apps" TIMEOUT 120
    PROCESSORS ${np} ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV};${MZ_ENV}")
endforeach()
mz_same(mz.split3.threads 2 2 DIGITS 12 A --bench sp --class S --quiet --split 3
        B --bench sp --class S --quiet --split 3 --zone-threads 2)
hk_record_test(mz.record_split 3 1 ENV ${MZ_ENV} LABELS apps
               COMMAND ${MZ} --bench sp --class S --quiet --split 2)
# bad input: one clear line, collectively
hk_expect_test(mz.split_too_small 2
               "SP-MZ class S: --split 4: zone 0 \\(10 interior points in x\\) is too small to split 4 ways .*at most --split 3"
               ONCE NP 2 COMMAND ${MZ} --bench sp --class S --split 4)
hk_expect_test(mz.split_too_many 2
               "BT-MZ class W: --split 99: more splits than points" ONCE NP 2
               COMMAND ${MZ} --bench bt --class W --split 99)
hk_expect_test(mz.split_not_verified 0
               "a different numerical method .* not verified against the official values" NP 2
               COMMAND ${MZ} --bench sp --class S --quiet --split 2)
