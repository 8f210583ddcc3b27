#!/usr/bin/env python3
"""tools/bench-coll.py: issue 39's closing benchmark (and issue 42 item 3): OSU 7.4's blocking
collectives plain and under libhybridkit-preload.so, interleaved rounds on this machine, ratio
per size preloaded/plain. Never part of make test; it asserts nothing.

It shares tools/benchlib.py with tools/bench-limits.py (one run measured with others' CPU
share, busy runs repeated, JSON Lines with provenance, the rounds) and bench_limits_cases.py
(the OSU build, the launcher, the parsers); see docs/performance.md "The collectives benchmark".

Layouts: PxT = P ranks x T threads on this machine (mpirun --map-by slot:PE=T --bind-to core);
NnPxT = N emulated nodes of tools/vcluster x P ranks per node x T threads (root; the cluster is
its own: VCLUSTER_STATE/PREFIX/SUBNET of this script, brought up and down here).

    a round, per layout and collective:  small plain, small preload [, small VARIANT ...],
                                         large plain, large preload [, large VARIANT ...]
    (small: sizes <= --split, -i --iters-small; large: the rest, -i --iters-large;
    --variant: more preloaded runs with their own environment, e.g. a threshold)

JSON Lines (one record per run) to --out, a Markdown summary on stdout."""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_limits_cases as C  # noqa: E402
import benchlib as L  # noqa: E402
from benchlib import REPO  # noqa: E402

TOOL = "bench-coll"
# collective -> (OSU program, MPI function the preload would intercept, bytes hk compares
# with its threshold per OSU size: "P" where it is P x the size (docs/coll.md's table))
COLLS = {
    "allreduce": ("osu_allreduce", "MPI_Allreduce", 1), "reduce": ("osu_reduce", "MPI_Reduce", 1),
    "bcast": ("osu_bcast", "MPI_Bcast", 1), "allgather": ("osu_allgather", "MPI_Allgather", "P"),
    "alltoall": ("osu_alltoall", "MPI_Alltoall", "P"),
    "reduce_scatter_block": ("osu_reduce_scatter_block", "MPI_Reduce_scatter_block", 1),
    "reduce_scatter": ("osu_reduce_scatter", "MPI_Reduce_scatter", 1),
    "allgatherv": ("osu_allgatherv", "MPI_Allgatherv", "P"), "alltoallv": ("osu_alltoallv", "MPI_Alltoallv", "P"),
    "gather": ("osu_gather", "MPI_Gather", "P"), "scatter": ("osu_scatter", "MPI_Scatter", "P"),
}
DEFAULT_COLLS = "allreduce,reduce,bcast,allgather,alltoall,reduce_scatter_block"
VC_ENV = {"VCLUSTER_STATE": "/run/hybridkit-bench-coll", "VCLUSTER_PREFIX": "hkbc", "VCLUSTER_SUBNET": "10.79.0"}


def parse_layout(s):
    """'2x1' -> (None, 2, 1); '2n2x1' -> (2, 2, 1): nodes (None: this machine), ranks per node, threads"""
    m = re.fullmatch(r"(?:(\d+)n)?(\d+)x(\d+)", s)
    if not m:
        raise ValueError("layout %r is not PxT or NnPxT" % s)
    n, p, t = m.groups()
    return (int(n) if n else None, int(p), int(t))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", help="build and scratch directory (default: a new temporary one)")
    p.add_argument("--out", default="bench-coll.jsonl", help="JSON Lines output (appended)")
    p.add_argument("--hk-bin", default=os.path.join(REPO, "build", "release", "bin"),
                   help="its ../lib holds libhybridkit-preload.so (or give --hk-lib)")
    p.add_argument("--hk-lib", help="default: --hk-bin/../lib")
    p.add_argument("--collectives", default=DEFAULT_COLLS, help="comma list of " + ", ".join(COLLS))
    p.add_argument("--layouts", default="2x1", help="comma list of PxT (this machine) and NnPxT "
                   "(N emulated nodes, P ranks per node, T threads), e.g. 2x1,2n2x1,2n1x2")
    p.add_argument("--sizes", default=None, help="OSU -m MIN:MAX (default 4:4194304)")
    p.add_argument("--split", type=int, default=8192, help="the last size of the small run (0: one run)")
    p.add_argument("--iters-small", type=int, default=None, help="OSU -i of the small run (default 20000)")
    p.add_argument("--iters-large", type=int, default=None, help="OSU -i of the large run (default 500)")
    p.add_argument("--precision", type=int, default=4, help="decimals OSU prints (its FLOAT_PRECISION; OSU: 2)")
    p.add_argument("--osu-type", default="", help="OSU -T (default: OSU's own, MPI_CHAR)")
    p.add_argument("--hk-env", action="append", default=[], metavar="VAR=VALUE",
                   help="environment of the preloaded runs (repeatable), e.g. HK_COLL_MIN_BYTES=0")
    p.add_argument("--variant", action="append", default=[], metavar="NAME:VAR=VALUE,...",
                   help="one more preloaded run per pair, with this environment on top of --hk-env "
                   "(repeatable), e.g. nomodel:HK_COLL_MIN_BYTES=1073741824 or bcastmpi:HK_BCAST_ALGORITHM=mpi; "
                   "LD_PRELOAD=another libhybridkit-preload.so compares two builds")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 3)")
    p.add_argument("--max-busy", type=float, default=0.05, help="others' CPU share above which a run is repeated")
    p.add_argument("--retries", type=int, default=None, help="repeats of a busy run (default 2; 0 with --quick)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run")
    p.add_argument("--mpirun", default="mpirun.openmpi")
    p.add_argument("--mpicc", default="mpicc.openmpi")
    p.add_argument("--vcluster", default=os.path.join(REPO, "tools", "vcluster", "vcluster"))
    p.add_argument("--keep-cluster", action="store_true", help="leave the emulated cluster up at the end")
    p.add_argument("--quick", action="store_true", help="~1-minute smoke run")
    p.add_argument("--summarize", metavar="FILE.jsonl", help="no runs: the summary of the records in FILE")
    a = p.parse_args(argv)
    quick = {"sizes": "4:65536", "rounds": 1, "retries": 0, "iters_small": 1000, "iters_large": 100}
    full = {"sizes": "4:4194304", "rounds": 3, "retries": 2, "iters_small": 20000, "iters_large": 500}
    for k, v in (quick if a.quick else full).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    a.collectives = [c for c in a.collectives.split(",") if c]
    bad = [c for c in a.collectives if c not in COLLS]
    if bad:
        p.error("unknown collective(s) %s; known: %s" % (",".join(bad), ", ".join(COLLS)))
    try:
        a.layouts = [(s, parse_layout(s)) for s in a.layouts.split(",") if s]
    except ValueError as e:
        p.error(str(e))
    a.hk_env = dict(kv.split("=", 1) for kv in a.hk_env)
    a.variants = [("plain", None), ("preload", {})]
    for spec in a.variant:
        name, _, env = spec.partition(":")
        if not name or name in ("plain", "preload") or "/" in name:
            p.error("--variant NAME:VAR=VALUE,...: bad or taken name %r" % name)
        a.variants.append((name, dict(kv.split("=", 1) for kv in env.split(",") if kv)))
    a.hk_lib = a.hk_lib or os.path.join(os.path.dirname(os.path.abspath(a.hk_bin)), "lib")
    a.hk_bin_b = None  # benchlib.provenance() asks
    return a


def size_parts(a):
    """the OSU -m ranges and -i of each part: [(tag, 'MIN:MAX', iters)]"""
    lo, hi = (int(x) for x in a.sizes.split(":"))
    if a.split and lo <= a.split < hi:
        return [("small", "%d:%d" % (lo, a.split), a.iters_small),
                ("large", "%d:%d" % (a.split * 2, hi), a.iters_large)]
    return [("all", a.sizes, a.iters_small if hi <= a.split else a.iters_large)]


def vcluster_launch(a, nodes, P, T, env):
    """mpirun through tools/vcluster (inside node0, --bind-to none): P ranks per node;
    ranks yield when idle where the cores are oversubscribed (else busy-polling ranks fight)"""
    cmd = [a.vcluster, "mpirun", "-np", str(nodes * P), "--map-by", "ppr:%d:node" % P]
    if nodes * P * T > (os.cpu_count() or 1):
        cmd += ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
    full = {"OMP_NUM_THREADS": str(T), "OMP_PROC_BIND": "false"}
    full.update(env)
    for k, v in full.items():
        cmd += ["-x", "%s=%s" % (k, v)]
    return cmd


def make_cases(a, exes):
    """every run of one round, in its order"""
    cases = []
    preload = os.path.join(a.hk_lib, "libhybridkit-preload.so")
    for lay, (nodes, P, T) in a.layouts:
        for coll in a.collectives:
            prog = COLLS[coll][0]
            for part, sizes, iters in size_parts(a):
                for var, extra in a.variants:
                    env = {} if extra is None else {**a.hk_env, "LD_PRELOAD": preload, "HK_PRELOAD_VERBOSE": "1", **extra}
                    launch = (vcluster_launch(a, nodes, P, T, env) if nodes
                              else C.launcher(a.mpirun, P, T, env))
                    argv = [exes[prog], "-m", sizes, "-i", str(iters), "-x", str(max(10, iters // 10))] + (
                        ["-T", a.osu_type] if a.osu_type else [])
                    cases.append({"id": "%s/%s/%s/%s" % (lay, coll, part, var), "group": "osu", "variant": var,
                                  "set": None, "size": None, "layout": lay, "ranks": (nodes or 1) * P,
                                  "threads": T, "parse": "osu", "launch": launch, "argv": argv,
                                  "record": {"collective": coll, "part": part, "nodes": nodes or 1,
                                             "ranks_per_node": P, "iters": iters, "osu_sizes": sizes}})
    return cases


def vcluster(a, *args):
    env = dict(os.environ, **VC_ENV)
    return subprocess.run([a.vcluster] + list(args), env=env, capture_output=True, text=True)


def measure(a, prov, exes, work, run=L.measured_run):
    os.environ.update(VC_ENV)  # the launches through vcluster find this script's own cluster
    nodes = {n for _, (n, _, _) in a.layouts if n}
    if len(nodes) > 1:
        raise RuntimeError("one emulated node count per run (got %s)" % sorted(nodes))
    if nodes:
        up = vcluster(a, "up", str(nodes.pop()))
        if up.returncode != 0:
            raise RuntimeError("vcluster up failed (rc %d): %s%s" % (up.returncode, up.stdout, up.stderr))
        prov["vcluster"] = dict(VC_ENV, status=vcluster(a, "status").stdout[-800:])
    try:
        return L.rounds(a, prov, work, lambda rnd: make_cases(a, exes), TOOL, run=run)
    finally:
        if "vcluster" in prov and not a.keep_cluster:
            vcluster(a, "down", "--kill")


def merged(recs, lay, coll, var):
    """{round: {size: latency}} of one layout, collective and variant (the parts joined)"""
    out = {}
    for r in recs:
        if (r["layout"], r.get("collective"), r["variant"]) == (lay, coll, var) and r.get("value") \
                and "error" not in r:
            out.setdefault(r["round"], {}).update({int(k): v for k, v in r["value"].items()})
    return out


def hk_bytes(coll, size, ranks):
    return size * (ranks if COLLS[coll][2] == "P" else 1)


def thresholds(recs, lay, coll, var):
    """the threshold the preload printed for the collective (HK_PRELOAD_VERBOSE), None if none did"""
    seen = sorted({(r.get("preload") or {}).get(COLLS[coll][1], {}).get("threshold") for r in recs
                   if (r["layout"], r.get("collective"), r["variant"]) == (lay, coll, var)} - {None})
    return seen[0] if len(seen) == 1 else None


def counts(recs, lay, coll, var):
    """the preload's own counts of one collective summed over the runs"""
    tot = {"calls": 0, "accelerated": {}, "passed": {}}
    for r in recs:
        p = (r.get("preload") or {}).get(COLLS[coll][1])
        if (r["layout"], r.get("collective"), r["variant"]) == (lay, coll, var) and p:
            tot["calls"] += p["calls"]
            for k in ("accelerated", "passed"):
                for name, n in p[k].items():
                    tot[k][name] = tot[k].get(name, 0) + n
    show = lambda d: ", ".join("%s %d" % kv for kv in sorted(d.items())) or "0"
    return "%d calls intercepted (all rounds, summed over the ranks), accelerated: %s; passed through: %s" % (
        tot["calls"], show(tot["accelerated"]), show(tot["passed"]))


def layout_tables(a, recs, lay, out):
    colls = [c for c in a.collectives if merged(recs, lay, c, "plain")]
    if not colls:
        return
    ranks = next(r["ranks"] for r in recs if r["layout"] == lay)
    plain = {c: merged(recs, lay, c, "plain") for c in colls}
    sizes = sorted({s for c in colls for v in plain[c].values() for s in v})
    pres = [v for v, _ in a.variants if v != "plain"]
    pre = {(v, c): merged(recs, lay, c, v) for v in pres for c in colls}
    for v in pres:
        if not any(pre[v, c] for c in colls):
            continue
        thr = {c: thresholds(recs, lay, c, v) or a.threshold for c in colls}
        out.append("\n### %s: %s / plain, median (range) of the per-round ratios; * = hk's bytes at or above "
                   "the preload's threshold (%s)\n" % (lay, v, ", ".join("%s %d B" % kv for kv in thr.items())))
        out.append("| size (B) | " + " | ".join(colls) + " |")
        out.append("|---|" + "---|" * len(colls))
        for s in sizes:
            cells = []
            for c in colls:
                p, q = pre[v, c], plain[c]
                mr = C.med_range([p[r][s] / q[r][s] for r in p if r in q and s in p[r] and q[r].get(s)])
                cells.append(L.fmt(mr, 2) + (" *" if mr and hk_bytes(c, s, ranks) >= thr[c] else ""))
            out.append("| %d | %s |" % (s, " | ".join(cells)))
    out.append("\n%s latency (us), median over rounds, %s:\n" % (lay, " / ".join(["plain"] + pres)))
    out.append("| size (B) | " + " | ".join(colls) + " |")
    out.append("|---|" + "---|" * len(colls))
    for s in sizes:
        med = lambda d: C.med_range([x.get(s) for x in d.values()])
        cells = [" / ".join("%.*f" % (2 if m[0] >= 10 else 3, m[0]) if m else "-"
                            for m in [med(plain[c])] + [med(pre[v, c]) for v in pres]) for c in colls]
        out.append("| %d | %s |" % (s, " | ".join(cells)))
    out.append("\n%s, the preload's own count (HK_PRELOAD_VERBOSE=1):\n" % lay)
    for v in pres:
        for c in colls:
            out.append("- %s%s: %s" % (COLLS[c][1], "" if len(pres) == 1 else " (%s)" % v, counts(recs, lay, c, v)))


def summary(a, prov, recs):
    out = ["## bench-coll on %s (%s, %d CPUs), repo %s, OSU %s" % (
        prov["host"], prov["cpu_model"], prov["cpus"], prov["repo_commit"], (prov.get("osu_commit") or "?")[:7])]
    if recs:
        out.append(L.load_line(a, recs) + ". OSU -i: %s; printed with %s decimals (us)" % (
            ", ".join(sorted({"%s %s" % (r.get("osu_sizes"), r.get("iters")) for r in recs})),
            prov.get("osu_precision")))
    if prov.get("hk_env"):
        out.append("\npreloaded runs' extra environment: %s" % prov["hk_env"])
    binds = {}
    for r in recs:
        binds.setdefault(r["layout"], r.get("binding") or (
            "unbound (vcluster's --bind-to none)" if r.get("nodes", 1) > 1 else None))
    out.append("\nBinding seen (mpirun --report-bindings): " + "; ".join(
        "%s: %s" % (k, v or "?") for k, v in sorted(binds.items())))
    for lay, _ in a.layouts:
        layout_tables(a, recs, lay, out)
    print("\n".join(out))


def restore(a, recs, prov):
    """--summarize: the settings of the runs, from their records"""
    a.collectives = [c for c in COLLS if any(r.get("collective") == c for r in recs)]
    a.layouts = [(l, parse_layout(l)) for l in sorted({r["layout"] for r in recs})]
    a.threshold = prov.get("threshold", 16384)
    a.variants = [("plain", None)] + [(v, {}) for v in dict.fromkeys(r["variant"] for r in recs) if v != "plain"]


def main(argv=None):
    a = parse_args(argv if argv is not None else sys.argv[1:])
    a.threshold = int(a.hk_env.get("HK_COLL_MIN_BYTES", 16384))
    if a.summarize:
        return L.summarize(a, TOOL, restore, summary)
    if not os.path.exists(os.path.join(a.hk_lib, "libhybridkit-preload.so")):
        print("no libhybridkit-preload.so in %s (build it, or give --hk-lib)" % a.hk_lib, file=sys.stderr)
        return 2
    work = L.prepare(a, TOOL)
    prov = L.provenance(a)
    prov.update({"hk_lib": os.path.abspath(a.hk_lib), "hk_env": a.hk_env, "threshold": a.threshold,
                 "osu_precision": a.precision})
    print("# work directory %s; records to %s" % (work, a.out), file=sys.stderr)
    with open(os.path.join(work, "build.log"), "a") as log:
        exes, prov["osu_commit"] = C.build_osu_set(L.OSU_MIRROR, work, a.mpicc, log,
                                                   sorted({COLLS[c][0] for c in a.collectives}), a.precision)
    recs = measure(a, prov, exes, work)
    summary(a, prov, recs)
    return 1 if any("error" in r for r in recs) else 0


if __name__ == "__main__":
    sys.exit(main())
