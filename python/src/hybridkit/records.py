"""JSONL records: load them and validate each line against schema/record.schema.json.

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
from hybridkit.paths import schema_path

Record = Dict[str, Any]
PathLike = Union[str, Path]


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


def record_error(record: Any, schema: Optional[PathLike] = None) -> Optional[str]:
    """The most relevant schema violation of one record, or None when it is valid."""
    from jsonschema.exceptions import best_match

    error = best_match(validator(schema).iter_errors(record))
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def load_records(path: PathLike, validate: bool = True,
                 schema: Optional[PathLike] = None) -> List[Record]:
    """All records of a JSONL file; raise RecordsInvalid at the first bad line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordsInvalid(path, None, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordsInvalid(path, None, f"cannot read: {exc}") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordsInvalid(path, number, f"not JSON: {exc.msg} (column {exc.colno})") from None
        if validate:
            problem = record_error(record, schema)
            if problem:
                raise RecordsInvalid(path, number, problem)
        records.append(record)
    if not records:
        raise RecordsInvalid(path, None, "no records")
    return records
