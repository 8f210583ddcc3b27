#!/bin/bash
# tests/vcluster/dsm.sh VCLUSTER TEST_DSM HK_DSM_HEAT: the DSM across emulated nodes (TCP
# between them, Open MPI osc/ucx): the protocol test at 3 nodes x 2 threads and the heat
# example at 4 nodes.  Its own cluster (state, namespaces, subnet), taken down at the end
# when idle.  Exit 77 (skip) where namespaces cannot be made.
vc=$1 test_dsm=$2 heat=$3
export VCLUSTER_STATE=${VCLUSTER_DSM_STATE:-/run/hybridkit-vcluster-dsm} VCLUSTER_PREFIX=hkvd
export VCLUSTER_SUBNET=${VCLUSTER_DSM_SUBNET:-10.122.0}
"$vc" up 4 >/dev/null
rc=$?
[ $rc = 0 ] || exit $rc
fail=0
"$vc" mpirun -np 3 --map-by node --mca osc ucx -x OMP_NUM_THREADS=2 -x OMP_WAIT_POLICY=passive \
  "$test_dsm" || fail=1
"$vc" mpirun -np 4 --map-by node --mca osc ucx -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY=passive \
  "$heat" --grid 130x57 --iters 6 --boundary dirichlet || fail=1
"$vc" down >/dev/null 2>&1 || true
exit $fail
