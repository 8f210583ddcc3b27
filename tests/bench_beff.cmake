# hk-bench beff: 2 ranks, and 4 ranks on 2 virtual nodes with the masteronly
# comparison; records schema-checked; bad sizes rejected once with exit code 2
hk_record_test(bench.beff.np2 2 1 COMMAND ${BENCH} beff -m 8:64K)
hk_record_test(bench.beff.np4 4 1 ENV HK_NODE_SIZE=2
               COMMAND ${BENCH} beff -m 8:16K --lmax 64K --compare-hybrid)
hk_expect_test(bench.beff.lmax_zero 2 "--lmax 0: Lmax is one positive byte count" ONCE NP 2
               COMMAND ${BENCH} beff --lmax 0)
hk_expect_test(bench.beff.lmax_below_min 2 "--lmax 4: Lmax is smaller than the smallest size 8" ONCE
               NP 2 COMMAND ${BENCH} beff -m 8:1K --lmax 4)
hk_expect_test(bench.beff.size_order 2 "-m 8:4: the minimum 8 is larger than the maximum 4" ONCE NP 2
               COMMAND ${BENCH} beff -m 8:4)
hk_expect_test(bench.beff.one_rank 2 "beff needs at least 2 ranks, got 1" ONCE NP 1
               COMMAND ${BENCH} beff)
