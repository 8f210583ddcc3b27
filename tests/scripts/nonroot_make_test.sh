#!/bin/bash
# nonroot_make_test.sh SRC WORK: `make test HK_TEST_SUBSET=quick` as an ordinary user (issue 41
# item 1) in a prepared tree: a clone of SRC's committed HEAD owned by nobody (uid 65534), on this
# machine whose build dependencies are installed (setup-deps.sh then only checks, as on a
# cluster's login node). Passes when make exits 0, ctest and pytest ran tests (count > 0), none
# failed, and the root-only test (vcluster.nodes2) reported a skip.
# The clone's .venv is made by nobody with /usr/bin/python3 (a pyenv shim is a script nobody
# cannot use), offline from a wheelhouse of python/constraints.txt that root fills once under
# ~/.cache/hybridkit (pip needs PyPI only then). Skips (77) when this is not root, setpriv
# (util-linux) or /usr/bin/python3 is missing, or the wheelhouse cannot be filled (offline).
set -uo pipefail
src=$1 work=$2
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (to run as nobody)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing: cannot drop root"
py=/usr/bin/python3
[ -x $py ] || skip "$py is missing"
# shellcheck source-path=SCRIPTDIR source=cache.sh
. "$(dirname "$0")/cache.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1
# the wheels of every pinned dependency (and setuptools, the build backend), per pin list
key=$(cat "$src/python/constraints.txt" "$src/python/pyproject.toml" | sha256sum | cut -c1-12)
wheels() {
  local dir=$1
  $py -m venv "$dir.venv" && "$dir.venv/bin/pip" wheel -q --disable-pip-version-check \
    -w "$dir" -c "$src/python/constraints.txt" "$src/python[test]" setuptools
  local rc=$?
  rm -rf "$dir.venv" "$dir"/hybridkit-*.whl
  return $rc
}
hk_cached "wheels-$key" "$work/wheels.log" wheels ||
  { tail -5 "$work/wheels.log"; skip "cannot fill the wheelhouse from PyPI (network?)"; }
# the tree nobody owns, in /tmp (ctest's build tree may sit below directories nobody cannot enter)
tree=$(mktemp -d /tmp/hk-nonroot.XXXXXX) || exit 1
trap 'rm -rf "$tree"' EXIT
git clone -q "$src" "$tree/src" && cp -r "$hk_cache/wheels-$key" "$tree/wheels" &&
  mkdir "$tree/home" && chown -R 65534:65534 "$tree" || exit 1
echo "nonroot: $(git -C "$src" log -1 --format='%h %s' | cut -c1-70), as $(setpriv --reuid=65534 id -un)"
t0=$(date +%s)
setpriv --reuid=65534 --regid=65534 --clear-groups \
  env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="$tree/home" \
  LANG=C.UTF-8 PYTHON=$py PIP_NO_INDEX=1 PIP_FIND_LINKS="$tree/wheels" JOBS=2 \
  timeout 1500 make -C "$tree/src" test HK_TEST_SUBSET=quick > "$work/make.log" 2>&1
rc=$?
echo "make test HK_TEST_SUBSET=quick as nobody: exit $rc after $(( $(date +%s) - t0 )) s (log: $work/make.log)"
log=$work/make.log
grep -E "^HK_MPI=auto|tests passed|Skipped|[0-9]+ passed" "$log" | sed 's/^/  | /'
[ $rc -eq 0 ] || { tail -40 "$log"; echo "FAIL: make test exited $rc as nobody"; exit 1; }
ran=$(grep -o -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | grep -o -E '[0-9]+$')
[ "${ran:-0}" -gt 0 ] || { echo "FAIL: ctest ran no test"; exit 1; }
grep -q -E '^[0-9]+ passed' "$log" || grep -q -E ' [0-9]+ passed' "$log" ||
  { echo "FAIL: pytest ran no test"; exit 1; }
grep -q -E 'vcluster\.nodes2 .*Skipped' "$log" ||
  { echo "FAIL: the root-only test vcluster.nodes2 did not report a skip"; exit 1; }
# the tree really was nobody's: the build and the venv belong to uid 65534
[ "$(stat -c %u "$tree/src/.venv/bin/python")" = 65534 ] || { echo "FAIL: .venv not nobody's"; exit 1; }
echo PASS
