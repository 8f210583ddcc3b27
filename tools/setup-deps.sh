#!/bin/bash
# tools/setup-deps.sh auto|openmpi|mpich|intelmpi|cray-mpich [PACKAGE...]
# What hybridkit's build and tests need, and (as root on Debian/Ubuntu only) installing it.
#
# Root (or password-less sudo) on Debian/Ubuntu, as on the quick start's fresh Debian 12:
# installs the Debian packages that are missing (dpkg-query): the build tools, hwloc, jansson
# (JSON reading), Python's venv, iproute2 (ip and tc: the emulated cluster tools/vcluster and
# its tests), chromium (renders the study report in the tests), gfortran (the preload's
# Fortran tests; MPI's mpif90 is there without it), Slurm and munge (a real Slurm on the
# emulated nodes: vcluster up N --slurm, test vcluster.slurm), SimGrid (smpicc/smpirun for
# hybridkit simulate, docs/simulate.md), Environment Modules (the modules tool EasyBuild
# needs: test install.easybuild), and the selected MPI (Open MPI or MPICH), plus any
# extra PACKAGEs.  Idempotent and quick: when everything is installed it makes no apt call.
#
# Anyone else (a cluster's login node: no root, modules, any distribution), and root with
# HK_SETUP_NO_INSTALL=1: installs nothing.  Decides by what the build uses: commands on
# PATH, `pkg-config hwloc jansson`, the MPI's compiler wrapper and launcher, python3 >= 3.9
# with venv and ensurepip.  Something required missing: one block naming each missing
# piece with its Debian/Ubuntu (apt), RHEL/Rocky (dnf) and Spack names, exit 2.  Optional
# pieces missing (Fortran, Chromium, Slurm, iproute2, SimGrid): a line each saying which
# tests skip; exit 0.
#
# auto (make's default resolves it before calling this): the MPI of the mpicc on PATH, as
# python/src/hybridkit/launch/mpivendor.py finds it; no mpicc (or no python3 yet): openmpi.
# intelmpi and cray-mpich (what auto finds on such sites) have no Debian package: their
# wrapper (Cray: cc) and launcher (Cray: srun) must be on PATH (a module).
set -uo pipefail
mpi=${1:-auto}
shift || true
if [ "$mpi" = auto ]; then
  mpi=$("${PYTHON:-python3}" "$(dirname "$0")/../python/src/hybridkit/launch/mpivendor.py" --make 2>/dev/null)
  mpi=${mpi%% *}
  echo "setup-deps: auto: ${mpi:=openmpi}"
fi
case $mpi in
  openmpi) mpi_pkgs="openmpi-bin libopenmpi-dev" ;;
  mpich) mpi_pkgs="mpich libmpich-dev" ;;
  intelmpi|cray-mpich) mpi_pkgs="" ;;
  *) echo "setup-deps: unknown MPI '$mpi' (auto, openmpi, mpich, intelmpi or cray-mpich)" >&2; exit 2 ;;
esac

# ---- root (or sudo) on Debian/Ubuntu: apt, as the quick start does on a fresh machine
sudo=none
if [ -z "${HK_SETUP_NO_INSTALL:-}" ] && command -v dpkg-query >/dev/null 2>&1 &&
   command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    sudo=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
  fi
fi
if [ "$sudo" != none ]; then
  want="cmake make gcc gfortran pkg-config git libhwloc-dev hwloc libjansson-dev python3 python3-venv iproute2 chromium slurmctld slurmd slurm-client munge libsimgrid-dev environment-modules $mpi_pkgs $*"
  missing=""
  for p in $want; do
    if [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" != "ii " ]; then
      missing="$missing $p"
    fi
  done
  [ -z "$missing" ] && exit 0
  echo "setup-deps: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || exit 1
  # shellcheck disable=SC2086  # one word a package
  $sudo apt-get install -y -qq --no-install-recommends $missing || exit 1
  exit 0
fi

# ---- everyone else: check, name what is missing, install nothing
have() { command -v "$1" >/dev/null 2>&1; }
# the MPI the presets name (CMakePresets.json), else the wrapper on PATH (a site's module)
case $mpi in
  openmpi) cc_names="mpicc.openmpi mpicc"; run_names="mpirun.openmpi mpirun"
           mpi_apt="openmpi-bin libopenmpi-dev"; mpi_dnf="openmpi-devel (then: module load mpi/openmpi-x86_64)"; mpi_spack="openmpi" ;;
  mpich) cc_names="mpicc.mpich mpicc"; run_names="mpiexec.mpich mpiexec"
         mpi_apt="mpich libmpich-dev"; mpi_dnf="mpich-devel (then: module load mpi/mpich-x86_64)"; mpi_spack="mpich" ;;
  intelmpi) cc_names="mpicc"; run_names="mpiexec mpirun"
            mpi_apt="- (Intel oneAPI: module load intel-mpi)"; mpi_dnf="intel-oneapi-mpi-devel"; mpi_spack="intel-oneapi-mpi" ;;
  cray-mpich) cc_names="mpicc cc"; run_names="srun"
              mpi_apt="- (HPE Cray PE: module load cray-mpich)"; mpi_dnf="-"; mpi_spack="cray-mpich (external)" ;;
esac
# daemons and ip/tc live in sbin, often not on a user's PATH
have_sbin() { PATH="$PATH:/usr/sbin:/sbin:/usr/local/sbin" command -v "$1" >/dev/null 2>&1; }
first_of() { for c in "$@"; do have "$c" && { command -v "$c"; return 0; }; done; return 1; }

rows="" opt=""
need() { rows="$rows$(printf '  %-30s apt: %-28s dnf: %-26s spack: %s' "$1" "$2" "$3" "$4")"$'\n'; }
optional() { opt="$opt  $1 missing: $2"$'\n'; }

if have cmake; then
  v=$(cmake --version 2>/dev/null | head -1 | grep -o -E '[0-9]+\.[0-9]+' | head -1)
  [ "$(printf '%s\n3.20\n' "${v:-0.0}" | sort -V | head -1)" = 3.20 ] ||
    need "cmake >= 3.20 (have ${v:-?})" cmake cmake cmake
else
  need "cmake >= 3.20" cmake cmake cmake
fi
have make || need "make" make make gmake
have "${CC:-cc}" || have gcc || need "a C compiler (cc, gcc)" gcc gcc gcc
if have pkg-config; then
  pkg-config --exists hwloc 2>/dev/null || need "hwloc (pkg-config hwloc)" libhwloc-dev hwloc-devel hwloc
  pkg-config --exists jansson 2>/dev/null || need "jansson (pkg-config jansson)" libjansson-dev jansson-devel jansson
else
  need "pkg-config" pkg-config pkgconf-pkg-config pkgconf
  need "hwloc (pkg-config hwloc)" libhwloc-dev hwloc-devel hwloc
  need "jansson (pkg-config jansson)" libjansson-dev jansson-devel jansson
fi
# a plain `mpicc` must be this MPI's (Open MPI's answers --showme:version, MPICH's -v names it)
is_mpi() {
  case $mpi in
    openmpi) "$1" --showme:version >/dev/null 2>&1 ;;
    mpich) "$1" -v 2>&1 | grep -q -i mpich ;;
    *) true ;;  # auto found them by their header (mpivendor.py)
  esac
}
# shellcheck disable=SC2086  # one word a name
mpi_cc=$(first_of $cc_names) && { [ "${mpi_cc##*/}" != mpicc ] || is_mpi "$mpi_cc"; } || mpi_cc=""
[ -n "$mpi_cc" ] || need "$mpi: MPI C compiler (${cc_names// / or })" "$mpi_apt" "$mpi_dnf" "$mpi_spack"
# shellcheck disable=SC2086
first_of $run_names >/dev/null || need "$mpi: launcher (${run_names// / or })" "$mpi_apt" "$mpi_dnf" "$mpi_spack"
py=${PYTHON:-python3}
if have "$py"; then
  "$py" -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null ||
    need "python3 >= 3.9 (have $("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null))" python3 python39 python
  "$py" -c 'import venv, ensurepip' 2>/dev/null || need "python3 venv + ensurepip" python3-venv python3 python
else
  need "python3 >= 3.9 with venv" "python3 python3-venv" python3 python
fi

have gfortran || have mpif90 || optional "gfortran" "the Fortran tests of the preload, profiler and checker skip"
have chromium || have chromium-browser || optional "chromium" "the report's rendering test skips"
{ have_sbin slurmctld && have_sbin slurmd && have_sbin munged; } || optional "Slurm + munge" "vcluster.slurm skips (it also needs root)"
{ have_sbin ip && have_sbin tc; } || optional "iproute2 (ip, tc)" "the emulated cluster's tests skip (they also need root)"
have smpicc || optional "SimGrid (smpicc)" "make skips the SMPI build; hybridkit simulate and its tests skip"
{ have modulecmd || have lmod || [ -n "${MODULESHOME:-}" ]; } || optional "a modules tool (environment-modules, Lmod)" "install.easybuild (eb --dry-run) skips"

[ -n "$opt" ] && printf 'setup-deps: optional, not found (nothing installed):\n%s' "$opt"
if [ -n "$rows" ]; then
  who="not root"; [ "$(id -u)" -eq 0 ] && who="root, HK_SETUP_NO_INSTALL set or no apt"
  {
    echo "setup-deps: hybridkit's build needs what is missing below ($who: nothing installed)."
    echo "Install it, or load it (module load ...), then run make again:"
    printf '%s' "$rows"
  } >&2
  exit 2
fi
exit 0
