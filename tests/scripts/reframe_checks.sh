#!/bin/bash
# reframe_checks.sh BIN_DIR WORK_DIR MPI: contrib/reframe's checks run by ReFrame itself (issue 41)
# on this machine (contrib/reframe/config.py: local scheduler, mpirun): HkJacobiCheck at pure MPI
# (2x1) and hybrid (1x2) must pass with the app's verification as sanity and report MLUP/s;
# then the same check against a fake hk-jacobi that does not verify must fail.  ReFrame
# (reframe-hpc from PyPI, pinned) lives in a venv cached under ~/.cache/hybridkit; no network
# and no cache: exit 77 (skip).
set -uo pipefail
bin=$1 work=$2 mpi=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
version=4.10.4
# shellcheck source-path=SCRIPTDIR source=cache.sh
. "$(dirname "$0")/cache.sh"
venv=$hk_cache/reframe-$version
rm -rf "$work" && mkdir -p "$work" || exit 1
hk_cached "reframe-$version" "$work/pip.log" hk_venv "reframe-hpc==$version" ||
  { cat "$work/pip.log"; echo "SKIP: cannot install reframe-hpc $version (network?)"; exit 77; }
# ReFrame's mpirun launcher runs `mpirun`: this build's MPI's (Debian's mpirun may be the other)
mkdir -p "$work/mpi-bin"
# (a script, not a link: hydra finds its proxy beside the path it was started by)
case $mpi in
  mpich) real=$(command -v mpiexec.mpich) ;;
  *) real=$(command -v mpirun.openmpi || command -v mpirun) ;;
esac
printf '#!/bin/sh\nexec %s "$@"\n' "$real" > "$work/mpi-bin/mpirun"
chmod +x "$work/mpi-bin/mpirun"
export PATH="$work/mpi-bin:$PATH"
rfm() {
  local dir=$1 name=$2
  shift 2
  (cd "$work" && HK_BIN_DIR=$dir HK_MPI=$mpi HK_RFM_SIZE=24 timeout 600 "$venv/bin/reframe" \
     -C "$src/contrib/reframe/config.py" -c "$src/contrib/reframe/hybridkit_checks.py" \
     --prefix "$work/$name" -n HkJacobiCheck "$@" -r)
}
out=$(rfm "$bin" real 2>&1); rc=$?
echo "$out" | grep -E "OK|FAIL|P: |PASSED|FAILED"
[ $rc = 0 ] || { echo "$out" | tail -30; echo "FAIL: reframe exit $rc"; exit 1; }
[ "$(echo "$out" | grep -c '^P: mlups: [0-9.]* MLUP/s')" = 2 ] ||
  { echo "FAIL: not two MLUP/s performance values"; exit 1; }
echo "$out" | grep -q "Ran 2/2 test case(s)" || { echo "FAIL: not 2 test cases"; exit 1; }
# a hk-jacobi that does not verify: ReFrame must fail the sanity check
mkdir -p "$work/fake"
printf '#!/bin/sh\necho "  mlups                  1.0 MLUP/s"\necho "# Verification = FAILED"\n' \
  > "$work/fake/hk-jacobi"
chmod +x "$work/fake/hk-jacobi"
out=$(rfm "$work/fake" fake 2>&1); rc=$?
if [ $rc = 0 ] || ! echo "$out" | grep -q "FAILED"; then
  echo "$out" | tail -20; echo "FAIL: a hk-jacobi that does not verify passed ReFrame's sanity"; exit 1
fi
echo "a non-verifying hk-jacobi: ReFrame failed it (exit $rc)"
# a centre's per-layout reference: 2x1 must reach 1e9 MLUP/s (it cannot), 1x2 has none
printf '{"hkgeneric:default": {"HkJacobiCheck": {"2x1": [1e9, -0.1, null, "MLUP/s"]}}}\n' \
  > "$work/references.json"
out=$(rfm "$bin" ref -S "references=$work/references.json" 2>&1); rc=$?
if [ $rc = 0 ] || [ "$(echo "$out" | grep -c 'FAIL.*HkJacobiCheck %layout=2x1')" = 0 ] ||
   echo "$out" | grep -q 'FAIL.*HkJacobiCheck %layout=1x2'; then
  echo "$out" | tail -20; echo "FAIL: the per-layout reference was not applied to 2x1 alone"; exit 1
fi
echo "a per-layout reference (2x1 >= 1e9 MLUP/s): 2x1 failed its performance check, 1x2 passed"
echo PASS
