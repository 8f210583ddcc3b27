"""TOML on every Python the package supports: the standard tomllib (3.11+), else tomli with
the same interface (`from hybridkit.tomlread import tomllib`)."""

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["tomllib"]
