#!/bin/bash
# easybuild_dry_run.sh WORK_DIR: `eb --dry-run --robot` of contrib/easybuild/*.eb with EasyBuild
# from PyPI (issue 41 item 3): every dependency, build dependency and the toolchain must resolve
# to an easyconfig of EasyBuild's own collection (a missing one: "Missing dependencies", exit
# 1), and the plan must end with hybridkit's module. EasyBuild (framework, easyblocks,
# easyconfigs: the `easybuild` package, pinned) lives in a venv cached under ~/.cache/hybridkit.
# EasyBuild needs a modules tool even for a dry run: Environment Modules' modulecmd.tcl
# (Debian: environment-modules, which make deps installs). Skips (77) without network for the
# first install or without modulecmd.tcl.
set -uo pipefail
work=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
version=5.4.1
skip() { echo "SKIP: $*"; exit 77; }
# shellcheck source-path=SCRIPTDIR source=cache.sh
. "$(dirname "$0")/cache.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1
tcl=""
for f in "${MODULESHOME:-/nonexistent}/libexec/modulecmd.tcl" /usr/lib/*/modulecmd.tcl \
         /usr/share/modules/libexec/modulecmd.tcl; do
  [ -f "$f" ] && { tcl=$f; break; }
done
[ -n "$tcl" ] || skip "no modules tool (Environment Modules' modulecmd.tcl; Debian: apt-get install environment-modules)"
hk_cached "easybuild-$version" "$work/pip.log" hk_venv "easybuild==$version" ||
  { tail -5 "$work/pip.log"; skip "cannot install easybuild $version (network?)"; }
venv=$hk_cache/easybuild-$version
# EasyBuild looks for $MODULESHOME/libexec/modulecmd.tcl (Debian keeps it elsewhere)
mkdir -p "$work/moduleshome/libexec" && ln -s "$tcl" "$work/moduleshome/libexec/modulecmd.tcl"
root_ok=()
[ "$(id -u)" -eq 0 ] && root_ok=(--allow-use-as-root-and-accept-consequences)
rc=0
for eb in "$src"/contrib/easybuild/*.eb; do
  name=$(basename "$eb" .eb)
  out=$(env EB_PYTHON="$venv/bin/python" MODULESHOME="$work/moduleshome" \
        EASYBUILD_PREFIX="$work/eb" EASYBUILD_MODULES_TOOL=EnvironmentModules \
        EASYBUILD_MODULE_SYNTAX=Tcl timeout 300 "$venv/bin/eb" "$eb" --dry-run --robot \
        "${root_ok[@]}" 2>&1)
  r=$?
  echo "$out" | grep -E "ERROR|Missing|\(module: " | tail -n 3 | sed "s|$venv/easybuild/easyconfigs/||"
  [ $r -eq 0 ] || { echo "$out" | tail -20; echo "FAIL: eb --dry-run $name exited $r"; rc=1; continue; }
  # the easyconfig's own toolchain and dependencies, each planned as a module
  want=$("$venv/bin/python" - "$eb" <<'PY'
import sys
ns = {}
exec(open(sys.argv[1]).read(), {}, ns)
tc = ns["toolchain"]
print(f"{tc['name']}/{tc['version']}")
for name, ver, *_ in ns.get("builddependencies", []) + ns.get("dependencies", []):
    print(f"{name}/{ver}-")
PY
)
  for m in $want; do
    echo "$out" | grep -q -F "(module: $m" || { echo "FAIL: $name: $m is not in eb's plan"; rc=1; }
  done
  last=$(echo "$out" | grep -F "(module: " | tail -1)
  case $last in
    *"(module: ${name/-//})") echo "$name: $(echo "$want" | wc -w) modules of its own resolved, $(echo "$out" | grep -c -F '(module: ') in the plan" ;;
    *) echo "FAIL: $name: the plan does not end with its module: $last"; rc=1 ;;
  esac
done
[ $rc -eq 0 ] && echo PASS
exit $rc
