# hk-mc (issue 5): Monte Carlo particles with a per-step allreduce of a tally array,
# the showcase of the hybrid allreduce and of libhybridkit-preload.so.
add_executable(hk-mc ${CMAKE_SOURCE_DIR}/apps/mc/hk-mc.c ${CMAKE_SOURCE_DIR}/apps/mc/mc_config.c
               ${CMAKE_SOURCE_DIR}/apps/mc/mc_sim.c ${CMAKE_SOURCE_DIR}/apps/mc/mc_report.c
               ${CMAKE_SOURCE_DIR}/apps/mc/mc_kinds.c
               ${CMAKE_SOURCE_DIR}/apps/mc/mc_coll.c)
target_compile_options(hk-mc PRIVATE ${HK_WARN_FLAGS} ${HK_ARCH_FLAGS})
target_link_libraries(hk-mc PRIVATE hkapp m ${CMAKE_DL_LIBS})
install(TARGETS hk-mc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
