# Distributed shared memory (issue 21): the protocol at 1-4 ranks x 1-2 threads, misuse.
hk_test_exe(test_dsm mpi/test_dsm.c)
hk_mpi_test(dsm.protocol test_dsm)
set(TD $<TARGET_FILE:test_dsm>)
hk_expect_test(dsm.misuse.too_large 1 "larger than this machine's memory" ONCE NP 2
               COMMAND ${TD} --misuse too-large)
hk_expect_test(dsm.misuse.skip_barrier 1 "the ranks disagree: some called hk_dsm_barrier, others hk_dsm_free" ONCE NP 3
               COMMAND ${TD} --misuse skip-barrier)
# A rank that gave up on a collective leaves windows no rank can free; MPICH over UCX then
# aborts in MPI_Finalize (exit 6, after our message), Open MPI finalizes: exit 1 expected there.
if(HK_MPI_IMPL STREQUAL "openmpi")
  set(late_exit 1)
else()
  set(late_exit nonzero)
endif()
hk_expect_test(dsm.misuse.late ${late_exit} "hk_dsm_barrier: not every rank of the region arrived within 1 s" ONCE NP 2
               ENV HK_DSM_TIMEOUT=1 COMMAND ${TD} --misuse late)
hk_expect_test(dsm.misuse.after_free nonzero "hk_dsm: access to freed region" NP 2
               COMMAND ${TD} --misuse after-free)

# hk-dsm-heat: bit-identical to the serial reference of hk-jacobi --dims 2 (exit 1 when
# not) at every layout: ranks x threads, block and chunked schedules, both boundaries,
# block and cyclic homes; uneven grids so that rows of different workers share pages
set(HEAT $<TARGET_FILE:hk-dsm-heat>)
hk_mpi_test(dsm.heat.periodic hk-dsm-heat ARGS --grid 67x45 --iters 7 --warmup 1)
hk_mpi_test(dsm.heat.dirichlet hk-dsm-heat ARGS --grid 130x33 --iters 6 --boundary dirichlet)
hk_mpi_test(dsm.heat.chunked hk-dsm-heat ARGS --grid 50x61 --iters 5 --schedule static,2 RANKS 2 3 4)
hk_mpi_test(dsm.heat.cyclic hk-dsm-heat ARGS --size 40 --iters 5 --home cyclic --schedule static,5
            --boundary dirichlet RANKS 3 THREADS 2)
hk_mpi_test(dsm.heat.tiny hk-dsm-heat ARGS --grid 1x3 --iters 4 RANKS 4 THREADS 2)
hk_expect_test(dsm.heat.help 0 "^usage: hk-dsm-heat" COMMAND ${HEAT} --help)
hk_expect_test(dsm.heat.bad_schedule 2 "--schedule dynamic: static or static,N" ONCE NP 2
               COMMAND ${HEAT} --schedule dynamic)
# its record (kind dsm.heat, apps/dsm/dsm_kinds.c) validates against the schema generated
# from the declaration: every declared field present, in its type and unit, nothing else
hk_record_test(dsm.heat.record 3 2 LABELS apps COMMAND ${HEAT} --grid 67x45 --iters 3 --schedule static,4)
# ... and its counters hold what must hold whatever the timing (tests/scripts/dsm_record.py):
# parts add up, whole pages fetched, a single rank moves nothing
hk_record_test(dsm.heat.record1 1 1 LABELS apps COMMAND ${HEAT} --grid 67x45 --iters 3)
foreach(c "dsm.heat.record;3;2" "dsm.heat.record1;1;1")
  list(GET c 0 n)
  list(GET c 1 np)
  list(GET c 2 nt)
  add_test(NAME ${n}.counts COMMAND ${HK_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/dsm_record.py
           ${CMAKE_CURRENT_BINARY_DIR}/${n}.jsonl 67x45 ${np} ${nt})
  set_tests_properties(${n}.counts PROPERTIES FIXTURES_REQUIRED ${n}.out LABELS "mpi;apps" TIMEOUT 30)
endforeach()
