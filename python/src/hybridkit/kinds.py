"""Declared record kinds: what the C side declares about each field of a kind.

Every record kind an app writes is declared once in C (hk_kind_decl_t, e.g.
apps/jacobi/jacobi_kinds.c): per field its type, unit, meaning, how the ranks are
aggregated and whether it is a phase of the time per iteration.  The build generates
one JSON schema per kind (tools/hk-kinds; committed as package data,
python/src/hybridkit/schemas/KIND.schema.json, compared with the generated copy in ctest).  This module reads them: app descriptions
take their metric, units, captions and time breakdown from here, and record
validation checks each record against its kind's schema and its phases against its
time per iteration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

from hybridkit.errors import HKError
from hybridkit.paths import RECORD_SCHEMA, kind_schema_dir

# the phases of one iteration add up to its time up to the rounding of the sums (the
# records carry 17 significant digits).  The sign of the rest is not checked here: on a
# busy machine a preempted thread can make the measured phases exceed the wall time of a
# short run (python/tests/test_jacobi_phases.py checks them on a quiet machine)
PHASE_SUM_RTOL = 1e-9


@dataclass(frozen=True)
class KindInfo:
    kind: str
    caption: str
    metric: Optional[str]
    better: Optional[str]
    time: Optional[str]
    phases: Tuple[str, ...]          # in declaration order, the rest included
    rest: Optional[str]
    units: Tuple[Tuple[str, str], ...]
    meanings: Tuple[Tuple[str, str], ...]
    schema: Any

    def unit(self, name: str) -> Optional[str]:
        return dict(self.units).get(name)

    def meaning(self, name: str) -> Optional[str]:
        return dict(self.meanings).get(name)

    @property
    def measured_phases(self) -> Tuple[str, ...]:
        """The phases a figure stacks: all but the rest (the gap up to the measured time)."""
        return tuple(p for p in self.phases if p != self.rest)


def _fields(schema: Mapping[str, Any]) -> Dict[str, Mapping[str, Any]]:
    props = schema.get("properties", {})
    out: Dict[str, Mapping[str, Any]] = {}
    for side in ("params", "results"):
        out.update(props.get(side, {}).get("properties", {}))
    return out


@lru_cache(maxsize=None)
def kind_info(kind: str, beside: Optional[Path] = None) -> Optional[KindInfo]:
    """The declaration of `kind`, None when it is not declared (or no schemas are found).
    The package's kinds first; then, with `beside`, KIND.schema.json in that folder: the
    schema hk_kind_schema_write wrote for a kind declared in a program of the user's own,
    put beside its app description."""
    found = _kind_info_in(kind, kind_schema_dir())
    return found if found is not None or beside is None else _kind_info_in(kind, beside)


def _kind_info_in(kind: str, folder: Optional[Path]) -> Optional[KindInfo]:
    name = f"{kind}.schema.json"
    path = folder / name if folder and name != RECORD_SCHEMA else None  # the envelope: no kind
    if path is None or not path.is_file():
        return None
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HKError(f"cannot read the schema of record kind {kind!r} ({path}): {exc}") from exc
    fields = _fields(schema)
    return KindInfo(kind=kind, caption=schema.get("description", ""),
                    metric=schema.get("x-metric"), better=schema.get("x-better"),
                    time=schema.get("x-time"), phases=tuple(schema.get("x-phases", ())),
                    rest=schema.get("x-rest"),
                    units=tuple((n, f["x-unit"]) for n, f in fields.items() if f.get("x-unit")),
                    meanings=tuple((n, f.get("description", "")) for n, f in fields.items()),
                    schema=schema)


@lru_cache(maxsize=None)
def _validator(kind: str):
    import jsonschema

    info = kind_info(kind)
    cls = jsonschema.validators.validator_for(info.schema)
    cls.check_schema(info.schema)
    return cls(info.schema)


def _avg(record: Mapping[str, Any], name: str) -> Optional[float]:
    res = record.get("results", {}).get(name)
    value = res.get("avg", res.get("value")) if isinstance(res, dict) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def phase_error(record: Mapping[str, Any], info: KindInfo) -> Optional[str]:
    """The phases of a record must be disjoint parts of its time per iteration: with a
    declared rest they add up to it exactly, without one to at most it (a phase that
    contains another, as comm contains wait, breaks the sum).  None when they do, or
    none are declared."""
    if not info.time or not info.phases:
        return None
    t = _avg(record, info.time)
    values = {p: _avg(record, p) for p in info.phases}
    if t is None or any(v is None for v in values.values()):
        return None
    total = sum(values.values())
    if info.rest is None and total > t + PHASE_SUM_RTOL * abs(t):
        return (f"the phases {' + '.join(info.phases)} add up to {total:.6g} s, more than "
                f"{info.time} {t:.6g} s: phases must be disjoint parts of the time per "
                f"iteration")
    if info.rest is not None and abs(total - t) > PHASE_SUM_RTOL * abs(t) + 1e-300:
        return (f"the phases {' + '.join(info.phases)} add up to {total:.6g} s, not to "
                f"{info.time} {t:.6g} s: phases must be disjoint parts of the time per "
                f"iteration")
    return None


def violation(validator: Any, data: Any) -> Optional[Tuple[str, str]]:
    """(where, message) of the most relevant error of `data` against a jsonschema `validator`
    (where: the dotted path of the field, '' for the whole); None when `data` is valid."""
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(data))
    if error is None:
        return None
    return ".".join(str(p) for p in error.absolute_path), error.message


def kind_error(record: Any) -> Optional[str]:
    """What is wrong with a record against the declaration of its kind (schema, phases);
    None when it is right or its kind is not declared."""
    if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
        return None
    info = kind_info(record["kind"])
    if info is None:
        return None
    found = violation(_validator(info.kind), record)
    if found is not None:
        where, message = found
        return f"{where}: {message} (kind {info.kind})" if where else message
    return phase_error(record, info)
