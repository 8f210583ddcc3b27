# hk-bench beff: 2 ranks, and 4 ranks on 2 virtual nodes with the masteronly
# comparison (short loops: --time-per-loop); records schema-checked; bad sizes
# rejected once with exit code 2.  The formula itself: tests/unit/test_beff.c.
hk_record_test(bench.beff.np2 2 1 COMMAND ${BENCH} beff --lmax 64K --time-per-loop 0.002)
hk_record_test(bench.beff.np3 3 1 COMMAND ${BENCH} beff -m 1:8K --time-per-loop 0.002)
hk_record_test(bench.beff.np4 4 1 ENV HK_NODE_SIZE=2
               COMMAND ${BENCH} beff -m 8:16K --time-per-loop 0.002 --compare-hybrid)
hk_expect_test(bench.beff.lmax_zero 2 "--lmax 0: one positive byte count" ONCE NP 2
               COMMAND ${BENCH} beff --lmax 0)
hk_expect_test(bench.beff.lmax_below_4k 2 "Lmax 2048 \\(from --lmax\\) is below 4K" ONCE
               NP 2 COMMAND ${BENCH} beff --lmax 2K)
hk_expect_test(bench.beff.memory_small 2 "Lmax 2048 \\(from --memory / 128\\) is below 4K" ONCE
               NP 2 COMMAND ${BENCH} beff --memory 256K)
hk_expect_test(bench.beff.time_per_loop 2 "--time-per-loop 0: must be positive" ONCE NP 2
               COMMAND ${BENCH} beff --lmax 64K --time-per-loop 0)
hk_expect_test(bench.beff.size_order 2 "-m 8:4: the minimum 8 is larger than the maximum 4" ONCE NP 2
               COMMAND ${BENCH} beff -m 8:4)
hk_expect_test(bench.beff.one_rank 2 "beff needs at least 2 ranks, got 1" ONCE NP 1
               COMMAND ${BENCH} beff)
