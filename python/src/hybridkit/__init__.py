"""hybridkit: the Python front end of the hybrid MPI+OpenMP toolkit.

The C binaries do the work and write JSONL records; this package launches them
(hybridkit.launch), keeps each run in a directory (hybridkit.rundir), validates
the records (hybridkit.records) and reports on them (hybridkit.binding).
"""

__version__ = "0.1.0"
