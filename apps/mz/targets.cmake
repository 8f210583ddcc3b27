# hk-mz: NPB-MZ SP-MZ and BT-MZ (framework, BT solver). The shared numerics and the SP solver
# come from solvers.cmake (target hkmz_numerics).
include(${CMAKE_SOURCE_DIR}/apps/mz/solvers.cmake)

# the problem table, zones and their assignment: pure C, also used by the unit tests
add_library(hkmz_problem STATIC ${CMAKE_SOURCE_DIR}/apps/mz/mz_problem.c
            ${CMAKE_SOURCE_DIR}/apps/mz/mz_threads.c
            ${CMAKE_SOURCE_DIR}/apps/mz/mz_split.c)
target_include_directories(hkmz_problem PUBLIC ${CMAKE_SOURCE_DIR}/apps/mz)
target_compile_options(hkmz_problem PRIVATE ${HK_WARN_FLAGS})
target_compile_definitions(hkmz_problem PRIVATE _GNU_SOURCE)
target_link_libraries(hkmz_problem PUBLIC m)

add_executable(hk-mz apps/mz/hk-mz.c apps/mz/mz_config.c apps/mz/mz_run.c apps/mz/mz_verify.c
               apps/mz/mz_report.c apps/mz/mz_kinds.c apps/mz/exchange.c apps/mz/bt.c
               apps/mz/lu.c apps/mz/lu_ssor.c apps/mz/mz_layout.c apps/mz/mz_history.c)
target_sources(hk-mz PRIVATE apps/mz/mz_twolevel.c)
target_compile_options(hk-mz PRIVATE ${HK_WARN_FLAGS} ${HK_ARCH_FLAGS} -O3)
target_link_libraries(hk-mz PRIVATE hkapp hkmz_problem hkmz_numerics m)
install(TARGETS hk-mz RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
