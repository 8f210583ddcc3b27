"""`hybridkit tune allreduce`: the table built from bench.allreduce records (no MPI), the
file format the C library reads (src/coll/config.c), and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hybridkit.commands.tune import FORMAT, best, build_table, describe, measurements


def bench(size, alg, threads, time, ran=None, typ="double", used=None):
    """A bench.allreduce record as hk-bench writes it (only the fields tune reads)."""
    return {"kind": "bench.allreduce",
            "params": {"type": typ, "algorithm": alg, "threads": threads, "size": size,
                       "ran": ran or alg, "threads_used": used or threads,
                       "fallback": "none"},
            "results": {"time": {"min": time / 2, "avg": time, "max": time, "unit": "us"}}}


RECORDS = [
    bench(1024, "mpi", 1, 2.0), bench(1024, "chunked", 2, 5.0),
    bench(1024, "hierarchical", 2, 3.0),
    bench(2048, "mpi", 1, 3.0), bench(2048, "chunked", 2, 6.0),
    bench(65536, "mpi", 1, 40.0), bench(65536, "chunked", 2, 20.0),
    bench(65536, "chunked-shifted", 2, 25.0),
    bench(131072, "mpi", 1, 80.0), bench(131072, "chunked", 2, 30.0),
    bench(262144, "mpi", 1, 150.0), bench(262144, "hierarchical", 2, 60.0),
    bench(262144, "chunked", 2, 70.0),
]


def test_rows_merge_consecutive_winners_and_end_open():
    table = build_table(RECORDS)
    assert table["format"] == FORMAT and table["version"] == 1
    assert table["rows"] == [
        {"max_bytes": 2048, "algorithm": "mpi", "threads": 1},
        {"max_bytes": 131072, "algorithm": "chunked", "threads": 2},
        {"max_bytes": None, "algorithm": "hierarchical", "threads": 2},
    ]
    # the library passes messages up to the end of the first (mpi) row straight through
    assert table["min_bytes"] == 2049
    assert table["measured"][0]["best"] == "mpi x1"


def test_fallen_back_rows_int_and_other_kinds_are_ignored():
    records = [bench(4096, "mpi", 1, 10.0),
               bench(4096, "chunked", 2, 1.0, ran="mpi", used=1),   # it did not run chunked
               bench(4096, "chunked", 2, 0.5, typ="int"),           # tuned on double sums
               {"kind": "jacobi", "params": {}, "results": {}}]
    assert measurements(records) == {4096: {("mpi", 1): 10.0}}
    table = build_table(records)
    assert table["rows"] == [{"max_bytes": None, "algorithm": "mpi", "threads": 1}]


def test_hybrid_first_row_means_no_threshold():
    table = build_table([bench(8, "chunked", 2, 1.0), bench(8, "mpi", 1, 2.0)])
    assert table["min_bytes"] == 0
    assert table["rows"][0]["algorithm"] == "chunked"


def test_ties_prefer_mpi_then_fewer_threads():
    assert best({("chunked", 2): 1.0, ("mpi", 1): 1.0}) == ("mpi", 1)
    assert best({("chunked", 4): 1.0, ("chunked", 2): 1.0}) == ("chunked", 2)


def test_repeated_measurements_keep_the_fastest():
    m = measurements([bench(64, "mpi", 1, 5.0), bench(64, "mpi", 1, 3.0)])
    assert m[64][("mpi", 1)] == 3.0


def test_no_records_is_an_error():
    from hybridkit.errors import HKError

    with pytest.raises(HKError, match="no bench.allreduce records"):
        build_table([bench(64, "mpi", 1, 1.0, typ="int")])


def test_describe_lists_ranges():
    text = describe(build_table(RECORDS))
    assert "0..2048 B  mpi x1" in text and "131073.. B  hierarchical x2" in text


def valid_record(fixtures: Path, rec: dict) -> dict:
    """rec with the provenance of a schema-valid fixture record, so load_records accepts it."""
    base = json.loads((fixtures / "records" / "valid.jsonl").read_text().splitlines()[0])
    return {**base, "kind": rec["kind"], "program": "hk-bench", "params": rec["params"],
            "results": rec["results"], "warnings": []}


def test_cli_from_records_writes_the_table(cli, fixtures, tmp_path):
    src = tmp_path / "bench.jsonl"
    src.write_text("".join(json.dumps(valid_record(fixtures, r)) + "\n" for r in RECORDS))
    out = tmp_path / "t" / "allreduce.json"
    res = cli(["tune", "allreduce", "--from-records", str(src), "--output", str(out)])
    assert res.code == 0, res.err
    assert "export HK_COLL_TUNING=" in res.out and "mpi x1" in res.out
    table = json.loads(out.read_text())
    assert table["rows"][-1]["max_bytes"] is None
    assert table["source"] == [str(src)] and table["mpi"] == "openmpi"


@pytest.mark.parametrize("args, code, err", [
    (["tune"], 2, "a subcommand is required: allreduce"),
    (["tune", "allreduce", "--np", "0"], 2, "argument --np: 0 is out of range (allowed: 1 to 65536)"),
    (["tune", "allreduce", "--sizes", "big"], 2, "expected MIN:MAX bytes"),
    (["tune", "allreduce", "--from-records", "/no/such.jsonl"], 1, "no such file"),
])
def test_cli_errors(cli, args, code, err):
    res = cli(args)
    assert res.code == code
    assert err in res.err


def test_cli_refuses_oversubscription(cli, monkeypatch):
    monkeypatch.setattr("hybridkit.launch.cpuset.local_cores", lambda: 2)
    res = cli(["tune", "allreduce", "--np", "2", "--threads", "2"])
    assert res.code == 2
    assert "2 ranks x 2 threads need 4 cores, this machine has 2" in res.err


def test_help(cli):
    res = cli(["tune", "allreduce", "--help"])
    assert res.code == 0 and "HK_COLL_TUNING" in res.out


# ---------------------------------------------------------------- version 2 and --predict

from hybridkit.advice import collmodel  # noqa: E402
from hybridkit.commands import tune as tunemod  # noqa: E402

PARAMS = collmodel.MachineParams(alpha_intra=1e-6, beta_intra=5e9, alpha_inter=1e-6,
                                 beta_inter=5e9, copy_rate=(4e9, 6e9),
                                 reduce_rate=(2e9, 3.5e9), cores_per_node=2)


def coll(collective, size, alg, threads, time, ran=None):
    """a bench.coll record (the fields tune reads)"""
    return {"kind": "bench.coll",
            "params": {"collective": collective, "type": "double", "algorithm": alg,
                       "threads": threads, "ran": ran or alg, "threads_used": threads,
                       "fallback": "none", "size": size, "ranks": 2, "ranks_per_node": 2},
            "results": {"time": {"min": time, "avg": time, "max": time}}}


def test_v2_table_from_bench_coll_records():
    recs = [coll("reduce", 1024, "mpi", 1, 2.0), coll("reduce", 1024, "chunked", 2, 4.0),
            coll("reduce", 1 << 20, "mpi", 1, 900.0), coll("reduce", 1 << 20, "chunked", 2, 500.0),
            coll("reduce", 1 << 20, "hierarchical", 2, 100.0, ran="mpi"),  # fell back
            coll("reduce-scatter", 1024, "chunked", 1, 1.0),
            coll("reduce-scatter", 1024, "mpi", 1, 3.0)]
    table = tunemod.build_table_v2(recs)
    assert table["format"] == "hybridkit-coll-tuning" and table["version"] == 2
    assert table["collectives"]["reduce"] == {"min_bytes": 1025, "rows": [
        {"max_bytes": 1024, "algorithm": "mpi", "threads": 1},
        {"max_bytes": None, "algorithm": "chunked", "threads": 2}]}
    assert table["collectives"]["reduce_scatter"]["rows"] == [
        {"max_bytes": None, "algorithm": "chunked", "threads": 1}]


def test_predicted_table_is_the_models_pick_per_size():
    sizes = tunemod.sizes_of("1K:16M")
    assert sizes[0] == 1024 and sizes[-1] == 16 << 20 and len(sizes) == 15
    table = tunemod.predict_table(PARAMS, tunemod.COLLECTIVES, sizes, 2, 2, 2)
    assert set(table["collectives"]) == {"allreduce", "reduce", "reduce_scatter", "bcast",
                                         "allgather", "alltoall", "scan", "exscan",
                                         "alltoallv"}
    assert collmodel.MachineParams.from_json(table["model"]) == PARAMS
    for name, entry in table["collectives"].items():
        cname = name.replace("_", "-")
        rows = entry["rows"]
        assert rows[-1]["max_bytes"] is None
        for s in sizes:  # the row a size falls in names the model's pick
            row = next(r for r in rows if r["max_bytes"] is None or s <= r["max_bytes"])
            alg, thr, _ = collmodel.best(PARAMS, cname, s, 2, 2, 2)
            assert (row["algorithm"], row["threads"]) == (alg, thr), (name, s)


def test_check_ratios_and_agreement():
    recs = []
    for size in (1024, 1 << 20):
        for alg, t in (("mpi", 1), ("chunked", 2)):
            sec = collmodel.predict(PARAMS, "allreduce", alg, t, size, 2, 2)
            recs.append(coll("allreduce", size, alg, t, sec * 1e6 * 2))  # measured = 2 x model
    result = tunemod.check(PARAMS, recs)
    assert [c["ratio"] for c in result["cases"]] == pytest.approx([0.5] * 4)
    assert result["agree"] == 1.0
    # a measured best the model does not pick
    pick = collmodel.best(PARAMS, "allreduce", 1024, 2, 2, 2)[:2]
    slow = next(r for r in recs[:2] if (r["params"]["algorithm"], r["params"]["threads"]) == pick)
    slow["results"]["time"]["max"] = 1e9
    assert tunemod.check(PARAMS, recs)["agree"] == 0.5
    assert "ratio" in tunemod.describe_check(result)


def test_cli_predict_with_params(tmp_path, capsys):
    from hybridkit.cli import main
    params = tmp_path / "params.json"
    params.write_text(json.dumps(PARAMS.to_json()))
    out = tmp_path / "t.json"
    assert main(["tune", "all", "--predict", "--params", str(params), "--np", "2",
                 "--threads", "2", "--sizes", "1K:1M", "--output", str(out)]) == 0
    table = json.loads(out.read_text())
    assert table["version"] == 2 and len(table["collectives"]) == 9
    assert {"scan", "exscan", "alltoallv"} <= set(table["collectives"]) <= set(table["predicted"])
    assert main(["tune", "reduce-scatter", "--predict", "--params", str(out), "--np", "4",
                 "--ranks-per-node", "2", "--threads", "1", "--sizes", "1K:1M",
                 "--output", str(out)]) == 0
    table = json.loads(out.read_text())
    assert list(table["collectives"]) == ["reduce_scatter"]
    assert table["shape"] == {"ranks": 4, "ranks_per_node": 2, "threads": 1}


def test_cli_predict_scan_exscan_and_alltoallv(tmp_path):
    from hybridkit.cli import main
    params = tmp_path / "params.json"
    params.write_text(json.dumps(PARAMS.to_json()))
    for coll in ("scan", "exscan", "alltoallv"):
        out = tmp_path / f"{coll}.json"
        assert main(["tune", coll, "--predict", "--params", str(params), "--np", "4",
                     "--threads", "2", "--sizes", "1K:16M", "--output", str(out)]) == 0
        table = json.loads(out.read_text())
        assert list(table["collectives"]) == [coll]
        rows = table["collectives"][coll]["rows"]
        assert rows[-1]["max_bytes"] is None
        has = {"mpi", "chunked"} | ({"chunked-shifted"} if coll == "alltoallv" else set())
        assert {r["algorithm"] for r in rows} <= has  # what hk_scan / hk_alltoallv have
        for s in tunemod.sizes_of("1K:16M"):
            row = next(r for r in rows if r["max_bytes"] is None or s <= r["max_bytes"])
            alg, thr, _ = collmodel.best(PARAMS, coll, s, 4, 4, 2)
            assert (row["algorithm"], row["threads"]) == (alg, thr), (coll, s)


@pytest.mark.parametrize("collective", ["scan", "exscan", "alltoallv"])
def test_measured_table_of_the_newer_kinds(cli, fixtures, tmp_path, collective):
    """measured `tune scan|exscan|alltoallv` (from bench.coll records): the fastest per size,
    a hybrid row that fell back (scan's hierarchical: unavailable) not counted"""
    recs = [coll(collective, 1024, "mpi", 1, 2.0), coll(collective, 1024, "chunked", 2, 4.0),
            coll(collective, 1 << 20, "mpi", 1, 900.0),
            coll(collective, 1 << 20, "chunked", 2, 500.0),
            coll(collective, 1 << 20, "hierarchical", 2, 100.0, ran="mpi")]
    src = tmp_path / "coll.jsonl"
    src.write_text("".join(json.dumps(valid_record(fixtures, r)) + "\n" for r in recs))
    out = tmp_path / "t.json"
    res = cli(["tune", collective, "--from-records", str(src), "--output", str(out)])
    assert res.code == 0, res.err
    table = json.loads(out.read_text())
    assert list(table["collectives"]) == [collective]
    assert table["collectives"][collective] == {"min_bytes": 1025, "rows": [
        {"max_bytes": 1024, "algorithm": "mpi", "threads": 1},
        {"max_bytes": None, "algorithm": "chunked", "threads": 2}]}


def test_check_of_the_newer_kinds_compares_pick_and_best():
    recs = []
    for c in ("scan", "exscan", "alltoallv"):
        for size in (1024, 1 << 20):
            for alg, t in (("mpi", 1), ("chunked", 2)):
                sec = collmodel.predict(PARAMS, c, alg, t, size, 2, 2)
                recs.append(coll(c, size, alg, t, sec * 1e6))
    result = tunemod.check(PARAMS, recs)
    assert {c["collective"] for c in result["cases"]} == {"scan", "exscan", "alltoallv"}
    assert len(result["picks"]) == 6 and result["agree"] == 1.0
    assert [c["ratio"] for c in result["cases"]] == pytest.approx([1.0] * 12)
