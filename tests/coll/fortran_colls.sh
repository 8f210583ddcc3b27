#!/bin/bash
# fortran_colls.sh IMPL LAUNCHER NP LIB SRC OUTDIR PATTERN: compiles the Fortran program SRC
# (tests/coll/fortran_colls*.f90) with this MPI's wrapper (mpif90.IMPL, else mpif90) and runs
# it through preload_colls.sh (plain, then preloaded per algorithm of $HK_TEST_ALGS).
# No Fortran compiler: exit 77 (ctest: skipped).
impl=$1 launcher=$2 np=$3 lib=$4 src=$5 outdir=$6 pattern=$7
fc=$(command -v "mpif90.$impl" || command -v mpif90) || { echo "no mpif90: skipped"; exit 77; }
"$fc" --version >/dev/null 2>&1 || { echo "no Fortran compiler behind $fc: skipped"; exit 77; }
exe=$outdir/$(basename "$src" .f90)
mkdir -p "$outdir" && "$fc" -O1 -w -o "$exe" "$src" || { echo "FAIL: $fc"; exit 1; }
exec "$(dirname "$0")/preload_colls.sh" "$impl" "$launcher" "$np" "$lib" "$pattern" -- "$exe"
