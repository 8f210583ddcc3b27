#!/bin/bash
# preload.sh IMPL LAUNCHER NP THREADS PRELOAD_LIB PATTERN -- PROGRAM ARGS...
# Runs PROGRAM under LAUNCHER with NP ranks x THREADS threads twice, without and
# with the preload library (HK_PRELOAD_VERBOSE=1), and passes when both exit 0,
# print the same "checksum" line, and the preloaded run's output matches the
# extended regex PATTERN (e.g. the summary with accelerated calls).
# IMPL (openmpi|mpich) decides how LD_PRELOAD reaches the ranks only (-x / -genv),
# so the launcher itself is not preloaded.
impl=$1 launcher=$2 np=$3 threads=$4 lib=$5 pattern=$6
shift 6
[ "$1" = -- ] && shift
case $impl in
  openmpi) pre=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
           env=(-x LD_PRELOAD="$lib" -x HK_PRELOAD_VERBOSE=1) ;;
  *)       pre=(-bind-to none); env=(-genv LD_PRELOAD "$lib" -genv HK_PRELOAD_VERBOSE 1) ;;
esac
export OMP_NUM_THREADS=$threads
plain=$("$launcher" -np "$np" "${pre[@]}" "$@" 2>&1); rc1=$?
pre_out=$("$launcher" -np "$np" "${pre[@]}" "${env[@]}" "$@" 2>&1); rc2=$?
printf -- '--- without preload (exit %d)\n%s\n--- with preload (exit %d)\n%s\n' "$rc1" "$plain" "$rc2" "$pre_out"
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || { echo "FAIL: exit codes $rc1 / $rc2"; exit 1; }
c1=$(printf '%s\n' "$plain" | grep -Eio 'checksum[^,]*' | head -1)
c2=$(printf '%s\n' "$pre_out" | grep -Eio 'checksum[^,]*' | head -1)
[ -n "$c1" ] && [ "$c1" = "$c2" ] || { echo "FAIL: checksums differ: '$c1' vs '$c2'"; exit 1; }
printf '%s\n' "$plain" | grep -q 'hybridkit-preload:' && { echo "FAIL: preload summary without preload"; exit 1; }
printf '%s\n' "$pre_out" | grep -Eq -- "$pattern" || { echo "FAIL: no line matches: $pattern"; exit 1; }
echo "PASS: $c1 with and without the preload"
