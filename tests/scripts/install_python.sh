#!/bin/bash
# install_python.sh BUILD_DIR WORK_DIR PYTHON MPI (openmpi|mpich): hybridkit installed like HPC
# software (issue 41): `cmake --install --prefix P`, the Python front end into the same
# prefix (`pip install --prefix P ./python`, the dependencies being PYTHON's own), then the environment the
# installed modulefile (P/share/modulefiles/hybridkit/<version>) sets, applied line by line
# (prepend-path), outside the source tree and without HK_BIN_DIR: `hybridkit` must find the
# prefix's hk-* binaries (through PATH, and with PATH not naming P/bin, beside itself) and run
# a verified hk-jacobi.  Exit 77 (skip) when pip cannot build the package (no network for
# its build requirements).
set -uo pipefail
build=$1 work=$2 py=$3 mpi=$4
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
p=$work/prefix
cmake --install "$build" --prefix "$p" > "$work/install.log" || { echo "FAIL: cmake --install"; exit 1; }
# --ignore-installed: without it pip uninstalls PYTHON's own (editable) hybridkit first, and
# every later test of this tree loses the package
before=$("$py" -c 'import hybridkit; print(hybridkit.__file__)' 2>&1)
if ! "$py" -m pip install -q --no-deps --ignore-installed --disable-pip-version-check \
     --prefix "$p" "$src/python" > "$work/pip.log" 2>&1; then
  cat "$work/pip.log"
  echo "SKIP: pip install --prefix failed (network for setuptools?)"
  exit 77
fi
after=$("$py" -c 'import hybridkit; print(hybridkit.__file__)' 2>&1)
[ "$after" = "$before" ] || { echo "FAIL: pip changed $py's hybridkit: $before -> $after"; exit 1; }
mod=$(find "$p/share/modulefiles/hybridkit" -type f 2>/dev/null | head -1)
[ -n "$mod" ] || { echo "FAIL: no modulefile under $p/share/modulefiles/hybridkit"; exit 1; }
echo "modulefile: $mod"
# what `module load` would do: set prefix, prepend-path VAR DIR ($prefix expanded)
unset HK_BIN_DIR HK_SCHEMA HK_KIND_SCHEMAS PYTHONPATH
export PATH=/usr/bin:/bin
prefix=$(sed -n 's/^set prefix //p' "$mod")
[ "$prefix" = "$p" ] || { echo "FAIL: modulefile prefix '$prefix', installed into $p"; exit 1; }
while read -r var dir; do
  dir=${dir//\$prefix/$prefix}
  [ -e "$dir" ] || { echo "FAIL: modulefile: $var $dir does not exist"; exit 1; }
  export "$var=$dir${!var:+:${!var}}"
done < <(sed -n 's/^prepend-path //p' "$mod")
cd "$work" || exit 1
export OMP_NUM_THREADS=1
ob=""; [ "$mpi" = openmpi ] && ob=--oversubscribe
hybridkit run hk-jacobi --mpi "$mpi" --np 2 --threads 1 --bind none --results "$work/res" $ob -- --size 12 \
  --iters 2 > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; echo "FAIL: hybridkit run from the prefix"; exit 1; }
grep -q "Verification = SUCCESSFUL" "$work/run.txt" || { cat "$work/run.txt"; echo "FAIL: not verified"; exit 1; }
grep -q "\"$p/bin/hk-jacobi\"\|$p/bin/hk-jacobi" "$work"/res/runs/*/command.txt ||
  { cat "$work"/res/runs/*/command.txt; echo "FAIL: not the prefix's hk-jacobi"; exit 1; }
echo "hybridkit run (module environment): the prefix's hk-jacobi, verified"
# PATH without the prefix: the binaries beside the hybridkit command itself
out=$(PATH=/usr/bin:/bin "$p/bin/hybridkit" run hk-jacobi --mpi "$mpi" --np 2 --threads 1 --dry-run 2>&1) ||
  { echo "$out"; echo "FAIL: $p/bin/hybridkit run --dry-run"; exit 1; }
echo "$out" | grep -q "$p/bin/hk-jacobi" || { echo "$out"; echo "FAIL: hk-jacobi not found beside $p/bin/hybridkit"; exit 1; }
echo "$p/bin/hybridkit (PATH without the prefix): finds $p/bin/hk-jacobi"
echo PASS
