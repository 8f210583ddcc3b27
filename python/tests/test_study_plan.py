"""Sweep plans: factorisations, the declared parameter product, constraints, descriptions."""

from __future__ import annotations

import pytest

from conftest import write_kind_schema
from hybridkit import appcatalog
from hybridkit.appdesc import parse
from hybridkit.errors import HKError, UsageError
from hybridkit.study.plan import Cluster, check_fits, core_counts, expand, factorisations

HERE = Cluster(cores=2)


def test_factorisations():
    assert factorisations(1) == [(1, 1)]
    assert factorisations(2) == [(2, 1), (1, 2)]
    assert factorisations(12) == [(12, 1), (6, 2), (4, 3), (3, 4), (2, 6), (1, 12)]
    with pytest.raises(UsageError):
        factorisations(0)


def test_core_counts():
    assert core_counts(["max"], 8) == [8]
    assert core_counts(["powers"], 12) == [1, 2, 4, 8, 12]
    assert core_counts(["powers"], 2) == [1, 2]
    assert core_counts(["powers", "max", 2], 8) == [1, 2, 4, 8]
    assert core_counts([3, "max"], 4) == [3, 4]
    with pytest.raises(HKError):
        core_counts(["most"], 4)


def test_every_description_loads():
    apps = appcatalog.load_all()
    assert {"jacobi", "pingpong", "beff", "overlap", "barrier", "halo", "mz", "mc"} <= set(apps)
    for app in apps.values():
        assert app.metric.value and app.metric.unit
        for name in ("quick", "full"):
            for run in expand(app, name, Cluster(cores=4)):   # args and env substitute
                app.argv(run.param_dict, run.ranks, run.threads)
                app.rank_env(run.param_dict, run.ranks, run.threads)


def test_jacobi_quick_plan_on_two_cores(monkeypatch):
    monkeypatch.setattr("hybridkit.study.plan.last_level_cache", lambda: 8 * 1024 ** 2)
    runs = expand(appcatalog.get("jacobi"), "quick", HERE)
    labels = [r.label() for r in runs]
    # 4 x 8 MiB in two double fields: 2^21 cells, a 128^3 grid
    assert labels == ["jacobi 2x1 mode=pure size=128 iters=1 min_time=0.5",
                      "jacobi 1x2 mode=masteronly size=128 iters=1 min_time=0.5",
                      "jacobi 1x2 mode=funneled size=128 iters=1 min_time=0.5",
                      "jacobi 1x2 mode=task size=128 iters=1 min_time=0.5",
                      "jacobi 1x2 mode=task-balanced size=128 iters=1 min_time=0.5"]
    assert runs[0].run_id == "2x1-mode_pure-size_128-iters_1-min_time_0.5"
    assert not any(r.oversubscribe for r in runs)


def test_llc_sized_grid(tmp_path):
    from hybridkit.study.plan import last_level_cache, resolve_value

    # 4 x 260 MiB / 16 B = 68157440 cells: 408.3^3, rounded up to a multiple of 8
    assert resolve_value("llc*4", 260 * 1024 ** 2) == 416
    assert resolve_value("llc*4", 8 * 1024 ** 2) == 128
    assert resolve_value(96, 1) == 96 and resolve_value("llc", 1) == "llc"
    for name, level, kind, size in (("index0", 1, "Data", "48K"), ("index1", 1, "Instruction",
                                                                   "32K"),
                                    ("index2", 2, "Unified", "2048K"),
                                    ("index3", 3, "Unified", "266240K")):
        d = tmp_path / name
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    assert last_level_cache(str(tmp_path)) == 266240 * 1024
    assert last_level_cache(str(tmp_path / "none")) is None


def test_product_overrides_and_repeats():
    app = appcatalog.get("jacobi")
    runs = expand(app, "full", HERE, cores=[2], overrides={"mode": ["pure", "task"],
                                                           "size": [32, 64]}, repeats=2)
    # 2x1 pure, 1x2 task, x 2 sizes x 2 repeats
    assert len(runs) == 8
    assert {r.run_id for r in runs} >= {"2x1-mode_pure-size_32-iters_50-min_time_0.5-r1",
                                         "1x2-mode_task-size_64-iters_50-min_time_0.5-r2"}
    assert len({r.run_id for r in runs}) == 8


def test_several_nodes_multiply_the_ranks():
    app = appcatalog.get("jacobi")
    runs = expand(app, "full", Cluster(cores=4, nodes=2, hosts=("a", "b"), remote=True),
                  cores=[4], overrides={"mode": ["pure", "funneled"], "size": [64]})
    assert [(r.ranks, r.threads) for r in runs] == [(8, 1), (4, 2), (2, 4)]


def test_cores_not_available():
    with pytest.raises(UsageError, match="--cores 4: this machine has 2 cores"):
        expand(appcatalog.get("jacobi"), "full", HERE, cores=[4])


def test_unknown_parameter_and_app():
    with pytest.raises(UsageError, match="app 'jacobi' has no parameter 'colour'"):
        expand(appcatalog.get("jacobi"), "full", HERE, overrides={"colour": ["red"]})
    with pytest.raises(UsageError, match="unknown app 'nope'"):
        appcatalog.get("nope")


def test_fixed_layouts():
    assert [(r.ranks, r.threads) for r in expand(appcatalog.get("barrier"), "quick", HERE)] == \
        [(1, 2)]
    beff = expand(appcatalog.get("beff"), "quick", HERE)
    assert [(r.ranks, r.oversubscribe) for r in beff] == [(4, True)]
    pp = expand(appcatalog.get("pingpong"), "quick", HERE)
    assert [appcatalog.get("pingpong").rank_env(r.param_dict, 2, 1) for r in pp] == \
        [{"HK_NODE_SIZE": "2"}, {"HK_NODE_SIZE": "1"}]


def test_mz_and_mc_plug_in_by_description():
    mz = appcatalog.get("mz")
    runs = expand(mz, "quick", HERE)
    assert {r.param_dict["bench"] for r in runs} == {"sp", "bt", "lu"}
    assert mz.argv({"bench": "sp", "class": "S"}, 2, 1) == ["--bench", "sp", "--class", "S"]
    assert (mz.kind, mz.metric.value, mz.metric.unit) == ("mz", "mops", "Mop/s")
    mc = appcatalog.get("mc")
    assert (mc.kind, mc.metric.value, mc.metric.breakdown) == ("mc", "allreduce_fraction",
                                                               ("compute", "allreduce"))
    assert [(r.ranks, r.threads, r.param_dict["allreduce"]) for r in expand(mc, "quick", HERE)] \
        == [(2, 1, "mpi"), (2, 1, "auto"), (1, 2, "mpi"), (1, 2, "auto")]


NEW_APP = """
name = "stream"
binary = "hk-stream"
kind = "stream"
args = ["--n", "{n}", "--threads", "{threads}"]
[quick]
cores = [1]
n = [1000]
[full]
ranks = [1]
threads = [1, 2]
n = [1000, 2000]
"""


@pytest.fixture
def declared(tmp_path):
    """A folder with the schema of kind 'stream', as the C declaration of a user's own
    program writes it (hk_kind_schema_write): its metric is bandwidth in MB/s."""
    write_kind_schema(tmp_path, "stream", "bandwidth", "MB/s")
    return tmp_path


def test_a_new_description_needs_no_code(declared, monkeypatch):
    tmp_path = declared
    (tmp_path / "stream.toml").write_text(NEW_APP)
    monkeypatch.setenv("HK_APPS_PATH", str(tmp_path))
    app = appcatalog.get("stream")
    assert [r.label() for r in expand(app, "quick", HERE)] == ["stream 1x1 n=1000"]
    assert len(expand(app, "full", HERE)) == 4
    assert app.argv({"n": 5}, 1, 2) == ["--n", "5", "--threads", "2"]
    assert (app.metric.value, app.metric.unit, app.metric.higher_is_better) == \
        ("bandwidth", "MB/s", True)


@pytest.mark.parametrize("text,message", [
    (NEW_APP.replace('kind = "stream"\n', ""), "missing 'kind'"),
    (NEW_APP.replace("cores = [1]", "cores = [1]\nranks = [1]"), "not both"),
    (NEW_APP.replace("ranks = [1]\n", ""), "needs 'cores' or both"),
    (NEW_APP + '[metric]\nbetter = "lower"\n', r"metric.better: declared in C for record kind "
     r"'stream' \(hybridkit/schemas/stream.schema.json\), not here"),
    (NEW_APP + '[metric]\nvalue = "bw"\nunit = "MB/s"\n', "metric.value, metric.unit: declared in C"),
    (NEW_APP.replace('kind = "stream"', 'kind = "nostream"') + '[metric]\nvalue = "bw"\n',
     r"record kind 'nostream' declares no metric: an app's metric, unit and time breakdown "
     r"are declared in C"),
    (NEW_APP.replace('kind = "stream"', 'kind = "program"'),
     r"kind 'program' takes metric.source 'wall' or 'output', not 'records'"),
    (NEW_APP.replace('kind = "stream"', 'kind = "nostream"') + '[metric]\nsource = "wall"\n',
     r"metric.source 'wall': the runner writes records of kind 'program'"),
    (NEW_APP + '\n[constraints.n.1000]\nmin_cores = 2\n', "unknown min_cores"),
])
def test_bad_descriptions(text, message, declared):
    import tomllib

    with pytest.raises(HKError, match=message):
        parse(tomllib.loads(text), str(declared / "x.toml"))


def test_args_with_an_unknown_placeholder(declared):
    import tomllib

    app = parse(tomllib.loads(NEW_APP.replace("{n}", "{m}")), str(declared / "x.toml"))
    with pytest.raises(HKError, match=r"x.toml: args use \{m\}"):
        app.argv({"n": 1}, 1, 1)


def test_virtual_node_parameters_are_dropped_on_real_nodes():
    pp = appcatalog.get("pingpong")
    two = Cluster(cores=2, nodes=2, hosts=("a", "b"), remote=True)
    runs = expand(pp, "quick", two)
    assert [(r.ranks, r.param_dict) for r in runs] == [(4, {"sizes": "8:1M"})]  # 2 per node
    assert pp.rank_env(runs[0].param_dict, 4, 1, nodes=2) == {}
    assert pp.single_node_params() == ["node_size"]


def test_vcluster_runs_record_no_binding_and_studies_get_their_own_directory():
    import argparse

    from hybridkit.commands.study import default_out
    from hybridkit.launch.launchers import launcher_for
    from hybridkit.study.sweep import Executor
    from hybridkit.study.plan import Cluster, PlannedRun

    run = PlannedRun("jacobi", 2, 1, (("mode", "pure"),))
    vc = Executor(launcher_for("mpirun", "openmpi"), "openmpi", Cluster(2, 2), "compact",
                  "vcluster")
    here = Executor(launcher_for("mpirun", "openmpi"), "openmpi", Cluster(2), "compact")
    assert vc.bind_used(run) == "none" and here.bind_used(run) == "compact"
    assert vc.key(run)["nodes"] == 2 and vc.key(run) != here.key(run)
    # a link limit (--rate) is part of the launch: a finished run is redone under another
    slow = Executor(launcher_for("mpirun", "openmpi"), "openmpi",
                    Cluster(2, 2, emulated=True, link_rate="100mbit"), "compact", "vcluster")
    assert slow.key(run)["link_rate"] == "100mbit" and slow.key(run) != vc.key(run)
    assert vc.key(run)["link_rate"] is None
    ns = argparse.Namespace(vcluster=2, hosts=None, hostfile=None)
    local = argparse.Namespace(vcluster=None, hosts=None, hostfile=None)
    assert default_out(ns).name.endswith("-vcluster2")
    assert default_out(ns).name == default_out(local).name + "-vcluster2"


def test_emulated_nodes_share_the_cores_runs_beyond_them_are_functional():
    """--vcluster 2 on 2 cores: 4x1 jacobi runs 4 ranks on 2 real cores, a functional run
    (kept, labelled), never a performance result; within the cores it stays a result."""
    from hybridkit.study.plan import Cluster

    vc = Cluster(2, 2, emulated=True)
    runs = expand(appcatalog.get("jacobi"), "full", vc, cores=[1], overrides={"mode": ["pure"],
                                                                            "size": [32]})
    assert [(r.ranks, r.threads, r.oversubscribe) for r in runs] == [(2, 1, False)]
    runs = expand(appcatalog.get("jacobi"), "full", vc, cores=[2], overrides={"mode": ["pure"],
                                                                            "size": [32]})
    assert [(r.ranks, r.threads, r.oversubscribe) for r in runs] == [(4, 1, True)]
    assert check_fits(runs, appcatalog.get("jacobi"), vc)   # a note, no UsageError


@pytest.mark.parametrize("extra,field", [
    ("colour = \"red\"\n", "colour"),                      # a misspelt top-level key
    ("[modes]\nparam = \"mode\"\nsingel = {max_threads = 1}\n", "singel"),
])
def test_the_schema_refuses_unknown_keys(declared, extra, field):
    path = declared / "stream.toml"
    path.write_text(extra + NEW_APP if not extra.startswith("[") else NEW_APP + extra)
    with pytest.raises(HKError, match=field):
        appcatalog.load_file(path)
    text = NEW_APP + '[metric]\nbreakdwon = ["a"]\n'
    path.write_text(text)
    with pytest.raises(HKError, match="breakdwon"):
        appcatalog.load_file(path)



def test_runs_that_need_a_yielding_mpi_are_left_out_under_one_that_polls():
    """beff's 4 ranks on 2 cores: kept under Open MPI (waiting ranks yield), left out with a
    note under MPICH (they poll: minutes per run, the scheduler measured)."""
    from hybridkit.commands.study import plan
    from hybridkit.launch.launchers import MPICH, OpenMPI, Replay

    beff = appcatalog.get("beff")
    assert beff.oversubscribe_needs_yield
    assert OpenMPI.yields_oversubscribed and Replay.yields_oversubscribed
    assert not MPICH.yields_oversubscribed
    items, notes = plan([beff], "quick", HERE, mpi_yields=True)
    assert [r.oversubscribe for _, r in items] == [True] and "functional" in notes[0]
    items, notes = plan([beff], "quick", HERE, mpi_yields=False)
    assert items == [] and "poll" in notes[0] and "left out" in notes[0]
    items, _ = plan([beff], "quick", Cluster(cores=4), mpi_yields=False)  # enough cores
    assert [r.oversubscribe for _, r in items] == [False]
    jacobi = appcatalog.get("jacobi")   # apps that do not ask keep their runs
    assert not jacobi.oversubscribe_needs_yield
