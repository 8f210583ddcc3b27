"""The package's structure: every module imports on its own, the imports between hybridkit's
modules form no cycle, none of them hides inside a function, no private name (`_x`) crosses a
module boundary, no command module imports another, the subpackages keep their layers (LAYERS)
and no module grows past 500 lines.

    graph: module --> every hybridkit module it imports (at the top or in a function), and the
           packages above that module (importing a.b.c runs a/__init__ and a/b/__init__ first)

The only imports allowed inside functions are LAZY: third-party dependencies that are heavy to
import and that only some commands need (matplotlib for figures, jsonschema for validation,
rich for tables and progress bars), so `hybridkit --help` does not pay for them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set

import pytest

import hybridkit

PACKAGE_DIR = Path(hybridkit.__file__).resolve().parent
LAZY = ("matplotlib", "jsonschema", "rich")
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: Dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def trees() -> Dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8"), str(path))
            for name, path in MODULES.items()}


def targets(node: ast.AST, modules) -> List[str]:
    """The hybridkit modules an import statement names (a name imported from a package that
    is a module itself counts as that module)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "hybridkit"]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
            and node.module.split(".")[0] == "hybridkit":
        subs = [f"{node.module}.{a.name}" for a in node.names]
        return [node.module] + [s for s in subs if s in modules]
    return []


def with_parents(name: str) -> Set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def import_graph(parsed: Dict[str, ast.Module]) -> Dict[str, Set[str]]:
    graph: Dict[str, Set[str]] = {}
    for name, tree in parsed.items():
        edges: Set[str] = set()
        for node in ast.walk(tree):
            for target in targets(node, parsed):
                edges |= with_parents(target)
        edges.discard(name)
        graph[name] = {e for e in edges if e in parsed and e not in with_parents(name)}
    return graph


def find_cycle(graph: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One cycle of the graph as [a, b, ..., a], or None when it is acyclic."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path: List[str] = []

    def visit(node: str) -> Optional[List[str]]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def local_imports(tree: ast.Module):
    """(line, imported module) of every import inside a function."""
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    yield from ((node.lineno, a.name) for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    yield node.lineno, "." * node.level + (node.module or "")


def private_uses(tree: ast.Module, modules):
    """(line, text) of every private name one module takes from another: imported by name,
    or read as an attribute of an imported hybridkit module."""
    aliases: Dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module \
                and node.module.split(".")[0] == "hybridkit":
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__"):
                    yield node.lineno, f"from {node.module} import {a.name}"
                if f"{node.module}.{a.name}" in modules:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "hybridkit" and a.asname:
                    aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            yield node.lineno, f"{aliases[node.value.id]}.{node.attr}"


def test_the_package_has_its_subpackages():
    for sub in ("advice", "commands", "launch", "report", "simulate", "study"):
        assert f"hybridkit.{sub}" in MODULES, sub
    assert len(MODULES) > 40


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_imports_alone(name):
    """In a fresh interpreter, so no module imported before it hides an import cycle
    (hybridkit.__main__ runs the CLI: `python -m hybridkit --help`)."""
    args = (["-m", "hybridkit", "--help"] if name == "hybridkit.__main__"
            else ["-c", f"import {name}"])
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          cwd=PACKAGE_DIR.parent, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_import_graph_is_acyclic():
    graph = import_graph(trees())
    assert graph["hybridkit.cli"], "the graph sees cli's imports"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_function_local_imports_but_lazy_dependencies():
    bad = [f"{MODULES[name]}:{line}: {mod}" for name, tree in trees().items()
           for line, mod in local_imports(tree) if mod.split(".")[0] not in LAZY]
    assert not bad, "imports inside functions:\n" + "\n".join(bad)


def test_no_private_names_across_modules():
    parsed = trees()
    bad = [f"{MODULES[name]}:{line}: {text}" for name, tree in parsed.items()
           for line, text in private_uses(tree, parsed)]
    assert not bad, "private names used across modules:\n" + "\n".join(bad)


def test_commands_do_not_import_each_other():
    graph = import_graph(trees())
    bad = [f"{name} imports {dep}" for name, deps in graph.items()
           if name.startswith("hybridkit.commands.")
           for dep in deps if dep.startswith("hybridkit.commands.")]
    assert not bad, "shared code of commands belongs in a library module:\n" + "\n".join(bad)


# the layers, lowest first: a module imports modules of its own layer and of the layers
# before it only, so the subpackages too depend on each other without a cycle
LAYERS = ("core", "launch", "cliargs", "study", "advice", "simulate", "report", "commands", "cli")
TOP = {"hybridkit.cliargs": "cliargs", "hybridkit.cli": "cli", "hybridkit.__main__": "cli"}


def layer(name: str) -> str:
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return parts[1]
    return TOP.get(name, "core")


def test_layers():
    bad = [f"{name} ({layer(name)}) imports {dep} ({layer(dep)})"
           for name, deps in import_graph(trees()).items() for dep in deps
           if LAYERS.index(layer(dep)) > LAYERS.index(layer(name))]
    assert not bad, "imports against the layers " + " < ".join(LAYERS) + ":\n" + "\n".join(bad)


def test_no_module_over_500_lines():
    big = {str(p): n for p in MODULES.values()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"modules over {MAX_LINES} lines: {big}"
