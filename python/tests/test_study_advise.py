"""The advisor's choices: on the recorded quick study and on run sets built with known numbers."""

from __future__ import annotations

import copy
import json

import pytest

from hybridkit import appcatalog
from hybridkit.advice.advise import advise
from hybridkit.modes import parse as parse_modes
from hybridkit.study.rundata import assign_apps, find_runs

from conftest import FAKE_MODES

TEMPLATE = "study/quick/runs/jacobi/2x1-mode_pure-size_96-iters_30/records.jsonl"


def own_cores(ranks, threads, shared=False):
    return [{"rank": r, "thread": t, "host": "n1", "node": 0,
             "cpuset": "0-1" if shared else str(r * threads + t), "cpu": r * threads + t}
            for r in range(ranks) for t in range(threads)]


LEVELS = {m.name: m.level for m in parse_modes(FAKE_MODES)}


def make_run(root, template, mode, ranks, threads, mlups, compute, comm, wait=0.0,
             intra=1000, inter=0, shared=False, size=96, rep=1, extra=None, info=None):
    """A complete jacobi run directory with these numbers (times in seconds per iteration);
    `extra`: more record parameters, `info`: more run.json fields."""
    rec = copy.deepcopy(template)
    grid = "x".join([str(size)] * 3)
    rec["params"].update(mode=mode, threads=threads, procs=f"{ranks}x1x1", grid=grid,
                         **(extra or {}))
    total = compute + comm + wait
    res = rec["results"]
    res["mlups"]["value"] = mlups
    for name, v in (("compute", compute), ("comm", comm), ("wait", wait),
                    ("time_per_iter", total)):
        res[name] = {"min": v, "avg": v, "max": v, "unit": "s"}
    res["bytes_intra"]["value"], res["bytes_inter"]["value"] = intra, inter
    prov = rec["provenance"]
    prov.update(ranks=ranks, threads_per_rank=threads, binding=own_cores(ranks, threads, shared))
    level = LEVELS[mode]  # hk-jacobi asks MPI for its mode's thread level
    prov["thread_level"] = {"requested": level, "provided": level}
    d = root / "runs" / "jacobi" / f"{ranks}x{threads}-mode_{mode}-size_{size}-r{rep}"
    d.mkdir(parents=True)
    (d / "records.jsonl").write_text(json.dumps(rec) + "\n")
    (d / "run.json").write_text(json.dumps({"app": "jacobi", "np": ranks, "threads": threads,
                                            "mode": mode, "bind": "compact", "status": "ok",
                                            "exit_code": 0, **(info or {})}))
    return d


@pytest.fixture
def template(fixtures):
    return json.loads((fixtures / TEMPLATE).read_text().splitlines()[0])


def advice_for(root):
    apps = appcatalog.load_all()
    runs = find_runs([root])
    assign_apps(runs, apps)
    return advise(runs, apps)


def test_recorded_quick_study(fixtures):
    a = advice_for(fixtures / "study" / "quick")
    # the fixture's best measured configuration (88.3 MLUP/s, 1 x 2 funneled)
    assert a.recommendation == "1 x 2 (processes x threads), mode funneled, binding compact"
    assert a.reason.startswith("on 2 cores, grid=96x96x96 dims=3 boundary=periodic "
                               "(5 configurations): best 1 x 2 funneled at 88.28 MLUP/s "
                               "(1 run), runner-up ")
    assert "single runs, the spread is unknown" in a.reason
    assert "Best pure MPI: 2 x 1 pure at 80.37 MLUP/s (the recommended one +10% against it)" \
        in a.reason
    p = a.prediction
    assert (p.n, p.m) == (2, 1) and p.f == pytest.approx(0.711, abs=1e-3)
    assert p.measured == pytest.approx(1.236, abs=1e-3)
    assert a.problem == "intra-node communication"


def test_pure_mpi_wins_intra_node_communication_dominates(tmp_path, template):
    make_run(tmp_path, template, "pure", 2, 1, 1000, compute=7e-4, comm=3e-4)
    make_run(tmp_path, template, "masteronly", 1, 2, 800, compute=7e-4, comm=0.5e-4)
    make_run(tmp_path, template, "task", 1, 2, 700, compute=7e-4, comm=0.5e-4)
    a = advice_for(tmp_path)
    assert a.recommendation.startswith("2 x 1 (processes x threads), mode pure")
    assert "runner-up 1 x 2 masteronly at 800 MLUP/s (1 run), margin 25.0%" in a.reason
    assert a.problem == "intra-node communication"
    assert a.scores["intra-node communication"] == pytest.approx(0.3)


def test_task_mode_wins_sleeping_threads_dominate(tmp_path, template):
    make_run(tmp_path, template, "pure", 2, 1, 500, compute=8e-4, comm=1e-4, intra=10, inter=0)
    make_run(tmp_path, template, "masteronly", 1, 2, 400, compute=4e-4, comm=6e-4)
    make_run(tmp_path, template, "task", 1, 2, 600, compute=6e-4, comm=1e-4)
    a = advice_for(tmp_path)
    assert "mode task," in a.recommendation
    assert a.problem == "sleeping threads"
    assert a.scores["sleeping threads"] == pytest.approx(0.6 * 0.5)
    p = a.prediction  # f = 0.6, n = 2, m = 1: eps = min(1/0.6, 1/(2*0.4)) = 1.25
    assert p.f == pytest.approx(0.6) and p.predicted == pytest.approx(1.25)
    assert p.measured == pytest.approx(1e-3 / 7e-4)      # T_masteronly / T_task


def test_inter_node_bandwidth(tmp_path, template):
    make_run(tmp_path, template, "pure", 2, 1, 500, compute=5e-4, comm=5e-4, intra=100,
             inter=300)
    make_run(tmp_path, template, "masteronly", 1, 2, 400, compute=5e-4, comm=1e-4)
    a = advice_for(tmp_path)
    assert a.problem == "inter-node bandwidth"
    assert a.scores["inter-node bandwidth"] == pytest.approx(0.5 * 0.75)


def test_openmp_overhead(tmp_path, template):
    make_run(tmp_path, template, "pure", 2, 1, 1000, compute=5e-4, comm=0.1e-4, intra=10)
    make_run(tmp_path, template, "funneled", 1, 2, 600, compute=9e-4, comm=0.1e-4)
    a = advice_for(tmp_path)
    assert a.problem == "OpenMP overhead" and a.scores["OpenMP overhead"] == pytest.approx(0.8)
    assert a.prediction is None   # no masteronly run: no model


def test_topology_when_threads_share_cores(tmp_path, template):
    make_run(tmp_path, template, "pure", 2, 1, 1000, compute=5e-4, comm=1e-4, shared=True)
    make_run(tmp_path, template, "masteronly", 1, 2, 900, compute=5e-4, comm=1e-4, shared=True)
    a = advice_for(tmp_path)
    assert a.problem == "topology" and "fix the binding" in a.problem_text


def test_largest_core_count_is_advised(tmp_path, template):
    make_run(tmp_path, template, "pure", 1, 1, 5000, compute=5e-4, comm=0.0)
    make_run(tmp_path, template, "pure", 2, 1, 900, compute=5e-4, comm=1e-4)
    make_run(tmp_path, template, "masteronly", 1, 2, 1000, compute=5e-4, comm=1e-4)
    a = advice_for(tmp_path)
    assert a.cores == 2 and "mode masteronly" in a.recommendation


# --- like for like, repeats and spread, busy runs (issue 14) ------------------------------

def test_pure_mpi_fastest_is_recommended_despite_layout_dependent_params(tmp_path, template):
    """The implementation details that differ between layouts (x_wrap, stores, temporal,
    wave_rows) must not put pure MPI into a group of its own (the make run bug)."""
    pure = dict(x_wrap="halo", stores="cached", temporal="off", wave_rows=0)
    hyb = dict(x_wrap="sweeps", stores="non-temporal", temporal="wavefront", wave_rows=4)
    make_run(tmp_path, template, "pure", 2, 1, 49.9, compute=7e-4, comm=3e-4, extra=pure)
    make_run(tmp_path, template, "masteronly", 1, 2, 30.0, compute=7e-4, comm=1e-4, extra=hyb)
    make_run(tmp_path, template, "task-balanced", 1, 2, 38.4, compute=7e-4, comm=1e-4,
             extra=hyb)
    a = advice_for(tmp_path)
    assert a.recommendation.startswith("2 x 1 (processes x threads), mode pure,")
    assert len(a.configs) == 3
    assert "runner-up 1 x 2 task-balanced at 38.4 MLUP/s" in a.reason


def test_largest_problem_by_numeric_size(tmp_path, template):
    """'64x64x64' > '160x160x160' as strings; the advice must be made at 160."""
    make_run(tmp_path, template, "pure", 2, 1, 500, compute=5e-4, comm=1e-4, size=64)
    make_run(tmp_path, template, "task", 1, 2, 400, compute=5e-4, comm=1e-4, size=64)
    make_run(tmp_path, template, "pure", 2, 1, 900, compute=5e-4, comm=1e-4, size=160)
    make_run(tmp_path, template, "task", 1, 2, 2500, compute=5e-4, comm=1e-4, size=160)
    a = advice_for(tmp_path)
    assert "grid=160x160x160" in a.reason and "mode task," in a.recommendation
    assert all(c.problem[0] == ("grid", "160x160x160") for c in a.configs)
    assert any("advice for the largest, grid=160x160x160" in n for n in a.notes)


def _repeats(tmp_path, template, mode, ranks, threads, values):
    for k, v in enumerate(values, 1):
        make_run(tmp_path, template, mode, ranks, threads, v, compute=5e-4, comm=1e-4, rep=k)


def test_margin_inside_spread_is_no_significant_difference(tmp_path, template):
    _repeats(tmp_path, template, "pure", 2, 1, [95, 100, 104])
    _repeats(tmp_path, template, "funneled", 1, 2, [99, 102, 110])   # best median, overlaps
    _repeats(tmp_path, template, "task", 1, 2, [60, 62, 64])
    a = advice_for(tmp_path)
    assert a.winner.mode == "funneled" and a.runner_up.mode == "pure"
    assert a.margin == pytest.approx(102 / 100 - 1)
    assert not a.significant
    assert "no significant difference" in a.reason
    assert "best 1 x 2 funneled at 102 MLUP/s [99-110, 3 runs]" in a.reason
    assert "runner-up 2 x 1 pure at 100 MLUP/s [95-104, 3 runs]" in a.reason
    # the simpler layout, pure MPI first
    assert a.recommendation.startswith("2 x 1 (processes x threads), mode pure,")


def test_margin_outside_spread_names_winner(tmp_path, template):
    _repeats(tmp_path, template, "pure", 2, 1, [95, 100, 104])
    _repeats(tmp_path, template, "funneled", 1, 2, [120, 125, 130])
    a = advice_for(tmp_path)
    assert a.significant and "each median outside the other's min-max" in a.reason
    assert "no significant difference" not in a.reason
    assert a.recommendation.startswith("1 x 2 (processes x threads), mode funneled,")
    assert a.margin == pytest.approx(0.25)


def test_margin_says_which_median_is_outside(tmp_path, template):
    """A tight winner whose median lies inside a wide runner-up's range (seen in a quick
    study: 829.5 [825.5-852.8] against 791.9 [608.4-913.6]): significant by the rule, and
    the reason says which median is outside which range, not 'both'."""
    _repeats(tmp_path, template, "pure", 2, 1, [608, 792, 914])
    _repeats(tmp_path, template, "funneled", 1, 2, [825, 830, 853])
    a = advice_for(tmp_path)
    assert a.significant and a.winner.mode == "funneled"
    assert "the runner-up's median outside the winner's min-max" in a.reason


def test_busy_and_oversubscribed_runs_are_left_out(tmp_path, template):
    busy = {"load": {"busy": True, "share": 0.45, "others_cpu_s": 0.9}}
    make_run(tmp_path, template, "pure", 2, 1, 500, compute=5e-4, comm=1e-4)
    make_run(tmp_path, template, "task", 1, 2, 400, compute=5e-4, comm=1e-4)
    make_run(tmp_path, template, "funneled", 1, 2, 9000, compute=5e-4, comm=1e-4, info=busy)
    make_run(tmp_path, template, "masteronly", 1, 2, 8000, compute=5e-4, comm=1e-4,
             info={"oversubscribe": True})
    a = advice_for(tmp_path)
    assert a.recommendation.startswith("2 x 1 (processes x threads), mode pure,")
    assert {c.mode for c in a.configs} == {"pure", "task"}
    assert any("1 run(s) made while the machine was busy" in n for n in a.notes)
    assert any("functional run, not a performance result" in n for n in a.notes)


def test_only_busy_runs_give_unreliable_advice(tmp_path, template):
    busy = {"load": {"busy": True, "share": 0.45, "others_cpu_s": 0.9}}
    make_run(tmp_path, template, "pure", 2, 1, 500, compute=5e-4, comm=1e-4, info=busy)
    make_run(tmp_path, template, "task", 1, 2, 400, compute=5e-4, comm=1e-4, info=busy)
    a = advice_for(tmp_path)
    assert "Unreliable" in a.reason and any("UNRELIABLE" in n for n in a.notes)


def test_a_wide_spread_alone_does_not_make_the_slower_layout_win(tmp_path, template):
    """Pure MPI's range reaches the winner only through one outlier: its median lies below
    the winner's range, so the winner is not 'indistinguishable' from it."""
    _repeats(tmp_path, template, "pure", 2, 1, [180, 317, 876])
    _repeats(tmp_path, template, "task-balanced", 1, 2, [470, 642, 682])
    _repeats(tmp_path, template, "funneled", 1, 2, [269, 478, 567])
    a = advice_for(tmp_path)
    assert a.winner.mode == "task-balanced" and a.runner_up.mode == "funneled"
    assert a.significant   # 478 lies inside [470-682], but 642 outside [269-567]
    assert a.recommendation.startswith("1 x 2 (processes x threads), mode task-balanced,")
