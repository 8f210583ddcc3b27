"""JSONL records: load them and validate each line against the record schema
(hybridkit/schemas/record.schema.json, package data).

A record file holds one JSON object per line (blank lines are skipped). Every error names
the file and the 1-based line, e.g.

    results/runs/x/records.jsonl:3: provenance: 'git_sha' is a required property
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from hybridkit.errors import HKError
from hybridkit.kinds import kind_error, violation
from hybridkit.paths import schema_path

Record = Dict[str, Any]
PathLike = Union[str, Path]


# JSON that hybridkit reads (records, run.json, study.json) is shallow: records nest 4
# levels.  Deeper input is refused before it reaches the parser's or the validator's
# recursion (a line nested 100000 deep raised RecursionError).
MAX_DEPTH = 64


class JSONInvalid(ValueError):
    """Text that is not strict JSON (NaN, Infinity) or nests deeper than MAX_DEPTH."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg


def _reject_constant(name: str) -> Any:
    raise JSONInvalid(f"{name} is not JSON (non-finite numbers are written as null)")


def _nesting(text: str) -> int:
    """The deepest nesting of brackets outside strings (no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def loads(text: str) -> Any:
    """json.loads for input hybridkit did not write itself: strict (no NaN/Infinity) and
    at most MAX_DEPTH levels deep; raises ValueError (json.JSONDecodeError or JSONInvalid)."""
    if text.count("[") + text.count("{") > MAX_DEPTH and _nesting(text) > MAX_DEPTH:
        raise JSONInvalid(f"nested more than {MAX_DEPTH} levels deep")
    return json.loads(text, parse_constant=_reject_constant)


class RecordsInvalid(HKError):
    """A record file is missing, empty, not JSONL or not valid against the schema."""

    def __init__(self, path: PathLike, line: Optional[int], message: str) -> None:
        self.path, self.line, self.reason = str(path), line, message
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")


@lru_cache(maxsize=None)
def _validator(path: str):
    import jsonschema  # lazy: only commands that read records pay for it

    try:
        schema = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise HKError(f"cannot read record schema {path}: {exc}") from exc
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def validator(path: Optional[PathLike] = None):
    """A jsonschema validator for records (schema from hybridkit.paths.schema_path())."""
    return _validator(str(path or schema_path()))


def record_error(record: Any, schema: Optional[PathLike] = None,
                 declared: bool = False) -> Optional[str]:
    """The most relevant schema violation of one record, or None when it is valid: against
    hybridkit/schemas/record.schema.json and, with `declared`, against the declaration of
    its kind as the C side declares it now (kinds.py; records of older versions may lack fields)."""
    found = violation(validator(schema), record)
    if found is None:
        return kind_error(record) if declared else None
    where, message = found
    return f"{where}: {message}" if where else message


def stats_error(record: Dict[str, Any]) -> Optional[str]:
    """'results.X: ...' when a min/avg/max result is out of order (min <= avg <= max, up to
    the rounding of the printed digits), else None: what no schema can say (`records
    validate` checks it)."""
    for name, res in (record.get("results") or {}).items():
        if isinstance(res, dict) and "avg" in res:
            lo, avg, hi = res["min"], res["avg"], res["max"]
            slack = 1e-9 * max(abs(lo), abs(hi), 1e-300)
            if not (lo - slack <= avg <= hi + slack):
                return f"results.{name}: not min <= avg <= max ({lo} {avg} {hi})"
    return None


def schema_problem(data: Any, schema: Dict[str, Any]) -> Optional[str]:
    """'field F: message' of the most relevant violation of `schema` (draft 7) by `data`
    (a run.json, an app description), or None."""
    import jsonschema

    found = violation(jsonschema.Draft7Validator(schema), data)
    if found is None:
        return None
    where, message = found
    return f"field {where}: {message}" if where else message


def read_text(path: Path) -> str:
    """The text of a regular file (a FIFO or a device would block or never end)."""
    if path.exists() and not path.is_file():
        raise IsADirectoryError(f"{path} is not a regular file")
    return path.read_text(encoding="utf-8")


def load_records(path: PathLike, validate: bool = True,
                 schema: Optional[PathLike] = None, declared: bool = False) -> List[Record]:
    """All records of a JSONL file; raise RecordsInvalid at the first bad line (with
    `declared`, also against the declarations of the record kinds: record_error)."""
    path = Path(path)
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise RecordsInvalid(path, None, "no such file") from None
    except IsADirectoryError:
        raise RecordsInvalid(path, None, "not a regular file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordsInvalid(path, None, f"cannot read: {exc}") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = loads(line)
        except json.JSONDecodeError as exc:
            raise RecordsInvalid(path, number, f"not JSON: {exc.msg} (column {exc.colno})") from None
        except JSONInvalid as exc:
            raise RecordsInvalid(path, number, f"not JSON: {exc.msg}") from None
        if validate:
            problem = record_error(record, schema, declared)
            if problem:
                raise RecordsInvalid(path, number, problem)
        records.append(record)
    if not records:
        raise RecordsInvalid(path, None, "no records")
    return records
