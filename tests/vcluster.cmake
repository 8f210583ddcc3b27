# Emulated multi-node cluster (tools/vcluster: network + UTS namespaces), label vcluster.
# 2 nodes x 2 ranks under Open MPI: node detection (hk-topology), halo content with every
# mapping, and the bytes counted on the emulated links == hk_cart_surface()'s inter-node
# bytes per exchange.  Needs root and namespaces: elsewhere (and in MPICH or other builds)
# the driver exits 77 with the reason, shown by ctest as a SKIP.
hk_test_exe(vcluster_halo_bytes vcluster/halo_bytes.c)
add_test(NAME vcluster.nodes2 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vcluster/run_tests.sh
         ${CMAKE_SOURCE_DIR}/tools/vcluster/vcluster $<TARGET_FILE:hk-topology>
         $<TARGET_FILE:vcluster_halo_bytes> ${CMAKE_CURRENT_BINARY_DIR}/vcluster.nodes2 ${HK_MPI_IMPL}
         $<TARGET_FILE:hk-bench>)
set_tests_properties(vcluster.nodes2 PROPERTIES LABELS vcluster SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE TIMEOUT 240 ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV}")
# the DSM (issue 21) across 3-4 emulated nodes: protocol test and heat example
add_test(NAME vcluster.dsm COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vcluster/dsm.sh
         ${CMAKE_SOURCE_DIR}/tools/vcluster/vcluster $<TARGET_FILE:test_dsm> $<TARGET_FILE:hk-dsm-heat>)
set_tests_properties(vcluster.dsm PROPERTIES LABELS vcluster SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE TIMEOUT 240 ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV}")
# the epsilon experiment of hk-spmv (issue 20) as `hybridkit sweep spmv --vcluster 2 --rate`
add_test(NAME vcluster.spmv COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vcluster/spmv.sh
         ${CMAKE_SOURCE_DIR}/tools/vcluster/vcluster ${HK_PYTHON} $<TARGET_FILE_DIR:hk-spmv>
         ${CMAKE_CURRENT_BINARY_DIR}/vcluster.spmv ${HK_MPI_IMPL})
set_tests_properties(vcluster.spmv PROPERTIES LABELS vcluster SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE TIMEOUT 300 ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV}")
# a real Slurm on 2 emulated nodes (issue 27): srun binding, sbatch, teardown
add_test(NAME vcluster.slurm COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vcluster/slurm.sh
         ${CMAKE_SOURCE_DIR}/tools/vcluster/vcluster $<TARGET_FILE:hk-topology> ${HK_MPI_IMPL}
         ${CMAKE_CURRENT_BINARY_DIR}/vcluster.slurm ${HK_PYTHON})
set_tests_properties(vcluster.slurm PROPERTIES LABELS "vcluster;slurm" SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE TIMEOUT 300 ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV}")
