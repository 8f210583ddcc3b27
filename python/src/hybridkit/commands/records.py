"""`hybridkit records validate FILE...`: check JSONL record files against the schema."""

from __future__ import annotations

import argparse
import sys

from hybridkit.records import RecordsInvalid, load_records, stats_error

HELP = "work with JSONL record files"
DESCRIPTION = "Read and check the JSONL records the hybridkit binaries write."

VALIDATE_HELP = "validate JSONL record files against the record schema and the kinds' schemas"
VALIDATE_DESCRIPTION = """\
Validate every line of each FILE against the record schema ($HK_SCHEMA, else the
package's hybridkit/schemas/record.schema.json) and, for a record kind declared in C, against its
schema ($HK_KIND_SCHEMAS, else the package's hybridkit/schemas/KIND.schema.json: every
declared field, in its type and unit, nothing undeclared) and its phases (they add up to
the time per iteration).
Prints "FILE: N records OK" or the first error of the file as FILE:LINE; exits 1 if any
file is invalid."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`records` has only subcommands."""


def add_validate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="JSONL record file")


def run_validate(ns: argparse.Namespace) -> int:
    status = 0
    for path in ns.files:
        try:
            records = load_records(path, declared=True)
        except RecordsInvalid as exc:
            print(f"hybridkit: error: {exc}", file=sys.stderr)
            status = 1
            continue
        bad = [(i, e) for i, e in ((i, stats_error(r)) for i, r in enumerate(records, 1)) if e]
        if bad:
            print(f"hybridkit: error: {path}: record {bad[0][0]}: {bad[0][1]}", file=sys.stderr)
            status = 1
            continue
        print(f"{path}: {len(records)} records OK")
    return status
