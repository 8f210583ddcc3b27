#!/bin/sh
# preload_has.sh LIB SYMBOL -- COMMAND...
# Runs COMMAND when the preload library LIB (the last of a colon-separated LD_PRELOAD list)
# defines SYMBOL (e.g. MPI_Reduce: the preload intercepts it); exits 77 (ctest: skipped)
# saying so when it does not, so a test of an interception that has not landed yet waits.
lib=${1##*:} sym=$2
shift 2
[ "$1" = -- ] && shift
if ! nm -D --defined-only "$lib" 2>/dev/null | grep -Eq "[[:space:]]$sym\$"; then
  echo "SKIP: $lib does not intercept $sym (yet)"
  exit 77
fi
exec "$@"
