# hk-spmv (issue 20): distributed sparse matrix-vector multiply and CG in every hybrid mode;
# the roofline uses the apps' STREAM-like bandwidth measurement (apps/common/stream.c).
add_executable(hk-spmv ${CMAKE_SOURCE_DIR}/apps/spmv/hk-spmv.c ${CMAKE_SOURCE_DIR}/apps/spmv/spmv_run.c
               ${CMAKE_SOURCE_DIR}/apps/spmv/spmv_cg.c ${CMAKE_SOURCE_DIR}/apps/spmv/spmv_report.c
               ${CMAKE_SOURCE_DIR}/apps/spmv/spmv_kinds.c ${CMAKE_SOURCE_DIR}/apps/common/stream.c
               ${CMAKE_SOURCE_DIR}/apps/common/kernel.c)
target_compile_options(hk-spmv PRIVATE ${HK_WARN_FLAGS} ${HK_ARCH_FLAGS})
target_link_libraries(hk-spmv PRIVATE hkapp m)
install(TARGETS hk-spmv RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
