#!/usr/bin/env python3
"""tools/lint-agree.py [--root DIR] [--list] [FILE.c ...]: no rank of a collective function
jumps to cleanup alone between two of its collectives (ctest lint.agree, issue 38).

One rank that leaves a collective function early while the others go on to its next
collective leaves them waiting forever.  The error rule (include/hybridkit/try.h): between
two collectives only HK_LOCAL / HK_ALLOC_LOCAL (set err, never jump) and HK_AGREE (all
ranks jump alike); HK_TRY / HK_ALLOC_TRY only before the first collective or after the last.

Collective functions:
  - the public ones: a comment "Collective: X" with X other than "local" above their
    HK_EXPORT declaration in include/hybridkit/*.h;
  - the library's own (static helpers, hk__ functions): any function of src/ whose body
    makes a collective call, found by repeating until nothing changes.
Collective calls: MPI_/PMPI_ collectives (the table COLLECTIVE_MPI), hk_agree, HK_AGREE and
calls of collective functions.  A statement HK_TRY(err, f(...)) whose f is collective is a
collective itself (its errors are agreed by f), as is HK_MPI_TRY / DSM_MPI of an MPI
collective.  Order is the text's order inside the body (loops are not unrolled).

Fails, one line each ("FILE:LINE: FUNC: HK_TRY between COLL (line A) and COLL (line B)"),
on an HK_TRY or HK_ALLOC_TRY of a collective function that has a collective call before it
and one after it, and on an HK_ALLOC_TRY before the first collective too (an argument check
is the same on every rank and may jump there; an allocation fails on one rank alone).  --list prints the collective functions found (with why).
Exit 0 clean, 1 with problems."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import cfunctions  # tools/cfunctions.py, beside this script

COLLECTIVE_MPI = {
    "Allreduce", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Bcast",
    "Barrier", "Gather", "Gatherv", "Scatter", "Scatterv", "Reduce", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan", "Comm_split", "Comm_split_type", "Comm_dup",
    "Comm_dup_with_info", "Comm_create", "Comm_create_group", "Comm_free", "Cart_create",
    "Dist_graph_create_adjacent", "Intercomm_create", "Intercomm_merge", "Win_create",
    "Win_allocate", "Win_allocate_shared", "Win_create_dynamic", "Win_free", "Win_fence",
    "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_allgather", "Iallreduce", "Ibarrier",
    "Ibcast", "Iallgather", "Iallgatherv", "Ialltoall", "Ialltoallv", "Igather", "Igatherv",
    "Ireduce", "Iscan", "Iexscan", "Iscatter", "Iscatterv", "Ireduce_scatter", "Init",
    "Init_thread", "Finalize",
}
MPI_CALL = re.compile(r"\bP?MPI_(" + "|".join(sorted(COLLECTIVE_MPI, key=len, reverse=True)) + r")\s*\(")
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
JUMP = re.compile(r"\b(HK_TRY|HK_ALLOC_TRY)\s*\(")
AGREE = re.compile(r"\b(hk_agree|HK_AGREE)\s*\(")


def public_collectives(root: Path) -> dict[str, str]:
    """name -> 'header:line' for every HK_EXPORT function documented Collective: non-local"""
    found = {}
    for h in sorted((root / "include" / "hybridkit").glob("*.h")):
        lines = h.read_text().splitlines()
        doc = ""
        for i, line in enumerate(lines):
            s = line.strip()
            if s.startswith("/*"):
                block = [s]
                j = i
                while "*/" not in block[-1] and j + 1 < len(lines):
                    j += 1
                    block.append(lines[j].strip())
                doc = " ".join(block)
            elif s.startswith("HK_EXPORT"):
                m = re.search(r"\b(hk_\w+)\s*\(", s)
                c = re.search(r"Collective:\s*([^.]*)", doc)
                if m and c and not c.group(1).strip().lower().startswith("local"):
                    found[m.group(1)] = f"{h.relative_to(root)}:{i + 1}"
            elif s and not s.startswith("*") and not s.startswith("HK_EXPORT") and ");" in s:
                continue
    return found


def functions(path: Path):
    """(name, is_static, first line, body text stripped, body's first line) of each definition"""
    for f in cfunctions.functions(path.read_text()):
        yield f.name, f.static, f.line, f.body, f.open_line


def statement_end(body: str, start: int) -> int:
    """index after the parenthesised argument list opening at the first '(' from start"""
    i = body.index("(", start)
    depth = 0
    while i < len(body):
        if body[i] == "(":
            depth += 1
        elif body[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(body)


class Lint:
    def __init__(self, root: Path, files: list[Path]):
        self.root = root
        self.public = public_collectives(root)
        self.defs = []  # (file, name, static, line, body, bodyline)
        for f in files:
            for name, static, line, body, bline in functions(f):
                self.defs.append((f, name, static, line, body, bline))
        self.why: dict[tuple, str] = {}  # (file or None, name) -> reason
        for name, where in self.public.items():
            self.why[(None, name)] = f"documented collective ({where})"
        self._infer()

    def key(self, f: Path, name: str):
        """the function `name` called from file f: its static one, else the global one"""
        if any(d[0] == f and d[1] == name and d[2] for d in self.defs):
            return (f, name)
        return (None, name)

    def collective_call(self, f: Path, text: str):
        """the first collective call in text, as a short name, or None"""
        m = MPI_CALL.search(text) or AGREE.search(text)
        if m:
            return m.group(0).rstrip("( \t")
        for c in CALL.finditer(text):
            if self.key(f, c.group(1)) in self.why:
                return c.group(1)
        return None

    def _infer(self):
        changed = True
        while changed:
            changed = False
            for f, name, static, _line, body, _bl in self.defs:
                k = (f, name) if static else (None, name)
                if k in self.why:
                    continue
                for c in CALL.finditer(body):
                    callee = c.group(1)
                    if callee == name:
                        continue
                    if MPI_CALL.match(body, c.start()) or AGREE.match(body, c.start()) or \
                            self.key(f, callee) in self.why:
                        self.why[k] = f"calls {callee} ({f.relative_to(self.root)})"
                        changed = True
                        break

    def events(self, f: Path, body: str):
        """(offset, kind, name): collective calls and jumps of a body, in text order"""
        out, taken = [], []
        for m in JUMP.finditer(body):
            end = statement_end(body, m.start())
            coll = self.collective_call(f, body[m.end():end])
            out.append((m.start(), "coll" if coll else "jump", coll or m.group(1)))
            taken.append((m.start(), end))
        for c in CALL.finditer(body):
            if any(a <= c.start() < b for a, b in taken):
                continue
            coll = self.collective_call(f, c.group(0))
            if coll and c.group(1) not in ("HK_TRY", "HK_ALLOC_TRY"):
                out.append((c.start(), "coll", coll))
        return sorted(out)

    def problems(self):
        for f, name, static, line, body, bline in self.defs:
            k = (f, name) if static else (None, name)
            if k not in self.why:
                continue
            ev = self.events(f, body)
            colls = [(o, n) for o, kind, n in ev if kind == "coll"]
            for o, kind, what in ev:
                if kind != "jump":
                    continue
                before = [c for c in colls if c[0] < o]
                after = [c for c in colls if c[0] > o]
                ln = lambda off: bline + body.count("\n", 0, off)
                where = f"{f.relative_to(self.root)}:{ln(o)}: {name}: {what}"
                if before and after:
                    yield (f"{where} between {before[-1][1]} (line {ln(before[-1][0])}) and "
                           f"{after[0][1]} (line {ln(after[0][0])}): use HK_LOCAL / "
                           f"HK_ALLOC_LOCAL, then HK_AGREE")
                elif after and what == "HK_ALLOC_TRY":
                    yield (f"{where} before {after[0][1]} (line {ln(after[0][0])}): an "
                           f"allocation fails on one rank alone; use HK_ALLOC_LOCAL, then HK_AGREE")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    root = Path(a.root).resolve()
    files = sorted((root / "src").rglob("*.c"))
    lint = Lint(root, files)
    if a.list:
        for (f, name), why in sorted(lint.why.items(), key=lambda kv: kv[0][1]):
            print(f"{name}{' (static, ' + str(f.relative_to(root)) + ')' if f else ''}: {why}")
        return 0
    only = {Path(x).resolve() for x in a.files}
    bad = [p for p in lint.problems() if not only or (root / p.split(":")[0]).resolve() in only]
    for p in bad:
        print(p)
    if not a.list:
        print(f"lint-agree: {len(lint.why)} collective functions, {len(bad)} problem(s)",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
