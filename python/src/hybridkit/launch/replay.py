"""The `replay` test launcher's child: plays back a recorded run directory, without MPI.

    python replay.py RUN_DIR -- BINARY ARGS... --output FILE.jsonl

copies RUN_DIR/records.jsonl to FILE.jsonl (if there is one), writes RUN_DIR/stdout.txt and
RUN_DIR/stderr.txt to stdout and stderr, and exits with the `exit_code` of RUN_DIR/run.json
(0 without one). Any directory `hybridkit run` made can be replayed. Standard library only:
it runs as a script, not as part of the package.

HK_REPLAY_SLEEP=S: sleep S seconds first (a slow or hanging app, for the tests of Ctrl-C and
timeouts); a SIGINT then ends it with exit code 1, as Open MPI's mpirun does.
"""

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path


def main(argv):
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: replay.py RUN_DIR -- BINARY ARGS... [--output FILE]\n")
        return 2
    run_dir = Path(argv[0])
    sleep = float(os.environ.get("HK_REPLAY_SLEEP") or 0)
    if sleep > 0:
        signal.signal(signal.SIGINT, lambda *_: os._exit(1))
        time.sleep(sleep)
    binary_args = argv[3:]
    output = None
    for i, arg in enumerate(binary_args):
        if arg == "--output" and i + 1 < len(binary_args):
            output = Path(binary_args[i + 1])
    if output is not None and (run_dir / "records.jsonl").is_file():
        shutil.copyfile(run_dir / "records.jsonl", output)
    for name, stream in (("stdout.txt", sys.stdout), ("stderr.txt", sys.stderr)):
        if (run_dir / name).is_file():
            stream.buffer.write((run_dir / name).read_bytes())
            stream.flush()
    run_json = run_dir / "run.json"
    if run_json.is_file():
        return int(json.loads(run_json.read_text()).get("exit_code", 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
