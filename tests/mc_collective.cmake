# hk-mc --collective (issue 39, apps): every collective a step can reduce the tally with, by
# MPI_* and by the hk_* functions, gives the same global tally (integer sums: exact), so the
# checksum of the 1 rank x 1 thread MPI_Allreduce run must come out everywhere; hk-mz's
# norms (MPI_Reduce + MPI_Bcast) under the preload library.  Included after coll.cmake
# (COLL_ENV, PRELOAD, PRELOAD_LIB, coll_preload_test).
set(MCC $<TARGET_FILE:hk-mc>)
set(MCC_COLLECTIVES allreduce reduce reduce-scatter allgather alltoall bcast)
# the default tally (16384 bins: padded to P blocks at 3 ranks) and the checksum of its
# 1 x 1 MPI_Allreduce run (coll.cmake's MC_SMALL)
set(MCC_ARGS --particles 20000 --steps 10 --expect-checksum 6001db54180e9059)
# 25 bins (padded at 2, 3 and 4 ranks) with every message accelerated
set(MCC_ODD --particles 20000 --steps 10 --tally-bytes 200 --expect-checksum cfb9299477e2ad51)

foreach(coll ${MCC_COLLECTIVES})
  foreach(alg mpi chunked hierarchical auto)
    hk_mpi_test(mc.coll.${coll}.${alg} hk-mc ARGS ${MCC_ARGS} --collective ${coll} --algorithm ${alg}
                RANKS 1 2 3 4 THREADS 1 2 LABELS apps ENV ${COLL_ENV})
  endforeach()
  # two virtual nodes of 2 ranks: the hierarchical algorithms' leaders step
  hk_mpi_test(mc.coll.${coll}.vnodes hk-mc ARGS ${MCC_ARGS} --collective ${coll}
              --algorithm hierarchical RANKS 4 THREADS 2 LABELS apps ENV HK_NODE_SIZE=2 ${COLL_ENV})
  hk_mpi_test(mc.coll.${coll}.odd hk-mc ARGS ${MCC_ODD} --collective ${coll} --algorithm chunked
              RANKS 3 4 THREADS 2 LABELS apps ENV HK_ALLREDUCE_MIN_BYTES=1 HK_COLL_MIN_BYTES=1 ${COLL_ENV})
endforeach()

# the record says which collectives ran and what ran them (the reduce runs chunked: 2
# ranks x 2 threads, Open MPI and MPICH provide MULTIPLE; the bcast's algorithm varies)
hk_expect_test(mc.coll.used 0 "^ +allreduce_used +chunked\\+[a-z-]+$" ONCE NP 2
               ENV OMP_NUM_THREADS=2 ${COLL_ENV}
               COMMAND ${MCC} ${MCC_ARGS} --collective reduce --algorithm chunked)
hk_expect_test(mc.coll.calls 0 "^ +calls +MPI_Reduce_scatter_block\\+MPI_Allgather$" ONCE NP 2
               ENV ${COLL_ENV} COMMAND ${MCC} ${MCC_ARGS} --collective reduce-scatter)
hk_record_test(mc.coll.record 3 2 LABELS apps ENV ${COLL_ENV}
               COMMAND ${MCC} --particles 20000 --steps 5 --collective alltoall --algorithm chunked)
# --allreduce: the former name of --algorithm
hk_expect_test(mc.coll.alias 0 "^ +allreduce_used +hierarchical$" ONCE NP 2 ENV ${COLL_ENV}
               COMMAND ${MCC} ${MCC_ARGS} --allreduce hierarchical)
hk_expect_test(mc.coll.alias_conflict 2 "--allreduce chunked and --algorithm hierarchical: one algorithm"
               ONCE NP 2 COMMAND ${MCC} --allreduce chunked --algorithm hierarchical)
hk_expect_test(mc.coll.bad_collective 2
               "--collective ring: allreduce, reduce, reduce-scatter, allgather, alltoall or bcast"
               ONCE NP 2 COMMAND ${MCC} --collective ring)
hk_expect_test(mc.coll.bad_algorithm 2 "--algorithm ring: mpi, auto, chunked" ONCE NP 2
               COMMAND ${MCC} --algorithm ring)
# a wrong global tally fails (exit 1) whichever collective made it
hk_expect_test(mc.coll.wrong_checksum 1 "checksum 6001db54180e9059, expected 1234" ONCE NP 3
               ENV ${COLL_ENV} COMMAND ${MCC} --particles 20000 --steps 10 --collective alltoall
               --expect-checksum 1234)

# ---- under the preload library ----
# MPI_Reduce intercepted: hk-mc's reduce accelerated.  auto's model keeps MPI on the
# oversubscribed 2 x 2 of the test machine, so MULTIPLE and chunked are asked for
# (HK_REDUCE_ALGORITHM).  Skipped until the preload defines MPI_Reduce.
set(MCC_HAS ${CMAKE_CURRENT_SOURCE_DIR}/scripts/preload_has.sh ${PRELOAD_LIB})
add_test(NAME coll.preload.mc.reduce COMMAND ${MCC_HAS} MPI_Reduce -- ${PRELOAD} 2 2 ${PRELOAD_LIB}
         "hybridkit-preload: MPI_Reduce: [0-9]+ calls intercepted on 2 ranks, [1-9][0-9]* accelerated"
         -- ${MCC} --particles 20000 --steps 10 --collective reduce)
set_tests_properties(coll.preload.mc.reduce PROPERTIES LABELS "mpi;apps" TIMEOUT 120 PROCESSORS 2
  SKIP_RETURN_CODE 77
  ENVIRONMENT "${HK_TEST_ENV};${COLL_ENV};HK_PRELOAD_THREAD_LEVEL=multiple;HK_REDUCE_ALGORITHM=chunked")
# every collective of hk-mc under the preload: the same checksum with and without it
foreach(coll reduce reduce-scatter allgather alltoall bcast)
  coll_preload_test(mc.${coll}.np2.t2 2 2 "preload +on" ${MCC} --particles 20000 --steps 10
                    --collective ${coll})
endforeach()

# hk-mz's norms: MPI_Reduce to rank 0 + MPI_Bcast; under the preload (SP-MZ class S, 2 ranks)
# it verifies (exit 0) and, once the preload intercepts MPI_Reduce, the summary counts them
set(MZC $<TARGET_FILE:hk-mz> --bench sp --class S --quiet)
if(HK_MPI_IMPL STREQUAL "openmpi")
  set(MCC_PRE -x LD_PRELOAD=${PRELOAD_LIB} -x HK_PRELOAD_VERBOSE=1)
else()
  set(MCC_PRE -genv LD_PRELOAD ${PRELOAD_LIB} -genv HK_PRELOAD_VERBOSE 1)
endif()
set(MZ_PRELOADED ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${HK_MPIEXEC_PREFLAGS} ${MCC_PRE}
    ${MZC})
hk_expect_test(mz.preload.np2 0 "^hybridkit-preload: thread level: " ONCE
               ENV OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive COMMAND ${MZ_PRELOADED})
add_test(NAME mz.preload.reduce COMMAND ${MCC_HAS} MPI_Reduce -- ${EXPECT} --once 0
         "^hybridkit-preload: MPI_Reduce: [1-9][0-9]* calls intercepted" -- ${MZ_PRELOADED})
set_tests_properties(mz.preload.np2 mz.preload.reduce PROPERTIES LABELS "mpi;apps" PROCESSORS 2)
set_tests_properties(mz.preload.reduce PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
  ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;${HK_TEST_ENV}")
