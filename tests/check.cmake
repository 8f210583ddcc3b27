# The thread-level checker libhybridkit-check.so (issue 17): per level a clean
# program (not flagged) and one deliberate violation (detected, right call,
# right call site, once per rank, fatal under HK_CHECK_FATAL=1); hk-jacobi's
# own MPI calls in every mode (clean); HK_CHECK_MASTERONLY inside hybridkit
# applies the level each hk-jacobi mode asked for.
set(CHECK_DIR ${CMAKE_CURRENT_SOURCE_DIR}/check)
add_executable(check_levels ${CHECK_DIR}/check_levels.c)
target_include_directories(check_levels PRIVATE ${CMAKE_SOURCE_DIR}/preload)
target_compile_options(check_levels PRIVATE ${HK_WARN_FLAGS})
target_link_libraries(check_levels PRIVATE MPI::MPI_C OpenMP::OpenMP_C ${CMAKE_DL_LIBS})
set_target_properties(check_levels PROPERTIES ENABLE_EXPORTS ON) # dladdr names the call site
set(CHECK_LIB $<TARGET_FILE:hybridkit-check>)
if(CMAKE_C_FLAGS MATCHES "sanitize=address") # the ASan runtime first (see coll.cmake)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE HK_CHECK_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(CHECK_LIB "${HK_CHECK_LIBASAN}:${CHECK_LIB}")
endif()
# check_test(NAME NP EXPECT [SUMMARY regex] COMMAND ...)
function(check_test name np expect)
  cmake_parse_arguments(T "" "SUMMARY" "COMMAND;ENV" ${ARGN})
  add_test(NAME check.${name} COMMAND ${CHECK_DIR}/check.sh ${HK_MPI_IMPL} ${MPIEXEC_EXECUTABLE}
           ${np} ${CHECK_LIB} ${expect} -- ${T_COMMAND})
  set_tests_properties(check.${name} PROPERTIES LABELS "mpi;check" TIMEOUT 120 PROCESSORS ${np}
    SKIP_RETURN_CODE 77
    ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;${HK_TEST_ENV};SUMMARY=${T_SUMMARY};${T_ENV}")
endfunction()

set(CL $<TARGET_FILE:check_levels>)
set(V "^hybridkit-check: rank [0-9]+: ")
foreach(np 1 2 3)
  foreach(level single funneled serialized multiple)
    check_test(${level}.clean.np${np} ${np} clean COMMAND ${CL} --level ${level})
  endforeach()
  math(EXPR n3 "3 * ${np}")
  check_test(single.violation.np${np} ${np}
    "${V}MPI_Allreduce violates MPI_THREAD_SINGLE: inside an OpenMP parallel region \\(thread [0-9]+, OpenMP thread 0 of 2, parallel level 1\\). first at single_allreduce\\+0x"
    SUMMARY "MPI_THREAD_SINGLE \\(program asked single.*: ${np} violation\\(s\\): MPI_Allreduce ${np} \\(${np} rank"
    COMMAND ${CL} --level single --violate)
  check_test(funneled.violation.np${np} ${np}
    "${V}MPI_Iprobe violates MPI_THREAD_FUNNELED: not the main thread \\(thread [0-9]+, OpenMP thread 1 of 2, parallel level 1\\). first at funneled_probe\\+0x"
    SUMMARY "MPI_THREAD_FUNNELED .*: ${n3} violation\\(s\\): MPI_Iprobe ${n3} \\(${np} rank"
    COMMAND ${CL} --level funneled --violate)
  check_test(serialized.violation.np${np} ${np}
    "${V}MPI_Comm_rank violates MPI_THREAD_SERIALIZED: another thread is inside an MPI call .* first at serialized_rank\\+0x"
    SUMMARY "MPI_THREAD_SERIALIZED .* violation\\(s\\): MPI_Comm_rank [0-9]+ \\(${np} rank"
    COMMAND ${CL} --level serialized --violate)
endforeach()

# hk-jacobi's own MPI calls under the checker, and hybridkit's under
# HK_CHECK_MASTERONLY=1 (the rule of the level each mode asked for), every mode
foreach(mode ${HK_MODES})
  check_test(jacobi.${mode} 2 clean COMMAND $<TARGET_FILE:hk-jacobi> --mode ${mode}
             --grid 16x12x10 --iters 4 --verify on)
  hk_mpi_test(check.masteronly.jacobi.${mode} hk-jacobi ARGS --mode ${mode} --grid 16x12x10
              --iters 4 --verify on RANKS 2 THREADS 2 ENV HK_CHECK_MASTERONLY=1 LABELS check)
endforeach()
