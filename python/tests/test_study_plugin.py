"""A new app plugs in through its description only: hk-mz (written elsewhere) simulated.

The records are what the NPB-MZ app writes (kind "mz": params bench, class, procs, threads;
results mops, verified, time_per_step, maxrss); the replay launcher plays them back, so
neither hk-mz nor MPI is needed."""

from __future__ import annotations

import copy
import json

from conftest import make_executable

TEMPLATE = "study/quick/runs/jacobi/2x1-mode_pure-size_96-iters_30/records.jsonl"


def mz_record(template, bench, ranks, threads, mops):
    rec = copy.deepcopy(template)
    rec.update(kind="mz", program="hk-mz")
    rec["params"] = {"bench": bench, "class": "S", "procs": ranks, "threads": threads}
    stat = {"min": 0.01, "avg": 0.012, "max": 0.015, "unit": "s"}
    rec["results"] = {"mops": {"value": mops, "unit": "Mop/s"}, "verified": {"value": 1},
                      "time_per_step": stat,
                      "maxrss": {"min": 20000.0, "avg": 21000.0, "max": 22000.0, "unit": "KiB"}}
    rec["provenance"].update(ranks=ranks, threads_per_rank=threads)
    return rec


def test_mz_sweep_and_report(cli, study_bin, fixtures, tmp_path, monkeypatch):
    template = json.loads((fixtures / TEMPLATE).read_text().splitlines()[0])
    replay = tmp_path / "replay"
    replay.mkdir()
    (replay / "records.jsonl").write_text(json.dumps(mz_record(template, "sp", 2, 1, 812.5))
                                          + "\n")
    make_executable(study_bin / "hk-mz", "#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("HK_REPLAY_DIR", str(replay))
    out = tmp_path / "mz"
    result = cli(["sweep", "mz", "--quick", "--launcher", "replay", "-o", str(out)])
    assert result.code == 0, result.err
    runs = sorted(p.name for p in (out / "runs" / "mz").iterdir())
    assert runs == ["1x2-bench_bt-class_S", "1x2-bench_lu-class_S", "1x2-bench_sp-class_S",
                    "2x1-bench_bt-class_S", "2x1-bench_lu-class_S", "2x1-bench_sp-class_S"]
    assert "--bench bt --class S --output" in \
        (out / "runs/mz/1x2-bench_bt-class_S/command.txt").read_text()

    report = cli(["report", str(out), "-o", str(tmp_path / "mz.md"), "--format", "md"])
    assert report.code == 0, report.err
    md = (tmp_path / "mz.md").read_text()
    assert "## mz: NPB-MZ SP-MZ / BT-MZ / LU-MZ multi-zone benchmarks" in md
    assert "*Figure: mz: mops vs threads per process" in md
    assert "*Figure: mz: memory (max resident set)" in md
    # the replay answers every run (sp, bt, lu) with the one sp record: 3 runs per layout
    assert "| verified |" in md and "| 812.5 | 812.5-812.5 | 3/3 | 0.015 |  | 1 |" in md
