# ---- hk_allgather and hk_alltoall (issue 39): every algorithm forced and auto against the
# values the program wrote (tests/coll/gather_conformance.c: int, double, char, contiguous
# and vector types, different send / receive types, in place, counts 0 .. 65537 per block,
# omp single, sub-communicators with different numbers of calls, interleaved with
# hk_allreduce, the fallback reasons certain from the inputs)
hk_coll_conformance(coll.gather coll/gather_conformance.c)
