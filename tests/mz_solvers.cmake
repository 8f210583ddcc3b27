# NPB-MZ zone numerics without the framework (issue 6): one zone = the whole grid reduces
# NPB-MZ to single-zone NPB, checked against the official NPB 3.x SP (and BT) verification
# values. The BT solver (apps/mz/bt.c, part of hk-mz) is compiled in when present.
set(HK_MZ_SINGLE_SRC unit/test_mz_single.c)
if(EXISTS ${CMAKE_SOURCE_DIR}/apps/mz/bt.c)
  list(APPEND HK_MZ_SINGLE_SRC ${CMAKE_SOURCE_DIR}/apps/mz/bt.c)
endif()
add_executable(test_mz_single ${HK_MZ_SINGLE_SRC})
target_include_directories(test_mz_single PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(test_mz_single PRIVATE ${HK_WARN_FLAGS} ${HK_ARCH_FLAGS} -O3)
target_link_libraries(test_mz_single PRIVATE hkmz_numerics)
# bench:class:threads; class W of SP (36^3, 400 steps) takes a few seconds. Passive OpenMP
# waiting: on an oversubscribed machine spinning threads turn each barrier into a time slice.
set(mz_single_runs sp:S:1 sp:S:2 sp:W:1)
if(EXISTS ${CMAKE_SOURCE_DIR}/apps/mz/bt.c)
  target_compile_definitions(test_mz_single PRIVATE HK_MZ_TEST_BT)
  list(APPEND mz_single_runs bt:S:1 bt:S:2)
endif()
foreach(r ${mz_single_runs})
  string(REPLACE ":" ";" run ${r})
  list(GET run 0 bench)
  list(GET run 1 cls)
  list(GET run 2 nt)
  set(tn mz.single.${bench}.${cls}.t${nt})
  add_test(NAME ${tn} COMMAND test_mz_single --bench ${bench} --class ${cls})
  set_tests_properties(${tn} PROPERTIES LABELS unit TIMEOUT 120
    ENVIRONMENT "OMP_NUM_THREADS=${nt};OMP_WAIT_POLICY=passive")
endforeach()
# zones with fewer than 10 points in x and y (the SP solver's partial batches): no official
# values, but the error norm must fall to ~1e-11 in 100 steps (the exact solution is the steady
# state); 5e-11 with a correct solver, O(1) with a broken one
add_test(NAME mz.single.sp.small_zone.t2 COMMAND test_mz_single --zone 9x8x7 --steps 100 --max-error 1e-9)
set_tests_properties(mz.single.sp.small_zone.t2 PROPERTIES LABELS unit TIMEOUT 60
  ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive")
