#!/bin/bash
# expect.sh [--once] CODE REGEX -- COMMAND...
# Runs COMMAND (stdout+stderr captured) and passes when its exit code is CODE
# ("nonzero" accepts any failure) and the output matches the extended REGEX.
# --once: the REGEX must match exactly one line (an error agreed collectively is
# printed by rank 0 only, not once per rank).
once=0
if [ "$1" = --once ]; then once=1; shift; fi
code=$1 regex=$2
shift 2
[ "$1" = -- ] && shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "--- exit code $rc, expected $code; pattern: $regex"
if [ "$code" = nonzero ]; then
  [ "$rc" -ne 0 ] || { echo "FAIL: expected a non-zero exit code"; exit 1; }
elif [ "$rc" -ne "$code" ]; then
  echo "FAIL: exit code $rc, expected $code"; exit 1
fi
n=$(printf '%s\n' "$out" | grep -Ec -- "$regex")
[ "$n" -ge 1 ] || { echo "FAIL: no line matches: $regex"; exit 1; }
if [ $once = 1 ] && [ "$n" -ne 1 ]; then echo "FAIL: $n lines match, expected exactly one"; exit 1; fi
echo PASS
