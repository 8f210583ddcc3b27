# hk-bench orthogonal: 4 ranks on 2 virtual nodes, records schema-checked; one
# node is refused once with exit code 2
hk_record_test(bench.orthogonal.np4 4 1 ENV HK_NODE_SIZE=2
               COMMAND ${BENCH} orthogonal -m 8:64K -i 20 -x 2)
hk_expect_test(bench.orthogonal.one_node 2
               "orthogonal needs at least 2 nodes of equal size >= 2 ranks \\(HK_NODE_SIZE=k or tools/vcluster\\)"
               ONCE NP 2 COMMAND ${BENCH} orthogonal)
hk_expect_test(bench.orthogonal.one_rank_nodes 2 "orthogonal needs at least 2 nodes of equal size >= 2"
               ONCE NP 2 ENV HK_NODE_SIZE=1 COMMAND ${BENCH} orthogonal)
