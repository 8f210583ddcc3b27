# Distributed shared memory (issue 21): the protocol at 1-4 ranks x 1-2 threads, misuse.
hk_test_exe(test_dsm mpi/test_dsm.c)
hk_mpi_test(dsm.protocol test_dsm)
set(TD $<TARGET_FILE:test_dsm>)
hk_expect_test(dsm.misuse.too_large 1 "larger than this machine's memory" ONCE NP 2
               COMMAND ${TD} --misuse too-large)
hk_expect_test(dsm.misuse.skip_barrier 1 "the ranks disagree: some called hk_dsm_barrier, others hk_dsm_free" ONCE NP 3
               COMMAND ${TD} --misuse skip-barrier)
hk_expect_test(dsm.misuse.late 1 "hk_dsm_barrier: not every rank of the region arrived within 1 s" ONCE NP 2
               ENV HK_DSM_TIMEOUT=1 COMMAND ${TD} --misuse late)
hk_expect_test(dsm.misuse.after_free nonzero "hk_dsm: access to freed region" NP 2
               COMMAND ${TD} --misuse after-free)
