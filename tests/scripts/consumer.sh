#!/bin/bash
# consumer.sh BUILD_DIR WORK_DIR MPICC MPIEXEC [CFLAGS]
# Installs the build into WORK_DIR/prefix, then builds tests/consumer against it
# twice -- with find_package(hybridkit) and with pkg-config -- and runs both; then
# runs the installed binaries and the preload library from the prefix with no
# LD_LIBRARY_PATH (their RUNPATH is $ORIGIN-relative).
# CFLAGS: the library's own flags (a sanitizer build needs its consumers sanitized too).
set -euo pipefail
build=$1 work=$2 mpicc=$3 mpiexec=$4 cflags=${5:-}
src=$(cd "$(dirname "$0")/../consumer" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
echo "installed into $work/prefix"
cmake -S "$src" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" -DMPI_C_COMPILER="$mpicc" \
  -DMPIEXEC_EXECUTABLE="$mpiexec" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" \
  > "$work/configure.log"
cmake --build "$work/cmake" > "$work/build.log"
libdir=$(ls -d "$work"/prefix/lib*/ | head -n1)
export PKG_CONFIG_PATH="$libdir/pkgconfig"
"$mpicc" -fopenmp $cflags "$src/main.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs hybridkit) \
  -Wl,-rpath,"$libdir"
for exe in "$work/cmake/consumer" "$work/cmake/consumer_static" "$work/consumer_pc"; do
  out=$("$mpiexec" -n 2 $([ -n "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && "$mpiexec" --version 2>&1 | grep -q 'Open MPI' && echo --oversubscribe) "$exe")
  echo "$out"
  echo "$out" | grep -q "consumer: hybridkit .*, 1 node(s), 2 rank(s) on node 0" || { echo "FAIL: $exe"; exit 1; }
done
unset LD_LIBRARY_PATH
p=$work/prefix
for b in hk-topology hk-jacobi hk-mz hk-mc hk-bench; do
  "$p/bin/$b" --help > "$work/$b.help" || { echo "FAIL: installed $b --help"; exit 1; }
done
ob=""
if "$mpiexec" --version 2>&1 | grep 'Open MPI' > /dev/null; then ob=--oversubscribe; fi
out=$("$mpiexec" -n 2 $ob "$p/bin/hk-jacobi" --size 12 --iters 2 2>&1) || { echo "$out"; echo "FAIL: installed hk-jacobi"; exit 1; }
echo "$out" | grep -q "Verification = SUCCESSFUL" || { echo "$out"; echo "FAIL: installed hk-jacobi"; exit 1; }
echo "installed hk-jacobi: verified at 2 ranks"
# the preload library from the prefix (a sanitized build: the runtime need not come first)
out=$("$mpiexec" -n 2 $ob env LD_PRELOAD="$libdir/libhybridkit-preload.so" \
      ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
      "$p/bin/hk-mc" --particles 2000 --steps 3 2>&1) || { echo "$out"; echo "FAIL: preload"; exit 1; }
echo "$out" | grep -Eq "preload +on" || { echo "$out"; echo "FAIL: the preload library did not load"; exit 1; }
echo "installed preload library: loaded by hk-mc at 2 ranks"
echo PASS
