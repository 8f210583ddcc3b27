#!/bin/bash
# tools/dsm/heat-study.sh: the heat comparison of issue 21 on the emulated cluster:
# hk-dsm-heat (page-based DSM, "OpenMP only") against hk-jacobi --dims 2 (MPI halos),
# one rank per emulated node (tools/vcluster, TCP between nodes), 1 thread per rank.
# Prints one markdown row per (grid, ranks, variant): time per step of the slowest rank,
# communication time per step (MPI: the halo exchange of the slowest rank; DSM: time in
# hk_dsm_barrier plus in the fault handler, averaged over ranks), bytes moved per step (DSM: fetched pages + diffs + notices between ranks; MPI: halo bytes
# of all ranks), and the machine's busy share during the run (from /proc/stat).
# Usage: tools/dsm/heat-study.sh BIN_DIR "250 1000 3000 6000" "1 2 4" [extra schedules]
# Root (vcluster).  Uses its own cluster state so it does not disturb other clusters.
set -euo pipefail
BIN=${1:?BIN_DIR}
SIZES=${2:-"250 1000 3000"}
RANKS=${3:-"1 2 4"}
SCHEDS=${4:-"static static,1"}
here=$(cd "$(dirname "$0")/../.." && pwd)
VC="$here/tools/vcluster/vcluster"
export VCLUSTER_STATE=${VCLUSTER_STATE:-/run/hk21-vcluster} VCLUSTER_PREFIX=${VCLUSTER_PREFIX:-hk21}
export VCLUSTER_SUBNET=${VCLUSTER_SUBNET:-10.121.0}
nodes=${VC_NODES:-4} # one rank per node: at least the largest rank count
"$VC" up "$nodes" ${VC_RATE:+--rate "$VC_RATE"} >/dev/null
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
iters_for() { if [ "$1" -le 500 ]; then echo 50; elif [ "$1" -le 1500 ]; then echo 10; elif [ "$1" -le 3500 ]; then echo 4; else echo 2; fi; }
echo "| grid | ranks | variant | time/step s | comm/step s | bytes/step | machine busy |"
echo "|---|---|---|---|---|---|---|"
for n in $SIZES; do
  it=$(iters_for "$n")
  for r in $RANKS; do
    for v in mpi $SCHEDS; do
      read -r b0 t0 < <(busy)
      if [ "$v" = mpi ]; then
        out=$("$VC" mpirun -np "$r" --map-by node -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY=passive \
              "$BIN/hk-jacobi" --dims 2 --size "$n" --iters "$it" --warmup 1 --verify off 2>&1) || { echo "$out" >&2; exit 1; }
        t=$(echo "$out" | awk '/time_per_iter/{print $7}')
        bytes=$(echo "$out" | awk '/bytes_intra|bytes_inter/{s+=$2} END{print s}')
        comm=$(echo "$out" | awk '$1=="comm"{print $7}')  # halo exchange, slowest rank
      else
        out=$("$VC" mpirun -np "$r" --map-by node --mca osc ucx -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY=passive \
              "$BIN/hk-dsm-heat" --size "$n" --iters "$it" --warmup 1 --verify off --schedule "$v" 2>&1) || { echo "$out" >&2; exit 1; }
        row=$(echo "$out" | awk '/^  /{print; exit}')
        t=$(echo "$row" | awk '{print $1}')
        bytes=$(echo "$row" | awk '{print $3}')
        comm=$(echo "$row" | awk '{printf "%.6f", $8 + $9}')  # barrier + fault handler, rank average
      fi
      read -r b1 t1 < <(busy)
      share=$(awk -v a="$b0" -v b="$b1" -v c="$t0" -v d="$t1" 'BEGIN{printf "%.0f%%", ((d>c) ? 100*(b-a)/(d-c) : 0)}')
      echo "| ${n}x${n} | $r | $v | $t | $comm | $bytes | $share |"
    done
  done
done
