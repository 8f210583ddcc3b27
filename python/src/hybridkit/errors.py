"""Exceptions the CLI turns into one `hybridkit: error: ...` line and an exit code."""

import os
import sys
from pathlib import Path


class HKError(Exception):
    """A failure while doing the work (exit code 1)."""

    exit_code = 1


class UsageError(HKError):
    """The command line asks for something that cannot be done (exit code 2)."""

    exit_code = 2


_warned: set = set()


def warn(text: str) -> None:
    """A `hybridkit: warning: TEXT` line on stderr."""
    print(f"hybridkit: warning: {text}", file=sys.stderr)


def warn_once(text: str) -> None:
    """One `hybridkit: warning: TEXT` line on stderr per process and text."""
    if text not in _warned:
        _warned.add(text)
        warn(text)


def env_dir(name: str):
    """$name as a directory (pathlib.Path), None when unset or empty; set to something that is
    no directory, it is ignored with one warning naming it (never silently)."""
    value = os.environ.get(name)
    if not value:
        return None
    if not Path(value).is_dir():
        warn_once(f"{name}={value} is no directory: ignored")
        return None
    return Path(value)
