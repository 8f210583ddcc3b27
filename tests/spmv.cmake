# hk_spmv (issue 20): every format x mode bit-identical to a brute-force product at
# 1-4 ranks x 1-3 threads (uneven blocks, an empty block, empty rows, a rank with no
# halo), the plan's counts against brute force.
hk_test_exe(test_spmv mpi/test_spmv.c)
target_compile_options(test_spmv PRIVATE -ffp-contract=off)
target_link_libraries(test_spmv PRIVATE m)
hk_mpi_test(spmv test_spmv THREADS 1 2 3)
# Matrix Market reader (good files, one clear line per malformed file) and generators
hk_test_exe(test_spmv_mm unit/test_spmv_mm.c)
add_test(NAME unit.spmv_mm COMMAND test_spmv_mm)
set_tests_properties(unit.spmv_mm PROPERTIES LABELS unit TIMEOUT 30
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")
