#!/bin/bash
# tools/setup-deps.sh openmpi|mpich [PACKAGE...]
# Installs the Debian packages hybridkit needs that are missing: the build tools,
# hwloc, jansson (JSON reading), Python's venv, iproute2 (ip and tc: the emulated cluster
# tools/vcluster and its tests), chromium (renders the study report in the tests), gfortran
# (the preload's Fortran test; MPI's mpif90 is there without it), Slurm and munge (a real
# Slurm on the emulated nodes: vcluster up N --slurm, test vcluster.slurm), SimGrid
# (smpicc/smpirun for hybridkit simulate, docs/simulate.md), and the selected MPI
# (Open MPI or MPICH), plus any extra PACKAGEs.  Idempotent and quick:
# when everything is installed it makes no apt call.
set -euo pipefail
mpi=${1:-openmpi}
shift || true
case $mpi in
  openmpi) mpi_pkgs="openmpi-bin libopenmpi-dev" ;;
  mpich) mpi_pkgs="mpich libmpich-dev" ;;
  *) echo "setup-deps: unknown MPI '$mpi' (openmpi or mpich)" >&2; exit 2 ;;
esac
want="cmake make gcc gfortran pkg-config git libhwloc-dev hwloc libjansson-dev python3 python3-venv iproute2 chromium slurmctld slurmd slurm-client munge libsimgrid-dev $mpi_pkgs $*"
missing=""
for p in $want; do
  if [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" != "ii " ]; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
echo "setup-deps: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "setup-deps: not root and no sudo; install as root: apt-get install$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing
