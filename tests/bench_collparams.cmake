# hk-bench collparams (issue 39: the machine parameters of the collectives' model): 1 rank x
# 2 threads (no p2p), 2 ranks on one node (p2p intra), 3 ranks on nodes of 2 and 1 (both
# links), records checked against their schema; the inter link named in the table
hk_record_test(bench.collparams.np1 1 2 COMMAND ${BENCH} collparams -m 256K -i 5 -x 1)
hk_record_test(bench.collparams.np2 2 1 COMMAND ${BENCH} collparams -m 256K -i 5 -x 1)
hk_record_test(bench.collparams.inter 3 1 ENV HK_NODE_SIZE=2 HK_NODE_UNEVEN=1
               COMMAND ${BENCH} collparams -m 256K -i 5 -x 1)
# both links appear (and their records), from a run of rank 0 with a node peer and one elsewhere
hk_expect_test(bench.collparams.links 0 "p2p +inter +1 +0 " NP 3
               ENV HK_NODE_SIZE=2 HK_NODE_UNEVEN=1 COMMAND ${BENCH} collparams -m 64K -i 5 -x 1)
# --threads: the largest count is measured; anything but positive integers refused
hk_expect_test(bench.collparams.threads 0 "copy +none +2 " ONCE NP 1
               COMMAND ${BENCH} collparams -m 64K -i 2 -x 1 --threads 1,2)
hk_expect_test(bench.collparams.bad_threads 2 "--threads 1,x: up to 64 positive integers separated by commas"
               ONCE NP 1 COMMAND ${BENCH} collparams --threads 1,x)
