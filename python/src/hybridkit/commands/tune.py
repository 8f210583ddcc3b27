"""`hybridkit tune allreduce`: measure and store the hybrid allreduce tuning table.

Placeholder: filled by the hybrid-collectives work (issue 5)."""

from __future__ import annotations

import argparse

from hybridkit.errors import HKError

HELP = "tune the library for this machine"
DESCRIPTION = "Measure and store tuning tables the hybridkit library loads at run time."
ALLREDUCE_HELP = "measure the best hybrid allreduce algorithm and thread count per message size"
ALLREDUCE_DESCRIPTION = ALLREDUCE_HELP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`tune` has only subcommands."""


def add_allreduce_arguments(parser: argparse.ArgumentParser) -> None:
    """Placeholder."""


def run_allreduce(ns: argparse.Namespace) -> int:
    raise HKError("tune allreduce: not implemented yet")
