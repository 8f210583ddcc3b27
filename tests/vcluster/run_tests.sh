#!/bin/bash
# tests/vcluster/run_tests.sh VCLUSTER HK_TOPOLOGY HALO_BYTES WORKDIR MPI_IMPL HK_BENCH
#
# ctest driver of label vcluster: 2 emulated nodes (tools/vcluster) x 2 ranks.
#  1. hk-topology under `vcluster mpirun -np 4` (or mpiexec-mpich) reports nodes: 2, hosts node0 and node1
#     (from its JSON Lines record's provenance)
#  2. for the sequential, round-robin and node-aware mappings, halo_bytes checks the
#     halo content, and the bytes counted on the emulated links per exchange (the
#     difference of two runs with N1 and N2 exchanges, so start-up/shut-down traffic
#     cancels) match hk_cart_surface()'s inter-node bytes: 1.0 <= measured/predicted <= 1.25
#     (TCP/IP/Ethernet + MPI headers and ACKs make up the excess)
#  3. round-robin puts more bytes on the links than node-aware (grid 32x64x24 on 2x2x1:
#     round-robin cuts the larger faces)
#  4. hk-bench pingpong: both an intra-node (shared memory) and an inter-node (TCP over the
#     emulated link) latency are measured, i.e. the pairs are told apart by node; which is
#     lower is printed, not asserted (~0.3 vs ~4 us on a quiet machine, but 14 vs 9 us
#     once while another make test ran: timings are never asserted)
#  5. with the links shaped to 100 Mbit/s (tc tbf), 4 MiB inter-node ping-pong bandwidth is
#     at most 20 % above 12.5 MB/s (the shaping holds: a bound load cannot break; how close
#     it comes to 12.5 is printed)
#  6. with `up 2 --delay-us 100` (userspace switch vcswitch, eth1), the 8 B inter-node ping-pong
#     latency is >= 100 us (lower bound only)
# Counting: every node's eth0 TX bytes, summed (each inter-node byte leaves exactly one
# node; intra-node traffic never touches eth0).
# MPI_IMPL openmpi: `vcluster mpirun`; mpich: `vcluster mpiexec-mpich` (TCP only, see docs).
# Exit 77 (ctest SKIP) when network namespaces cannot be made here or MPI is neither.
set -uo pipefail

VC=$1 TOPO=$2 HB=$3 WORK=$4 IMPL=${5:-openmpi} BENCH=${6:-}
N1=${VCT_N1:-20} N2=${VCT_N2:-220}
GRID=${VCT_GRID:-32x64x24}
LO=${VCT_LO:-1.0} HI=${VCT_HI:-1.25}
RUN_TIMEOUT=60

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
FAILED=0

case $IMPL in
  openmpi) LAUNCH=(mpirun -np 4 --mca mpi_yield_when_idle 1) ;;
  mpich) skip "vcluster under MPICH is best-effort (its ch4:ucx needs UCX_TLS=tcp,self and about one halo run in 14 hung): run it by hand, see docs/vcluster.md" ;;
  *) skip "vcluster launches with Open MPI's mpirun or MPICH's mpiexec; this build uses MPI '$IMPL'" ;;
esac
command -v python3 >/dev/null || skip "python3 not found (needed to parse records)"

rm -rf "$WORK"
mkdir -p "$WORK"
# a state dir, namespace prefix and subnet of our own: never touches a user's cluster
export VCLUSTER_STATE=$WORK/state VCLUSTER_PREFIX=hkvct VCLUSTER_SUBNET=10.77.250
cd "$WORK" || exit 1

"$VC" down --kill >/dev/null 2>&1   # leftovers of a crashed earlier run of this test
out=$("$VC" up 2 --slots 2 2>&1)
rc=$?
echo "$out"
[ $rc -eq 77 ] && skip "namespaces unavailable: $out"
[ $rc -eq 0 ] || { echo "FAIL: vcluster up 2 exited $rc"; exit 1; }
cleanup() {
  "$VC" down --kill >/dev/null 2>&1 || echo "WARNING: vcluster down --kill failed"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the MPI job's stderr, minus the known harmless rsh-launcher noise
show_err() { grep -v 'setpgid' "$1" | sed 's/^/  stderr: /' | head -20; }
vmpirun() {  # LOG ARGS... : run under vcluster mpirun, stdout to LOG.out, stderr to LOG.err
  local log=$1; shift
  timeout -k 5 "$RUN_TIMEOUT" "$VC" "${LAUNCH[@]}" "$@" \
    > "$log.out" 2> "$log.err"
  local rc=$?
  if grep -q 'Did not find interface matching' "$log.err"; then
    echo "FAIL: Open MPI fell back to other interfaces (btl/oob_tcp_if_include did not match)"
    rc=1
  fi
  return $rc
}
# py EXPR A B [M N]: a tiny calculator, numbers as a, b, m, n
py() { python3 -c "import sys; a, b, m, n = (list(map(float, sys.argv[1:])) + [0, 0, 0])[:4]; $1" "${@:2}"; }
tx_sum() { "$VC" counters | awk '{s += $3} END {print s + 0}'; }

# ---- 1. node detection
if vmpirun topo "$TOPO" --no-tree --output "$WORK/topo.jsonl"; then
  if python3 - "$WORK/topo.jsonl" <<'EOF'; then echo "ok: hk-topology sees nodes: 2, hosts node0 node1"; else fail "node detection"; fi
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
p = recs[-1]["provenance"]
print("hk-topology provenance: nodes=%s hosts=%s" % (p.get("nodes"), p.get("hosts")))
sys.exit(0 if p.get("nodes") == 2 and sorted(p.get("hosts", [])) == ["node0", "node1"] else 1)
EOF
  grep -q 'nodes: 2' topo.out || fail "hk-topology's text does not say 'nodes: 2'"
else
  fail "hk-topology under vcluster mpirun exited non-zero"; show_err topo.err
fi

# ---- 2. halo bytes per mapping
declare -A MEAS PRED
for map in sequential round-robin node-aware; do
  pred="" ok=1 tx=()
  for n in "$N1" "$N2"; do
    before=$(tx_sum)
    if ! vmpirun "halo.$map.$n" "$HB" --map "$map" --exchanges "$n" --grid "$GRID"; then
      fail "halo_bytes --map $map --exchanges $n"; show_err "halo.$map.$n.err"; ok=0; break
    fi
    after=$(tx_sum)
    tx+=($((after - before)))
    line=$(grep -o 'predicted_inter_bytes_per_exchange=[0-9]* nodes=[0-9]*' "halo.$map.$n.out")
    nodes=${line##*nodes=}
    p=${line#*=}; p=${p%% *}
    [ "$nodes" = 2 ] || { fail "halo_bytes --map $map: nodes=$nodes, expected 2"; ok=0; }
    [ -z "$pred" ] || [ "$pred" = "$p" ] || { fail "prediction changed with N: $pred vs $p"; ok=0; }
    pred=$p
  done
  [ $ok = 1 ] || continue
  meas=$(py 'print((b - a) / (n - m))' "${tx[0]}" "${tx[1]}" "$N1" "$N2")
  ratio=$(py 'print("%.4f" % (a / b) if b > 0 else "inf")' "$meas" "$pred")
  MEAS[$map]=$meas PRED[$map]=$pred
  printf '%-12s predicted %8d B/exchange, measured %10.1f B/exchange (links: %d B at N=%d, %d B at N=%d), ratio %s\n' \
    "$map" "$pred" "$meas" "${tx[0]}" "$N1" "${tx[1]}" "$N2" "$ratio"
  py 'sys.exit(0 if a <= b <= m else 1)' "$LO" "$ratio" "$HI" ||
    fail "$map: measured/predicted = $ratio outside [$LO, $HI]"
done

# ---- 3. round-robin crosses the links more than node-aware
if [ -n "${MEAS[round-robin]:-}" ] && [ -n "${MEAS[node-aware]:-}" ]; then
  if py 'sys.exit(0 if a > b and m > 1.5 * n else 1)' "${PRED[round-robin]}" "${PRED[node-aware]}" "${MEAS[round-robin]}" "${MEAS[node-aware]}"; then
    echo "ok: round-robin ${MEAS[round-robin]} B > node-aware ${MEAS[node-aware]} B per exchange on the links"
  else
    fail "round-robin (${MEAS[round-robin]}) does not put clearly more bytes on the links than node-aware (${MEAS[node-aware]})"
  fi
fi

# ---- 4. ping-pong: intra-node below inter-node latency
# bench_field FILE SIZE FIELD: the avg (stats) or value of a result of the bench.pingpong record of SIZE
bench_field() {
  python3 -c '
import json, sys
path, size, field = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for line in open(path):
    r = json.loads(line)
    if r["kind"] == "bench.pingpong" and r["params"]["size"] == size:
        v = r["results"][field]
        print(v.get("avg", v.get("value")))
        sys.exit(0)
sys.exit(1)' "$@"
}
if [ -n "$BENCH" ]; then
  if vmpirun pp "$BENCH" pingpong -m 8:8 -i 500 -x 50 --window 0 --output "$WORK/pp.jsonl"; then
    intra=$(bench_field "$WORK/pp.jsonl" 8 intra_latency) inter=$(bench_field "$WORK/pp.jsonl" 8 inter_latency)
    echo "pingpong 8 B: intra-node ${intra} us, inter-node ${inter} us"
    py 'sys.exit(0 if a > 0 and b > 0 else 1)' "$intra" "$inter" ||
      fail "pingpong did not measure both an intra-node and an inter-node latency"
    py 'sys.exit(0 if a < b else 1)' "$intra" "$inter" ||
      echo "note: intra-node latency $intra us is not below inter-node $inter us (a loaded machine?)"
  else
    fail "hk-bench pingpong under vcluster"; show_err pp.err
  fi
  # ---- 5. shaped links: 100 Mbit/s = 12.5 MB/s for large messages
  if "$VC" shape 100mbit --burst 64kb > /dev/null && vmpirun rate "$BENCH" pingpong -m 4M:4M -i 3 -x 1 --window 0 --output "$WORK/rate.jsonl"; then
    bw=$(bench_field "$WORK/rate.jsonl" 4194304 inter_pingpong_bandwidth)
    echo "pingpong 4 MiB over 100mbit links: ${bw} MB/s (12.5 expected)"
    py 'sys.exit(0 if 0 < a <= 1.2 * 12.5 else 1)' "$bw" 0 || fail "shaped bandwidth $bw MB/s is more than 20 % above 12.5 MB/s (or none)"
  else
    fail "hk-bench pingpong over shaped links"; show_err rate.err
  fi
  "$VC" shape off > /dev/null || true
  # ---- 6. delayed links (vcswitch, eth1): 100 us one way => 8 B half round trip >= 100 us
  # (a lower bound only: robust on a loaded machine)
  if out=$("$VC" up 2 --slots 2 --delay-us 100 2>&1) && vmpirun delay "$BENCH" pingpong -m 8:8 -i 200 -x 20 --window 0 --output "$WORK/delay.jsonl"; then
    dl=$(bench_field "$WORK/delay.jsonl" 8 inter_latency)
    echo "pingpong 8 B over 100 us delayed links: inter-node ${dl} us (>= 100 expected)"
    py 'sys.exit(0 if a >= 100 else 1)' "$dl" 0 || fail "delayed inter-node latency $dl us is below the 100 us delay"
  else
    fail "hk-bench pingpong over delayed links"; echo "$out" | sed 's/^/  up: /'; show_err delay.err
  fi
  "$VC" up 2 --slots 2 > /dev/null || fail "vcluster up 2 (removing the delay) failed"
fi

# ---- 7. down --kill ends a running job and removes only its own session files: decoys
# named like another cluster's (same host names node0/node1, pids not in our namespaces)
# survive
decoy_dir=/tmp/ompi.node0.$(id -u)/pid.hkvct-decoy decoy_shm=/dev/shm/vader_segment.node1.hkvct-decoy
mkdir -p "$decoy_dir" && touch "$decoy_dir/keep" "$decoy_shm"
timeout -k 5 "$RUN_TIMEOUT" "$VC" "${LAUNCH[@]}" "$HB" --grid 16x16x16 --exchanges 100000000 \
  > "$WORK/long.out" 2>&1 &
longpid=$!
for ((i = 0; i < 100; i++)); do  # until the job's ranks run (they map their segments)
  [ -n "$(ip netns pids hkvct0 2>/dev/null)" ] && [ -n "$(ip netns pids hkvct1 2>/dev/null)" ] && break
  sleep 0.1
done
sleep 1
"$VC" down --kill > /dev/null 2>&1 || fail "vcluster down --kill failed"
wait "$longpid" 2>/dev/null
if [ -f "$decoy_dir/keep" ] && [ -f "$decoy_shm" ]; then
  echo "ok: down --kill left another cluster's session files alone"
else
  fail "down --kill removed session files it did not create ($decoy_dir, $decoy_shm)"
fi
rm -rf "$decoy_dir" "$decoy_shm"
rmdir "${decoy_dir%/pid.*}" 2>/dev/null

[ $FAILED -eq 0 ] && echo "vcluster.nodes2: all checks passed" || echo "vcluster.nodes2: $FAILED check(s) failed"
[ $FAILED -eq 0 ]
