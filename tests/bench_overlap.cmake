# hk-bench overlap: runs, validates its data, writes schema-valid records; bad input.
# (Whether overlap is seen is a measurement, never asserted: it depends on the MPI
# library's progress and on free cores.)
hk_record_test(bench.overlap.np2 2 2 COMMAND ${BENCH} overlap -m 64K -i 2)
hk_expect_test(bench.overlap.one_rank 2 "overlap needs at least 2 ranks, got 1" ONCE NP 1
               COMMAND ${BENCH} overlap)
