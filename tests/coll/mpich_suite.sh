#!/bin/bash
# mpich_suite.sh: MPICH's own test/mpi/coll programs under the preload (issue 39).
#
#   mpich_suite.sh build WORK MPICC
#     Downloads MPICH 4.0.2's source once per machine into
#     ${XDG_CACHE_HOME:-$HOME/.cache}/hybridkit/ (under a lock, sha256 checked), extracts
#     test/mpi/{coll,util,include} and dtpools' headers into WORK/src, writes a minimal
#     mpitestconf.h (no configure) and compiles the programs of PROGS with MPICC into
#     WORK/bin (one that does not build is listed and left out).  Exit 77 (skip) when the
#     source cannot be downloaded.
#   mpich_suite.sh plain WORK IMPL LAUNCHER NPS
#     Runs every built program without the preload at each rank count of NPS ("1 2 3 4")
#     and records the passing ones in WORK/plain.npN; a plain failure is listed, not
#     counted.  Fails only when nothing passed.  The programs of EXTRA only with
#     HK_MPICH_SUITE_ALL=1.
#   mpich_suite.sh preload WORK IMPL LAUNCHER LIB NPS THREADS ALGS
#     Runs every program that passed plain at that rank count again with LD_PRELOAD=LIB,
#     HK_COLL_ALGORITHM=A (each A of ALGS), HK_COLL_MIN_BYTES=0,
#     HK_PRELOAD_THREAD_LEVEL=multiple, OMP_NUM_THREADS=T (each T of THREADS).  Fails when
#     one of them fails.  Other HK_* settings (HK_NODE_SIZE) come from the environment.
#     HK_MPICH_SUITE_KNOWN="prog ...": programs whose failure is a known library bug: a
#     failure is listed as KNOWN (not counted); when none occurs the summary says so.
#
# One line per run: "mpich-suite: MODE np N threads T alg A PROGRAM: pass|FAIL (why)".
# A program passes when it exits 0 within 60 s and prints " No Errors"; a hang is a failure.
set -u
MPICH_VERSION=4.0.2
# from http://deb.debian.org/debian/pool/main/m/mpich/mpich_4.0.2-3.dsc (Checksums-Sha256)
MPICH_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
MPICH_URL=http://deb.debian.org/debian/pool/main/m/mpich/mpich_${MPICH_VERSION}.orig.tar.xz
# program:arguments (test/mpi/coll/testlist.in; the rank counts are ours, 1-4)
PROGS="allred:-count=10 allred2 allred3 allred4 allred5 allred6 allredmany reduce red3 red4
       redscat redscat2 redscat3 redscatblk3 bcasttest bcastzerotype allgather2 allgather3
       allgatherv2 allgatherv3 allgatherv4 alltoall1 alltoallv alltoallv0 scantst exscan exscan2
       op_commutative reduce_local"
# built but run only with HK_MPICH_SUITE_ALL=1 (more allreduce cases; allredmany's thousands of
# small calls take over 60 s at 3-4 oversubscribed MPICH ranks; MPI_Reduce_local, which
# the preload does not take; allgatherv4, a timing loop over 128 MiB buffers that needs 3
# ranks): the default set's time stays near 3 minutes on 2 cores
EXTRA=" allred3 allred4 allred6 allredmany reduce_local allgatherv4 "
PER_RUN_TIMEOUT=${HK_MPICH_SUITE_TIMEOUT:-60}

die() { echo "mpich-suite: $*" >&2; exit 1; }

fetch() { # fetch: prints the tarball's path; exit 77 when it cannot be had
  local cache=${XDG_CACHE_HOME:-$HOME/.cache}/hybridkit
  local tar=$cache/mpich_${MPICH_VERSION}.orig.tar.xz
  mkdir -p "$cache" || die "cannot create $cache"
  (
    flock 9 || die "cannot lock $cache/mpich.lock"
    if [ -f "$tar" ] && echo "$MPICH_SHA256  $tar" | sha256sum -c --status; then exit 0; fi
    rm -f "$tar.part"
    # python3's urllib, not curl: a fresh Debian root (debootstrap minbase) has no curl
    if ! python3 -c '
import shutil, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=60) as r, open(sys.argv[2], "wb") as f:
    shutil.copyfileobj(r, f)' "$MPICH_URL" "$tar.part" 2>/dev/null; then
      rm -f "$tar.part"
      echo "mpich-suite: SKIP: cannot download $MPICH_URL (no network?)"
      exit 77
    fi
    echo "$MPICH_SHA256  $tar.part" | sha256sum -c --status ||
      { rm -f "$tar.part"; die "$MPICH_URL: sha256 is not $MPICH_SHA256"; }
    mv "$tar.part" "$tar"
  ) 9>"$cache/mpich.lock"
  local rc=$?
  [ $rc -eq 0 ] || exit $rc
  TARBALL=$tar
}

conf_h() { # the macros util/mtest*.c and the chosen programs test (a POSIX system)
  cat <<'EOF'
/* mpitestconf.h for hybridkit's tests/coll/mpich_suite.sh: no configure run */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_USLEEP 1
#define HAVE_STRDUP 1
#define STDC_HEADERS 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define POINTERINT_t long
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#endif
EOF
}

build() { # build WORK MPICC
  local work=$1 mpicc=$2
  fetch
  local src=$work/src
  rm -rf "${src:?}" "${work:?}/bin"
  mkdir -p "$src" "$work/bin" || die "cannot create $work"
  local top=mpich-$MPICH_VERSION/test/mpi
  # python3's tarfile (lzma), not tar -xJ: a fresh Debian root has no xz; members below
  # test/mpi/{coll,util,include,dtpools/include}, the first three path parts dropped
  python3 -c '
import sys, tarfile
top, dest = sys.argv[2], sys.argv[3]
keep = tuple(top + "/" + d + "/" for d in ("coll", "util", "include", "dtpools/include"))
with tarfile.open(sys.argv[1], "r:xz") as t:
    for m in t.getmembers():
        if m.name.startswith(keep) and (m.isfile() or m.isdir()):
            m.name = m.name.split("/", 3)[3]
            t.extract(m, dest)' "$TARBALL" "$top" "$src" ||
    die "cannot extract $TARBALL"
  conf_h >"$src/include/mpitestconf.h"
  local inc=(-I"$src/include" -I"$src/dtpools/include")
  # the harness once, then each program against it
  local o
  for o in mtest mtest_common mtest_thread; do
    "$mpicc" -O1 -w "${inc[@]}" -c "$src/util/$o.c" -o "$work/bin/$o.o" ||
      die "cannot compile util/$o.c with $mpicc"
  done
  local p name built=() failed=()
  for p in $PROGS; do
    name=${p%%:*}
    if "$mpicc" -O1 -w "${inc[@]}" "$src/coll/$name.c" "$work/bin/mtest.o" \
         "$work/bin/mtest_common.o" "$work/bin/mtest_thread.o" -o "$work/bin/$name" -lm >"$work/bin/$name.log" 2>&1; then
      built+=("$name")
    else
      failed+=("$name")
    fi
  done
  echo "mpich-suite: built ${#built[@]} programs with $mpicc: ${built[*]}"
  [ ${#failed[@]} -eq 0 ] || echo "mpich-suite: not built (left out): ${failed[*]}"
  [ ${#built[@]} -gt 0 ] || die "no program built"
}

# run_one IMPL LAUNCHER NP LIB|none PROGRAM ARGS...: sets $why, returns 0 on a pass
skip_unbuilt() { # a skipped setup test (no network) does not stop ctest's dependent tests
  [ -f "$1/bin/mtest.o" ] && return 0
  echo "mpich-suite: SKIP: $1 has no programs (coll.mpich.build skipped or not run)"
  exit 77
}

run_one() {
  local impl=$1 launcher=$2 np=$3 lib=$4 pre=() env=() out rc
  shift 4
  case $impl in
    openmpi) pre=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
             [ "$lib" != none ] && env=(-x LD_PRELOAD="$lib") ;;
    *)       pre=(-bind-to none)
             [ "$lib" != none ] && env=(-genv LD_PRELOAD "$lib") ;;
  esac
  out=$(timeout -k 5 "$PER_RUN_TIMEOUT" "$launcher" -np "$np" "${pre[@]}" "${env[@]}" "$@" 2>&1 </dev/null)
  rc=$?
  LAST_OUT=$out
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="hang: killed after ${PER_RUN_TIMEOUT} s"; return 1; fi
  [ $rc -eq 0 ] || { why="exit code $rc"; return 1; }
  printf '%s\n' "$out" | grep -q '^ No Errors' || { why="no ' No Errors'"; return 1; }
  why=""
  return 0
}

plain() { # plain WORK IMPL LAUNCHER NPS
  local work=$1 impl=$2 launcher=$3 nps=$4 np p name args npass=0 nfail=0 listed=()
  skip_unbuilt "$work"
  unset HK_COLL_ALGORITHM HK_COLL_MIN_BYTES HK_PRELOAD_THREAD_LEVEL
  export OMP_NUM_THREADS=1
  for np in $nps; do
    : >"$work/plain.np$np"
    for p in $PROGS; do
      name=${p%%:*}; args=""; [ "$name" != "$p" ] && args=${p#*:}
      [ -x "$work/bin/$name" ] || continue
      [ "${HK_MPICH_SUITE_ALL:-0}" = 1 ] || [ "$EXTRA" = "${EXTRA/ $name /}" ] || continue
      # shellcheck disable=SC2086  # the program's arguments, one word each
      if run_one "$impl" "$launcher" "$np" none "$work/bin/$name" $args; then
        echo "mpich-suite: plain np $np threads 1 alg - $name: pass"
        echo "$p" >>"$work/plain.np$np"; npass=$((npass + 1))
      else
        echo "mpich-suite: plain np $np threads 1 alg - $name: FAIL ($why; listed, not counted)"
        printf '%s\n' "$LAST_OUT" | tail -5 | sed 's/^/    /'
        listed+=("$name@np$np"); nfail=$((nfail + 1))
      fi
    done
  done
  echo "mpich-suite: plain $impl: $npass passed, $nfail failed without the preload${listed:+: ${listed[*]}}"
  [ $npass -gt 0 ] || die "no program passed without the preload"
}

preload() { # preload WORK IMPL LAUNCHER LIB NPS THREADS ALGS
  local work=$1 impl=$2 launcher=$3 lib=$4 nps=$5 threads=$6 algs=$7
  local np t a p name args npass=0 nfail=0 nknown=0 failed=() known=" ${HK_MPICH_SUITE_KNOWN:-} "
  skip_unbuilt "$work"
  export HK_COLL_MIN_BYTES=0 HK_PRELOAD_THREAD_LEVEL=multiple
  for np in $nps; do
    [ -f "$work/plain.np$np" ] ||
      { echo "mpich-suite: SKIP: $work/plain.np$np is missing (coll.mpich.plain.np$np not run)"; exit 77; }
    for a in $algs; do
      export HK_COLL_ALGORITHM=$a
      for t in $threads; do
        export OMP_NUM_THREADS=$t
        while read -r p; do
          name=${p%%:*}; args=""; [ "$name" != "$p" ] && args=${p#*:}
          # shellcheck disable=SC2086  # the program's arguments, one word each
          if run_one "$impl" "$launcher" "$np" "$lib" "$work/bin/$name" $args; then
            echo "mpich-suite: preload np $np threads $t alg $a $name: pass"
            npass=$((npass + 1))
          elif [ "$known" != "${known/ $name /}" ]; then
            echo "mpich-suite: preload np $np threads $t alg $a $name: KNOWN FAILURE ($why; listed, not counted)"
            printf '%s\n' "$LAST_OUT" | grep -m2 hybridkit | sed 's/^/    /'
            nknown=$((nknown + 1))
          else
            echo "mpich-suite: preload np $np threads $t alg $a $name: FAIL ($why)"
            printf '%s\n' "$LAST_OUT" | grep -v -e '^---' -e '^\[' -e '^ *$' | head -8 | sed 's/^/    /'
            failed+=("$name@np$np.t$t.$a"); nfail=$((nfail + 1))
          fi
        done <"$work/plain.np$np"
      done
    done
  done
  echo "mpich-suite: preload $impl${HK_NODE_SIZE:+ HK_NODE_SIZE=$HK_NODE_SIZE}: $npass passed, $nknown known failures, $nfail failed${failed:+: ${failed[*]}}"
  [ -n "${HK_MPICH_SUITE_KNOWN:-}" ] && [ $nknown -eq 0 ] &&
    echo "mpich-suite: no failure of HK_MPICH_SUITE_KNOWN=$HK_MPICH_SUITE_KNOWN here"
  [ $nfail -eq 0 ] && [ $npass -gt 0 ]
}

cmd=${1:-}
shift || true
case $cmd in
  build)   [ $# -eq 2 ] || die "usage: build WORK MPICC"; build "$@" ;;
  plain)   [ $# -eq 4 ] || die "usage: plain WORK IMPL LAUNCHER NPS"; plain "$@" ;;
  preload) [ $# -eq 7 ] || die "usage: preload WORK IMPL LAUNCHER LIB NPS THREADS ALGS"; preload "$@" ;;
  *) die "usage: mpich_suite.sh build|plain|preload ..." ;;
esac
