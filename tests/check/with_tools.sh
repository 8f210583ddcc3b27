#!/bin/bash
# with_tools.sh IMPL LAUNCHER NP PRELOAD CODE [-e VAR=VALUE]... [-m REGEX]... [-1 REGEX]...
#               [-0 REGEX]... -- PROGRAM ARGS...
# Runs PROGRAM under LAUNCHER with NP ranks, LD_PRELOAD=PRELOAD (one library or a
# colon-separated list, in that order) and the VAR=VALUE settings on the ranks only
# (-x / -genv: the launcher itself is not preloaded), and passes when the exit code
# is CODE, every -m REGEX (extended) matches at least one line of the output and
# every -1 REGEX exactly one (a line printed once, not once per rank), every -0 REGEX none.
impl=$1 launcher=$2 np=$3 preload=$4 code=$5
shift 5
vars=(LD_PRELOAD="$preload") some=() one=() none=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    -e) vars+=("$2") ;;
    -m) some+=("$2") ;;
    -1) one+=("$2") ;;
    -0) none+=("$2") ;;
    *) echo "with_tools.sh: unknown argument '$1'"; exit 2 ;;
  esac
  shift 2
done
[ "$1" = -- ] && shift
env=()
case $impl in
  openmpi) pre=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
           for v in "${vars[@]}"; do env+=(-x "$v"); done ;;
  *)       pre=(-bind-to none)
           for v in "${vars[@]}"; do env+=(-genv "${v%%=*}" "${v#*=}"); done ;;
esac
out=$("$launcher" -np "$np" "${pre[@]}" "${env[@]}" "$@" 2>&1); rc=$?
printf -- '--- exit %d (expected %s)\n%s\n' "$rc" "$code" "$out"
[ "$rc" -eq "$code" ] || { echo "FAIL: exit code $rc, expected $code"; exit 1; }
for r in "${some[@]}"; do
  grep -Eq -- "$r" <<<"$out" || { echo "FAIL: no line matches: $r"; exit 1; }
done
for r in "${one[@]}"; do
  n=$(grep -Ec -- "$r" <<<"$out")
  [ "$n" -eq 1 ] || { echo "FAIL: $n lines match '$r', expected exactly one"; exit 1; }
done
for r in "${none[@]}"; do
  grep -Eq -- "$r" <<<"$out" && { echo "FAIL: a line matches: $r"; exit 1; }
done
echo PASS
