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
# scan, exscan and alltoallv (alltoallv: the same count for every pair) at 1-4 ranks x
# 1-2 threads (3 and 4 oversubscribed; sizes 12 x 2^k so every P divides): every element
# checked (rank r's scan the sum over ranks 0..r, its exscan over 0..r-1, alltoallv's
# blocks naming their pair).  A wrong expected prefix (exscan checked as a scan) was shown
# to fail the run by hand.
foreach(coll scan exscan alltoallv)
  foreach(shape 1x1 1x2 2x1 2x2 3x2 4x1 4x2)
    string(REPLACE "x" ";" rt ${shape})
    list(GET rt 0 np)
    list(GET rt 1 nt)
    set(tl 1)
    if(nt GREATER 1)
      set(tl 1,${nt})
    endif()
    hk_record_test(bench.coll.${coll}.${shape} ${np} ${nt} COMMAND ${BENCH} coll --collective
                   ${coll} -m 96:3K -i 3 -x 1 --threads ${tl} --min-bytes 0)
  endforeach()
endforeach()
