# hk_detect_mpi_impl(OUT): "openmpi", "mpich" or "other", from the launcher's
# --version text (FindMPI has already located MPIEXEC_EXECUTABLE), and the
# launcher flags tests need to run oversubscribed on a small machine.
function(hk_detect_mpi_impl out)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
    OUTPUT_VARIABLE txt ERROR_VARIABLE txt RESULT_VARIABLE rc)
  if(txt MATCHES "Open MPI|OpenRTE")
    set(impl openmpi)
    # Tests run more ranks x threads than this machine has cores: no binding,
    # oversubscription allowed, and yield when idle so busy-polling ranks don't starve.
    set(pre --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
  elseif(txt MATCHES "HYDRA|MPICH")
    set(impl mpich)
    set(pre -bind-to none)
  else()
    set(impl other)
    set(pre "")
  endif()
  set(${out} ${impl} PARENT_SCOPE)
  set(HK_MPIEXEC_PREFLAGS "${pre}" CACHE STRING "Flags before the program in MPI tests")
endfunction()
