"""The simulated study of the seeds' cluster experiments (issue 26).

    studies/seeds-simulated.toml  ([[run]]: platform, nodes, binary, args, sweep; [run.quick])
        --> plan(): one `hybridkit simulate` argument list per run (sweeps expanded)
        --> main(): runs them one after the other into RESULTS (a run directory each),
            then `hybridkit report RESULTS` shows them in the "Simulated on PLATFORM"
            sections next to the seeds' values (hybridkit.report.simulate)

    python -m hybridkit.simulate.study [--quick] [--dry-run] [--results DIR] [--only NAME ...]

Each run is an ordinary `hybridkit simulate` call (SimGrid SMPI; docs/simulate.md), so any
of them can be repeated by hand: --dry-run prints the commands.
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from hybridkit.errors import HKError
from hybridkit.tomlread import tomllib

STUDY = Path(__file__).parent / "studies" / "seeds-simulated.toml"
RUN_KEYS = {"name", "platform", "use_nodes", "ranks_per_node", "stride", "binary", "args",
            "quick", "sweep", "report", "seed"}
QUICK_KEYS = {"use_nodes", "ranks_per_node", "stride", "args"}  # what [run.quick] may change
BINARIES = ("hk-bench", "hk-jacobi")


@dataclass(frozen=True)
class SimRun:
    name: str
    argv: List[str]  # the arguments of `hybridkit simulate`
    report: str
    seed: str


def load(path: Path = STUDY) -> Dict[str, Any]:
    """The study, checked: HKError naming the file and the run."""
    try:
        study = tomllib.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise HKError(f"{path}: {exc}") from None
    runs = study.get("run")
    if not isinstance(runs, list) or not runs:
        raise HKError(f"{path}: no [[run]]")
    names = set()
    for i, run in enumerate(runs, 1):
        where = f"{path}: run {i} ({run.get('name', '?')})"
        extra = set(run) - RUN_KEYS
        if extra:
            raise HKError(f"{where}: unknown keys {', '.join(sorted(extra))}")
        for key in ("name", "platform", "binary", "args"):
            if key not in run:
                raise HKError(f"{where}: '{key}' is missing")
        if run["binary"] not in BINARIES:
            raise HKError(f"{where}: binary must be one of {', '.join(BINARIES)}")
        if run["name"] in names:
            raise HKError(f"{where}: the name is used twice")
        names.add(run["name"])
        quick = run.get("quick", {})
        if not isinstance(quick, dict) or set(quick) - QUICK_KEYS:
            raise HKError(f"{where}: [run.quick] may set only {', '.join(sorted(QUICK_KEYS))}")
        for args in (run["args"], quick.get("args", [])):
            if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
                raise HKError(f"{where}: 'args' must be a list of strings")
        sweep = run.get("sweep", {})
        if not isinstance(sweep, dict) or not all(isinstance(v, list) and v
                                                  for v in sweep.values()):
            raise HKError(f"{where}: [run.sweep] values must be non-empty lists")
    return study


def _expand(args: Sequence[str], values: Dict[str, Any]) -> List[str]:
    out = []
    for a in args:
        for k, v in values.items():
            a = a.replace("{" + k + "}", str(v))
        out.append(a)
    return out


def plan(study: Dict[str, Any], results: Path, quick: bool = False,
         only: Optional[Sequence[str]] = None) -> List[SimRun]:
    """One `hybridkit simulate` argument list per run and sweep value."""
    out = []
    for run in study["run"]:
        if only and run["name"] not in only:
            continue
        if quick:
            run = {**run, **run.get("quick", {})}
        args = run["args"]
        sweep = run.get("sweep", {})
        keys = sorted(sweep)
        for combo in itertools.product(*(sweep[k] for k in keys)):
            values = dict(zip(keys, combo))
            argv = ["--platform", str(run["platform"])]
            for key, opt in (("use_nodes", "--use-nodes"), ("ranks_per_node", "--ranks-per-node"),
                             ("stride", "--stride")):
                if key in run:
                    argv += [opt, str(run[key])]
            argv += ["--results", str(results), run["binary"], "--"] + _expand(args, values)
            name = run["name"] + "".join(f"-{k}_{v}" for k, v in values.items())
            out.append(SimRun(name, argv, run.get("report", ""), run.get("seed", "")))
    if only:
        missing = set(only) - {r["name"] for r in study["run"]}
        if missing:
            raise HKError(f"no run named {', '.join(sorted(missing))} in the study")
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hybridkit.simulate.study",
        description="Run the seeds' cluster experiments on simulated platforms (hybridkit "
                    "simulate, SimGrid SMPI), then report them next to the seeds' values.")
    parser.add_argument("--study", type=Path, default=STUDY, help="study file (default: the "
                        "seeds' study, hybridkit/simulate/studies/seeds-simulated.toml)")
    parser.add_argument("--results", type=Path, default=Path("results") / "simulated",
                        help="results directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="the quick variant of each run ([run.quick])")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these runs")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    ns = parser.parse_args(argv)
    try:
        runs = plan(load(ns.study), ns.results, ns.quick, ns.only)
    except HKError as exc:
        print(f"hybridkit.simulate.study: error: {exc}", file=sys.stderr)
        return 2
    failed = []
    for run in runs:
        cmd = ["hybridkit", "simulate"] + run.argv
        print(f"# {run.name}: {run.report or '-'}", flush=True)
        print(" ".join(cmd), flush=True)
        if ns.dry_run:
            continue
        code = subprocess.run([sys.executable, "-m", "hybridkit", "simulate"] + run.argv,
                              stdin=subprocess.DEVNULL).returncode
        if code:
            failed.append(f"{run.name} (exit {code})")
    print(f"# report: hybridkit report {ns.results} -o {ns.results / 'report.html'}")
    if failed:
        print(f"hybridkit.simulate.study: {len(failed)} run(s) failed: {', '.join(failed)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
