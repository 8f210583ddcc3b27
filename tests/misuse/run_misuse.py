#!/usr/bin/env python3
"""tests/misuse/run_misuse.py: the misuse table of the hk-* binaries and of the hybridkit
CLI (cases.tsv).

Each case runs one binary (directly for ranks 0, under the MPI launcher otherwise) or
`hybridkit` (as `python -m hybridkit` with this script's Python, never under the launcher:
it launches what it needs itself, and ranks then only counts the processes it starts; in a
directory of its own, HK_BIN_DIR set to --bin-dir) with a time limit, and passes when
  - it ends within the limit (no hang),
  - its exit code is the expected one,
  - exactly one line of its output (stdout + stderr) holds the expected text: an error
    agreed over the ranks is printed once, not once per rank,
  - no line shows a crash: a sanitizer report, a segfault, a traceback, or a byte count
    that wrapped around (18446744...).

usage: run_misuse.py --bin-dir DIR [--mpiexec CMD] [--preflags "FLAGS"] [--sanitized] [--timeout S]
                     [--case NAME ...] CASES.tsv
cases.tsv: tab-separated  name  ranks  exit  expected-text  env  command
  env: "-" or space-separated K=V; ulimit-v=KB sets RLIMIT_AS (those cases are skipped
  in sanitizer builds: ASan reserves terabytes of address space); command: the binary's
  name (or hybridkit) and arguments (shell words); @FIFO@ becomes a named pipe, @DIR@ a
  directory, @FIXTURES@ the committed inputs in misuse/fixtures/ (records with impossible
  values, of an unknown kind, ...).
Exit code 0 when every selected case passed, 77 when all were skipped, 1 otherwise.
"""
import argparse
import os
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import time

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
CRASH = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "Segmentation fault",
         "core dumped", "Traceback (most recent call last)", "18446744", "stack smashing")


def load(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 6:
                sys.exit(f"{path}:{lineno}: {len(cols)} columns, expected 6 "
                         "(name ranks exit expected env command)")
            name, ranks, code, expect, env, command = cols
            cases.append({"name": name, "ranks": int(ranks), "exit": int(code),
                          "expect": expect, "env": [] if env == "-" else shlex.split(env),
                          "command": shlex.split(command), "where": f"{path}:{lineno}"})
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"{path}: duplicate case names {sorted(dup)}")
    return cases


def run_case(case, args, tmp):
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    limit_as = None
    for kv in case["env"]:
        key, _, value = kv.partition("=")
        if key == "ulimit-v":
            limit_as = int(value) * 1024
        else:
            env[key] = value
    if limit_as is not None and args.sanitized:
        return "SKIP", "RLIMIT_AS under a sanitizer (ASan reserves terabytes)"
    words = []
    for w in case["command"]:
        w = w.replace("@FIFO@", os.path.join(tmp, "fifo")).replace("@DIR@", tmp)
        words.append(w.replace("@FIXTURES@", FIXTURES))
    cwd = None
    if words[0] == "hybridkit":
        words = [sys.executable, "-m", "hybridkit"] + words[1:]
        cwd = os.path.join(tmp, case["name"])  # its results/ directory, apart from others'
        os.makedirs(cwd, exist_ok=True)
        if not any(kv.startswith("HK_BIN_DIR=") for kv in case["env"]):
            env["HK_BIN_DIR"] = os.path.abspath(args.bin_dir)
    else:
        words[0] = os.path.join(args.bin_dir, words[0])
        if case["ranks"] > 0:
            words = args.mpiexec + [args.np_flag, str(case["ranks"])] + args.preflags + words

    def limits():
        os.setsid()
        if limit_as is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    t0 = time.monotonic()
    proc = subprocess.Popen(words, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            preexec_fn=limits, cwd=cwd)
    try:
        out, _ = proc.communicate(timeout=args.timeout)
        hung = False
    except subprocess.TimeoutExpired:
        # SIGTERM first: a launcher then stops its ranks (they have process groups of their
        # own, which a SIGKILL of the launcher would leave running)
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        hung = True
    secs = time.monotonic() - t0
    text = out.decode("utf-8", "replace")
    lines = text.splitlines()
    problems = []
    if hung:
        problems.append(f"still running after {args.timeout:g} s (killed)")
    elif proc.returncode != case["exit"]:
        problems.append(f"exit code {proc.returncode}, expected {case['exit']}")
    hits = [l for l in lines if case["expect"] in l]
    if len(hits) != 1:
        problems.append(f"{len(hits)} lines hold {case['expect']!r}, expected exactly one")
    for bad in CRASH:
        if any(bad in l for l in lines):
            problems.append(f"output shows {bad!r}")
    detail = f"{secs:.1f} s, exit {proc.returncode}: " + " ".join(shlex.quote(w) for w in words)
    if problems:
        return "FAIL", detail + "\n    " + "\n    ".join(problems) + "\n    output:\n" + \
            "\n".join("      | " + l for l in lines[-30:])
    return "PASS", detail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases")
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--mpiexec", default="mpiexec", help="the MPI launcher")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--preflags", default="",
                    help="launcher flags after the rank count (one string, shell words)")
    ap.add_argument("--sanitized", action="store_true")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--case", action="append", default=[])
    args = ap.parse_args()
    args.preflags = shlex.split(args.preflags)
    args.mpiexec = [args.mpiexec]
    cases = load(args.cases)
    if args.case:
        known = {c["name"] for c in cases}
        unknown = [n for n in args.case if n not in known]
        if unknown:
            sys.exit(f"unknown case(s): {', '.join(unknown)}")
        cases = [c for c in cases if c["name"] in args.case]
    results = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    with tempfile.TemporaryDirectory(prefix="hk-misuse-") as tmp:
        os.mkfifo(os.path.join(tmp, "fifo"))
        for c in cases:
            status, detail = run_case(c, args, tmp)
            results[status] += 1
            print(f"{status} {c['name']} ({c['where']}): {detail}", flush=True)
    print(f"misuse: {results['PASS']} passed, {results['FAIL']} failed, {results['SKIP']} skipped")
    if results["FAIL"]:
        return 1
    return 77 if results["SKIP"] == len(cases) else 0


if __name__ == "__main__":
    sys.exit(main())
