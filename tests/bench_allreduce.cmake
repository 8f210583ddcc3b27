# hk-bench allreduce tests: 2 and 3 ranks, records checked; bad -m refused
foreach(np 2 3)
  hk_record_test(bench.allreduce.np${np} ${np} 1 COMMAND ${BENCH} allreduce -m 2:64K -i 10 -x 1)
endforeach()
hk_expect_test(bench.allreduce.bad_sizes 2 "-m 64K:8: the minimum 65536 is larger than the maximum 8"
               ONCE NP 2 COMMAND ${BENCH} allreduce -m 64K:8)
hk_expect_test(bench.allreduce.too_small 2 "allreduce sizes must reach at least 4 bytes" ONCE NP 2
               COMMAND ${BENCH} allreduce -m 1:2)
