# Fortran programs under libhybridkit-profile.so and libhybridkit-check.so (issue 37):
# the same known MPI calls through mpif.h (prof_f77.f), `use mpi` (prof_f90.f90) and
# `use mpi_f08` (prof_f08.f90), the other argument conversions (prof_more.f90, `use
# mpi_f08`: communicators, requests, indices, flags, LOGICALs), and a `use mpi` program that breaks
# MPI_THREAD_FUNNELED from a parallel region (threads_f90.f90).  Profiled: exact
# counts, bytes and call sites (file:line) by check_fortran.py; checked: clean
# programs "no violation", the broken one its violations.  Included from
# tests/profile.cmake (after check.cmake), in the tests directory's scope as
# enable_language wants.  Without a Fortran compiler or MPI's Fortran bindings the
# tests are skipped (exit 77) with the reason.
include(CheckLanguage)
check_language(Fortran)
set(PF_DIR ${CMAKE_CURRENT_SOURCE_DIR}/profile/fortran)
set(PF_REASON "no Fortran compiler (gfortran) found by CMake")
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  # MPICH's wrapper by its Debian name: plain mpif90 is Open MPI's when both are installed
  if(HK_MPI_IMPL STREQUAL "mpich" AND NOT MPI_Fortran_COMPILER)
    find_program(MPI_Fortran_COMPILER NAMES mpif90.mpich mpifort.mpich)
  endif()
  find_package(MPI COMPONENTS Fortran)
  find_package(OpenMP COMPONENTS Fortran)
  set(PF_REASON "no MPI Fortran bindings or OpenMP for Fortran found by CMake")
endif()

set(PF_PROGRAMS prof_f77 prof_f90 prof_f08 prof_more threads_f90)
if(TARGET MPI::MPI_Fortran AND TARGET OpenMP::OpenMP_Fortran)
  foreach(prog ${PF_PROGRAMS})
    file(GLOB src ${PF_DIR}/${prog}.f ${PF_DIR}/${prog}.f90)
    set(PF_SRC_${prog} ${src})
    add_executable(${prog} ${src})
    # -g: addr2line's file:line of every call site
    target_compile_options(${prog} PRIVATE -g)
    target_link_libraries(${prog} PRIVATE MPI::MPI_Fortran OpenMP::OpenMP_Fortran)
    set_target_properties(${prog} PROPERTIES Fortran_MODULE_DIRECTORY
                          ${CMAKE_CURRENT_BINARY_DIR}/fortran_mod/${prog})
  endforeach()
  # F77 style: one buffer argument of several types (gfortran >= 10 refuses it by default)
  target_compile_options(prof_f77 PRIVATE -fallow-argument-mismatch -w)
  # the checker names the violating call's function (dladdr: exported, not inlined)
  target_compile_options(threads_f90 PRIVATE -fno-inline)
  set_target_properties(threads_f90 PROPERTIES ENABLE_EXPORTS ON)

  set(PF_CHECK ${PF_DIR}/check_fortran.py)
  foreach(prog prof_f77 prof_f90 prof_f08)
    string(REPLACE "prof_" "" b ${prog})
    foreach(np 2 3)
      profile_test(fortran.${b}.np${np} ${np} 2 COMMAND $<TARGET_FILE:${prog}>
                   CHECK ${HK_PYTHON} ${PF_CHECK} @OUT@ @ERR@ ${np} 2 ${PF_SRC_${prog}} ring)
    endforeach()
    check_test(fortran.${b}.clean.np2 2 clean COMMAND $<TARGET_FILE:${prog}>)
  endforeach()
  foreach(np 2 3)
    profile_test(fortran.more.np${np} ${np} 2 COMMAND $<TARGET_FILE:prof_more>
                 CHECK ${HK_PYTHON} ${PF_CHECK} @OUT@ @ERR@ ${np} 2 ${PF_SRC_prof_more} more)
  endforeach()
  check_test(fortran.more.clean.np2 2 clean COMMAND $<TARGET_FILE:prof_more>)
  profile_test(fortran.threads.np2 2 2 COMMAND $<TARGET_FILE:threads_f90>
               CHECK ${HK_PYTHON} ${PF_CHECK} @OUT@ @ERR@ 2 2 ${PF_SRC_threads_f90} threads)
  check_test(fortran.funneled.violation.np2 2
    "^hybridkit-check: rank [0-9]+: MPI_(Send|Recv) violates MPI_THREAD_FUNNELED: not the main thread \\(thread [0-9]+, OpenMP thread 1 of 2, parallel level 1\\). first at exchange_\\+0x"
    SUMMARY "MPI_THREAD_FUNNELED \\(program asked funneled.*: 2 violation\\(s\\): MPI_Send 1 \\(1 rank\\(s\\)\\) MPI_Recv 1 \\(1 rank"
    COMMAND $<TARGET_FILE:threads_f90>)
else()
  foreach(t profile.fortran check.fortran)
    add_test(NAME ${t}.skipped COMMAND sh -c "echo '${PF_REASON}: skipped'; exit 77")
    set_tests_properties(${t}.skipped PROPERTIES LABELS "profile;check" SKIP_RETURN_CODE 77)
  endforeach()
endif()
