"""hwloc cpuset lists and counting the cores of this machine."""

from __future__ import annotations

import pytest

from hybridkit.launch.cpuset import format_cpuset, local_cores, parse_cpuset


@pytest.mark.parametrize("text,pus", [
    ("0", {0}),
    ("0-1,4", {0, 1, 4}),
    ("3,1", {1, 3}),
    ("0-3,2-5", set(range(6))),
    (" 7 ", {7}),
    ("", set()),
    ("10-11,32", {10, 11, 32}),
])
def test_parse(text, pus):
    assert parse_cpuset(text) == pus


@pytest.mark.parametrize("text", ["a", "3-1", "1-", "-1", "0,,1", "0x3", "1-2-3"])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse_cpuset(text)


@pytest.mark.parametrize("pus,text", [({0, 1, 2, 4}, "0-2,4"), (set(), ""), ({5}, "5"),
                                      ({1, 3, 5, 6}, "1,3,5-6")])
def test_format_round_trip(pus, text):
    assert format_cpuset(pus) == text
    assert parse_cpuset(text) == pus


def fake_sysfs(root, cpus):
    """cpus: {pu: (package, core)}"""
    for pu, (package, core) in cpus.items():
        topo = root / f"cpu{pu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(f"{package}\n")
        (topo / "core_id").write_text(f"{core}\n")
    return root


@pytest.mark.parametrize("cpus,allowed,cores", [
    ({0: (0, 0), 1: (0, 1)}, {0, 1}, 2),
    ({0: (0, 0), 1: (0, 1), 2: (0, 0), 3: (0, 1)}, {0, 1, 2, 3}, 2),      # SMT siblings
    ({0: (0, 0), 1: (0, 1), 2: (0, 0), 3: (0, 1)}, {0, 2}, 1),            # affinity: one core
    ({0: (0, 0), 1: (1, 0)}, {0, 1}, 2),                                  # same core_id, 2 packages
])
def test_local_cores(tmp_path, monkeypatch, cpus, allowed, cores):
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: allowed)
    assert local_cores(fake_sysfs(tmp_path, cpus)) == cores


def test_local_cores_without_sysfs(tmp_path, monkeypatch):
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1, 2})
    assert local_cores(tmp_path / "missing") == 3


def test_local_cores_of_this_machine():
    assert local_cores() >= 1
