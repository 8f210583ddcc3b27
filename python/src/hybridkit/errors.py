"""Exceptions the CLI turns into one `hybridkit: error: ...` line and an exit code."""


class HKError(Exception):
    """A failure while doing the work (exit code 1)."""

    exit_code = 1


class UsageError(HKError):
    """The command line asks for something that cannot be done (exit code 2)."""

    exit_code = 2
