"""`hybridkit profile`: the advice on fixture profiles, the command line, the app description.

The fixture fixtures/profile/prof_known_2x2.jsonl is a real profile (libhybridkit-profile.so
on tests/profile/prof_known.c, 2 ranks x 2 threads). The scenarios below change its numbers
into the two textbook cases, computed by hand:

  sleeping threads: 2 ranks on 2 nodes x 8 threads, balanced, f_comm = 0.4, all MPI time
    outside parallel regions: sleeping share = 0.4 x 7/8 = 0.35, point-to-point time 0.05 of
    the run -> dominating problem: sleeping threads; task mode eps = min(1/0.4,
    7/(8 x 0.6)) = 1.4583 -> overlap advice
  intra-node messages: 8 ranks on 1 node x 1 thread, p2p time 0.3 of the run, every byte
    intra-node, balanced -> dominating problem: intra-node communication (0.3), advice:
    fewer processes per node (4 ranks x 2 threads)
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from hybridkit import appcatalog
from hybridkit.advice.profile import (ProgramMetric, allreduce_advice, app_description,
                                      fixture_summary, problems, split)
from hybridkit.records import load_records

BASE = Path(__file__).parent / "fixtures" / "profile" / "prof_known_2x2.jsonl"


def stats(v: float) -> dict:
    return {"min": v, "avg": v, "max": v}


def scenario(tmp_path: Path, name: str, procs: int, nodes: int, threads: int, wall: float,
             outside: float, p2p_time: float, intra: int, inter: int,
             allreduce_bins=()) -> Path:
    recs = [json.loads(line) for line in BASE.read_text().splitlines() if line.strip()]
    run = next(r for r in recs if r["kind"] == "profile")
    site = next(r for r in recs if r["kind"] == "profile.site"
                and r["params"]["function"] == "MPI_Waitall")
    size = next(r for r in recs if r["kind"] == "profile.size")
    run["params"].update(procs=procs, nodes=nodes, threads=threads)
    res = run["results"]
    for key, value in (("wall_time", wall), ("mpi_time", outside), ("mpi_time_outside", outside),
                       ("mpi_time_parallel", 0.0), ("f_comm", outside / wall),
                       ("sleeping_threads", outside * (threads - 1)),
                       ("sleeping_share", outside * (threads - 1) / (wall * threads))):
        res[key].update(stats(value))
    res["p2p_bytes_intra"]["value"] = intra
    res["p2p_bytes_inter"]["value"] = inter
    waitall = copy.deepcopy(site)
    waitall["results"]["time"].update(stats(p2p_time))
    waitall["results"]["time_outside"]["value"] = p2p_time * procs
    out = [run, waitall]
    for lo, calls in allreduce_bins:
        b = copy.deepcopy(size)
        b["params"].update({"class": "allreduce", "bytes_min": lo, "bytes_max": 2 * lo - 1})
        b["results"]["calls"]["value"] = calls
        b["results"]["bytes"]["value"] = calls * lo
        out.append(b)
    for r in out:
        r["provenance"]["ranks"] = procs
        r["provenance"]["threads_per_rank"] = threads
        r["provenance"]["nodes"] = nodes
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in out))
    return path


def test_fixture_is_a_valid_profile():
    p = split(load_records(BASE))
    assert (p.procs, p.threads) == (2, 2)
    assert {s["params"]["function"] for s in p.sites} >= {"MPI_Sendrecv", "MPI_Barrier"}


def test_sleeping_threads_dominant_gives_overlap_advice(tmp_path, cli):
    path = scenario(tmp_path, "sleeping", procs=2, nodes=2, threads=8, wall=10.0, outside=4.0,
                    p2p_time=0.5, intra=0, inter=1 << 30)
    p = split(load_records(path))
    summary = fixture_summary(p)
    assert summary["dominant"] == "sleeping threads"
    assert summary["scores"]["sleeping threads"] == pytest.approx(0.35)
    assert summary["eps"] == pytest.approx(min(1 / 0.4, 7 / (8 * 0.6)))
    r = cli(["profile", "--from", str(path)])
    assert r.code == 0, r.err
    assert "dominating mismatch problem: sleeping threads (35.0% of the run)" in r.out
    assert "task mode" in r.out and "predicted eps = 1.458" in r.out and "worth trying" in r.out
    assert "overlap communication with computation" in r.out


def test_intra_node_messages_dominant_gives_fewer_processes(tmp_path, cli):
    path = scenario(tmp_path, "intra", procs=8, nodes=1, threads=1, wall=10.0, outside=3.0,
                    p2p_time=3.0, intra=1 << 30, inter=0)
    p = split(load_records(path))
    scores = {q.name: q.score for q in problems(p)}
    assert scores["intra-node communication"] == pytest.approx(0.3)
    assert scores["sleeping threads"] == 0.0  # one thread per rank: nobody sleeps
    assert fixture_summary(p)["dominant"] == "intra-node communication"
    r = cli(["profile", "--from", str(path)])
    assert r.code == 0, r.err
    assert "dominating mismatch problem: intra-node communication (30.0% of the run)" in r.out
    assert "fewer processes per node" in r.out and "4 rank(s) x 2 threads" in r.out
    # one thread per rank: the model is for the 8 ranks of the node made threads
    assert "1 of 8 threads reserved" in r.out


def test_allreduce_advice_from_the_sizes(tmp_path):
    small = split(load_records(BASE))  # 8 KiB allreduces: below the 16 KiB threshold
    assert "0 of them" in allreduce_advice(small, 16384)
    assert "pass through" in allreduce_advice(small, 16384)
    path = scenario(tmp_path, "big", procs=2, nodes=1, threads=4, wall=1.0, outside=0.2,
                    p2p_time=0.0, intra=0, inter=0, allreduce_bins=[(131072, 100), (8, 3)])
    text = allreduce_advice(split(load_records(path)), 16384)
    assert "103 allreduce call(s), 100 of them" in text and "would run those" in text


def test_app_description_parses_for_sweep(tmp_path):
    p = split(load_records(BASE))
    text = app_description(p, ["/bin/true", "a b"], "/x/libhybridkit-profile.so")
    path = tmp_path / "true.toml"
    path.write_text(text)
    desc = appcatalog.load_file(path)
    # a user's program: its own command line (nothing appended), the runner's wall time
    assert desc.name == "true" and desc.kind == "program" and desc.args == ("a b",)
    assert desc.output == "none" and desc.program and desc.metric.source == "wall"
    assert desc.metric.value == "wall_time" and not desc.metric.higher_is_better
    assert desc.env["HK_PROFILE_OUTPUT"] == "{records}"
    assert desc.rank_env({}, 2, 1, 1, "/r/records.jsonl")["HK_PROFILE_OUTPUT"] == \
        "/r/records.jsonl"
    # layouts from the machine's cores, not from the profiled run
    assert desc.sets["quick"].cores == ("max",) and desc.sets["full"].cores == ("powers",)
    text = app_description(p, ["/x/bt-mz.W.x"], "/x/libhybridkit-profile.so",
                           ProgramMetric(r"Mop/s total\s*=\s*(\S+)", "Mop/s", True))
    path.write_text(text)
    desc = appcatalog.load_file(path)
    assert desc.name == "bt-mz-w-x" and desc.metric.source == "output"
    assert desc.metric.regex == r"Mop/s total\s*=\s*(\S+)" and desc.metric.unit == "Mop/s"
    assert desc.metric.higher_is_better


def test_command_line(cli, tmp_path, monkeypatch):
    r = cli(["profile", "--help"])
    assert r.code == 0 and "libhybridkit-profile.so" in r.out
    r = cli(["profile", "--np", "2"])
    assert r.code == 2 and "goes after '--'" in r.err
    lib = tmp_path / "libhybridkit-profile.so"
    lib.write_text("")
    monkeypatch.setenv("HK_LIB_DIR", str(tmp_path))
    r = cli(["profile", "--np", "1", "--threads", "1", "--dry-run", "--", "/bin/true", "x"])
    assert r.code == 0, r.err
    # Open MPI's launch line sets VAR=value before mpirun, MPICH's passes -genv VAR value
    assert re.search(rf"LD_PRELOAD[= ]{re.escape(str(lib))}\b", r.out), r.out
    assert re.search(r"HK_PROFILE_OUTPUT[= ]\S+records\.jsonl", r.out), r.out
    assert r.out.rstrip().endswith("/bin/true x")


# --- advice rules (issue 37): each test fails when its rule is taken out ------------------

def _edit(path: Path, fn) -> Path:
    recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for r in recs:
        fn(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_thread_level_violation_comes_before_speed_advice(tmp_path, cli):
    # FUNNELED, 40 calls from other threads inside parallel regions: erroneous, said first
    path = scenario(tmp_path, "funneled", procs=2, nodes=1, threads=2, wall=1.0, outside=0.3,
                    p2p_time=0.3, intra=1 << 20, inter=0)

    def bad(r):
        if r["kind"] == "profile":
            r["params"].update(thread_level="funneled", thread_level_provided="funneled")
            r["results"]["calls_parallel"]["value"] = 80
            r["results"]["calls_off_main"]["value"] = 40
    _edit(path, bad)
    r = cli(["profile", "--from", str(path)])
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    first = next(i for i, l in enumerate(lines) if l.startswith(("CORRECTNESS", "ADVICE")))
    assert lines[first].startswith("CORRECTNESS: the program is erroneous")
    assert "asked for MPI_THREAD_FUNNELED but made 40 MPI call(s) from other threads" in r.out
    assert r.out.index("CORRECTNESS") < r.out.index("dominating mismatch problem")
    # the same counts under MPI_THREAD_MULTIPLE are legal: no correctness line
    _edit(path, lambda r: r["params"].update(thread_level="multiple",
                                             thread_level_provided="multiple")
          if r["kind"] == "profile" else None)
    assert "CORRECTNESS" not in cli(["profile", "--from", str(path)]).out


def test_single_level_calls_in_parallel_regions_and_missing_level(tmp_path):
    from hybridkit.advice.profile import violations

    path = scenario(tmp_path, "single", procs=2, nodes=1, threads=2, wall=1.0, outside=0.3,
                    p2p_time=0.3, intra=1, inter=0)

    def single(r):
        if r["kind"] == "profile":
            r["params"].update(thread_level="single", thread_level_provided="single")
            r["results"]["calls_parallel"]["value"] = 6
            r["results"]["calls_off_main"]["value"] = 0
    _edit(path, single)
    (v,) = violations(split(load_records(path)))
    assert "MPI_THREAD_SINGLE (MPI_Init) but made 6 MPI call(s) inside OpenMP parallel" in v
    _edit(path, lambda r: r["params"].update(thread_level="multiple",
                                             thread_level_provided="funneled")
          if r["kind"] == "profile" else None)
    (v,) = violations(split(load_records(path)))
    assert "asked for MPI_THREAD_MULTIPLE and MPI provided only MPI_THREAD_FUNNELED" in v


def test_oversubscribed_run_gets_no_speed_advice(tmp_path):
    from hybridkit.advice.profile import advice_lines

    path = scenario(tmp_path, "over", procs=4, nodes=1, threads=2, wall=10.0, outside=3.0,
                    p2p_time=3.0, intra=1 << 30, inter=0)
    p = split(load_records(path))
    lines = advice_lines(p, 16384, "hybridkit sweep x --quick --cores 2 --repeat 3",
                         ["it was oversubscribed (4 x 2 on 2 cores)"])
    text = "\n".join(lines)
    assert "none from this run: it was oversubscribed (4 x 2 on 2 cores)" in text
    assert "dominating mismatch problem" not in text and "hybrid allreduce" not in text
    assert "hybridkit sweep x --quick --cores 2" in text
    assert "dominating mismatch problem" in "\n".join(advice_lines(p, 16384))


def test_collective_time_counts(tmp_path):
    # a 1 MiB MPI_Allreduce taking 39 % of the run dominates, not point-to-point
    path = scenario(tmp_path, "coll", procs=2, nodes=1, threads=2, wall=10.0, outside=4.0,
                    p2p_time=0.1, intra=1 << 20, inter=0)

    def allreduce(r):
        if r["kind"] == "profile.site":
            r["params"]["function"] = "MPI_Allreduce"
            r["results"]["time"].update(stats(3.9))
        if r["kind"] == "profile":
            r["results"]["sleeping_share"].update(stats(0.0))
    _edit(path, allreduce)
    scores = {q.name: q.score for q in problems(split(load_records(path)))}
    assert scores["collective communication"] == pytest.approx(0.39)
    assert max(scores, key=scores.get) == "collective communication"


def test_hybrid_allreduce_not_suggested_for_one_rank(tmp_path):
    path = scenario(tmp_path, "one", procs=1, nodes=1, threads=2, wall=1.0, outside=0.2,
                    p2p_time=0.0, intra=0, inter=0, allreduce_bins=[(1 << 20, 100)])
    text = allreduce_advice(split(load_records(path)), 16384)
    assert "on one rank: the hybrid allreduce does not apply" in text
    assert "would run those" not in text
