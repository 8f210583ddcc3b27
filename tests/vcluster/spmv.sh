#!/bin/bash
# tests/vcluster/spmv.sh VCLUSTER PYTHON BIN_DIR WORKDIR: the epsilon experiment across 2
# emulated nodes (issue 20): `hybridkit sweep spmv --vcluster 2 --rate 100mbit` (1 rank x 2
# threads per node, masteronly and task, two local sizes) must
#  1. finish every run (each self-verified against the serial product) with run.json saying
#     launcher vcluster and link_rate 100mbit, and records whose provenance names 2 nodes,
#     node0 and node1 (so the halo between the two ranks crossed TCP: Open MPI's shared
#     memory cannot reach another emulated node)
#  2. put at least the halo bytes on the emulated links: sum over the runs of iters x 2
#     ranks x N^2 entries x 8 B (laplace3d:N split by rows in halves: each rank needs one
#     N x N plane of the other), counted as every node's eth0 TX bytes (lower bound: MPI's
#     start-up traffic uses the links too)
#  3. give a report whose epsilon section says where the runs ran (emulated nodes, the limit)
# Its own cluster (state, prefix, subnet), taken down at the end.  Exit 77 (skip) where
# namespaces cannot be made, and in builds of another MPI than Open MPI (MPI_IMPL: `hybridkit
# sweep --vcluster` launches with Open MPI's mpirun; MPICH by hand, docs/vcluster.md).
set -uo pipefail
VC=$1 PY=$2 BIN=$3 WORK=$4 IMPL=${5:-openmpi}
if [ "$IMPL" != openmpi ]; then
  echo "SKIP: hybridkit sweep --vcluster launches with Open MPI's mpirun; this build uses MPI '$IMPL'"
  exit 77
fi
ITERS=100
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
FAILED=0
rm -rf "$WORK"
mkdir -p "$WORK"
export VCLUSTER_STATE=$WORK/state VCLUSTER_PREFIX=hkvs VCLUSTER_SUBNET=10.77.251
export HK_VCLUSTER=$VC HK_BIN_DIR=$BIN OMP_WAIT_POLICY=passive
"$VC" down --kill >/dev/null 2>&1
out=$("$VC" up 2 --rate 100mbit 2>&1)
rc=$?
if [ $rc = 77 ]; then echo "SKIP: $out"; exit 77; fi
[ $rc = 0 ] || { echo "FAIL: vcluster up: $out"; exit 1; }
tx() { "$VC" counters | awk '{ s += $3 } END { print s + 0 }'; }
before=$(tx)
"$PY" -m hybridkit sweep spmv --vcluster 2 --rate 100mbit --quick --cores 2 \
  --param matrix=laplace3d:12,laplace3d:24 --param iters=$ITERS -o "$WORK/sweep" \
  > "$WORK/sweep.out" 2>&1 || { cat "$WORK/sweep.out"; fail "the sweep failed"; }
after=$(tx)
"$PY" - "$WORK/sweep" <<'PY' || FAILED=$((FAILED + 1))
import json, pathlib, sys
runs = sorted(pathlib.Path(sys.argv[1]).glob("runs/spmv/*/run.json"))
bad = []
if len(runs) != 4:
    bad.append(f"{len(runs)} runs, expected 4")
for r in runs:
    info = json.loads(r.read_text())
    if (info.get("status"), info.get("launcher"), info.get("link_rate")) != ("ok", "vcluster", "100mbit"):
        bad.append(f"{r.parent.name}: status {info.get('status')}, launcher {info.get('launcher')}, "
                   f"link_rate {info.get('link_rate')}")
    recs = [json.loads(l) for l in (r.parent / "records.jsonl").read_text().splitlines() if l.strip()]
    prov = recs[0]["provenance"] if recs else {}
    if prov.get("nodes") != 2 or sorted(prov.get("hosts") or []) != ["node0", "node1"]:
        bad.append(f"{r.parent.name}: nodes {prov.get('nodes')}, hosts {prov.get('hosts')}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
want=$(( ITERS * 2 * 8 * (12 * 12 + 24 * 24) * 2 ))
moved=$(( after - before ))
echo "link bytes moved by the sweep: $moved (halo alone: >= $want)"
[ "$moved" -ge "$want" ] || fail "only $moved bytes on the links, the halo alone is $want"
"$PY" -m hybridkit report "$WORK/sweep" --format md -o "$WORK/report.md" >/dev/null 2>&1 ||
  fail "hybridkit report failed"
grep -q "2 emulated nodes (tools/vcluster, TCP between them, links limited to 100mbit)" \
  "$WORK/report.md" || fail "the report's epsilon section does not say where the runs ran"
"$VC" down --kill >/dev/null 2>&1 || true
[ $FAILED = 0 ] && echo "PASS" || echo "$FAILED check(s) failed"
exit $((FAILED > 0))
