#!/bin/bash
# profile.sh IMPL LAUNCHER NP LIB OUT.jsonl ERR.txt -- PROGRAM ARGS...
# Runs PROGRAM under LAUNCHER with NP ranks and libhybridkit-profile.so preloaded,
# the records in OUT.jsonl (replaced), rank 0's summary (all stderr) in ERR.txt.
impl=$1 launcher=$2 np=$3 lib=$4 out=$5 err=$6
shift 6
[ "$1" = -- ] && shift
rm -f "$out"
case $impl in
  openmpi) pre=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
           env=(-x LD_PRELOAD="$lib" -x HK_PROFILE_OUTPUT="$out") ;;
  *)       pre=(-bind-to none); env=(-genv LD_PRELOAD "$lib" -genv HK_PROFILE_OUTPUT "$out") ;;
esac
"$launcher" -np "$np" "${pre[@]}" "${env[@]}" "$@" 2>"$err"; rc=$?
cat "$err"
exit $rc
