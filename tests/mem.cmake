# Data locality (issue 23): locations of synthetic machines, thread -> location blocks,
# nested inheritance, the page map of every placement policy (hand-computed and
# brute-force), and the real binding, allocation, page query and migration on this machine.
hk_test_exe(test_mem unit/test_mem.c)
add_test(NAME unit.mem COMMAND test_mem ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/two-socket-8core.xml)
set_tests_properties(unit.mem PROPERTIES LABELS unit TIMEOUT 60
  ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")
# teams smaller than asked (OMP_THREAD_LIMIT=2, 4 asked): the thread and first-touch maps
# follow the team obtained
add_test(NAME unit.mem.thread_limit COMMAND test_mem thread-limit)
set_tests_properties(unit.mem.thread_limit PROPERTIES LABELS unit TIMEOUT 60
  ENVIRONMENT "OMP_THREAD_LIMIT=2;OMP_NUM_THREADS=4;OMP_WAIT_POLICY=passive;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")

# hk-jacobi --layout: every layout bit-identical to the serial reference (--verify on), at
# 1 and 3 ranks; three locations on this machine's node (HK_NUM_LOCS) for the bound policies
foreach(layout first-touch serial one-location block interleave random)
  hk_mpi_test(jacobi.layout.${layout} hk-jacobi ARGS --mode funneled --grid 19x17x15 --iters 6
              --verify on --layout ${layout} RANKS 1 3 THREADS 2 LABELS apps)
endforeach()
foreach(layout block interleave random)
  hk_mpi_test(jacobi.layout.locs3.${layout} hk-jacobi ARGS --mode task --dims 2 --grid 67x45
              --iters 5 --verify on --layout ${layout} RANKS 2 THREADS 2 ENV HK_NUM_LOCS=3 LABELS apps)
endforeach()
# the record carries the layout and the measured share of pages on the most used NUMA node
# (1 here: one node)
hk_record_test(jacobi.layout.record 2 2 LABELS apps COMMAND ${JAC} --grid 19x17x15 --iters 3
               --layout interleave)
hk_expect_test(jacobi.layout.reported 0 "pages_max_node +min 1 +avg 1 +max 1 fraction" NP 1
               COMMAND ${JAC} --grid 12x12x12 --iters 2 --layout serial)
hk_expect_test(jacobi.layout.bad 2 "--layout scattered: first-touch, serial, one-location, block, interleave or random"
               ONCE NP 2 COMMAND ${JAC} --layout scattered)

# hk-mz --layout (Jin et al.'s BT layouts for the zone data): every layout prints the same
# verification norms (14 digits) as first touch, BT-MZ, SP-MZ and LU-MZ, 2 ranks x 2 threads
foreach(bench bt sp lu)
  foreach(layout one-location block interleave random access)
    add_test(NAME mz.layout.${bench}.${layout} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_lines.sh
             "^ +[1-5] +-?[0-9]\\.[0-9]{13}E" --layout first-touch ${layout} --
             ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${HK_MPIEXEC_PREFLAGS} $<TARGET_FILE:hk-mz>
             --bench ${bench} --class S --quiet)
    set_tests_properties(mz.layout.${bench}.${layout} PROPERTIES LABELS "mpi;apps" TIMEOUT 120
      PROCESSORS 2 ENVIRONMENT "OMP_NUM_THREADS=2;${HK_TEST_ENV}")
  endforeach()
endforeach()
hk_record_test(mz.layout.record 2 2 LABELS apps COMMAND $<TARGET_FILE:hk-mz> --bench bt --class S
               --quiet --layout access)
hk_expect_test(mz.layout.bad 2 "--layout scattered: first-touch, one-location, block, interleave, random or access"
               ONCE NP 2 COMMAND $<TARGET_FILE:hk-mz> --layout scattered)
