#!/bin/bash
# fortran.sh IMPL LAUNCHER NP LIB SRC OUTDIR PATTERN: compiles the Fortran test SRC
# with this MPI's Fortran wrapper (mpif90.IMPL, else mpif90), runs it on NP ranks
# with LD_PRELOAD=LIB on the ranks and HK_PRELOAD_VERBOSE=1, and passes when it
# exits 0, reports "0 failed" and the output matches the extended regex PATTERN.
# No Fortran compiler: exit 77 (ctest: skipped).
impl=$1 launcher=$2 np=$3 lib=$4 src=$5 outdir=$6 pattern=$7
fc=$(command -v "mpif90.$impl" || command -v mpif90) || { echo "no mpif90: skipped"; exit 77; }
# the MPI's wrapper is there without the compiler it calls when gfortran is not installed
"$fc" --version >/dev/null 2>&1 || { echo "no Fortran compiler behind $fc: skipped"; exit 77; }
mkdir -p "$outdir" && "$fc" -O1 -w -o "$outdir/fortran_allreduce" "$src" || { echo "FAIL: $fc"; exit 1; }
case $impl in
  openmpi) run=("$launcher" -np "$np" --oversubscribe --bind-to none -x LD_PRELOAD="$lib" -x HK_PRELOAD_VERBOSE=1) ;;
  *)       run=("$launcher" -np "$np" -bind-to none -genv LD_PRELOAD "$lib" -genv HK_PRELOAD_VERBOSE 1) ;;
esac
out=$("${run[@]}" "$outdir/fortran_allreduce" 2>&1); rc=$?
printf '%s\n--- exit code %d\n' "$out" "$rc"
[ $rc -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
printf '%s\n' "$out" | grep -q "fortran-conformance: $np ranks, 0 failed" || { echo "FAIL: no '0 failed'"; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$pattern" || { echo "FAIL: no line matches: $pattern"; exit 1; }
echo PASS
