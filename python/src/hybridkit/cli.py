"""The `hybridkit` command: a table of subcommands, argparse built from it, one dispatch.

    COMMANDS = {name: Command(help, add_arguments, run, subcommands=..., ...)}

--help, parsing and dispatch all come from the table, so they cannot disagree. Every
failure is one line on stderr, `hybridkit: error: ...`, exit 2 for usage errors and 1 for
failures at run time. Arguments after the first `--` go verbatim to the binary
(`namespace.extra`); a `passthrough` command gets all its arguments that way.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hybridkit import __version__
from hybridkit.commands import (advise, check, compare, profile, records, report, run, simulate,
                                study, sweep, topology, tune)
from hybridkit.errors import HKError, UsageError

PROG = "hybridkit"
DESCRIPTION = """\
hybridkit: hybrid MPI+OpenMP toolkit. Launches the hybridkit C binaries with the right
mapping, binding and OMP_* settings, keeps each run in a directory, validates the JSONL
records they write and shows where every rank and thread ran."""
EPILOG = """\
environment:
  HK_BIN_DIR     where binaries given by name are looked up first
  HK_SMPI_BIN_DIR  where simulate finds hk-bench/hk-jacobi built for SimGrid SMPI
                 (default: the repository's build/smpi-release/bin)
  HK_MPI         default of --mpi (openmpi, mpich, intelmpi, cray-mpich; auto or unset:
                 the MPI of the mpicc on PATH, Open MPI when there is none)
  HK_SCHEMA      record schema (default: the package's hybridkit/schemas/record.schema.json)
  HK_REPLAY_DIR  run directory replayed by --launcher replay (testing, no MPI)

'hybridkit COMMAND --help' describes each command."""


@dataclass(frozen=True)
class Command:
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Optional[Callable[[argparse.Namespace], int]] = None
    description: Optional[str] = None
    subcommands: Dict[str, "Command"] = field(default_factory=dict)
    extra_args: bool = False  # takes arguments after `--`
    passthrough: bool = False  # all its arguments go verbatim to `extra`


COMMANDS: Dict[str, Command] = {
    "topology": Command(topology.HELP, topology.add_arguments, topology.run,
                        description=topology.DESCRIPTION, extra_args=True, passthrough=True),
    "run": Command(run.HELP, run.add_arguments, run.run, description=run.DESCRIPTION,
                   extra_args=True),
    "profile": Command(profile.HELP, profile.add_arguments, profile.run,
                       description=profile.DESCRIPTION, extra_args=True),
    "records": Command(records.HELP, records.add_arguments, description=records.DESCRIPTION,
                       subcommands={
                           "validate": Command(records.VALIDATE_HELP,
                                               records.add_validate_arguments,
                                               records.run_validate,
                                               description=records.VALIDATE_DESCRIPTION),
                       }),
    "check": Command(check.HELP, check.add_arguments, check.run, description=check.DESCRIPTION,
                     extra_args=True),
    "sweep": Command(sweep.HELP, sweep.add_arguments, sweep.run, description=sweep.DESCRIPTION),
    "study": Command(study.HELP, study.add_arguments, study.run, description=study.DESCRIPTION),
    "report": Command(report.HELP, report.add_arguments, report.run,
                      description=report.DESCRIPTION),
    "advise": Command(advise.HELP, advise.add_arguments, advise.run,
                      description=advise.DESCRIPTION),
    "compare": Command(compare.HELP, compare.add_arguments, compare.run,
                       description=compare.DESCRIPTION),
    "tune": Command(tune.HELP, tune.add_arguments, description=tune.DESCRIPTION,
                    subcommands={
                        "allreduce": Command(tune.ALLREDUCE_HELP,
                                             tune.coll_arguments("allreduce"),
                                             tune.run_allreduce_or_predict,
                                             description=tune.ALLREDUCE_DESCRIPTION),
                        **{name: Command(tune.COLL_HELP, tune.coll_arguments(name),
                                         tune.run_collective, description=tune.COLL_DESCRIPTION)
                           for name in tune.COLLECTIVES[1:] + ("all",)},
                    }),
    "simulate": Command(simulate.HELP, simulate.add_arguments, simulate.run,
                        description=simulate.DESCRIPTION, extra_args=True),
}


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors become one-line UsageErrors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=30)


def _add_table(parser: argparse.ArgumentParser, table: Dict[str, Command], depth: int) -> None:
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND",
                                       dest=f"_command{depth}", parser_class=Parser)
    for name, command in table.items():
        sub = subparsers.add_parser(name, help=command.help,
                                    description=command.description or command.help,
                                    formatter_class=_formatter)
        command.add_arguments(sub)
        sub.set_defaults(_selected=command, _prog=sub.prog)
        if command.subcommands:
            _add_table(sub, command.subcommands, depth + 1)


def build_parser() -> Parser:
    parser = Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                    formatter_class=_formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _add_table(parser, COMMANDS, 0)
    return parser


def split_argv(argv: Sequence[str]) -> Tuple[List[str], List[str]]:
    """(arguments for argparse, arguments after `--` or of a passthrough command)."""
    argv = list(argv)
    if argv and argv[0] in COMMANDS and COMMANDS[argv[0]].passthrough:
        rest = argv[1:]
        if rest in (["-h"], ["--help"]):
            return argv, []
        return argv[:1], rest[1:] if rest[:1] == ["--"] else rest
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def dispatch(argv: Sequence[str]) -> int:
    own, extra = split_argv(argv)
    parser = build_parser()
    ns, unknown = parser.parse_known_args(own)
    command: Optional[Command] = getattr(ns, "_selected", None)
    prog = getattr(ns, "_prog", PROG)
    if unknown:
        hint = "; arguments of the binary go after '--'" if command and command.extra_args else ""
        raise UsageError(f"unrecognized arguments: {' '.join(unknown)}{hint} "
                         f"(see '{prog} --help')")
    if command is None:
        raise UsageError(f"a command is required: {', '.join(COMMANDS)} "
                         f"(see '{PROG} --help')")
    if command.run is None:
        names = ", ".join(command.subcommands)
        raise UsageError(f"a subcommand is required: {names} (see '{prog} --help')")
    if extra and not command.extra_args:
        raise UsageError(f"unexpected arguments after '--': {' '.join(extra)}")
    ns.extra = extra
    return command.run(ns)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `hybridkit` console script and `python -m hybridkit`."""
    try:
        return dispatch(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except HKError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: error: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except RecursionError:  # a last guard: input is depth-checked where it is read
        print(f"{PROG}: error: input nested too deeply", file=sys.stderr)
        return 1
