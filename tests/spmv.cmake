# hk_spmv (issue 20): every format x mode bit-identical to a brute-force product at
# 1-4 ranks x 1-3 threads (uneven blocks, an empty block, empty rows, a rank with no
# halo), the plan's counts against brute force.
hk_test_exe(test_spmv mpi/test_spmv.c)
target_compile_options(test_spmv PRIVATE -ffp-contract=off)
target_link_libraries(test_spmv PRIVATE m)
hk_mpi_test(spmv test_spmv THREADS 1 2 3)
