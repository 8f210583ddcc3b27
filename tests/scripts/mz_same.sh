#!/bin/sh
# mz_same.sh MPIEXEC NPFLAG "PREFLAGS" NP_OMP NP_MPI N2 HK-MZ ARGS...
# Runs hk-mz ARGS with the OpenMP second level on NP_OMP ranks and with --second-level mpi
# --sub-ranks N2 on NP_MPI ranks (NP_MPI / N2 groups), both with --norms-hex.  Passes when
# both runs succeed (for the class's steps: verified against the official values) and print
# exactly the same norms (hex floats: bit for bit).
mpiexec=$1 npflag=$2 pre=$3 npo=$4 npm=$5 n2=$6
shift 6
a=$($mpiexec $npflag "$npo" $pre "$@" --norms-hex 2>&1) || {
  printf '%s\nFAIL: the omp run failed\n' "$a"; exit 1; }
b=$($mpiexec $npflag "$npm" $pre "$@" --norms-hex --second-level mpi --sub-ranks "$n2" 2>&1) || {
  printf '%s\nFAIL: the mpi run failed\n' "$b"; exit 1; }
na=$(printf '%s\n' "$a" | grep '^ Norms (hex):')
nb=$(printf '%s\n' "$b" | grep '^ Norms (hex):')
printf 'omp (%s ranks):%s\nmpi (%s ranks, %s per group):%s\n' "$npo" "${na#*:}" "$npm" "$n2" "${nb#*:}"
[ -n "$na" ] || { echo "FAIL: no norms printed"; exit 1; }
[ "$na" = "$nb" ] || { echo "FAIL: the norms differ"; exit 1; }
echo PASS
