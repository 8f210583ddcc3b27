"""Run sets: the run directories under some paths, with their validated records.

    find_runs(paths) --> [Run(path, info = run.json, records, status, problem)]

A run directory is one holding run.json or records.jsonl (`hybridkit run`, `sweep`,
`study` all make them). Only records that pass the schema are kept; a file with a bad
line keeps its valid lines and the run is marked incomplete with the reason. A run is
complete when it exited 0 with valid records; every other run is kept and listed as
incomplete (failed, unfinished, invalid or missing records), never dropped silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

from hybridkit.appdesc import AppDesc, by_kind
from hybridkit.errors import HKError, UsageError

Record = Dict[str, Any]


@dataclass
class Run:
    path: Path
    info: Dict[str, Any] = field(default_factory=dict)
    records: List[Record] = field(default_factory=list)
    status: str = "ok"  # ok, or why it is incomplete
    problem: str = ""

    @property
    def complete(self) -> bool:
        return self.status == "ok"

    @property
    def app(self) -> Optional[str]:
        return self.info.get("app")

    @property
    def ranks(self) -> int:
        if self.info.get("np"):
            return int(self.info["np"])
        return self.records[0]["provenance"]["ranks"] if self.records else 0

    @property
    def threads(self) -> int:
        if self.info.get("threads"):
            return int(self.info["threads"])
        return self.records[0]["provenance"]["threads_per_rank"] if self.records else 0

    @property
    def bind(self) -> str:
        return self.info.get("bind") or "?"

    @property
    def label(self) -> str:
        return self.info.get("id") or self.path.name


def read_records(path: Path) -> tuple:
    """(valid records, problem text or '') of one JSONL file; each line validated alone."""
    from hybridkit.records import record_error

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], "no records.jsonl"
    except (OSError, UnicodeDecodeError) as exc:
        return [], f"cannot read records.jsonl: {exc}"
    records, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not JSON ({exc.msg})")
            continue
        error = record_error(record)
        if error:
            problems.append(f"line {number}: {error}")
        else:
            records.append(record)
    if not records and not problems:
        problems.append("records.jsonl is empty")
    return records, "; ".join(problems[:3]) + (" ..." if len(problems) > 3 else "")


def load_run(path: Path) -> Run:
    run = Run(path)
    info_text = None
    try:
        info_text = (path / "run.json").read_text()
        run.info = json.loads(info_text)
        if not isinstance(run.info, dict):
            raise ValueError("not an object")
    except FileNotFoundError:
        run.info = {}
    except (OSError, ValueError) as exc:
        run.info = {}
        run.status, run.problem = "corrupt", f"run.json unreadable: {exc}"
    run.records, problem = read_records(path / "records.jsonl")
    if run.status != "ok":
        return run
    code = run.info.get("exit_code", 0 if info_text is None else None)
    declared = run.info.get("status")
    if declared == "running" or (info_text is not None and code is None):
        run.status, run.problem = "unfinished", "the run did not finish (no exit code)"
    elif declared in ("interrupted", "timeout", "busy-repeated"):
        run.status = declared
        run.problem = run.info.get("message") or declared
    elif code not in (0, None):
        run.status = "failed"
        run.problem = run.info.get("message") or f"exit code {code}"
    elif problem:
        run.status, run.problem = "invalid-records", problem
    return run


def _run_dirs(root: Path) -> List[Path]:
    if (root / "run.json").is_file() or (root / "records.jsonl").is_file():
        return [root]
    found = {p.parent for name in ("run.json", "records.jsonl") for p in root.rglob(name)}
    return sorted(found)


def find_runs(paths: Sequence[Path]) -> List[Run]:
    """Every run under `paths`; UsageError for a missing path, HKError when none is found."""
    runs: List[Run] = []
    for root in paths:
        root = Path(root)
        if not root.exists():
            raise UsageError(f"{root} does not exist")
        if not root.is_dir():
            raise UsageError(f"{root} is not a directory (give run or study directories)")
        dirs = _run_dirs(root)
        if not dirs:
            raise HKError(f"no runs under {root}: expected run directories holding run.json "
                          f"and records.jsonl (made by hybridkit run, sweep or study)")
        runs += [load_run(d) for d in dirs]
    return runs


def assign_apps(runs: Iterable[Run], apps: Dict[str, AppDesc]) -> None:
    """Name the app of runs that do not say it (hybridkit run): by their records' kind."""
    kinds = by_kind(apps)
    for run in runs:
        if run.app:
            continue
        for record in run.records:
            desc = kinds.get(record["kind"])
            if desc:
                run.info["app"] = desc.name
                break


@dataclass(frozen=True)
class Entry:
    """One record of a complete run."""

    run: Run
    record: Record

    @property
    def params(self) -> Dict[str, Any]:
        return self.record["params"]

    def result(self, name: str, stat: str = "avg") -> Optional[float]:
        res = self.record["results"].get(name)
        if res is None:
            return None
        value = res.get("value", res.get(stat))
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def entries(runs: Iterable[Run], kind: Optional[str] = None, app: Optional[str] = None,
            complete_only: bool = True) -> List[Entry]:
    out = []
    for run in runs:
        if complete_only and not run.complete:
            continue
        if app is not None and run.app != app:
            continue
        out += [Entry(run, r) for r in run.records if kind is None or r["kind"] == kind]
    return out


def study_meta(paths: Sequence[Path]) -> Dict[str, Any]:
    """study.json and machine.txt of the first study directory among `paths`, if any."""
    for root in paths:
        meta = Path(root) / "study.json"
        if meta.is_file():
            try:
                data = json.loads(meta.read_text())
            except ValueError:
                data = {}
            machine = Path(root) / "machine.txt"
            if machine.is_file():
                data["machine_text"] = machine.read_text(errors="replace")
            return data
    return {}


def check_usable(runs: Sequence[Run], paths: Sequence[Path]) -> None:
    if not any(r.complete for r in runs):
        why = "; ".join(f"{r.path.name}: {r.problem}" for r in runs[:3])
        raise HKError(f"no complete run under {', '.join(map(str, paths))} "
                      f"({len(runs)} incomplete: {why})")
