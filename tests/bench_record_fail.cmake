# A local failure in the middle of a record on one rank (test hook HK_TEST_RECORD_FAIL=RANK:FIELD:
# adding FIELD fails as if out of memory on RANK): hk-bench builds its records without error
# tests, so every rank still enters each reduction (hk_record_stats, the emit's agreement) and
# ends with that error, reported once, exit code 1, no hang (hk_expect_test's timeout).
# pingpong: rank 2 takes no part in the pair 0<->1, its record still fails the run
hk_expect_test(bench.record_fail.pingpong 1 "rank 2: out of memory adding 'intra_latency'" ONCE
               NP 3 ENV HK_TEST_RECORD_FAIL=2:intra_latency COMMAND ${BENCH} pingpong -m 8:64 -i 5 -x 1)
# allreduce and barrier: the failed field comes before a collective hk_record_stats
hk_expect_test(bench.record_fail.allreduce 1 "rank 1: out of memory adding 'timing'" ONCE
               NP 3 ENV HK_TEST_RECORD_FAIL=1:timing COMMAND ${BENCH} allreduce -m 8:64 -i 5 -x 1)
hk_expect_test(bench.record_fail.barrier 1 "rank 1: out of memory adding 'iters'" ONCE
               NP 3 ENV OMP_NUM_THREADS=2 HK_TEST_RECORD_FAIL=1:iters
               COMMAND ${BENCH} barrier -i 100 -x 5)
# halo: before the halo bytes' reduction (hk_app_record_halo_bytes)
hk_expect_test(bench.record_fail.halo 1 "rank 1: out of memory adding 'threads'" ONCE
               NP 3 ENV HK_TEST_RECORD_FAIL=1:threads
               COMMAND ${BENCH} halo -m 2K -i 5 -x 1 --modes pure)
# beff: its first record (bench.beff, per size) fails on rank 1 (2 ranks: 3 oversubscribe the
# 2-core test machine and MPICH's busy waiting makes that beff take over a minute)
hk_expect_test(bench.record_fail.beff 1 "rank 1: out of memory adding 'bandwidth_per_proc'" ONCE
               NP 2 ENV HK_TEST_RECORD_FAIL=1:bandwidth_per_proc
               COMMAND ${BENCH} beff -m 1:4K --time-per-loop 0.002)
