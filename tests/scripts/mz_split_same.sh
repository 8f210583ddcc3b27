#!/bin/sh
# mz_split_same.sh DIR COMMAND_A... :: COMMAND_B...: run two hk-mz commands, each with
# `--history DIR/{a,b}.csv` appended, and require the same verification norms (the lines of
# three E-numbers, to the last printed digit) and the same residual history, row by row.
# Used for: --split 1 is bit-identical to unsplit; a split run is the same at 1 and N ranks
# (-d DIGITS: the history compared to DIGITS significant digits, as the ranks' partial sums
# of the residual are added in another order).
# -v: both runs must also verify against the official values (the unsplit reference).
digits=""
verify=0
while [ "$1" = "-d" ] || [ "$1" = "-v" ]; do
  if [ "$1" = "-v" ]; then verify=1; shift; else digits=$2; shift 2; fi
done
dir=$1
shift
mkdir -p "$dir" || exit 1
a=""
while [ $# -gt 0 ] && [ "$1" != "::" ]; do a="$a '$1'"; shift; done
[ "$1" = "::" ] || { echo "mz_same.sh: no '::' between the commands" >&2; exit 2; }
shift
rm -f "$dir/a.csv" "$dir/b.csv"
eval "$a --history '$dir/a.csv'" > "$dir/a.out" 2>&1 || true
"$@" --history "$dir/b.csv" > "$dir/b.out" 2>&1 || true
norms() { grep -E '[0-9]\.[0-9]{13}E[-+][0-9]{2} *-?[0-9]\.[0-9]{13}E' "$1" | sed 's/FAILURE:/        /'; }
norms "$dir/a.out" > "$dir/a.norms"
norms "$dir/b.out" > "$dir/b.norms"
n=$(wc -l < "$dir/a.norms")
if [ "$n" -lt 10 ] || ! [ -s "$dir/a.csv" ]; then
  echo "mz_same.sh: the first run printed $n norm lines / no history:"; cat "$dir/a.out"; exit 1
fi
rows() {
  if [ -n "$digits" ]; then
    grep -v '^#' "$1" | awk -F, -v d="$digits" 'NR == 1 { print; next } { printf "%s,%.*e\n", $1, d - 1, $2 }'
  else
    grep -v '^#' "$1"
  fi
}
rows "$dir/a.csv" > "$dir/a.rows"
rows "$dir/b.csv" > "$dir/b.rows" 2>/dev/null
if ! diff "$dir/a.norms" "$dir/b.norms" || ! diff -q "$dir/a.rows" "$dir/b.rows"; then
  echo "mz_same.sh: the two runs differ"; exit 1
fi
if [ $verify = 1 ]; then
  for f in a b; do
    grep -q 'Verification *= *SUCCESSFUL' "$dir/$f.out" || { echo "mz_same.sh: run $f did not verify"; cat "$dir/$f.out"; exit 1; }
  done
fi
echo "same norms ($n lines) and residual history ($(wc -l < "$dir/a.rows") rows)"
