# HK_SMPI=ON: build hk-bench, hk-jacobi and hk-mz for SimGrid's SMPI (docs/simulate.md).
# The compiler is smpicc (CMAKE_C_COMPILER), which brings SMPI's mpi.h and links
# libsimgrid; the "executables" it links are shared objects that smpirun loads once
# per rank (dlopen privatisation of the globals). FindMPI cannot interrogate
# smpicc, so MPI::MPI_C is an empty target here and the launcher is smpirun.
get_filename_component(_hk_cc_name "${CMAKE_C_COMPILER}" NAME)
if(NOT _hk_cc_name MATCHES "^smpicc")
  message(FATAL_ERROR "HK_SMPI=ON needs CMAKE_C_COMPILER=smpicc (preset smpi-release), not ${CMAKE_C_COMPILER}")
endif()
find_program(HK_SMPIRUN smpirun REQUIRED)
set(MPIEXEC_EXECUTABLE "${HK_SMPIRUN}" CACHE FILEPATH "smpirun" FORCE)
add_library(MPI::MPI_C INTERFACE IMPORTED)
set(HK_MPI_IMPL smpi)
set(HK_BUILD_TESTS OFF CACHE BOOL "no tests in an SMPI build" FORCE)
# smpirun looks main() up in the shared object: it must be exported
set(CMAKE_C_VISIBILITY_PRESET default)
