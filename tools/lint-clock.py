#!/usr/bin/env python3
"""tools/lint-clock.py [--root DIR]: no timer in src/, apps/ or bench/ reads omp_get_wtime
(ctest lint.clock, issue 43 item 2).

SimGrid's SMPI virtualises MPI_Wtime and, through smpicc's smpi_helpers.h, clock_gettime,
but not omp_get_wtime: a timer on it reads the host's time in a simulated run, and the
phases no longer add up to the time per iteration (hk-jacobi's phase_other was -0.18 s, and
`advise` blamed communication).  The timers are hk_wtime() (MPI_Wtime, the master thread
between parallel regions) and hk_clock() (any thread, inside parallel regions too), both in
the one place that reads clocks, src/core/timer.c.

Allowed: src/core/timer.c, and bench/plain/ (the plain OpenMP references, built with gcc
alone, no MPI and no hk).  Comments and strings do not count (tools/cfunctions.py blanks
them).  One line per use: "FILE:LINE: omp_get_wtime: use hk_wtime() or hk_clock() ..."
Exit 0 clean, 1 with problems."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import cfunctions  # tools/cfunctions.py, beside this script

DIRS = ("src", "apps", "bench")
ALLOWED = ("src/core/timer.c", "bench/plain/")
CALL = re.compile(r"\bomp_get_wti(?:me|ck)\b")


def problems(root: Path):
    out = []
    for f in cfunctions.sources(root, DIRS, (".c", ".h")):
        rel = f.relative_to(root).as_posix()
        if any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in ALLOWED):
            continue
        text = cfunctions.blank(f.read_text(errors="replace"))
        for n, line in enumerate(text.splitlines(), 1):
            out += [f"{rel}:{n}: {m.group(0)}: use hk_wtime() (master thread, between parallel "
                    f"regions) or hk_clock() (any thread): SMPI does not virtualise it "
                    f"(hybridkit/timer.h)" for m in CALL.finditer(line)]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    found = problems(Path(p.parse_args(argv).root))
    print("\n".join(found + [f"lint-clock: {len(found)} problem(s)"]))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
