"""The interleaved run loop of tools/bench-limits.py and tools/bench-coll.py (issue 42; one
copy, issue 43): one measured run with others' CPU share, the busy runs repeated, the JSON
Lines record with provenance, the rounds, the load line of the summary, records read back
for --summarize. What the runs are (builds, cases, parsers) is in bench_limits_cases.py.

Others' CPU share comes from hybridkit.study.quality.LoadProbe (the busy time of /proc/stat
minus this process's and its reaped children's rusage), the probe `hybridkit run` uses.

Never part of make test: it measures this machine, it asserts nothing."""
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "python", "src"))
import bench_limits_cases as C  # noqa: E402
from hybridkit.study.quality import LoadProbe  # noqa: E402

OSU_MIRROR = "/work/.mirror/sherrywong1220+osu-micro-benchmarks-7.4/repo"


def measured_run(argv, timeout):
    """one run; wall time and the CPU time others used meanwhile"""
    probe = LoadProbe.start()
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or "", e.stderr or ""
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        err = err.decode(errors="replace") if isinstance(err, bytes) else err
    wall = time.monotonic() - t0
    load = probe.finish(wall)
    return {"rc": rc, "stdout": out, "stderr": err, "wall_s": round(wall, 4),
            "own_cpu_s": load["own_cpu_s"], "others_cpu_s": load["others_cpu_s"] or 0.0,
            "others_share": load["share"] or 0.0, "steal_s": load.get("steal_cpu_s", 0.0)}


def parse(case, run, jsonl):
    """the result of a run by the parser its case names"""
    if case["parse"] == "hk":
        return C.parse_hk(run, open(jsonl).read() if os.path.exists(jsonl) else "")
    if case["parse"] == "plain":
        return C.parse_plain(run)
    if case["parse"] == "girih":
        return C.parse_girih(run, case["ranks"])
    return C.parse_osu(run)


def one_run(a, case, work, run=measured_run):
    """a case run until others' share is <= --max-busy (at most --retries repeats);
    returns the kept attempt's record (run: the measured run, a fake in tests)"""
    best = None
    for attempt in range(a.retries + 1):
        argv = list(case["argv"])
        jsonl = None
        if case["parse"] == "hk":
            jsonl = os.path.join(work, "hk-run.jsonl")
            if os.path.exists(jsonl):
                os.remove(jsonl)
            argv += ["--output", jsonl]
        r = run(case["launch"] + argv, a.timeout)
        res = parse(case, r, jsonl)
        rec = {k: case[k] for k in ("id", "group", "variant", "set", "size", "layout", "ranks", "threads")}
        rec.update(case.get("record", {}))  # a caller's own fields (tools/bench-coll.py)
        rec.update(res)
        rec.update({k: r[k] for k in ("rc", "wall_s", "own_cpu_s", "others_cpu_s", "others_share", "steal_s")})
        rec.update({"attempt": attempt, "command": case["launch"] + argv,
                    "binding": C.mpirun_bindings(r["stderr"])})
        if r["rc"] != 0 or not res.get("ok"):
            rec["error"] = (r["stdout"][-1500:] + r["stderr"][-1500:])
            return rec
        if best is None or rec["others_share"] < best["others_share"]:
            best = rec
        if rec["others_share"] <= a.max_busy:
            break
    best["flagged_busy"] = best["others_share"] > a.max_busy
    return best


def emit(a, prov, rec, rnd, sink, tool):
    """the record with its round and provenance, one JSON line to sink, one progress line to stderr"""
    rec = dict(rec, tool=tool, round=rnd, timestamp=datetime.datetime.utcnow().isoformat() + "Z",
               provenance=prov)
    sink.write(json.dumps(rec) + "\n")
    sink.flush()
    v = rec.get("value")
    shown = ("%.0f %s" % (v, rec["unit"])) if isinstance(v, float) else ("%d sizes" % len(v) if v else "-")
    print("# round %s %-28s %-12s others %4.1f %%%s%s" % (
        rnd, rec["id"], shown, 100 * rec["others_share"], " (flagged)" if rec.get("flagged_busy") else "",
        " ERROR rc=%s" % rec["rc"] if "error" in rec else ""), file=sys.stderr, flush=True)
    return rec


def rounds(a, prov, work, cases, tool, first=(), run=measured_run):
    """first (once, round "roofline"), then --rounds interleaved rounds of cases (a list, or a
    function of the round returning one), every record appended to --out; returns the records"""
    records = []
    with open(a.out, "a") as sink:
        for case in first:
            records.append(emit(a, prov, one_run(a, case, work, run), "roofline", sink, tool))
        for rnd in range(a.rounds):
            for case in (cases(rnd) if callable(cases) else cases):
                records.append(emit(a, prov, one_run(a, case, work, run), rnd, sink, tool))
    return records


def git_sha(path):
    try:
        return subprocess.run(["git", "-C", path, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or None
    except OSError:
        return None


def provenance(a):
    model = None
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")), None)
    except OSError:
        pass
    return {"host": platform.node(), "cpu_model": model, "cpus": os.cpu_count(),
            "repo_commit": git_sha(REPO), "hk_bin": os.path.abspath(a.hk_bin),
            "hk_bin_b": os.path.abspath(a.hk_bin_b) if a.hk_bin_b else None, "max_busy": a.max_busy}


def prepare(a, tool):
    """before the runs: root may run Open MPI, the work directory, mpirun and mpicc found"""
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    work = a.work or tempfile.mkdtemp(prefix=tool + "-")
    os.makedirs(work, exist_ok=True)
    a.mpirun, a.mpicc = C.which(a.mpirun), C.which(a.mpicc)
    return work


def fmt(mr, digits=0):
    """'median (lo-hi)' of C.med_range's tuple, the median alone for one value, '-' for none"""
    if mr is None:
        return "-"
    m, lo, hi, n = mr
    f = "%%.%df" % digits
    return (f + " (" + f + "-" + f + ")") % (m, lo, hi) if n > 1 else f % m


def load_line(a, recs):
    """the summary's line on the runs and the load during them ('' without runs)"""
    shares = sorted(r["others_share"] for r in recs)
    if not shares:
        return ""
    return ("\n%d runs; others' CPU share: median %.1f %%, max %.1f %%; %d runs above %.0f %% kept "
            "flagged; %d failed" % (
                len(recs), 100 * shares[len(shares) // 2], 100 * shares[-1],
                sum(1 for r in recs if r.get("flagged_busy")), 100 * a.max_busy,
                sum(1 for r in recs if "error" in r)))


def summarize(a, tool, restore, summary):
    """--summarize FILE: the summary of tool's records in FILE, with the settings the runs had
    (--max-busy from the provenance, the rest by restore(a, recs, prov)); 1 without records"""
    with open(a.summarize) as f:
        recs = [json.loads(l) for l in f if l.strip()]
    recs = [r for r in recs if r.get("tool") == tool]
    if not recs:
        print("no %s records in %s" % (tool, a.summarize), file=sys.stderr)
        return 1
    prov = recs[-1]["provenance"]
    a.max_busy = prov.get("max_busy", a.max_busy)
    restore(a, recs, prov)
    summary(a, prov, recs)
    return 0
