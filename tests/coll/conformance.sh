#!/bin/bash
# conformance.sh IMPL LAUNCHER NP LIB|none -- PROGRAM ARGS...
# Runs the conformance program (tests/coll/conformance.c) under LAUNCHER with NP
# ranks, with LD_PRELOAD=LIB on the ranks only (none: plain MPI), and passes when
# it exits 0 and rank 0 reports "0 failed".  HK_* settings come from the
# environment (the launchers pass it on to local ranks).  A hang is the test's
# TIMEOUT.
impl=$1 launcher=$2 np=$3 lib=$4
shift 4
[ "$1" = -- ] && shift
env=()
case $impl in
  openmpi) pre=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
           [ "$lib" != none ] && env=(-x LD_PRELOAD="$lib") ;;
  *)       pre=(-bind-to none)
           [ "$lib" != none ] && env=(-genv LD_PRELOAD "$lib") ;;
esac
out=$("$launcher" -np "$np" "${pre[@]}" "${env[@]}" "$@" 2>&1); rc=$?
printf '%s\n--- exit code %d\n' "$out" "$rc"
[ $rc -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
printf '%s\n' "$out" | grep -Eq "^conformance: $np ranks, level [0-9], [1-9][0-9]* checks, 0 failed" ||
  { echo "FAIL: no '0 failed' line from rank 0"; exit 1; }
echo PASS
