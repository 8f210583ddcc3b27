# hk-bench multipath tests: processes on 2 virtual nodes of 2, threads mode on 2 nodes of 1
hk_record_test(bench.multipath.proc.np4 4 1 ENV HK_NODE_SIZE=2
               COMMAND ${BENCH} multipath -m 8:16K -i 20 -x 2)
hk_record_test(bench.multipath.threads.np2 2 2 ENV HK_NODE_SIZE=1
               COMMAND ${BENCH} multipath --threads-mode -m 8:16K -i 20 -x 2)
hk_expect_test(bench.multipath.one_node 2 "multipath needs at least 2 nodes.*HK_NODE_SIZE" ONCE NP 2
               COMMAND ${BENCH} multipath -m 8)
hk_expect_test(bench.multipath.needs_multiple 1 "MPI_THREAD_MULTIPLE.*provides MPI_THREAD_FUNNELED"
               ONCE NP 2 ENV HK_NODE_SIZE=1 HK_MPI_THREAD_LIMIT=funneled OMP_NUM_THREADS=2
               COMMAND ${BENCH} multipath --threads-mode -m 8)
hk_expect_test(bench.multipath.bad_stride 2 "--stride 5: must be below the 2 ranks per node" ONCE NP 4
               ENV HK_NODE_SIZE=2 COMMAND ${BENCH} multipath --stride 5 -m 8)
