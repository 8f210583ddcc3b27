#!/bin/bash
# tune_predict.sh PYTHON PARAMS WORK TEST_COLL MPIEXEC [PREFLAGS...]: the table `hybridkit tune
# allreduce --predict` writes from fixed bench.collparams records (issue 39) is one the C
# library loads: test_coll at 2 ranks x 2 threads with HK_COLL_TUNING set to it runs correct
# and prints no warning (a table the loader refuses is named in a warning, coll.tuning_*).
set -uo pipefail
py=$1 params=$2 work=$3 tc=$4 mpiexec=$5
shift 5
rm -rf "$work" && mkdir -p "$work" || exit 1
"$py" -m hybridkit tune allreduce --predict --params "$params" --np 2 --threads 2 \
  --output "$work/t.json" > "$work/tune.txt" 2>&1 || { cat "$work/tune.txt"; echo "FAIL: tune --predict"; exit 1; }
cat "$work/tune.txt"
grep -q '"predicted"' "$work/t.json" || { echo "FAIL: no predictions in the table"; exit 1; }
HK_COLL_TUNING=$work/t.json OMP_NUM_THREADS=2 "$mpiexec" -n 2 "$@" "$tc" --algorithms chunked \
  > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; echo "FAIL: test_coll with the table"; exit 1; }
if grep -i "warning" "$work/run.txt"; then echo "FAIL: the library warned about the table"; exit 1; fi
echo "PASS: the predicted table loaded without a warning"
