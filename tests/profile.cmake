# libhybridkit-profile.so (issue 25): a plain MPI+OpenMP program with known MPI calls
# (tests/profile/prof_known.c) profiled at 1-3 ranks x 1-2 threads, once with every
# rank its own virtual node (HK_NODE_SIZE=1: every peer inter-node); the records are
# checked by tests/profile/check_profile.py (exact counts and bytes, generous time
# bounds, schema).  hk-jacobi and hk-mz run under it too (records valid, exit 0).
set(PROF_DIR ${CMAKE_CURRENT_SOURCE_DIR}/profile)
add_executable(prof_known ${PROF_DIR}/prof_known.c)
target_compile_options(prof_known PRIVATE ${HK_WARN_FLAGS})
target_link_libraries(prof_known PRIVATE MPI::MPI_C OpenMP::OpenMP_C)
set_target_properties(prof_known PROPERTIES ENABLE_EXPORTS ON) # dladdr names main
set(PROF_LIB $<TARGET_FILE:hybridkit-profile>)
if(CMAKE_C_FLAGS MATCHES "sanitize=address") # the ASan runtime first (see coll.cmake)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE HK_PROF_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(PROF_LIB "${HK_PROF_LIBASAN}:${PROF_LIB}")
endif()

# profile_test(NAME NP NT ENV... -- COMMAND...): the run (fixture), then CHECK if given
function(profile_test name np nt)
  cmake_parse_arguments(T "" "" "COMMAND;ENV;CHECK" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/profile.${name}.jsonl)
  set(err ${CMAKE_CURRENT_BINARY_DIR}/profile.${name}.err)
  add_test(NAME profile.${name} COMMAND ${PROF_DIR}/profile.sh ${HK_MPI_IMPL} ${MPIEXEC_EXECUTABLE}
           ${np} ${PROF_LIB} ${out} ${err} -- ${T_COMMAND})
  set_tests_properties(profile.${name} PROPERTIES LABELS "mpi;profile" TIMEOUT 300
    PROCESSORS ${np} FIXTURES_SETUP profile.${name}.out
    ENVIRONMENT "OMP_NUM_THREADS=${nt};${HK_TEST_ENV};${T_ENV}")
  if(T_CHECK)
    set(check ${T_CHECK})
  else()
    set(check ${HK_PYTHON} -m hybridkit records validate ${out})
  endif()
  string(REPLACE "@OUT@" ${out} check "${check}")
  string(REPLACE "@ERR@" ${err} check "${check}")
  add_test(NAME profile.${name}.check COMMAND ${check})
  set_tests_properties(profile.${name}.check PROPERTIES LABELS "mpi;profile" TIMEOUT 60
    FIXTURES_REQUIRED profile.${name}.out)
endfunction()

set(PK ${PROF_DIR}/check_profile.py)
foreach(np 1 2 3)
  foreach(nt 1 2)
    profile_test(known.np${np}.t${nt} ${np} ${nt} COMMAND $<TARGET_FILE:prof_known> --sleep 0.3
                 CHECK ${HK_PYTHON} ${PK} @OUT@ @ERR@ ${np} ${nt} 0.3 0)
  endforeach()
  profile_test(known.np${np}.nodes1 ${np} 2 ENV HK_NODE_SIZE=1
               COMMAND $<TARGET_FILE:prof_known> --sleep 0.3
               CHECK ${HK_PYTHON} ${PK} @OUT@ @ERR@ ${np} 2 0.3 1)
endforeach()
profile_test(jacobi 2 2 COMMAND $<TARGET_FILE:hk-jacobi> --mode masteronly --grid 24x20x16
             --iters 10 --verify on)
profile_test(mz 2 2 COMMAND $<TARGET_FILE:hk-mz> --bench sp --class S)

# a program whose MPI the tools never see (PMPI_Init): no records, and one line saying
# so (rank 0's, at exit), from the profiler and from the checker
add_executable(prof_unseen ${PROF_DIR}/unseen.c)
target_link_libraries(prof_unseen PRIVATE MPI::MPI_C)
if(HK_MPI_IMPL STREQUAL "mpich")
  set(UNSEEN_MPI MPICH)
else()
  set(UNSEEN_MPI "Open MPI")
endif()
profile_test(unseen.np2 2 1 COMMAND $<TARGET_FILE:prof_unseen>
             CHECK ${PROF_DIR}/check_unseen.sh @OUT@ @ERR@ hybridkit-profile ${UNSEEN_MPI})
set(UNSEEN_OUT ${CMAKE_CURRENT_BINARY_DIR}/check.unseen)
add_test(NAME check.unseen.np2 COMMAND sh -c "\"$0\" \"$@\"; \"${PROF_DIR}/check_unseen.sh\" \
  ${UNSEEN_OUT}.none ${UNSEEN_OUT}.err hybridkit-check \"${UNSEEN_MPI}\""
  ${PROF_DIR}/profile.sh ${HK_MPI_IMPL} ${MPIEXEC_EXECUTABLE} 2 ${CHECK_LIB}
  ${UNSEEN_OUT}.none ${UNSEEN_OUT}.err -- $<TARGET_FILE:prof_unseen>)
set_tests_properties(check.unseen.np2 PROPERTIES LABELS "mpi;check" TIMEOUT 120 PROCESSORS 2
  ENVIRONMENT "OMP_NUM_THREADS=1;${HK_TEST_ENV}")

# Fortran programs (mpif.h, use mpi, use mpi_f08) under the profiler and the checker
include(${CMAKE_CURRENT_SOURCE_DIR}/profile/fortran/fortran.cmake)

# hk-bench orthogonal sends what the seed's experiment sends (issue 43 item 4): every
# point-to-point call counted by the profiler (PMPI), 2 virtual nodes x 2 ranks, both
# patterns; tests/profile/check_orthogonal.py derives the expected calls and bytes
foreach(pat sendrecv concurrent)
  set(bout ${CMAKE_CURRENT_BINARY_DIR}/profile.orthogonal.${pat}.bench.jsonl)
  profile_test(orthogonal.${pat} 4 1 ENV HK_NODE_SIZE=2
               COMMAND $<TARGET_FILE:hk-bench> orthogonal --pattern ${pat} -m 1K:4K -i 3 -x 1
                       --output ${bout}
               CHECK ${HK_PYTHON} ${PROF_DIR}/check_orthogonal.py @OUT@ ${bout} ${pat} 2 2)
endforeach()
