"""The hybrid modes come from the binary's --list-modes (the C table), not from Python or
the app descriptions: a binary with other modes changes the plan without a code change."""

from __future__ import annotations

import pytest

from conftest import make_executable, write_kind_schema
from hybridkit import appcatalog, modes
from hybridkit.errors import HKError, UsageError
from hybridkit.study.plan import Cluster, expand

APP = """name = "toy"
binary = "hk-toy"
kind = "toy"
args = ["--mode", "{mode}"]
[quick]
cores = [2]
mode = ["solo"]
[full]
cores = [2]
mode = ["all"]
[modes]
param = "mode"
single = {max_threads = 1}
threaded = {min_threads = 2}
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    make_executable(bindir / "hk-toy", "#!/bin/sh\n[ \"$1\" = --list-modes ] || exit 3\n"
                    "printf 'solo single 0\\nduo funneled 1\\ntrio multiple 0\\n'\n")
    (tmp_path / "toy.toml").write_text(APP)
    write_kind_schema(tmp_path, "toy", "t", "s", "lower")
    monkeypatch.setenv("HK_BIN_DIR", str(bindir))
    monkeypatch.setenv("HK_APPS_PATH", str(tmp_path))
    modes._cache.clear()
    yield appcatalog.get("toy")
    modes._cache.clear()


def test_parse():
    table = modes.parse("pure single 0\ntask funneled 1\n")
    assert [(m.name, m.level, m.overlaps) for m in table] == [("pure", "single", False),
                                                               ("task", "funneled", True)]
    assert table[0].single_threaded and not table[1].single_threaded
    with pytest.raises(HKError, match="cannot read mode line"):
        modes.parse("pure sometimes 0\n")
    with pytest.raises(HKError, match="no modes"):
        modes.parse("\n")


def test_all_is_the_binarys_modes_and_levels_decide_the_layouts(toy):
    # 2 cores: solo (level single) only at 2x1, duo and trio (threaded) only at 1x2
    labels = [r.label() for r in expand(toy, "full", Cluster(cores=2))]
    assert labels == ["toy 2x1 mode=solo", "toy 1x2 mode=duo", "toy 1x2 mode=trio"]


def test_a_mode_the_binary_does_not_know_is_refused(toy):
    with pytest.raises(UsageError, match=r"unknown mode 'pure' for toy \(choose from solo, "
                                         r"duo, trio\)"):
        expand(toy, "full", Cluster(cores=2), overrides={"mode": ["pure"]})
    assert [r.label() for r in expand(toy, "full", Cluster(cores=2),
                                      overrides={"mode": ["duo"]})] == ["toy 1x2 mode=duo"]


def test_a_binary_that_cannot_list_its_modes(toy, tmp_path):
    make_executable(tmp_path / "bin" / "hk-toy", "#!/bin/sh\necho 'no such option' >&2\nexit 2\n")
    with pytest.raises(HKError, match="exited 2: no such option"):
        expand(toy, "full", Cluster(cores=2))


def test_a_checkout_with_only_the_mpich_build_still_lists_the_modes(tmp_path, monkeypatch):
    # the table is compiled from one source: any flavour's binary answers for the default
    from hybridkit import paths
    bindir = tmp_path / "build" / "mpich-release" / "bin"
    bindir.mkdir(parents=True)
    make_executable(bindir / "hk-toy2", "#!/bin/sh\nprintf 'solo single 0\\n'\n")
    monkeypatch.delenv("HK_BIN_DIR", raising=False)
    monkeypatch.delenv("HK_MPI", raising=False)
    monkeypatch.setattr(paths, "repo_root", lambda: tmp_path)
    modes._cache.clear()
    assert [m.name for m in modes.table("hk-toy2")] == ["solo"]
    with pytest.raises(HKError, match="unknown binary 'hk-toy3'"):
        modes.table("hk-toy3")
    modes._cache.clear()
