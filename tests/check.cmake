# The thread-level checker libhybridkit-check.so (issue 17): per level a clean
# program (not flagged) and one deliberate violation (detected, right call,
# right call site, once per rank, fatal under HK_CHECK_FATAL=1); hk-jacobi's
# own MPI calls in every mode (clean); HK_CHECK_MASTERONLY inside hybridkit
# applies the level each hk-jacobi mode asked for.  For `hybridkit check` (issue
# 37): the HK_CHECK_OUTPUT records and HK_CHECK_ABORT ending a hang (below).
set(CHECK_DIR ${CMAKE_CURRENT_SOURCE_DIR}/check)
add_executable(check_levels ${CHECK_DIR}/check_levels.c)
target_include_directories(check_levels PRIVATE ${CMAKE_SOURCE_DIR}/preload)
target_compile_options(check_levels PRIVATE ${HK_WARN_FLAGS} -g) # file:line in the records
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

# The checker with the allreduce preload (issue 40): the checker first calls the next
# MPI_Init and MPI_Allreduce (the preload's), so the program's calls are checked at the level
# it asked for and its large allreduces still accelerated; in the other order the preload
# says in one line that the checker sees nothing.  HK_CHECK_FATAL that is no boolean stops
# the program at MPI_Init (once, status 2) instead of meaning off.
set(TOOLS ${CHECK_DIR}/with_tools.sh ${HK_MPI_IMPL} ${MPIEXEC_EXECUTABLE} 2)
set(ASAN_PRE "") # the ASan runtime first (see above)
if(HK_CHECK_LIBASAN)
  set(ASAN_PRE "${HK_CHECK_LIBASAN}:")
endif()
set(CHECK_SO $<TARGET_FILE:hybridkit-check>)
set(PRELOAD_SO $<TARGET_FILE:hybridkit-preload>)
set(BOTH "${ASAN_PRE}${CHECK_SO}:${PRELOAD_SO}")
function(tools_test name)
  add_test(NAME check.tools.${name} COMMAND ${TOOLS} ${ARGN})
  set_tests_properties(check.tools.${name} PROPERTIES LABELS "mpi;check" TIMEOUT 120 PROCESSORS 2
    ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;${HK_TEST_ENV}")
endfunction()
tools_test(with_preload.clean "${BOTH}" 0 -e HK_PRELOAD_VERBOSE=1 -e HK_CHECK_FATAL=1
  -m "MPI_Allreduce: [0-9]+ calls intercepted on 2 ranks, [1-9][0-9]* accelerated"
  -1 "^hybridkit-check: 2 rank\\(s\\), rule of MPI_THREAD_FUNNELED \\(program asked funneled.*: no violation$"
  -0 "warning" -- $<TARGET_FILE:coll_plain_mpi> 10)
tools_test(with_preload.violation "${BOTH}" 3 -e HK_PRELOAD_VERBOSE=1 -e HK_CHECK_FATAL=1
  -m "^hybridkit-check: rank [01]: MPI_Iprobe violates MPI_THREAD_FUNNELED"
  -m "^hybridkit-preload: MPI_Allreduce: [1-9][0-9]* calls intercepted on 2 ranks"
  -- ${CL} --level funneled --violate)
tools_test(preload_first "${ASAN_PRE}${PRELOAD_SO}:${CHECK_SO}" 0
  -1 "^hybridkit-preload: warning: libhybridkit-check.so comes after libhybridkit-preload.so in LD_PRELOAD: MPI_Init never reaches it"
  -- $<TARGET_FILE:coll_plain_mpi> 2)
# a tool before the preload that calls PMPI_Init itself (the profiler): the preload never
# started, and says so at exit (rank 0)
tools_test(preload_unreached "${ASAN_PRE}$<TARGET_FILE:hybridkit-profile>:${PRELOAD_SO}" 0
  -e HK_PROFILE_QUIET=1
  -1 "^hybridkit-preload: warning: MPI ran but its MPI_Init never reached libhybridkit-preload.so"
  -- $<TARGET_FILE:coll_plain_mpi> 2)
tools_test(fatal_garbage "${CHECK_LIB}" 2 -e HK_CHECK_FATAL=garbage
  -1 "^hybridkit-check: error: rank 0: HK_CHECK_FATAL=garbage: expected 1/yes/true/on or 0/no/false/off$"
  -- ${CL} --level funneled --violate)
tools_test(fatal_yes "${CHECK_LIB}" 3 -e HK_CHECK_FATAL=yes -m " violates " -- ${CL} --level funneled --violate)
# the preload libraries' other variables: a value that is no boolean (or thread level) is
# one warning line from rank 0 saying what happens instead (the program runs on)
set(PLAIN2 $<TARGET_FILE:coll_plain_mpi> 2)
tools_test(preload_verbose_garbage "${ASAN_PRE}${PRELOAD_SO}" 0 -e HK_PRELOAD_VERBOSE=maybe
  -1 "^hybridkit-preload: warning: HK_PRELOAD_VERBOSE=maybe: expected 1/yes/true/on or 0/no/false/off. no summary$"
  -- ${PLAIN2})
tools_test(preload_thread_limit_garbage "${ASAN_PRE}${PRELOAD_SO}" 0 -e HK_MPI_THREAD_LIMIT=bogus
  -e HK_ALLREDUCE_MIN_BYTES=0
  -1 "^hybridkit: warning: HK_MPI_THREAD_LIMIT=bogus: not a thread level .*. ignored$" -- ${PLAIN2})
tools_test(profile_quiet_garbage "${ASAN_PRE}$<TARGET_FILE:hybridkit-profile>" 0
  -e HK_PROFILE_QUIET=maybe -e HK_PROFILE_NO_ADDR2LINE=perhaps
  -1 "^hybridkit-profile: warning: HK_PROFILE_QUIET=maybe: expected 1/yes/true/on or 0/no/false/off. the summary is printed$"
  -1 "^hybridkit-profile: warning: HK_PROFILE_NO_ADDR2LINE=perhaps: expected .*. addr2line runs$"
  -- ${PLAIN2})

# HK_CHECK_ABORT (issue 37): two threads of each rank wait in MPI_Recv under FUNNELED (a
# hang); the checker stops the job at thread 1's call, before it reaches MPI: one line on
# stderr and the job gone within seconds (the test's TIMEOUT is the hang)
add_executable(check_hang ${CHECK_DIR}/check_hang.c)
target_compile_options(check_hang PRIVATE ${HK_WARN_FLAGS} -g)
target_link_libraries(check_hang PRIVATE MPI::MPI_C OpenMP::OpenMP_C)
tools_test(abort_hang "${CHECK_LIB}" 86 -e HK_CHECK_ABORT=1
  -m "^hybridkit-check: rank [01]: MPI_Recv violates MPI_THREAD_FUNNELED: not the main thread \\(thread [0-9]+, OpenMP thread 1 of 2, parallel level 1\\). first at .*check_hang.*. stopping the job before the call reaches MPI \\(HK_CHECK_ABORT\\)$"
  -- $<TARGET_FILE:check_hang>)
set_tests_properties(check.tools.abort_hang PROPERTIES TIMEOUT 20)
tools_test(abort_garbage "${CHECK_LIB}" 2 -e HK_CHECK_ABORT=maybe
  -1 "^hybridkit-check: error: rank 0: HK_CHECK_ABORT=maybe: expected 1/yes/true/on or 0/no/false/off$"
  -- ${CL} --level funneled --violate)

# HK_CHECK_OUTPUT: the records `hybridkit check` reads (counts per rank, the first site as
# file:line, thread, levels, calls checked), clean and violating, at 1-3 ranks
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(np 1 2 3)
    foreach(case clean funneled)
      set(args --level funneled)
      if(case STREQUAL funneled)
        list(APPEND args --violate)
      endif()
      add_test(NAME check.records.${case}.np${np}
               COMMAND ${Python3_EXECUTABLE} ${CHECK_DIR}/check_records.py ${HK_MPI_IMPL}
                       ${MPIEXEC_EXECUTABLE} ${np} ${CHECK_LIB} ${case} -- ${CL} ${args})
      set_tests_properties(check.records.${case}.np${np} PROPERTIES LABELS "mpi;check"
        TIMEOUT 120 PROCESSORS ${np}
        ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;${HK_TEST_ENV}")
    endforeach()
  endforeach()
endif()
