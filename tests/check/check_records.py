#!/usr/bin/env python3
"""tests/check/check_records.py IMPL LAUNCHER NP LIB CASE -- PROGRAM ARGS...

Runs PROGRAM (tests/check/check_levels, built with -g) with NP ranks under
libhybridkit-check.so with HK_CHECK_OUTPUT=<temp file> and checks the JSON Lines records
(docs/check.md, "Records") of CASE:

  clean     --level funneled: exit 0; only a check.summary: FUNNELED asked and checked,
            0 violations in 5 calls per rank (Comm_rank, Comm_size, Allreduce, Barrier,
            Barrier)
  funneled  --level funneled --violate: one check.violation of MPI_Iprobe, rule "not the
            main thread", 3 per rank, its first site check_levels.c:LINE (funneled_probe)
            by OpenMP thread 1 of 2 at parallel level 1; one check.first per rank (abort
            false); the summary: 3 x NP violations in 8 calls per rank
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def fail(message, out):
    print(out)
    print(f"FAIL: {message}")
    sys.exit(1)


def main(argv):
    impl, launcher, np_, lib, case = argv[:5]
    program = argv[6:] if argv[5] == "--" else argv[5:]
    np_ = int(np_)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "check.jsonl")
        env = {"LD_PRELOAD": lib, "HK_CHECK_OUTPUT": path}
        if impl == "openmpi":
            pre = ["--oversubscribe", "--bind-to", "none"]
            pre += [a for k, v in env.items() for a in ("-x", f"{k}={v}")]
        else:
            pre = ["-bind-to", "none"] + [a for k, v in env.items() for a in ("-genv", k, v)]
        proc = subprocess.run([launcher, "-np", str(np_), *pre, *program], capture_output=True,
                              text=True, timeout=100)
        out = f"--- exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
        if proc.returncode != 0:
            fail(f"exit {proc.returncode}", out)
        if not os.path.isfile(path):
            fail(f"no records in {path}", out)
        with open(path) as f:
            text = f.read()
    out += "--- records\n" + text
    records = [json.loads(line) for line in text.splitlines()]
    kinds = [r["kind"] for r in records]
    summary = [r for r in records if r["kind"] == "check.summary"]
    if len(summary) != 1 or kinds[-1] != "check.summary":
        fail("not one check.summary, last", out)
    s = summary[0]
    if (s["ranks"], s["level"], s["asked"]) != (np_, "MPI_THREAD_FUNNELED", "MPI_THREAD_FUNNELED"):
        fail("summary: ranks, level or asked", out)
    if case == "clean":
        if kinds != ["check.summary"] or s["violations"] != 0 or s["calls"] != 5 * np_:
            fail(f"clean: want only a summary, 0 violations in {5 * np_} calls", out)
    else:
        v = [r for r in records if r["kind"] == "check.violation"]
        first = [r for r in records if r["kind"] == "check.first"]
        if len(v) != 1 or len(first) != np_:
            fail(f"{len(v)} check.violation (want 1), {len(first)} check.first (want {np_})",
                 out)
        v = v[0]
        if (v["function"], v["level"], v["rule"]) != ("MPI_Iprobe", "MPI_THREAD_FUNNELED",
                                                      "not the main thread"):
            fail("violation: function, level or rule", out)
        if v["ranks"] != {str(r): 3 for r in range(np_)} or v["count"] != 3 * np_:
            fail("violation: counts per rank", out)
        t, site = v["first"]["thread"], v["first"]["site"]
        if (v["first"]["rank"], t["omp_thread"], t["omp_threads"], t["parallel_level"]) != \
                (0, 1, 2, 1):
            fail("violation: first rank or thread", out)
        if not re.fullmatch(r"check_levels\.c:[0-9]+ \(funneled_probe\)", site["where"]) or \
                not site["file"].endswith("tests/check/check_levels.c"):
            fail(f"violation: site {site['where']!r} is not check_levels.c:LINE", out)
        if any(r["abort"] for r in first):
            fail("check.first says abort without HK_CHECK_ABORT", out)
        if s["violations"] != 3 * np_ or s["calls"] != 8 * np_:
            fail(f"summary: want {3 * np_} violations in {8 * np_} calls", out)
    print(out)
    print("PASS")


if __name__ == "__main__":
    main(sys.argv[1:])
