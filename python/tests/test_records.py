"""Record files against hybridkit/schemas/record.schema.json: the valid fixture passes, bad
ones name file:line."""

from __future__ import annotations

import json

import pytest

from hybridkit.errors import HKError
from hybridkit.paths import schema_path
from hybridkit.records import RecordsInvalid, load_records, record_error
from hybridkit.simulate.noderate import NodeRate


def test_valid_fixture(fixtures):
    records = load_records(fixtures / "records" / "valid.jsonl")
    assert len(records) == 2
    assert [r["kind"] for r in records] == ["topology.binding", "topology.binding"]
    assert all(record_error(r) is None for r in records)


# fields only a simulated record has (hybridkit simulate, docs/simulate.md)
SIMULATED_ONLY = {"simulated", "platform"}
SIMULATED_ONLY_PROVENANCE = {"simulator"}


def test_valid_fixture_uses_every_field_of_the_schema(fixtures):
    """The fixture is the schema written out: no field missing, none extra (a real run:
    none of the simulated-only fields)."""
    schema = json.loads(schema_path().read_text())
    record = load_records(fixtures / "records" / "valid.jsonl")[0]
    defs = schema["$defs"]
    assert set(record) == set(schema["properties"]) - SIMULATED_ONLY
    provenance = record["provenance"]
    assert set(provenance) == set(defs["provenance"]["properties"]) - SIMULATED_ONLY_PROVENANCE
    assert set(provenance["machine"]) == set(defs["provenance"]["properties"]["machine"]
                                             ["properties"])
    for entry in provenance["binding"]:
        assert set(entry) == set(defs["binding_entry"]["properties"])


def test_simulated_fixture_has_the_simulated_fields(fixtures):
    """A simulated record: the real record's fields plus simulated, platform (every field of
    its schema) and provenance.simulator."""
    schema = json.loads(schema_path().read_text())
    record = load_records(fixtures / "records" / "simulated.jsonl")[0]
    assert record_error(record) is None
    assert set(record) == set(schema["properties"])
    # node_rate: only in runs with a node compute-rate model (hybridkit simulate --node-rate)
    assert set(record["platform"]) == set(schema["$defs"]["platform"]["properties"]) - \
        {"node_rate"}
    assert set(record["provenance"]) == set(schema["$defs"]["provenance"]["properties"])
    bad = dict(record, platform={k: v for k, v in record["platform"].items() if k != "nodes"})
    assert "platform: 'nodes' is a required property" in record_error(bad)
    rate = NodeRate(source="t", rates=((1, 1.0), (2, 1.9), (4, 3.0)),
                    layouts=(((2, 2), 3.2),)).field(2, 2, 4)  # layout_rate: a measured layout
    rate["mode_model"] = {"mode": "task", "run_as": "pure-nb", "computing_threads": 1}
    assert set(rate) == set(schema["$defs"]["platform"]["properties"]["node_rate"]
                            ["properties"])
    assert record_error(dict(record, platform=dict(record["platform"], node_rate=rate))) is None
    zero = dict(rate, rates={"1": 1.0, "2": 0.0})
    assert "node_rate" in record_error(dict(record, platform=dict(record["platform"],
                                                                  node_rate=zero)))


@pytest.mark.parametrize("name,line,message", [
    ("missing_provenance_field.jsonl", 2, "provenance: 'git_sha' is a required property"),
    ("wrong_schema_version.jsonl", 1, "schema_version: 1 was expected"),
    ("bad_result_shape.jsonl", 3, "results.setup_time: "),
    ("not_json.jsonl", 2, "not JSON: "),
    ("empty.jsonl", None, "no records"),
    ("nonexistent.jsonl", None, "no such file"),
])
def test_invalid_fixtures(fixtures, name, line, message):
    path = fixtures / "records" / name
    with pytest.raises(RecordsInvalid) as info:
        load_records(path)
    err = info.value
    assert err.line == line and err.path == str(path)
    where = f"{path}:{line}: " if line else f"{path}: "
    assert str(err).startswith(where + message)


def test_validation_can_be_skipped(fixtures):
    records = load_records(fixtures / "records" / "wrong_schema_version.jsonl", validate=False)
    assert records[0]["schema_version"] == 2


def test_blank_lines_are_skipped(fixtures, tmp_path):
    line = (fixtures / "records" / "valid.jsonl").read_text().splitlines()[0]
    path = tmp_path / "r.jsonl"
    path.write_text(f"\n{line}\n\n{line}\n")
    assert len(load_records(path)) == 2


def test_non_object_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("[1, 2]\n")
    with pytest.raises(RecordsInvalid, match=r"r\.jsonl:1: .*is not of type 'object'"):
        load_records(path)


def test_hk_schema_overrides(fixtures, tmp_path, monkeypatch):
    strict = tmp_path / "schema.json"
    strict.write_text(json.dumps({"type": "object", "required": ["nothing_has_this"]}))
    monkeypatch.setenv("HK_SCHEMA", str(strict))
    with pytest.raises(RecordsInvalid, match="'nothing_has_this' is a required property"):
        load_records(fixtures / "records" / "valid.jsonl")


def test_missing_schema_is_a_clear_error(fixtures, tmp_path, monkeypatch):
    monkeypatch.setenv("HK_SCHEMA", str(tmp_path / "none.json"))
    with pytest.raises(HKError, match="HK_SCHEMA=.*none.json does not exist"):
        load_records(fixtures / "records" / "valid.jsonl")
    monkeypatch.delenv("HK_SCHEMA")
    monkeypatch.setattr("hybridkit.paths.SCHEMAS_DIR", tmp_path)
    with pytest.raises(HKError, match="record schema not found: set HK_SCHEMA"):
        schema_path()
