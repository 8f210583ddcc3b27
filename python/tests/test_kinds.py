"""Declared record kinds (hybridkit.kinds): the schemas generated from the C declarations.

The past bug: the "where the time goes" figure stacked `comm` and `wait` from free strings
in jacobi.toml although comm contains wait, and nothing could notice.  Now the phases are
declared in C (apps/jacobi/jacobi_kinds.c), the description may not repeat them, and a
record whose declared phases do not add up to its time per iteration is invalid."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from hybridkit import appcatalog, appdesc
from hybridkit.errors import HKError
from hybridkit.kinds import kind_error, kind_info, phase_error
from hybridkit.paths import kind_schema_dir

PHASES = ("phase_pack", "phase_post", "phase_wait", "phase_unpack", "phase_compute")


def stats(avg: float, unit: str = "s") -> dict:
    return {"min": avg, "avg": avg, "max": avg, "unit": unit}


def jacobi_record(t: float = 1.0) -> dict:
    """A jacobi record with every required field; per-rank phases that add up to t (the
    rest is t minus the measured phases, as hk-jacobi computes it)."""
    info = kind_info("jacobi")
    params = {"mode": "task", "dims": 3, "stencil": 7, "halo_stencil": "faces", "grid": "8x8x8",
              "procs": "1x1x1", "threads": 2, "iters": 3, "halo_width": 1, "boundary": "periodic", "map": "sequential",
              "reserved": 0, "temporal": "off", "verification": "invariant"}
    results = {}
    for name, field in info.schema["properties"]["results"]["properties"].items():
        if name not in info.schema["properties"]["results"]["required"]:
            continue
        unit = field["x-unit"]
        if field["type"] == "object" and "min" in field["required"]:
            results[name] = stats(0.1, unit)
        else:
            results[name] = {"value": 1 if "integer" in json.dumps(field) else 1.0}
            if unit:
                results[name]["unit"] = unit
    results["time_per_iter"] = stats(t)
    parts = {"phase_pack": 0.1, "phase_post": 0.05, "phase_wait": 0.2, "phase_unpack": 0.05,
             "phase_compute": 0.4}
    for name, v in parts.items():
        results[name] = stats(v * t)
    results["phase_other"] = stats(t - sum(v * t for v in parts.values()))
    results["comm"] = stats(0.3 * t)  # post + wait + unpack: contains wait
    return {"schema_version": 1, "kind": "jacobi", "program": "hk-jacobi", "params": params,
            "results": results, "warnings": [], "provenance": {}}


def test_schemas_are_found():
    assert kind_schema_dir() is not None
    assert kind_info("jacobi") is not None and kind_info("jacobi.exchange") is not None
    assert kind_info("no.such.kind") is None


def test_jacobi_declares_disjoint_phases_not_the_engine_counters():
    info = kind_info("jacobi")
    assert info.time == "time_per_iter"
    assert info.phases == PHASES + ("phase_other",) and info.rest == "phase_other"
    assert info.measured_phases == PHASES
    for counter in ("pack", "post", "wait", "unpack", "comm", "compute", "hidden_comm"):
        assert counter not in info.phases
    assert info.unit("mlups") == "MLUP/s" and info.unit("time_per_iter") == "s"
    assert "contains post, wait and unpack" in info.meaning("comm")


def test_app_description_takes_metric_and_breakdown_from_the_declaration():
    app = appcatalog.get("jacobi")
    assert (app.metric.value, app.metric.unit, app.metric.better) == ("mlups", "MLUP/s", "higher")
    assert app.metric.time == "time_per_iter" and app.metric.breakdown == PHASES
    assert app.metric.meaning("phase_wait").startswith("waiting")


def test_description_may_not_repeat_what_c_declares(tmp_path):
    text = (appcatalog.APPS_DIR / "jacobi.toml").read_text()
    bad = text.replace('[metric]\n', '[metric]\nbreakdown = ["comm", "wait"]\n', 1)
    import tomllib

    with pytest.raises(HKError, match="metric.breakdown: declared in C for record kind 'jacobi'"):
        appdesc.parse(tomllib.loads(bad), "jacobi.toml")


def test_a_valid_record_passes():
    assert kind_error(jacobi_record()) is None


def test_phases_that_contain_each_other_are_refused():
    """Declaring comm a phase beside wait (the past figure's mistake): the sum exceeds the
    time per iteration by comm and the record is refused."""
    info = kind_info("jacobi")
    wrong = dataclasses.replace(info, phases=info.phases + ("comm",))
    err = phase_error(jacobi_record(), wrong)
    assert err and "add up to 1.3 s, not to time_per_iter 1 s" in err
    assert phase_error(jacobi_record(), info) is None


def test_a_record_whose_phases_miss_the_time_is_refused():
    r = jacobi_record()
    r["results"]["phase_wait"] = stats(0.25)  # the rest no longer makes up the difference
    assert "phases must be disjoint" in kind_error(r)


def test_undeclared_wrong_unit_and_missing_fields_are_refused():
    r = copy.deepcopy(jacobi_record())
    r["results"]["bogus"] = {"value": 1.0}
    assert "bogus" in kind_error(r)
    r = copy.deepcopy(jacobi_record())
    r["results"]["mlups"]["unit"] = "GLUP/s"
    assert "MLUP/s" in kind_error(r)
    r = copy.deepcopy(jacobi_record())
    del r["results"]["phase_other"]
    assert "phase_other" in kind_error(r)
