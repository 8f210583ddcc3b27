# NPB-MZ numerics shared by SP-MZ and BT-MZ (adi_common.c) and the SP-MZ zone solver (sp.c):
# a static library hk-mz and the single-zone tests (tests/mz_solvers.cmake) link against.
add_library(hkmz_numerics STATIC ${CMAKE_SOURCE_DIR}/apps/mz/adi_common.c
                                 ${CMAKE_SOURCE_DIR}/apps/mz/adi_rhs.c
                                 ${CMAKE_SOURCE_DIR}/apps/mz/sp.c)
target_include_directories(hkmz_numerics PUBLIC ${CMAKE_SOURCE_DIR}/apps/mz PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_compile_options(hkmz_numerics PRIVATE ${HK_WARN_FLAGS} ${HK_ARCH_FLAGS} -O3 -fno-math-errno)
target_link_libraries(hkmz_numerics PUBLIC OpenMP::OpenMP_C m)
