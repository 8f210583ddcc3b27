#!/usr/bin/env python3
"""tools/lint-api-docs.py [HEADER...]: every exported function (HK_EXPORT) of the public
headers (default: include/hybridkit/*.h) is documented in the one template

    /* hk_name: what it does (the sentence names the outputs).
     * Collective: local | <communicator>.  Threads: any thread | outside parallel regions | ...
     * Errors: HK_ERR_ARG (when), ... | none. */
    HK_EXPORT int hk_name(...);

The comment right above a declaration (or above a run of declarations that share it, or
trailing it on the same line) must hold the three keys. Prints one line per function that
lacks one ("FILE:LINE: hk_name: no Threads: line") and exits 1 when any does."""

from __future__ import annotations

import re
import sys
from pathlib import Path

KEYS = ("Collective:", "Threads:", "Errors:")
NAME = re.compile(r"\b(hk_[a-z0-9_]+)\s*\(")


def exported(text: str):
    """(line, name, doc) for every HK_EXPORT declaration of a header's text."""
    lines = text.splitlines()
    doc, valid, i = "", False, 0
    out = []
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("/*"):
            block = [line]
            while "*/" not in block[-1] and i + 1 < len(lines):
                i += 1
                block.append(lines[i].strip())
            doc, valid = "\n".join(block), True
        elif line.startswith("HK_EXPORT"):
            start = i
            decl = [line]
            while ";" not in decl[-1] and i + 1 < len(lines):
                i += 1
                decl.append(lines[i].strip())
            text_decl = " ".join(decl)
            m = NAME.search(text_decl.split("(")[0] + "(")
            trailing = text_decl[text_decl.index("/*"):] if "/*" in text_decl else ""
            if m:
                out.append((start + 1, m.group(1), (doc if valid else "") + "\n" + trailing))
        elif line and not line.startswith("__attribute__"):
            valid = False  # a typedef, macro or member between a comment and a declaration
        i += 1
    return out


def main(argv):
    root = Path(__file__).resolve().parent.parent
    headers = [Path(a) for a in argv] or sorted((root / "include" / "hybridkit").glob("*.h*"))
    bad = 0
    count = 0
    for h in headers:
        for line, name, doc in exported(h.read_text()):
            count += 1
            for key in KEYS:
                if key not in doc:
                    print(f"{h}:{line}: {name}: no {key} line")
                    bad += 1
    if bad:
        print(f"lint-api-docs: {bad} missing line(s) over {count} exported functions; "
              "template: tools/lint-api-docs.py", file=sys.stderr)
        return 1
    print(f"lint-api-docs: {count} exported functions documented (Collective / Threads / Errors)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
