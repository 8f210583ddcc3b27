#!/bin/bash
# check.sh IMPL LAUNCHER NP LIB EXPECT -- PROGRAM ARGS...
# Runs PROGRAM under LAUNCHER with NP ranks and libhybridkit-check.so preloaded
# (HK_CHECK_FATAL=1).  EXPECT=clean: exit 0, no violation line, the summary says
# "no violation".  Otherwise EXPECT is an extended regex: the exit code is not
# 0, and every rank prints exactly one line that matches it (the first
# violation of a call is reported once per rank).  SUMMARY (environment,
# optional): an extended regex rank 0's summary line must match too.
impl=$1 launcher=$2 np=$3 lib=$4 expect=$5
shift 5
[ "$1" = -- ] && shift
case $impl in
  openmpi) pre=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
           env=(-x LD_PRELOAD="$lib" -x HK_CHECK_FATAL=1) ;;
  *)       pre=(-bind-to none); env=(-genv LD_PRELOAD "$lib" -genv HK_CHECK_FATAL 1) ;;
esac
out=$("$launcher" -np "$np" "${pre[@]}" "${env[@]}" "$@" 2>&1); rc=$?
printf -- '--- exit %d\n%s\n' "$rc" "$out"
grep -q 'check_levels: .*skipped' <<<"$out" && { echo "SKIP"; exit 77; }
if [ "$expect" = clean ]; then
  [ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
  grep -q ' violates ' <<<"$out" && { echo "FAIL: a violation reported"; exit 1; }
  grep -Eq '^hybridkit-check: .*no violation$' <<<"$out" || { echo "FAIL: no summary"; exit 1; }
else
  [ $rc -ne 0 ] || { echo "FAIL: exit 0 under HK_CHECK_FATAL=1"; exit 1; }
  n=$(grep -c ' violates ' <<<"$out")
  m=$(grep -Ec -- "$expect" <<<"$out")
  [ "$n" -eq "$np" ] && [ "$m" -eq "$np" ] ||
    { echo "FAIL: $n violation lines, $m match '$expect' (want $np, one per rank)"; exit 1; }
fi
if [ -n "$SUMMARY" ]; then
  grep -Eq -- "$SUMMARY" <<<"$out" || { echo "FAIL: no summary matches '$SUMMARY'"; exit 1; }
fi
echo PASS
