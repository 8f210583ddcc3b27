# libhybridkit-preload.so (issue 5): PMPI wrappers for MPI_Init/MPI_Init_thread,
# MPI_Query_thread, MPI_Allreduce and MPI_Finalize that bring hk_allreduce to an
# unmodified program through LD_PRELOAD.  It depends on libhybridkit.so (found
# next to it through $ORIGIN once installed), so a program that links the
# library too shares one copy of its state.
add_library(hybridkit-preload SHARED ${CMAKE_SOURCE_DIR}/preload/hk_preload.c
                                     ${CMAKE_SOURCE_DIR}/preload/hk_preload_level.c
                                     ${CMAKE_SOURCE_DIR}/preload/hk_preload_fortran.c)
target_include_directories(hybridkit-preload PRIVATE ${CMAKE_SOURCE_DIR}/preload ${CMAKE_SOURCE_DIR}/src)
target_compile_options(hybridkit-preload PRIVATE ${HK_WARN_FLAGS})
target_link_libraries(hybridkit-preload PRIVATE hybridkit MPI::MPI_C OpenMP::OpenMP_C PkgConfig::HWLOC)
set_target_properties(hybridkit-preload PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS hybridkit-preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# libhybridkit-check.so (issue 17): PMPI wrappers that check every wrapped MPI
# call of the program against the rule of the thread level it asked for
# (docs/check.md).  No dependency on libhybridkit.  Both tools take Open MPI's
# Fortran entry points (hk_fortran.c) and find call sites through MPI's own
# bindings (hk_tool.c): one copy of each compiled into each tool.
set(HK_TOOL_SOURCES ${CMAKE_SOURCE_DIR}/preload/hk_tool.c ${CMAKE_SOURCE_DIR}/preload/hk_fortran.c)
add_library(hybridkit-check SHARED ${CMAKE_SOURCE_DIR}/preload/hk_check.c
                                   ${CMAKE_SOURCE_DIR}/preload/hk_check_records.c ${HK_TOOL_SOURCES})
target_include_directories(hybridkit-check PRIVATE ${CMAKE_SOURCE_DIR}/preload)
target_compile_options(hybridkit-check PRIVATE ${HK_WARN_FLAGS})
target_link_libraries(hybridkit-check PRIVATE MPI::MPI_C OpenMP::OpenMP_C ${CMAKE_DL_LIBS})
install(TARGETS hybridkit-check LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# libhybridkit-profile.so (issue 25): PMPI profiler of an unmodified program per MPI
# function and call site, with the hybrid view (parallel regions, sleeping threads,
# intra/inter-node peers); docs/profile.md.  Wraps the checker's table of calls
# (hk_check_calls.h); links libhybridkit for nodes, machine and build information.
add_library(hybridkit-profile SHARED ${CMAKE_SOURCE_DIR}/preload/hk_profile.c
                                     ${CMAKE_SOURCE_DIR}/preload/hk_profile_out.c
                                     ${CMAKE_SOURCE_DIR}/preload/hk_profile_records.c
                                     ${CMAKE_SOURCE_DIR}/preload/hk_profile_kinds.c
                                     ${HK_TOOL_SOURCES})
target_include_directories(hybridkit-profile PRIVATE ${CMAKE_SOURCE_DIR}/preload)
target_compile_options(hybridkit-profile PRIVATE ${HK_WARN_FLAGS})
target_link_libraries(hybridkit-profile PRIVATE hybridkit MPI::MPI_C OpenMP::OpenMP_C m
                      ${CMAKE_DL_LIBS})
set_target_properties(hybridkit-profile PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS hybridkit-profile LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
