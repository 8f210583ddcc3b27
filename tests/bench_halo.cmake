# hk-bench halo: every mode on a small block, face ghosts checked, records schema-valid; bad input.
hk_record_test(bench.halo.np2 2 2 COMMAND ${BENCH} halo -m 2K:4K -i 10 -x 2)
hk_expect_test(bench.halo.bad_mode 2 "--modes pure,hybrid: unknown mode 'hybrid'" ONCE NP 2
               COMMAND ${BENCH} halo --modes pure,hybrid)
hk_expect_test(bench.halo.needs_multiple 1 "multiple needs thread level multiple \\(MPI_THREAD_MULTIPLE\\)"
               ONCE NP 2 ENV HK_MPI_THREAD_LIMIT=funneled COMMAND ${BENCH} halo -m 2K --modes multiple)
# with FUNNELED only, the modes that need no more still run
add_test(NAME bench.halo.funneled_only COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
         ${HK_MPIEXEC_PREFLAGS} ${BENCH} halo -m 2K -i 5 --modes pure,masteronly,funneled,task)
set_tests_properties(bench.halo.funneled_only PROPERTIES LABELS mpi TIMEOUT 60
  ENVIRONMENT "OMP_NUM_THREADS=2;HK_MPI_THREAD_LIMIT=funneled;${HK_TEST_ENV}")
# faces vs full against a hand count: 4 ranks, periodic 2x2x1, blocks of 16^3 (2 KiB faces).
# Per rank: x and y faces to others (4), z faces to itself (2); full: the 24 offsets with dx or
# dy != 0 to others (4 faces of 2048 B, 12 edges of 128 B, 8 corners of 8 B: 9792 B), the 2 z
# faces to itself.  All ranks: 16 vs 96 messages, 32768 vs 39168 B; 8 self copies of 16384 B.
foreach(st faces full)
  if(st STREQUAL faces)
    set(counts "32768 +0 +16384 +16 +0 +8")
  else()
    set(counts "39168 +0 +16384 +96 +0 +8")
  endif()
  hk_expect_test(bench.halo.count.${st} 0 "${st} +2048 +1( +[0-9.]+){3} +${counts} +[0-9.]+$" NP 4
                 COMMAND ${BENCH} halo -m 2K -i 5 --modes funneled --stencil ${st})
endforeach()
hk_record_test(bench.halo.full.np2 2 2 COMMAND ${BENCH} halo -m 2K -i 5 --stencil full)
hk_expect_test(bench.halo.bad_stencil 2 "--stencil 27: faces or full" ONCE NP 2
               COMMAND ${BENCH} halo --stencil 27)
