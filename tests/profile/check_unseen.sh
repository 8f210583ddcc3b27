#!/bin/bash
# check_unseen.sh OUT.jsonl ERR.txt TOOL MPI: after a run of unseen.c under TOOL
# (hybridkit-profile, hybridkit-check): no records, and exactly one line (rank 0's)
# saying that MPI ran without the tool and naming the MPI.
out=$1 err=$2 tool=$3 mpi=$4
cat "$err"
[ ! -s "$out" ] || { echo "FAIL: records in $out"; exit 1; }
n=$(grep -c "^$tool: MPI ran but MPI_Init never reached $tool: the program's MPI calls were not intercepted ($mpi;" "$err")
[ "$n" -eq 1 ] || { echo "FAIL: $n 'not intercepted' lines (want 1)"; exit 1; }
echo PASS
