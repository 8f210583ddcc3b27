# ---- hk_bcast (issue 39): every algorithm forced and auto against the values the root
# wrote (tests/coll/bcast_conformance.c: int, double, char, contiguous and vector types, counts
# 0 .. 65537 and 1 << 20 doubles, every root, omp single and every thread in turn,
# sub-communicators with different numbers of calls, interleaved with hk_allreduce / hk_reduce,
# the fallback reasons certain from the inputs)
hk_coll_conformance(coll.bcast coll/bcast_conformance.c)
