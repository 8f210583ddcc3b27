#!/bin/bash
# with_fifo.sh PATH COMMAND...: runs COMMAND with HK_COLL_TUNING=PATH naming a
# fresh FIFO that nobody writes to (opening it for reading would block), then
# removes it; exits with COMMAND's code.
fifo=$1
shift
rm -f "$fifo" && mkfifo "$fifo" || exit 1
HK_COLL_TUNING=$fifo "$@"
rc=$?
rm -f "$fifo"
exit $rc
