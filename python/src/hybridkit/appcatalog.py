"""The app descriptions on disk: where they are looked for, reading and checking one file,
and the catalogue of every app by name (the format: hybridkit.appdesc).

    $HK_APPS_PATH (':'-separated) --> extra dirs (a sweep's apps/) --> results/apps
        (`hybridkit profile` writes users' programs there) --> hybridkit/apps (built in)

The first directory holding an app's name wins. A file is read with tomllib, checked
against APP_SCHEMA (its shape: types and names) and its {placeholder} templates, then
parsed (appdesc.parse checks what follows from them); a broken one is left out with one
warning naming the file and the field, and the other apps work on.
"""

from __future__ import annotations

import os
import string
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence

from hybridkit.appdesc import CONSTRAINT_KEYS, SECTIONS, SETS, TYPES, AppDesc, parse
from hybridkit.errors import HKError, UsageError, warn_once
from hybridkit.records import schema_problem
from hybridkit.tomlread import tomllib


APPS_DIR = Path(__file__).with_name("apps")


_STR = {"type": "string"}


_STRS = {"type": "array", "items": _STR}


_STR_MAP = {"type": "object", "additionalProperties": _STR}


_SET = {"type": "object", "additionalProperties": {
    "anyOf": [{"type": ["string", "number", "boolean"]},
              {"type": "array", "items": {"type": ["string", "number", "boolean"]}}]}}


_RULE = {"type": "object", "additionalProperties": False,
         "properties": {k: {"type": "integer", "minimum": 0} for k in CONSTRAINT_KEYS}}


# the shape of an app description (types and names; parse() checks what follows from them)
APP_SCHEMA = {
    "type": "object",
    "required": ["name", "binary", "kind", "args", *SETS],
    "properties": {
        "name": {"type": "string", "minLength": 1}, "binary": {"type": "string", "minLength": 1},
        "description": _STR, "kind": {"type": "string", "minLength": 1}, "args": _STRS,
        "env": _STR_MAP, "single_node_env": _STR_MAP, "oversubscribe": {"type": "boolean"},
        "oversubscribe_needs_yield": {"type": "boolean"},
        "report": {"type": "array", "items": {"enum": list(SECTIONS)}},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
        "study_order": {"type": "integer"},
        "problem": {"type": "object", "additionalProperties": False, "properties": {
            "params": _STRS, "size": _STR, "order": {"type": "array"}}},
        # value and unit: required unless the record kind is declared in C (parse checks)
        "metric": {"type": "object", "additionalProperties": False, "properties": {
            "value": _STR, "unit": _STR, "better": {"enum": ["higher", "lower"]},
            "time": _STR, "memory": _STR, "breakdown": _STRS, "series": _STR,
            "verified": _STR, "source": {"enum": ["records", "wall", "output"]},
            "regex": _STR}},
        "output": {"enum": ["argument", "none"]},
        **{name: _SET for name in SETS},
        "constraints": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": _RULE}},
        "choices": {"type": "object", "additionalProperties": {"type": "array"}},
        "types": {"type": "object", "additionalProperties": {"enum": list(TYPES)}},
        "usage_exit": {"type": "integer", "minimum": 0, "maximum": 255},
        "modes": {"type": "object", "required": ["param"], "additionalProperties": False,
                  "properties": {"param": {"type": "string", "minLength": 1},
                                 "list": {"type": "boolean"}, "subcommand": _STR,
                                 "single": _RULE, "threaded": _RULE}},
    },
    "additionalProperties": False,
}


def _check_templates(desc: Mapping[str, Any], source: str) -> None:
    """Every {placeholder} of args and env is well formed ('{size' is not)."""
    for key in ("args", "env", "single_node_env"):
        values = desc.get(key) or ()
        for i, text in enumerate(values.values() if isinstance(values, dict) else values):
            try:
                list(string.Formatter().parse(text))
            except ValueError as exc:
                raise HKError(f"{source}: field {key}.{i}: {text!r}: {exc}") from None


def load_file(path: Path) -> AppDesc:
    """One description, checked against APP_SCHEMA: HKError names the file and the field."""

    try:
        if not path.is_file():
            raise HKError(f"app description {path}: not a regular file")
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HKError(f"cannot read app description {path}: {exc}") from None
    problem = schema_problem(data, APP_SCHEMA)
    if problem:
        raise HKError(f"app description {path}: {problem}")
    _check_templates(data, f"app description {path}")
    return parse(data, str(path))


USER_APPS_DIR = Path("results") / "apps"  # where `hybridkit profile` writes descriptions


def search_dirs(extra: Sequence[Path] = ()) -> List[Path]:
    """$HK_APPS_PATH, then `extra` (e.g. the apps/ a sweep keeps of a user's program), then
    results/apps of the current directory (the descriptions `hybridkit profile` writes for
    users' programs), then the built-in ones."""
    env = [Path(p) for p in os.environ.get("HK_APPS_PATH", "").split(os.pathsep) if p]
    return env + list(extra) + [USER_APPS_DIR, APPS_DIR]


def load_all(extra: Sequence[Path] = ()) -> Dict[str, AppDesc]:
    """Every description, by name (the first directory of search_dirs(extra) wins). A
    broken description disables only its app, with one warning line naming the file and
    field."""
    apps: Dict[str, AppDesc] = {}
    for d in search_dirs(extra):
        for path in sorted(d.glob("*.toml")):
            try:
                desc = load_file(path)
            except HKError as exc:
                warn_once(f"{exc}; that app is left out")
                continue
            apps.setdefault(desc.name, desc)
    return apps


def get(name: str) -> AppDesc:
    apps = load_all()
    if name not in apps:
        raise UsageError(f"unknown app {name!r} (known: {', '.join(sorted(apps))}; "
                         f"descriptions live in {APPS_DIR})")
    return apps[name]


def by_kind(apps: Mapping[str, AppDesc]) -> Dict[str, AppDesc]:
    return {a.kind: a for a in apps.values()}


def order(apps: Mapping[str, AppDesc]) -> List[str]:
    """The study's order of `apps` (by name): each description's `study_order` (main
    applications first, then benchmarks; default 1000), then the name."""
    return sorted(apps, key=lambda n: (apps[n].study_order, n))
