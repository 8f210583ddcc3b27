# Data locality (issue 23): locations of synthetic machines, thread -> location blocks,
# nested inheritance, the page map of every placement policy (hand-computed and
# brute-force), and the real binding, allocation, page query and migration on this machine.
hk_test_exe(test_mem unit/test_mem.c)
add_test(NAME unit.mem COMMAND test_mem ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/two-socket-8core.xml)
set_tests_properties(unit.mem PROPERTIES LABELS unit TIMEOUT 60
  ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")
