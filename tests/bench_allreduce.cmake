# hk-bench allreduce tests: 2 and 3 ranks, every algorithm row (hybrid ones fall back at
# 1 thread), records checked; hybrid rows at 2 threads on virtual nodes; bad input refused
hk_record_test(bench.allreduce.np2 2 1 COMMAND ${BENCH} allreduce -m 2:64K -i 10 -x 1)
hk_record_test(bench.allreduce.np3 3 1 COMMAND ${BENCH} allreduce -m 2:64K -i 10 -x 1
               --algorithms mpi,chunked)
hk_record_test(bench.allreduce.hybrid 4 2 ENV HK_NODE_SIZE=2 OMP_WAIT_POLICY=passive
               COMMAND ${BENCH} allreduce -m 16K:128K -i 3 -x 1 --threads 1,2 --min-bytes 0)
# OSU-style timing (each call timed, a barrier after it); the record says "osu"
hk_record_test(bench.allreduce.osu 3 1 COMMAND ${BENCH} allreduce -m 4:4K -i 10 -x 1
               --algorithms mpi,chunked --timing osu)
hk_expect_test(bench.allreduce.osu_says_so 0 "osu: each call timed" ONCE NP 2
               COMMAND ${BENCH} allreduce -m 8:8 -i 5 -x 1 --algorithms mpi --timing osu)
hk_expect_test(bench.allreduce.bad_timing 2 "--timing imb: back-to-back or osu" ONCE NP 2
               COMMAND ${BENCH} allreduce --timing imb)
hk_expect_test(bench.allreduce.bad_sizes 2 "-m 64K:8: the minimum 65536 is larger than the maximum 8"
               ONCE NP 2 COMMAND ${BENCH} allreduce -m 64K:8)
hk_expect_test(bench.allreduce.too_small 2 "allreduce sizes must reach at least 4 bytes" ONCE NP 2
               COMMAND ${BENCH} allreduce -m 1:2)
hk_expect_test(bench.allreduce.bad_algorithm 2 "--algorithms: unknown algorithm 'ring'" ONCE NP 2
               COMMAND ${BENCH} allreduce --algorithms mpi,ring)
hk_expect_test(bench.allreduce.bad_threads 2 "--threads 0: up to 16 positive integers" ONCE NP 2
               COMMAND ${BENCH} allreduce --threads 0)
