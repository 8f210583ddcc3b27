#!/bin/bash
# same_lines.sh REGEX OPTION VALUE_A VALUE_B -- COMMAND...
# Runs COMMAND OPTION VALUE_A and COMMAND OPTION VALUE_B; both must exit 0 and print the
# same lines matching the extended REGEX (at least one): e.g. hk-mz's verification norms
# (14 significant digits) under two --layout choices.
regex=$1 option=$2 a=$3 b=$4
shift 4
[ "$1" = -- ] && shift
outa=$("$@" "$option" "$a" 2>&1) || { printf '%s\n' "$outa"; echo "FAIL: $option $a exited $?"; exit 1; }
outb=$("$@" "$option" "$b" 2>&1) || { printf '%s\n' "$outb"; echo "FAIL: $option $b exited $?"; exit 1; }
la=$(printf '%s\n' "$outa" | grep -E -- "$regex")
lb=$(printf '%s\n' "$outb" | grep -E -- "$regex")
[ -n "$la" ] || { printf '%s\n' "$outa"; echo "FAIL: no line matches $regex"; exit 1; }
if [ "$la" != "$lb" ]; then
  diff <(printf '%s\n' "$la") <(printf '%s\n' "$lb")
  echo "FAIL: $option $a and $option $b print different lines"
  exit 1
fi
printf '%s\n' "$la"
echo "PASS: $option $a and $option $b print the same $(printf '%s\n' "$la" | wc -l) lines"
