"""The venv make builds is the one the tests ran with: every dependency of the package (and of
its test extra) is pinned in python/constraints.txt, and what is installed matches the pins."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# pinned for the isolated build of the package; the venv keeps the copy venv put there
BUILD_ONLY = {"setuptools"}


def _pins() -> dict:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: '{line}' is not pinned with =="
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def _norm(req: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", req).group(0)).lower()


def test_every_dependency_is_pinned():
    pins = _pins()
    reqs = metadata.requires("hybridkit") or []
    missing = [r for r in reqs if "python_version <" not in r and _norm(r) not in pins]
    assert not missing, f"not pinned in python/constraints.txt: {missing}"


def test_installed_versions_match_the_pins():
    wrong = {}
    for name, version in _pins().items():
        if name in BUILD_ONLY:
            continue
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        if have != version:
            wrong[name] = (have, version)
    assert not wrong, f"installed vs pinned: {wrong} (run make, or update python/constraints.txt)"
