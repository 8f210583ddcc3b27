"""The advisor on simulated runs (issue 43): runs simulated with --compute off are never
repeats of, or rivals to, runs whose compute was measured; the advice says "simulated" where
it would say "measured"; the host's bindings recorded by a simulation make no topology
problem.  Run sets built with known numbers (test_study_advise's make_run)."""

from __future__ import annotations

from test_simulate_report import _advice, _simulate
from test_study_advise import make_run, template  # noqa: F401 (fixture)

OFF = {"compute": "off", "simulated": True}
MEASURED = {"compute": "measured", "simulated": True}


def sim_run(root, template, mode, ranks, threads, mlups, compute, comm,  # noqa: F811
            info=MEASURED, **kw):
    d = make_run(root, template, mode, ranks, threads, mlups, compute, comm, info=info, **kw)
    _simulate(d)
    return d


def test_compute_off_runs_are_no_repeats_of_measured_ones(tmp_path, template):  # noqa: F811
    """Two measured-compute configurations and a --compute off run of the better one's
    layout, 100 times faster (communication only): it is left out with a note, the winner's
    spread is its one measured run, and the off run's rate appears nowhere."""
    sim_run(tmp_path, template, "pure", 2, 1, 40.0, compute=1e-3, comm=1e-4)
    sim_run(tmp_path, template, "masteronly", 1, 2, 30.0, compute=1e-3, comm=3e-4)
    sim_run(tmp_path, template, "pure", 2, 1, 4000.0, compute=0.0, comm=1e-5, info=OFF, rep=2)
    a = _advice(tmp_path)
    assert a.simulated == "sr8000-like"
    assert a.recommendation.startswith("2 x 1 (processes x threads), mode pure")
    assert a.winner.spread.n == 1 and a.winner.spread.median == 40.0
    assert "4000" not in a.reason and "single runs" in a.reason
    assert any(n.startswith("1 run(s) simulated with --compute off left out") for n in a.notes)


def test_compute_off_only_compares_communication_and_says_so(tmp_path, template):  # noqa: F811
    """Only --compute off runs: advised on, but no communication share (f_comm would be 1)
    and so no overlap model and no mismatch problem claimed."""
    sim_run(tmp_path, template, "pure", 2, 1, 4000.0, compute=0.0, comm=1e-5, info=OFF)
    sim_run(tmp_path, template, "masteronly", 1, 2, 3000.0, compute=0.0, comm=2e-5, info=OFF)
    a = _advice(tmp_path)
    assert any(n.startswith("every run was simulated with --compute off") for n in a.notes)
    assert a.prediction is None and a.problem == "not simulated"
    assert "--compute measured" in a.problem_text
    assert not any("halo messages" in line for line in a.lines())


def test_simulated_advice_says_simulated(tmp_path, template):  # noqa: F811
    """Every sentence of an advice on simulated runs says what they are: the only
    configuration "simulated", the overlap model's comparison "simulated"; "measured" only
    in the first line's "not measured"."""
    sim_run(tmp_path, template, "masteronly", 1, 2, 30.0, compute=1e-3, comm=3e-4)
    sim_run(tmp_path, template, "task", 1, 2, 35.0, compute=1e-3, comm=1e-4)
    a = _advice(tmp_path)
    assert a.prediction is not None and ", simulated " in a.prediction.describe()
    lines = a.lines()
    assert lines[0].endswith("not measured")
    assert not [line for line in lines[1:] if "measured" in line], lines
    one = tmp_path / "one"
    sim_run(one, template, "pure", 2, 1, 40.0, compute=1e-3, comm=1e-4)
    assert "the only simulated configuration" in _advice(one).reason


def test_host_bindings_of_a_simulation_are_no_topology_problem(tmp_path, template):  # noqa: F811
    """Threads sharing cores in the recorded binding: a topology problem in a real run, none
    in a simulated one (the binding is the host's, not the simulated node's)."""
    for root, make in ((tmp_path / "real", make_run), (tmp_path / "sim", sim_run)):
        make(root, template, "pure", 2, 1, 1000, compute=5e-4, comm=1e-4, shared=True)
        make(root, template, "masteronly", 1, 2, 900, compute=5e-4, comm=1e-4, shared=True)
    assert _advice(tmp_path / "real").problem == "topology"
    sim = _advice(tmp_path / "sim")
    assert sim.simulated and sim.scores["topology"] == 0.0 and sim.problem != "topology"


def test_hk_mz_layouts_are_advised_on(fixtures):
    """hk-mz has no hybrid modes, only layouts (issue 43's 16-node question): the three
    simulated SP-MZ class C layouts of docs/simulate.md (session 20, 16 nodes x 8 cores,
    roofline node rate) get a recommendation of the fastest layout, with no mode, its gain
    over the best pure-MPI layout, and masteronly's overlap model (the master thread
    exchanges the zones' boundaries between steps)."""
    from hybridkit import appcatalog
    from hybridkit.advice.advise import advise
    from hybridkit.study.rundata import assign_apps, find_runs

    apps = appcatalog.load_all()
    runs = find_runs([fixtures / "study" / "simulated-mz"])
    assign_apps(runs, apps)
    a = advise(runs, apps)
    assert a.app == "mz" and a.simulated == "fat-tree-custom"
    assert a.recommendation == "16 x 8 (processes x threads), binding none"
    assert "3 configurations" in a.reason and "runner-up 128 x 1 at" in a.reason
    assert "Best pure MPI: 128 x 1" in a.reason
    assert a.prediction is not None and a.prediction.n == 8
    assert a.problem == "sleeping threads"
