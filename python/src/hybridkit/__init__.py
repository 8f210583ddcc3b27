"""hybridkit: the Python front end of the hybrid MPI+OpenMP toolkit.

The C binaries do the work and write JSONL records; this package launches them
(hybridkit.launch), keeps each run in a directory (hybridkit.study), validates the
records (hybridkit.records), reports on them (hybridkit.report) and advises (hybridkit.advice);
hybridkit.simulate runs them on simulated platforms, hybridkit.commands is the CLI.
"""

__version__ = "0.1.0"
