# hk-dsm-heat (issue 21): the heat example in shared-memory style on the page-based DSM;
# same problem as hk-jacobi --dims 2 (apps/common/kernel.h and the frozen reference jacobi_ref.c).
add_executable(hk-dsm-heat ${CMAKE_SOURCE_DIR}/apps/dsm/hk-dsm-heat.c ${CMAKE_SOURCE_DIR}/apps/dsm/dsm_kinds.c
               ${CMAKE_SOURCE_DIR}/apps/common/jacobi_ref.c)
target_compile_options(hk-dsm-heat PRIVATE ${HK_WARN_FLAGS} ${HK_ARCH_FLAGS})
target_link_libraries(hk-dsm-heat PRIVATE hkapp m)
install(TARGETS hk-dsm-heat RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
