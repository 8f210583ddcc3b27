"""The hybrid modes: names, MPI thread levels and overlap, from the C library's one table
(src/modes/table.c) as a binary prints it with `--list-modes` (one line per mode,
"<name> <thread level> <overlaps 0|1>", in the table's order). Nothing in the Python
front end repeats the list: app descriptions, the CLI and the advisor ask for it here."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Dict, Tuple

from hybridkit.errors import HKError
from hybridkit.paths import BUILD_BIN_DIRS, find_binary

# hk_thread_level_t, weakest first (include/hybridkit/env.h)
LEVELS = ("single", "masteronly", "funneled", "serialized", "multiple")


@dataclass(frozen=True)
class Mode:
    name: str
    level: str       # one of LEVELS
    overlaps: bool   # overlaps communication with computation

    @property
    def single_threaded(self) -> bool:
        return self.level == "single"


def parse(text: str, source: str = "--list-modes") -> Tuple[Mode, ...]:
    """The modes of `--list-modes` output; HKError naming the line that does not fit."""
    modes = []
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 3 or fields[1] not in LEVELS or fields[2] not in ("0", "1"):
            raise HKError(f"{source}: cannot read mode line {line!r} "
                          f"(expected '<name> <{'|'.join(LEVELS)}> <0|1>')")
        modes.append(Mode(fields[0], fields[1], fields[2] == "1"))
    if not modes:
        raise HKError(f"{source}: no modes listed")
    return tuple(modes)


_cache: Dict[Tuple[str, ...], Tuple[Mode, ...]] = {}


def table(binary: str = "hk-jacobi", *subcommand: str, mpi: str = "") -> Tuple[Mode, ...]:
    """The modes `binary [subcommand] --list-modes` prints (no MPI is started); cached per
    binary path. HKError when the binary is missing or its answer does not parse."""
    path = _find_any(binary, mpi or os.environ.get("HK_MPI", "openmpi"))
    key = (str(path), *subcommand)
    if key not in _cache:
        cmd = [str(path), *subcommand, "--list-modes"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise HKError(f"{' '.join(cmd)}: {exc}") from None
        if done.returncode != 0:
            raise HKError(f"{' '.join(cmd)} exited {done.returncode}: "
                          f"{done.stderr.strip() or done.stdout.strip()}")
        _cache[key] = parse(done.stdout, " ".join(cmd))
    return _cache[key]


def _find_any(binary: str, mpi: str):
    """The binary of the MPI flavour asked for, else of any other built flavour: the mode
    table is compiled from one source (src/modes/table.c), so every build prints the same
    one (a checkout with only the MPICH build still answers for `--mpi` left default)."""
    try:
        return find_binary(binary, mpi)
    except HKError as first:
        for other in BUILD_BIN_DIRS:
            if other != mpi:
                try:
                    return find_binary(binary, other)
                except HKError:
                    pass
        raise first


def level_order(level: str) -> int:
    """Position of a thread level, weakest first (unknown levels last)."""
    return LEVELS.index(level) if level in LEVELS else len(LEVELS)
