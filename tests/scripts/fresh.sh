#!/bin/sh
# fresh.sh FILE COMMAND...: remove FILE (a JSON Lines output that programs append to),
# then run COMMAND, so a run that writes nothing cannot pass on an old file.
rm -f "$1"
shift
exec "$@"
