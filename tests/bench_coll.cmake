# hk-bench coll (issue 39: plain MPI vs the hybrid collectives): every collective at 2
# ranks and at 3 (oversubscribed; sizes 3 x 2^k so reduce-scatter, allgather and alltoall
# divide), 2 threads, rows with 1 and 2 threads; the run checks every element of every
# result, the records are checked against their schema.  A wrong element was shown to fail
# the run by a mutation (a wrong expected sum) by hand.
foreach(coll allreduce reduce reduce-scatter bcast allgather alltoall)
  hk_record_test(bench.coll.${coll}.np2 2 2 COMMAND ${BENCH} coll --collective ${coll}
                 -m 64:8K -i 5 -x 1 --threads 1,2 --min-bytes 0)
  hk_record_test(bench.coll.${coll}.np3 3 2 COMMAND ${BENCH} coll --collective ${coll}
                 -m 96:6K -i 5 -x 1 --threads 1,2 --min-bytes 0)
endforeach()
