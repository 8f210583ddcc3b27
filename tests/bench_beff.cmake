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
# MPICH (ch4:ucx) polls without yielding: 3 and 4 oversubscribed ranks on 2 cores take a time
# slice for many of b_eff's ~7000 barrier-separated pattern loops (37 patterns x 3 methods x 21
# sizes x 3 repetitions). Measured here (2 cores): np3 187 s, np4 237 s (a build running beside
# it); MPIR_CVAR_POLLS_BEFORE_YIELD=1 changed nothing. Open MPI yields when oversubscribed: 1-2 s.
if(HK_MPI_IMPL STREQUAL "mpich")
  set_tests_properties(bench.beff.np3 bench.beff.np4 PROPERTIES TIMEOUT 900)
endif()
