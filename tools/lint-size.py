#!/usr/bin/env python3
"""tools/lint-size.py [--root DIR] [--max-function N] [--max-file N]: no C function over 80
lines and no C or Python file over 500 lines in src/ apps/ bench/ preload/ tools/ python/src
(ctest lint.size, issue 38).  tests/ are not measured.

A function's lines run from the line that opens its body to the line that closes it (the
signature not counted).  A function whose body is a table (an initialiser, a switch of
cases) may say so with the comment `lint-size: table` on the line above its definition or
inside it; it is then not measured.  One line per problem, longest first:
  "FILE:LINE: FUNC: 189 lines (at most 80)"   "FILE: 612 lines (at most 500)"
Exit 0 clean, 1 with problems."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cfunctions  # tools/cfunctions.py, beside this script

DIRS = ("src", "apps", "bench", "preload", "tools", "python/src")
MARKER = "lint-size: table"


def c_functions(text: str):
    """(name, line of the signature, body lines, exempt) of each function definition"""
    lines = text.splitlines()
    for f in cfunctions.functions(text):
        around = "\n".join(lines[max(f.line - 2, 0):f.close_line])
        yield f.name, f.line, f.close_line - f.open_line + 1, MARKER in around


def problems(root: Path, max_function: int, max_file: int):
    out = []
    for f in cfunctions.sources(root, DIRS, (".c", ".h", ".py")):
        rel = f.relative_to(root)
        text = f.read_text(errors="replace")
        n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if n > max_file:
            out.append((n, f"{rel}: {n} lines (at most {max_file})"))
        if f.suffix == ".py":
            continue
        for name, line, body, exempt in c_functions(text):
            if body > max_function and not exempt:
                out.append((body, f"{rel}:{line}: {name}: {body} lines (at most {max_function})"))
    return [text for _n, text in sorted(out, key=lambda t: (-t[0], t[1]))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--max-function", type=int, default=80)
    ap.add_argument("--max-file", type=int, default=500)
    a = ap.parse_args()
    bad = problems(Path(a.root).resolve(), a.max_function, a.max_file)
    for p in bad:
        print(p)
    print(f"lint-size: {len(bad)} problem(s)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
