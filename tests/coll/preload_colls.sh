#!/bin/bash
# preload_colls.sh IMPL LAUNCHER NP LIB PATTERN -- PROGRAM ARGS...
# Runs PROGRAM (tests/coll/preload_colls.c or a Fortran program of the same output) on NP
# ranks, first as it is, then with LD_PRELOAD=LIB on the ranks once per algorithm of
# $HK_TEST_ALGS (default: auto mpi chunked chunked-shifted hierarchical) forced with
# HK_COLL_ALGORITHM, HK_COLL_MIN_BYTES=0 and HK_PRELOAD_THREAD_LEVEL=multiple, with
# HK_PRELOAD_VERBOSE=1.  Passes when every run exits 0 with rank 0's "NP ranks, K checks,
# 0 failed" line, and the preloaded runs' output matches the extended regex PATTERN
# (".": anything).  Other HK_* settings come from the environment.  A hang is the test's
# TIMEOUT.
impl=$1 launcher=$2 np=$3 lib=$4 pattern=$5
shift 5
[ "$1" = -- ] && shift
algs=${HK_TEST_ALGS:-auto mpi chunked chunked-shifted hierarchical}
run() { # run LIB|none ALG PROGRAM ARGS...
  local l=$1 a=$2 env=()
  shift 2
  case $impl in
    openmpi) pre=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
             [ "$l" != none ] && env=(-x LD_PRELOAD="$l") ;;
    *)       pre=(-bind-to none)
             [ "$l" != none ] && env=(-genv LD_PRELOAD "$l") ;;
  esac
  # the HK_* settings reach the local ranks through the launcher's environment
  if [ "$l" != none ]; then
    export HK_COLL_ALGORITHM=$a HK_COLL_MIN_BYTES=0 HK_PRELOAD_THREAD_LEVEL=multiple HK_PRELOAD_VERBOSE=1
  else
    unset HK_COLL_ALGORITHM HK_COLL_MIN_BYTES HK_PRELOAD_THREAD_LEVEL HK_PRELOAD_VERBOSE
  fi
  out=$("$launcher" -np "$np" "${pre[@]}" "${env[@]}" "$@" 2>&1); rc=$?
  printf '=== %s %s\n%s\n--- exit code %d\n' "$l" "$a" "$out" "$rc"
  [ $rc -eq 0 ] || { echo "FAIL ($a): exit code $rc"; exit 1; }
  printf '%s\n' "$out" | grep -Eq "^[a-z-]+: $np ranks, [1-9][0-9]* checks, 0 failed" ||
    { echo "FAIL ($a): no '0 failed' line from rank 0"; exit 1; }
}
prog=("$@")
run none - "${prog[@]}"
for alg in $algs; do
  run "$lib" "$alg" "${prog[@]}"
  printf '%s\n' "$out" | grep -Eq -- "$pattern" || { echo "FAIL ($alg): no line matches: $pattern"; exit 1; }
done
echo PASS
