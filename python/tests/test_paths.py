"""Finding binaries: path, $HK_BIN_DIR, the repository's build directories, PATH."""

from __future__ import annotations

import pytest

from conftest import make_executable
from hybridkit.errors import HKError
from hybridkit.paths import find_binary, repo_root


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A fake repository with both build trees, an HK_BIN_DIR and a PATH directory."""
    repo, env_dir, path_dir = tmp_path / "repo", tmp_path / "env", tmp_path / "path"
    for d in (repo / "build/release/bin", repo / "build/mpich-release/bin", env_dir, path_dir):
        d.mkdir(parents=True)
    monkeypatch.setattr("hybridkit.paths.repo_root", lambda: repo)
    monkeypatch.setenv("HK_BIN_DIR", str(env_dir))
    monkeypatch.setenv("PATH", str(path_dir))
    return {"env": env_dir, "openmpi": repo / "build/release/bin",
            "mpich": repo / "build/mpich-release/bin", "path": path_dir}


@pytest.mark.parametrize("present,mpi,found", [
    (["env", "openmpi", "mpich", "path"], "openmpi", "env"),
    (["openmpi", "mpich", "path"], "openmpi", "openmpi"),
    (["openmpi", "mpich", "path"], "mpich", "mpich"),
    (["mpich", "path"], "openmpi", "path"),
    (["openmpi", "path"], "mpich", "path"),
])
def test_lookup_order(places, present, mpi, found):
    for where in present:
        make_executable(places[where] / "hk-x", "#!/bin/sh\n")
    assert find_binary("hk-x", mpi) == (places[found] / "hk-x").resolve()


def test_not_executable_is_skipped(places):
    (places["env"] / "hk-x").write_text("data")
    make_executable(places["path"] / "hk-x", "#!/bin/sh\n")
    assert find_binary("hk-x") == (places["path"] / "hk-x").resolve()


def test_unknown_name(places):
    with pytest.raises(HKError, match=r"unknown binary 'hk-x': not found in .*env, .*release/bin, PATH"):
        find_binary("hk-x")


def test_explicit_path(places, tmp_path):
    exe = make_executable(tmp_path / "prog", "#!/bin/sh\n")
    assert find_binary(str(exe)) == exe
    with pytest.raises(HKError, match="does not exist or is not executable"):
        find_binary(str(tmp_path / "nothing"))


def test_repo_root_is_this_checkout():
    root = repo_root()
    assert root is not None and (root / "python" / "pyproject.toml").is_file()
