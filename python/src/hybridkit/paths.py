"""Where hybridkit finds things: the repository, the built C binaries, the schemas.

A binary given by name (no `/`) is looked up in order:

    $HK_BIN_DIR/NAME
    <repo>/build/release/bin/NAME        (--mpi openmpi)
    <repo>/build/mpich-release/bin/NAME  (--mpi mpich)
    PATH

where <repo> is the directory holding `python/`, found from this file's location
(python/src/hybridkit/paths.py), so it only exists for a source checkout.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import List, Optional

from hybridkit.errors import HKError, env_dir

# package data (hybridkit/schemas): the record schema every record follows and, beside it,
# one schema per declared record kind (KIND.schema.json, generated from the C declarations)
SCHEMAS_DIR = Path(str(resources.files("hybridkit") / "schemas"))
RECORD_SCHEMA = "record.schema.json"

# build directory of each MPI flavour, relative to the repository root
BUILD_BIN_DIRS = {
    "openmpi": Path("build") / "release" / "bin",
    "mpich": Path("build") / "mpich-release" / "bin",
    # what HK_MPI=auto may find (make's presets for them, launch/mpivendor.py's FAMILY)
    "intelmpi": Path("build") / "mpich-release" / "bin",
    "cray-mpich": Path("build") / "release" / "bin",
}


def vcluster_tool() -> Path:
    """tools/vcluster/vcluster: $HK_VCLUSTER, else the repository's."""
    env = os.environ.get("HK_VCLUSTER")
    candidates = [Path(env)] if env else []
    root = repo_root()
    if root:
        candidates.append(root / "tools" / "vcluster" / "vcluster")
    for c in candidates:
        if _is_executable(c):
            return c
    raise HKError("tools/vcluster/vcluster not found (set HK_VCLUSTER)")


def vcluster_state() -> Path:
    """The emulated cluster's state directory ($VCLUSTER_STATE as tools/vcluster uses it)."""
    return Path(os.environ.get("VCLUSTER_STATE", "/run/hybridkit-vcluster"))


def vcluster_nodes() -> int:
    """Nodes of the emulated cluster that is up (its state file), 0 when none."""
    try:
        return int((vcluster_state() / "nodes").read_text().strip())
    except (OSError, ValueError):
        return 0


def vcluster_slurm() -> bool:
    """True when the emulated cluster runs Slurm (`vcluster up N --slurm`)."""
    return (vcluster_state() / "slurm" / "slurm.conf").is_file()


def repo_root() -> Optional[Path]:
    """The repository checkout this package runs from, or None when installed elsewhere."""
    python_dir = Path(__file__).resolve().parents[2]
    if python_dir.name == "python" and (python_dir / "src" / "hybridkit").is_dir():
        return python_dir.parent
    return None


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def binary_search_dirs(mpi: str) -> List[Path]:
    """The directories searched (before PATH) for a binary given by name."""
    dirs = []
    given = env_dir("HK_BIN_DIR")
    if given is not None:
        dirs.append(given)
    root = repo_root()
    if root is not None and mpi in BUILD_BIN_DIRS:
        dirs.append(root / BUILD_BIN_DIRS[mpi])
    # installed like HPC software: the CLI in the prefix's bin beside the hk-* binaries
    # (`cmake --install --prefix P` and `pip install --prefix P`, README "Using the library")
    here = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else None
    if here is not None and _is_executable(here / "hk-topology") and here not in dirs:
        dirs.append(here)
    return dirs


def find_binary(name: str, mpi: str = "openmpi") -> Path:
    """Resolve BINARY of `hybridkit run`/`topology` to an absolute path, or raise HKError."""
    if "/" in name:
        path = Path(name)
        if not _is_executable(path):
            raise HKError(f"binary {name} does not exist or is not executable")
        return path.resolve()
    dirs = binary_search_dirs(mpi)
    for d in dirs:
        if _is_executable(d / name):
            return (d / name).resolve()
    found = shutil.which(name)
    if found:
        return Path(found).resolve()
    searched = ", ".join(str(d) for d in dirs) + (", " if dirs else "") + "PATH"
    hint = "" if os.environ.get("HK_BIN_DIR") else "; set HK_BIN_DIR or build the C side first"
    raise HKError(f"unknown binary {name!r}: not found in {searched}{hint}")


def schema_path() -> Path:
    """The record schema: $HK_SCHEMA, else the package's hybridkit/schemas/record.schema.json."""
    env = os.environ.get("HK_SCHEMA")
    if env:
        path = Path(env)
        if not path.is_file():
            raise HKError(f"HK_SCHEMA={env} does not exist")
        return path
    path = SCHEMAS_DIR / RECORD_SCHEMA
    if path.is_file():
        return path
    raise HKError(
        f"record schema not found: set HK_SCHEMA to a record.schema.json ({path} is missing)"
    )


def kind_schema_dir() -> Optional[Path]:
    """The schemas of the declared record kinds (generated from the C declarations, see
    include/hybridkit/record.h): $HK_KIND_SCHEMAS, else the package's own copies
    (hybridkit/schemas, package data, so an installed package has them too); None when
    the directory does not exist."""
    env = os.environ.get("HK_KIND_SCHEMAS")
    path = Path(env) if env else SCHEMAS_DIR
    return path if path.is_dir() else None
