# hk-bench threads-pingpong tests: 2 ranks x 2 threads, records checked; 1 rank refused
hk_record_test(bench.threads_pingpong.np2 2 2 COMMAND ${BENCH} threads-pingpong -m 1:1K -i 10 -x 1)
hk_expect_test(bench.threads_pingpong.one_rank 2 "threads-pingpong needs at least 2 ranks, got 1"
               ONCE NP 1 ENV OMP_NUM_THREADS=2 COMMAND ${BENCH} threads-pingpong)
