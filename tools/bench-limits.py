#!/usr/bin/env python3
"""tools/bench-limits.py: issue 42's benchmark of hk against its references, side by side
in interleaved rounds on this machine (never part of make test; it asserts nothing):
hk-jacobi (w = 1 cached/auto and nt stores, w = 4 wavefront, w = 8 pipeline in strips) against
the plain OpenMP Jacobi (bench/plain/jacobi_omp.c) and girih (MWD), at 1x1, 1x2 and 2x1, with
hk-jacobi's own roofline and in-core limit once per layout; osu_allreduce plain and under
libhybridkit-preload.so at 2 ranks bound to a core each. Optionally a second hk set (--hk-bin-b)
measured in the same rounds (before/after). References are built in --work (default: a new
temporary directory) from the mirrors; see docs/performance.md "The limits benchmark".

JSON Lines (one record per run, provenance included) to --out, a Markdown summary on stdout."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_limits_cases as C  # noqa: E402
import benchlib as L  # noqa: E402
from benchlib import REPO, fmt  # noqa: E402

TOOL = "bench-limits"
GIRIH_MIRROR = "/work/.mirror/ecrc+girih/repo"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", help="build and scratch directory (default: a new temporary one)")
    p.add_argument("--out", default="bench-limits.jsonl", help="JSON Lines output (appended)")
    p.add_argument("--hk-bin", default=os.path.join(REPO, "build", "release", "bin"))
    p.add_argument("--hk-lib", help="default: --hk-bin/../lib")
    p.add_argument("--hk-bin-b", help="a second hk set measured in the same rounds (e.g. /tmp/baseline/bin)")
    p.add_argument("--hk-lib-b", help="default: --hk-bin-b/../lib")
    p.add_argument("--only", default="jacobi,girih,osu", help="comma list of jacobi, girih, osu")
    p.add_argument("--variants", default=",".join(C.HK_VARIANTS),
                   help="hk-jacobi cases, comma list (default all: %(default)s)")
    p.add_argument("--sizes", default=None, help="grid sizes N (N^3), comma list (default 256,512)")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 3)")
    p.add_argument("--iters", type=int, default=None, help="hk and plain timed sweeps (default 48)")
    p.add_argument("--warmup", type=int, default=None, help="untimed sweeps first (default 8)")
    p.add_argument("--girih-nt", type=int, default=None, help="girih time steps (default 66)")
    p.add_argument("--girih-tune", default="", help="override, e.g. 1x1=31:1,1x2=15:2 (t-dim:num-wavefronts)")
    p.add_argument("--osu-sizes", default=None, help="osu -m (default 8:1048576)")
    p.add_argument("--osu-iters", type=int, default=None, help="osu -i (default 2000)")
    p.add_argument("--osu-type", default="", help="osu -T (default: OSU's own, MPI_CHAR)")
    p.add_argument("--no-roofline", action="store_true", help="skip the --roofline runs")
    p.add_argument("--max-busy", type=float, default=0.05, help="others' CPU share above which a run is repeated")
    p.add_argument("--retries", type=int, default=None,
                   help="repeats of a busy run before it is kept flagged (default 2; 0 with --quick)")
    p.add_argument("--timeout", type=float, default=900, help="seconds per run")
    p.add_argument("--mpirun", default="mpirun.openmpi")
    p.add_argument("--mpicc", default="mpicc.openmpi")
    p.add_argument("--quick", action="store_true", help="~2-minute smoke run at small sizes")
    p.add_argument("--summarize", metavar="FILE.jsonl", help="no runs: the summary of the records in FILE "
                   "(e.g. of a run stopped early; the sizes and sets are taken from the records)")
    a = p.parse_args(argv)
    quick = {"sizes": "64,128", "rounds": 2, "retries": 0, "iters": 8, "warmup": 2, "girih_nt": 18,
             "osu_sizes": "8:65536", "osu_iters": 200}
    full = {"sizes": "256,512", "rounds": 3, "retries": 2, "iters": 48, "warmup": 8, "girih_nt": 66,
            "osu_sizes": "8:1048576", "osu_iters": 2000}
    for k, v in (quick if a.quick else full).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    a.sizes = [int(s) for s in a.sizes.split(",") if s]
    a.only = set(a.only.split(","))
    a.variants = [v for v in a.variants.split(",") if v]
    if set(a.variants) - set(C.HK_VARIANTS):
        p.error("--variants takes %s" % ", ".join(C.HK_VARIANTS))
    if a.only - {"jacobi", "girih", "osu"}:
        p.error("--only takes jacobi, girih, osu")
    a.hk_lib = a.hk_lib or os.path.join(os.path.dirname(os.path.abspath(a.hk_bin)), "lib")
    if a.hk_bin_b:
        a.hk_lib_b = a.hk_lib_b or os.path.join(os.path.dirname(os.path.abspath(a.hk_bin_b)), "lib")
    a.girih_tune = {tuple(int(x) for x in k.split("x")): tuple(int(x) for x in v.split(":"))
                    for k, v in (kv.split("=") for kv in a.girih_tune.split(",") if kv)}
    return a


def build(a, work, prov):
    tools = {}
    with open(os.path.join(work, "build.log"), "a") as log:
        if "jacobi" in a.only:
            tools["plain"] = C.build_plain(REPO, work, log)
        if "girih" in a.only:
            tools["girih"], prov["girih_commit"] = C.build_girih(GIRIH_MIRROR, work, a.mpicc, log)
            prov["girih_flags"] = C.GIRIH_FLAGS + " (local patch: rank 0's MPI_Bcast of auto_tune_params)"
        if "osu" in a.only:
            tools["osu"], prov["osu_commit"] = C.build_osu(L.OSU_MIRROR, work, a.mpicc, log)
    return tools


def measure(a, prov, tools, work, run=L.measured_run):
    first = C.roofline_cases(a) if "jacobi" in a.only and not a.no_roofline else []
    return L.rounds(a, prov, work, C.make_cases(a, tools), TOOL, first, run)


def per_round(recs, key):
    return {r["round"]: r["value"] for r in recs if r["id"] == key and r.get("value") is not None
            and "error" not in r}


def ratio(recs, num, den):
    """median (range) of the per-round ratios of two cases"""
    a, b = per_round(recs, num), per_round(recs, den)
    return C.med_range([a[r] / b[r] for r in a if r in b and b[r]])


def jacobi_tables(a, recs, out):
    sets = ["A"] + (["B"] if a.hk_bin_b else [])
    lays = ["%dx%d" % l for l in C.LAYOUTS]
    roof = {(r["size"], r["layout"]): r for r in recs if r["group"] == "roofline" and "error" not in r}
    for n in a.sizes:
        out.append("\n### Jacobi %d^3, MLUP/s: median (range) over rounds\n" % n)
        out.append("| case | " + " | ".join(lays) + " |")
        out.append("|---|" + "---|" * len(lays))
        rows = [(v, s) for s in sets for v in a.variants] + [("plain", None), ("girih", None)]
        for v, s in rows:
            cells = []
            for lay in lays:
                key = "/".join(str(x) for x in (n, lay, v, s) if x is not None)
                rs = [r for r in recs if r["id"] == key]
                flag = sum(1 for r in rs if r.get("flagged_busy"))
                cells.append(fmt(C.med_range(list(per_round(recs, key).values()))) + (" [%d busy]" % flag if flag else ""))
            if any(c != "-" for c in cells):
                out.append("| %s%s | %s |" % (v, "" if s in (None, "A") else " (B)", " | ".join(cells)))
        out.append("\nRatios: median (range) of the per-round ratios; efficiency = median MLUP/s over "
                   "hk-jacobi's roofline / in-core limit (--roofline run of that layout, set A)\n")
        out.append("| case | ratio | " + " | ".join(lays) + " |")
        out.append("|---|---|" + "---|" * len(lays))
        for s in sets:
            sfx = "" if s == "A" else " (B)"
            for v in a.variants:
                k = lambda lay, var=v, st=s: "%d/%s/%s/%s" % (n, lay, var, st)
                rows = [("hk/plain", lambda lay: ratio(recs, k(lay), "%d/%s/plain" % (n, lay))),
                        ("hk/girih", lambda lay: ratio(recs, k(lay), "%d/%s/girih" % (n, lay)))]
                if v != "hk-w1":
                    rows.append(("/hk-w1", lambda lay: ratio(recs, k(lay), k(lay, "hk-w1"))))
                if s == "B":
                    rows.append(("A/B", lambda lay: ratio(recs, k(lay, v, "A"), k(lay))))
                if s == "A":
                    for lim in ("roofline_mlups", "incore_mlups"):
                        rows.append(("eff. " + lim.split("_")[0], lambda lay, lim=lim: efficiency(
                            recs, k(lay), roof.get((n, lay)), lim)))
                for name, f in rows:
                    cells = [fmt(f(lay), 2) for lay in lays]
                    if any(c != "-" for c in cells):
                        out.append("| %s%s | %s | %s |" % (v, sfx, name, " | ".join(cells)))
        for lay in lays:
            r = roof.get((n, lay))
            if r:
                out.append("\n%s roofline run: %.0f MLUP/s measured, roofline %.0f, in-core %.0f, bound %s, "
                           "bandwidth spread %.0f %%, others %.1f %%" % (
                               lay, r["value"], r.get("roofline_mlups") or 0, r.get("incore_mlups") or 0,
                               r.get("bound"), 100 * (r.get("roofline_spread") or 0), 100 * r["others_share"]))


def efficiency(recs, key, roof, lim):
    if not roof or not roof.get(lim):
        return None
    vals = list(per_round(recs, key).values())
    mr = C.med_range(vals)
    return None if mr is None else tuple(x / roof[lim] for x in mr[:3]) + (mr[3],)


def osu_table(a, recs, out):
    sets = ["A"] + (["B"] if a.hk_bin_b else [])
    lat = lambda r: {int(k): v for k, v in r["value"].items()}  # JSON keys are strings
    plain = {r["round"]: lat(r) for r in recs if r["id"] == "2x1/osu-plain" and r.get("value")}
    if not plain:
        return
    sizes = sorted({s for v in plain.values() for s in v})
    out.append("\n### osu_allreduce, 2 ranks x 1 thread: latency (us) median over rounds; "
               "preloaded/plain median (range) of the per-round ratios\n")
    head = "| size (B) | plain | " + " | ".join("preload %s | ratio %s" % (s, s) for s in sets) + " |"
    out.append(head)
    out.append("|---|---|" + "---|---|" * len(sets))
    for size in sizes:
        row = [str(size), fmt(C.med_range([v.get(size) for v in plain.values()]), 2)]
        for s in sets:
            pre = {r["round"]: lat(r) for r in recs if r["id"] == "2x1/osu-preload/" + s and r.get("value")}
            row.append(fmt(C.med_range([v.get(size) for v in pre.values()]), 2))
            row.append(fmt(C.med_range([pre[r][size] / plain[r][size] for r in pre
                                        if r in plain and size in pre[r] and plain[r].get(size)]), 2))
        out.append("| " + " | ".join(row) + " |")


def summary(a, prov, recs):
    out = ["## bench-limits on %s (%s, %d CPUs), repo %s%s" % (
        prov["host"], prov["cpu_model"], prov["cpus"], prov["repo_commit"],
        ", girih %s" % prov["girih_commit"][:7] if "girih_commit" in prov else "")]
    if "osu_commit" in prov:
        out[0] += ", OSU %s" % prov["osu_commit"][:7]
    if recs:
        out.append(L.load_line(a, recs))
    binds = {}
    for r in recs:
        binds.setdefault((r["layout"], r["variant"].split("-")[0]), (r.get("binding"), r.get("binding_threads")))
    out.append("\nBinding seen (mpirun --report-bindings; threads from the program where it reports them):")
    for (lay, prog), (b, t) in sorted(binds.items()):
        out.append("- %s %s: %s%s" % (lay, prog, b or "?", "; threads " + t if t else ""))
    if "jacobi" in a.only or "girih" in a.only:
        jacobi_tables(a, recs, out)
    if "osu" in a.only:
        osu_table(a, recs, out)
    checks = {}
    for r in recs:
        if r["variant"] == "plain" and r.get("checksum"):
            checks.setdefault(r["size"], set()).add(r["checksum"])
    for n, cs in sorted(checks.items()):
        out.append("\nplain checksum %d^3: %s" % (n, "same in every run" if len(cs) == 1 else "DIFFERS: %s" % cs))
    print("\n".join(out))


def restore(a, recs, prov):
    """--summarize: the settings of the runs, from their records"""
    a.sizes = sorted({r["size"] for r in recs if r.get("size")})
    groups = {r["group"] for r in recs}
    a.only = (groups - {"roofline"}) | ({"jacobi"} if "roofline" in groups else set())
    a.hk_bin_b = prov.get("hk_bin_b")


def main(argv=None):
    a = parse_args(argv if argv is not None else sys.argv[1:])
    if a.summarize:
        return L.summarize(a, TOOL, restore, summary)
    work = L.prepare(a, TOOL)
    prov = L.provenance(a)
    print("# work directory %s; records to %s" % (work, a.out), file=sys.stderr)
    tools = build(a, work, prov)
    recs = measure(a, prov, tools, work)
    summary(a, prov, recs)
    return 1 if any("error" in r for r in recs) else 0


if __name__ == "__main__":
    sys.exit(main())
