"""C function definitions as the project's lints read them (tools/lint-agree.py,
tools/lint-size.py): the text with comments and literals blanked (newlines kept, so line
numbers hold and braces in them do not count), each definition from its signature (a line
ending in ')' followed by '{') to the matching closing brace.  Text order, not a parser:
a definition whose name starts its line (the type on the line before) is not seen.
sources(): the files a lint reads (also tools/lint-clock.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

DEF = re.compile(r"^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*"
                 r"\([^;{]*\)\s*$", re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do"}
LITERALS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def sources(root: Path, dirs: Sequence[str], suffixes: Sequence[str]) -> Iterator[Path]:
    """the files below root/DIR (for each of dirs that exists) whose suffix is one of
    suffixes, sorted within each DIR"""
    for d in dirs:
        base = root / d
        if base.is_dir():
            yield from (f for f in sorted(base.rglob("*")) if f.suffix in suffixes and f.is_file())


def blank(text: str) -> str:
    """comments, string and character literals blanked (newlines kept)"""
    return LITERALS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


class Function(NamedTuple):
    name: str
    static: bool
    line: int        # the signature's first line
    open_line: int   # the line of the opening brace
    close_line: int  # the line of the closing brace
    body: str        # blanked text from '{' to '}'


def functions(text: str) -> Iterator[Function]:
    """every function definition of C source `text`, in order"""
    code = blank(text)
    for m in DEF.finditer(code):
        if m.group(1) in KEYWORDS:
            continue
        brace = m.end()
        while brace < len(code) and code[brace] in " \t\n":
            brace += 1
        if brace >= len(code) or code[brace] != "{":
            continue
        depth, j = 0, brace
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        yield Function(m.group(1), m.group(0).lstrip().startswith("static"),
                       code.count("\n", 0, m.start()) + 1, code.count("\n", 0, brace) + 1,
                       code.count("\n", 0, j) + 1, code[brace:j + 1])
