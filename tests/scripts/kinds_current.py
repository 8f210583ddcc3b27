#!/usr/bin/env python3
"""The committed schemas of the declared record kinds (python/src/hybridkit/schemas/) are the
ones the C declarations generate (hk-kinds writes them into the build tree at build time).

    kinds_current.py GENERATED_DIR COMMITTED_DIR [--update]

Compares the two as JSON (the committed copies are indented); --update rewrites the
committed ones from the generated ones.  Exit 1, naming the kinds, when they differ."""
import json
import sys
from pathlib import Path

# the record schema lives beside the kinds' (python/src/hybridkit/schemas/) but is no kind
RECORD = "record.schema.json"


def kind_schemas(folder):
    return [p for p in folder.glob("*.schema.json") if p.name != RECORD]


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--update"):
        print(__doc__, file=sys.stderr)
        return 2
    gen, com = Path(argv[1]), Path(argv[2])
    generated = {p.name: json.loads(p.read_text()) for p in gen.glob("*.schema.json")}
    if not generated:
        print(f"kinds_current: no schemas in {gen}", file=sys.stderr)
        return 1
    if len(argv) == 4:
        com.mkdir(parents=True, exist_ok=True)
        for p in kind_schemas(com):
            if p.name not in generated:
                p.unlink()
        for name, schema in generated.items():
            (com / name).write_text(json.dumps(schema, indent=2) + "\n")
        return 0
    committed = {p.name: json.loads(p.read_text()) for p in kind_schemas(com)}
    bad = sorted(n for n in set(generated) | set(committed)
                 if generated.get(n) != committed.get(n))
    for n in bad:
        what = "missing" if n not in committed else "not declared" if n not in generated \
            else "differs from the declaration"
        print(f"{com / n}: {what}")
    if bad:
        print(f"update with: {argv[0]} {gen} {com} --update")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
