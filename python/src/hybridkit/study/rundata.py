"""Run sets: the run directories under some paths, with their validated records.

    find_runs(paths) --> [Run(path, info = run.json, records, status, problem)]

A run directory is one holding run.json or records.jsonl (`hybridkit run`, `sweep`,
`study` all make them). Only records that pass the schema are kept; a file with a bad
line keeps its valid lines and the run is marked incomplete with the reason. A run is
complete when it exited 0 with valid records; every other run is kept and listed as
incomplete (failed, unfinished, invalid or missing records), never dropped silently.

Simulated records (`hybridkit simulate`, SimGrid SMPI: top-level "simulated": true and
"platform": {"name", ...}) are never mixed with measured ones: a Run loaded from disk
yields only its real records through entries(); split_simulated() gives the real view
and one view per platform (a Run whose `view` is the platform's name, `view_key` its name and
parameters, and whose records are that platform's only), and entries() of a view yields that
platform's records.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from hybridkit import appcatalog
from hybridkit.appcatalog import by_kind
from hybridkit.appdesc import AppDesc
from hybridkit.errors import HKError, UsageError
from hybridkit.kinds import kind_info
from hybridkit.records import JSONInvalid, loads, read_text, record_error, schema_problem

Record = Dict[str, Any]
# the directories of attempts a sweep moved aside (hybridkit.study.sweep._move_aside)
SET_ASIDE = re.compile(r"\.(attempt|busy)-\d+$")

_COUNT = {"type": ["integer", "null"], "minimum": 1}
_TEXT = {"type": ["string", "null"]}
# run.json as `hybridkit run`, `sweep` and `study` write it: the fields read here, typed
# (more may be present); a run.json that breaks it marks the run corrupt, naming the field
RUN_SCHEMA = {
    "type": "object",
    "properties": {
        "np": _COUNT, "threads": _COUNT, "nodes": _COUNT, "repeat": {"type": ["integer", "null"]},
        "exit_code": {"type": ["integer", "null"]}, "status": _TEXT, "message": _TEXT,
        "app": _TEXT, "id": _TEXT, "bind": _TEXT, "mode": _TEXT, "binary": _TEXT,
        "params": {"type": ["object", "null"]}, "argv": {"type": ["array", "null"]},
    },
}
# study.json (`hybridkit study`): an object; its plan a list of runs
STUDY_SCHEMA = {
    "type": "object",
    "properties": {
        "plan": {"type": "array", "items": {"type": "object"}},
        "argv": {"type": "array", "items": {"type": "string"}},
        "quick": {"type": "boolean"}, "host": _TEXT, "start": _TEXT,
    },
}


def read_json(path: Path, schema: Dict[str, Any]) -> Any:
    """A JSON file hybridkit wrote, checked: HKError naming the file (and the field)."""

    try:
        data = loads(read_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise HKError(f"{path}: cannot read: {exc}") from None
    except ValueError as exc:
        raise HKError(f"{path}: not JSON: {getattr(exc, 'msg', exc)}") from None
    problem = schema_problem(data, schema)
    if problem:
        raise HKError(f"{path}: {problem}")
    return data


@dataclass
class Run:
    path: Path
    info: Dict[str, Any] = field(default_factory=dict)
    records: List[Record] = field(default_factory=list)
    status: str = "ok"  # ok, or why it is incomplete
    problem: str = ""
    view: Optional[str] = None  # None: the real records; a platform name: its simulated ones
    view_key: Optional[Tuple[str, Tuple[Tuple[str, str], ...]]] = None  # the platform's identity

    @property
    def complete(self) -> bool:
        return self.status == "ok"

    @property
    def superseded(self) -> bool:
        """An attempt a sweep moved aside and ran again (hybridkit.study.sweep._move_aside:
        <id>.attempt-N failed or made with another launch, <id>.busy-N made on a busy
        machine): the run <id> is the measurement."""
        return SET_ASIDE.search(self.path.name) is not None

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

    try:
        text = read_text(path)
    except FileNotFoundError:
        return [], "no records.jsonl"
    except (OSError, UnicodeDecodeError) as exc:
        return [], f"cannot read records.jsonl: {exc}"
    records, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = loads(line)
        except (json.JSONDecodeError, JSONInvalid) as exc:
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
        info_text = read_text(path / "run.json")
        run.info = loads(info_text)
        problem = schema_problem(run.info, RUN_SCHEMA)
        if problem:
            run.info = {}
            run.status, run.problem = "corrupt", f"run.json invalid: {path / 'run.json'}: {problem}"
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


UNNAMED_PLATFORM = "unnamed platform"
PlatformKey = Tuple[str, Tuple[Tuple[str, str], ...]]


# a node rate's fields that describe the run's layout, not the platform (runs of 128 x 1 and
# 16 x 8 on one platform and model are compared)
NODE_RATE_LAYOUT = ("ranks_per_node", "threads_per_rank", "busy_cores", "speed_factor",
                    "layout_rate", "mode_model")  # the run's, not the platform's


def _key_of(plat: Any) -> PlatformKey:
    """A platform's identity: its name and every parameter but the file (each run directory
    writes its own copy of the platform file) and the layout's part of the node rate."""
    if not isinstance(plat, dict):
        return (str(plat) if plat else UNNAMED_PLATFORM, ())
    plat = dict(plat)
    if isinstance(plat.get("node_rate"), dict):
        plat["node_rate"] = {k: v for k, v in plat["node_rate"].items()
                             if k not in NODE_RATE_LAYOUT}
    params = tuple(sorted((str(k), str(v)) for k, v in plat.items() if k not in ("name", "file")))
    return (str(plat.get("name") or UNNAMED_PLATFORM), params)


def platform_key(record: Record) -> Optional[PlatformKey]:
    """The simulated platform a record was made on (name and parameters), None for a real
    run: two platforms of one name with other parameters (--platform sr8000 --cpu-injection
    ...) are two platforms."""
    if record.get("simulated") is not True:
        return None
    return _key_of(record.get("platform"))


def platform_of(record: Record) -> Optional[str]:
    """The name of the simulated platform a record was made on, None for a real run."""
    key = platform_key(record)
    return key[0] if key else None


def platform_label(key: Optional[PlatformKey]) -> Optional[str]:
    """name(parameter=value,...): a platform's identity as text (compare's keys)."""
    if key is None:
        return None
    return key[0] + ("(" + ",".join(f"{k}={v}" for k, v in key[1]) + ")" if key[1] else "")


def _run_platform(run: Run) -> Optional[PlatformKey]:
    """The platform of a run without records (failed before writing any): from run.json."""
    if not run.info.get("simulated"):
        return None
    return _key_of(run.info.get("platform"))


def split_simulated(runs: Sequence[Run]) -> Tuple[List[Run], Dict[str, List[Run]]]:
    """(the real view of `runs`, {platform: the simulated views}): each view is a copy of a
    run holding only the records of one side, so nothing built from one view can average,
    plot or tabulate a record of the other (a run with both gives one of each). A platform
    is named by its name, followed by the parameters that tell it from another of the same
    name when the runs hold several ('sr8000 (cpu_injection=None)')."""
    real: List[Run] = []
    by_key: Dict[PlatformKey, List[Run]] = {}
    for run in runs:
        by: Dict[Optional[PlatformKey], List[Record]] = {}
        for r in run.records:
            by.setdefault(platform_key(r), []).append(r)
        if not by:
            by[_run_platform(run)] = []
        for key, recs in by.items():
            if key is None:
                real.append(replace(run, records=recs, view=None, view_key=None))
            else:
                by_key.setdefault(key, []).append(replace(run, records=recs, view_key=key))
    sims: Dict[str, List[Run]] = {}
    for key, views in by_key.items():
        same_name = [k for k in by_key if k[0] == key[0]]
        name = key[0]
        if len(same_name) > 1:
            others = [dict(k[1]) for k in same_name if k != key]
            mine = dict(key[1])
            differ = sorted({p for o in others for p in set(o) | set(mine)
                             if o.get(p) != mine.get(p)})
            name += " (" + ", ".join(f"{p}={mine.get(p)}" for p in differ) + ")"
        for v in views:
            v.view = name
        sims[name] = views
    return real, dict(sorted(sims.items()))


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

    @property
    def platform(self) -> Optional[str]:
        """The simulated platform's name, None for a measured record."""
        return platform_of(self.record)

    @property
    def platform_label(self) -> Optional[str]:
        """The simulated platform's name and parameters, None for a measured record."""
        return platform_label(platform_key(self.record))

    @property
    def simulated(self) -> bool:
        return self.platform is not None


def entries(runs: Iterable[Run], kind: Optional[str] = None, app: Optional[str] = None,
            complete_only: bool = True, include_simulated: bool = False) -> List[Entry]:
    """The records of the complete runs (of `kind`, of `app`): of a run loaded from disk its
    real records only, of a simulated view (split_simulated) its platform's; with
    `include_simulated` all of them (the caller keeps them apart by Entry.platform)."""
    out = []
    for run in runs:
        if complete_only and not run.complete:
            continue
        if app is not None and run.app != app:
            continue
        out += [Entry(run, r) for r in run.records if (kind is None or r["kind"] == kind)
                and (include_simulated or platform_key(r) == run.view_key)]
    return out


def study_meta(paths: Sequence[Path]) -> Dict[str, Any]:
    """study.json and machine.txt of the first study directory among `paths`, if any."""
    for root in paths:
        meta = Path(root) / "study.json"
        if meta.exists():
            data = read_json(meta, STUDY_SCHEMA)
            machine = Path(root) / "machine.txt"
            if machine.is_file():
                data["machine_text"] = machine.read_text(errors="replace")
            return data
    return {}


TIME_UNITS = ("s", "ms", "us", "ns")


def _must_be_positive(unit: Optional[str]) -> bool:
    """A time or a rate (MLUP/s, GFlop/s, MB/s): zero or less is no measurement."""
    return bool(unit) and (unit in TIME_UNITS or unit.endswith("/s"))


def value_problem(record: Record, app: AppDesc) -> Optional[str]:
    """What makes a schema-valid record of `app` unusable: its metric (a time or a rate),
    its time or a phase of its breakdown <= 0 (phases < 0); None when usable."""
    results = record.get("results") or {}
    checks = []
    if _must_be_positive(app.metric.unit):
        checks.append((app.metric.value, "> 0"))
    if app.metric.time:
        checks.append((app.metric.time, "> 0"))
    checks += [(name, ">= 0") for name in app.metric.breakdown]
    for name, rule in checks:
        res = results.get(name)
        if not isinstance(res, dict):
            continue
        for stat in ("value", "min", "avg", "max"):
            v = res.get(stat)
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                continue
            if (rule == "> 0" and not v > 0) or (rule == ">= 0" and not v >= 0):
                unit = res.get("unit") or app.metric.unit
                return f"results.{name}.{stat} = {v:g}{' ' + unit if unit else ''}: must be {rule}"
    return None


def check_values(runs: Iterable[Run], apps: Dict[str, AppDesc]) -> None:
    """Mark complete runs whose records of their app's kind hold impossible values
    (value_problem) as 'invalid-values', naming the file, the record and the field: they
    are listed as incomplete, never advised on, reported or compared."""
    for run in runs:
        app = apps.get(run.app or "")
        if app is None or not run.complete:
            continue
        for number, record in enumerate(run.records, 1):
            if record.get("kind") != app.kind:
                continue
            problem = value_problem(record, app)
            if problem:
                run.status = "invalid-values"
                run.problem = f"{run.path / 'records.jsonl'}: record {number}: {problem}"
                break


# record kinds the report reads besides the apps' and the declared ones: the benchmarks'
# (bench.*), the binding (topology.*), the profiler's (profile.*) and the tests' (test.*)
REPORTED_FAMILIES = ("bench", "topology", "profile", "test")


def known_kind(kind: str, apps: Dict[str, AppDesc]) -> bool:
    """Whether a report section, an app description or a C declaration knows `kind`."""

    if any(a.kind == kind for a in apps.values()):
        return True
    if kind.split(".", 1)[0] in REPORTED_FAMILIES:
        return True
    return kind_info(kind) is not None


def unknown_kinds(runs: Iterable[Run], apps: Dict[str, AppDesc]) -> List[Tuple[Path, str, int]]:
    """(records file, kind, how many) of the records of complete runs whose kind nothing
    knows (known_kind): they can be in no section of a report."""
    out: Dict[Tuple[Path, str], int] = {}
    for run in runs:
        if not run.complete:
            continue
        for r in run.records:
            if not known_kind(r["kind"], apps):
                key = (run.path / "records.jsonl", r["kind"])
                out[key] = out.get(key, 0) + 1
    return [(path, kind, n) for (path, kind), n in out.items()]


def check_usable(runs: Sequence[Run], paths: Sequence[Path]) -> None:
    if not any(r.complete for r in runs):
        why = "; ".join(f"{r.path.name}: {r.problem}" for r in runs[:3])
        raise HKError(f"no complete run under {', '.join(map(str, paths))} "
                      f"({len(runs)} incomplete: {why})")


def load_results(paths: Sequence[Path], require_complete: bool = True):
    """(runs, app descriptions) under `paths`, each run assigned its app; HKError when
    none is complete (if required)."""
    apps = appcatalog.load_all([Path(p) / "apps" for p in paths])  # a sweep keeps its user apps
    runs = find_runs(paths)
    assign_apps(runs, apps)
    check_values(runs, apps)
    if require_complete:
        check_usable(runs, paths)
    return runs, apps
