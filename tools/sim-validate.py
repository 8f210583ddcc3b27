#!/usr/bin/env python3
"""tools/sim-validate.py: issue 43 item 5: the same hk-jacobi or hk-mz runs on tools/vcluster's emulated
nodes (and this machine as one node) and simulated by `hybridkit simulate` on a platform that
describes them; time per iteration side by side, the ratio, and the ranking of the layouts.
Never part of make test (root for the emulated cluster; it measures this machine, it asserts
nothing).

    layout NnPxT: N nodes x P ranks per node x T threads (hk-jacobi: T > 1 --mode masteronly,
    else pure; hk-mz: OpenMP inside the zones);
    N > 1 runs on N emulated nodes (vcluster mpirun, --map-by ppr:P:node), N = 1 on this machine
    (mpirun --map-by slot:PE=T --bind-to core). Simulated: a platform of N nodes of
    cpus / N cores (the emulated node's share of this machine), links from the calibration.

The platform is calibrated from micro-benchmarks, never from the runs it is compared with:
  inter-node  hk-bench pingpong between two emulated nodes: latency of 8 B -> --link-lat,
              size / (latency(size) - latency(8 B)) at the halo's size -> --link-bw
  intra-node  the same on this machine: --intra-lat, --cpu-injection
  node rate   the app on one node of this machine, in runs of their own: 1 rank x 1 .. cpus
              threads (R(n)) and 2 .. cpus ranks x 1 thread (table lines 'Px1 rate'), on the
              validated problem unless --rate-size / --rate-class say otherwise
              -> --node-rate table. So a one-node layout is simulated from its own
              measurement (a check of the replay), a multi-node one from the node's rate
              and the links' calibration: that is the independent check.
Each round runs every layout real, then simulated (--compute measured: the simulated compute
bursts are timed on this machine too, so both sides see the same load; others' CPU share of
every run is recorded and busy runs repeated). JSON Lines to --out, a Markdown table on stdout.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as L  # noqa: E402
from benchlib import REPO  # noqa: E402

TOOL = "sim-validate"
VC_ENV = {"VCLUSTER_STATE": "/run/hybridkit-sim-validate", "VCLUSTER_PREFIX": "hksv",
          "VCLUSTER_SUBNET": "10.81.0"}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--app", choices=("jacobi", "mz"), default="jacobi")
    p.add_argument("--layouts", default="2n1x1,1n2x1,1n1x2,1n1x1", help="comma list of NnPxT")
    p.add_argument("--rate", default="1gbit", help="tc tbf rate of every emulated node's uplink")
    p.add_argument("--size", type=int, default=192, help="hk-jacobi --size (grid edge)")
    p.add_argument("--iters", type=int, default=60, help="hk-jacobi --iters")
    p.add_argument("--rate-size", type=int, default=None, help="grid edge of the node-rate runs")
    p.add_argument("--mz", default="sp:W", help="hk-mz BENCH:CLASS of the validated runs")
    p.add_argument("--rate-class", default=None, help="hk-mz class of the node-rate runs (default: --mz's)")
    p.add_argument("--msg-bytes", type=int, default=None, help="message size the links are calibrated at "
                   "(default: hk-jacobi's halo face, size^2 x 8; hk-mz 32768)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--max-busy", type=float, default=0.10, help="others' CPU share above which a run is repeated")
    p.add_argument("--retries", type=int, default=2)
    p.add_argument("--hk-bin", default=os.path.join(REPO, "build", "release", "bin"))
    p.add_argument("--smpi-bin", default=os.path.join(REPO, "build", "smpi-release", "bin"))
    p.add_argument("--work", help="scratch directory (default: a new temporary one)")
    p.add_argument("--out", default="sim-validate.jsonl", help="JSON Lines output (appended)")
    p.add_argument("--summarize", metavar="FILE.jsonl", help="no runs: the table of FILE's records")
    a = p.parse_args(argv)
    a.layouts = [parse_layout(p, s) for s in a.layouts.split(",") if s]
    a.rate_size = a.rate_size or a.size
    a.hk_bin_b = None  # benchlib.provenance() asks
    return a


def parse_layout(p, s):
    m = re.fullmatch(r"(\d+)n(\d+)x(\d+)", s)
    if not m:
        p.error("layout %r is not NnPxT" % s)
    n, ranks, t = (int(x) for x in m.groups())
    cpus = os.cpu_count() or 1
    if n < 1 or ranks < 1 or t < 1 or n * ranks * t > cpus or cpus % n:
        p.error("layout %s: needs N x P x T <= %d cores, N dividing them (no oversubscription: "
                "the times would be the scheduler's)" % (s, cpus))
    return s, n, ranks, t


def vcluster(*args):
    env = dict(os.environ, **VC_ENV)
    return subprocess.run([os.path.join(REPO, "tools", "vcluster", "vcluster")] + list(args),
                          env=env, capture_output=True, text=True)


def launch(a, nodes, ranks, t, argv):
    """the real launch of NnPxT"""
    if nodes > 1:
        return ([os.path.join(REPO, "tools", "vcluster", "vcluster"), "mpirun", "-np", str(nodes * ranks),
                 "--map-by", "ppr:%d:node" % ranks, "-x", "OMP_NUM_THREADS=%d" % t] + argv)
    return (["mpirun.openmpi", "-np", str(ranks), "--map-by", "slot:PE=%d" % t, "--bind-to", "core",
             "-x", "OMP_NUM_THREADS=%d" % t, "-x", "OMP_PLACES=cores", "-x", "OMP_PROC_BIND=close"] + argv)


def last_record(path):
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    return json.loads(lines[-1]) if lines else None


def run_kept(a, argv, out_file):
    """one run repeated while others' share is above --max-busy; (run, record or None)"""
    best = None
    for attempt in range(a.retries + 1):
        if out_file and os.path.exists(out_file):
            os.remove(out_file)
        run = L.measured_run(argv, 900)
        run["attempt"] = attempt
        rec = last_record(out_file) if out_file and os.path.exists(out_file) else None
        best = (run, rec)
        if run["others_share"] <= a.max_busy:
            break
    return best


def pingpong(a, work, nodes, size):
    """(latency of 8 B in s, bandwidth at size in B/s) between two ranks on nodes nodes"""
    f = os.path.join(work, "pp.jsonl")
    argv = [os.path.join(a.hk_bin, "hk-bench"), "pingpong", "-m", "8:%d" % size, "--window", "0",
            "--output", f]
    run, _ = run_kept(a, launch(a, nodes, 1 if nodes > 1 else 2, 1, argv), f)
    if run["rc"] != 0:
        raise RuntimeError("pingpong failed: %s" % run["stderr"][-800:])
    lat = {}
    for line in open(f):
        r = json.loads(line)
        key = "inter_latency" if nodes > 1 else "intra_latency"
        if key in r["results"]:
            lat[r["params"]["size"]] = r["results"][key]["avg"] * 1e-6
    big = max(s for s in lat if s <= size)
    return lat[8], big / max(lat[big] - lat[8], 1e-9)


def node_rate(a, work):
    """the --node-rate table: R(n) = the app's rate (MLUP/s, Mop/s) of one rank x n threads on
    this machine, and 'Px1 rate' lines of P ranks x 1 thread (ranks sharing the node pay no
    OpenMP overhead: docs/simulate.md), n, P = 1 .. cpus, in runs of their own"""
    lines = []
    field = "mlups" if a.app == "jacobi" else "mops"
    cpus = os.cpu_count() or 1
    for ranks, t in [(1, t) for t in range(1, cpus + 1)] + [(p, 1) for p in range(2, cpus + 1)]:
        f = os.path.join(work, "rate.jsonl")
        argv = [os.path.join(a.hk_bin, "hk-" + a.app)] + app_args(a, t, rate=True) + ["--output", f]
        run, rec = run_kept(a, launch(a, 1, ranks, t, argv), f)
        if not rec:
            raise RuntimeError("node-rate run %dx%d failed: %s" % (ranks, t, run["stderr"][-800:]))
        lines.append("%s %.6g" % (t if ranks == 1 else "%dx1" % ranks, rec["results"][field]["value"]))
    path = os.path.join(work, "node-rate.txt")
    with open(path, "w") as fh:
        fh.write("# hk-%s %s on one node of this machine (tools/sim-validate.py)\n" % (
            a.app, " ".join(app_args(a, 1, rate=True))))
        fh.write("\n".join(lines) + "\n")
    return path


def app_args(a, t, rate=False):
    if a.app == "mz":
        bench, _, cls = a.mz.partition(":")
        return ["--bench", bench, "--class", (a.rate_class or cls) if rate else cls, "-q"]
    return ["--mode", "masteronly" if t > 1 else "pure", "--size", str(a.rate_size if rate else a.size),
            "--iters", str(a.iters), "--boundary", "dirichlet"]


def sim_argv(a, cal, work, nodes, ranks, t):
    cores = (os.cpu_count() or 1) // nodes
    return [os.path.join(REPO, ".venv", "bin", "hybridkit"), "simulate", "--nodes", str(nodes),
            "--cores", str(cores), "--link-bw", "%.6gBps" % cal["link_bw"], "--link-lat",
            "%.6gus" % (cal["link_lat"] * 1e6), "--intra-lat", "%.6gus" % (cal["intra_lat"] * 1e6),
            "--cpu-injection", "%.6gBps" % cal["intra_bw"], "--ranks-per-node", str(ranks),
            "--threads", str(t), "--node-rate", cal["node_rate"], "--results", os.path.join(work, "sim"),
            os.path.join(a.smpi_bin, "hk-" + a.app), "--"] + app_args(a, t)


def newest_sim_record(work):
    runs = os.path.join(work, "sim", "runs")
    if not os.path.isdir(runs):
        return None
    d = max((os.path.join(runs, x) for x in os.listdir(runs)), key=os.path.getmtime)
    f = os.path.join(d, "records.jsonl")
    return last_record(f) if os.path.exists(f) else None


def measure(a, work, sink):
    up = vcluster("up", str(max(n for _, n, _, _ in a.layouts)), "--rate", a.rate, "--slots",
                  str((os.cpu_count() or 1) // max(n for _, n, _, _ in a.layouts)))
    if up.returncode != 0:
        raise RuntimeError("vcluster up failed (rc %d): %s%s" % (up.returncode, up.stdout, up.stderr))
    os.environ.update(VC_ENV)
    try:
        halo = a.msg_bytes or (a.size * a.size * 8 if a.app == "jacobi" else 32768)
        cal = {}
        if any(n > 1 for _, n, _, _ in a.layouts):
            cal["link_lat"], cal["link_bw"] = pingpong(a, work, 2, halo)
        cal["intra_lat"], cal["intra_bw"] = pingpong(a, work, 1, halo)
        cal.setdefault("link_lat", cal["intra_lat"])
        cal.setdefault("link_bw", cal["intra_bw"])
        cal["node_rate"] = node_rate(a, work)
        cal["node_rate_table"] = open(cal["node_rate"]).read()
        emit(sink, {"what": "calibration", **cal, "halo_bytes": halo, "rate": a.rate,
                    "app": a.app, "args": app_args(a, 1), "provenance": L.provenance(a)})
        for rnd in range(a.rounds):
            for lay, nodes, ranks, t in a.layouts:
                f = os.path.join(work, "real.jsonl")
                argv = [os.path.join(a.hk_bin, "hk-" + a.app)] + app_args(a, t) + ["--output", f]
                run, rec = run_kept(a, launch(a, nodes, ranks, t, argv), f)
                emit(sink, result("real", lay, rnd, run, rec))
                run, _ = run_kept(a, sim_argv(a, cal, work, nodes, ranks, t), None)
                emit(sink, result("simulated", lay, rnd, run, newest_sim_record(work) if run["rc"] == 0 else None))
    finally:
        vcluster("down", "--kill")


def result(side, lay, rnd, run, rec):
    r = {"what": side, "layout": lay, "round": rnd, "rc": run["rc"], "others_share": run["others_share"],
         "wall_s": run["wall_s"], "attempt": run["attempt"]}
    if rec:
        res = rec["results"]
        tpi = res.get("time_per_iter") or res.get("time_per_step")  # hk-jacobi, hk-mz
        r["time_per_iter"] = tpi["avg"] if tpi else None
        r.update({k: res[k]["avg"] for k in ("compute", "comm") if k in res})
        r["verified"] = run["rc"] == 0
    else:
        r["error"] = run["stderr"][-600:]
    return r


def emit(sink, rec):
    rec["tool"] = TOOL
    sink.write(json.dumps(rec) + "\n")
    sink.flush()
    print("#", json.dumps(rec)[:200], file=sys.stderr)


def summary(recs):
    cal = [r for r in recs if r["what"] == "calibration"]
    out = []
    if cal:
        c = cal[-1]
        out.append("Calibration: inter-node %.2f us, %.1f MB/s at %d B; intra-node %.2f us, %.0f MB/s; "
                   "node rate (R(n) at n threads): %s" % (
                       c["link_lat"] * 1e6, c["link_bw"] / 1e6, c["halo_bytes"], c["intra_lat"] * 1e6,
                       c["intra_bw"] / 1e6, "; ".join(l for l in c["node_rate_table"].splitlines()
                                                      if not l.startswith("#"))))
    lays = list(dict.fromkeys(r["layout"] for r in recs if "layout" in r))
    med = {}
    out += ["", "| layout | real ms/step (range) | simulated ms/step (range) | simulated / real | "
            "real compute / comm ms | simulated compute / comm ms | check |", "|---|---|---|---|---|---|---|"]
    for lay in lays:
        row = {}
        for side in ("real", "simulated"):
            rs = [r for r in recs if r.get("layout") == lay and r["what"] == side and r.get("time_per_iter")]
            if rs:
                tp = [1e3 * r["time_per_iter"] for r in rs]
                row[side] = (statistics.median(tp), min(tp), max(tp),
                             statistics.median(1e3 * r.get("compute", 0) for r in rs),
                             statistics.median(1e3 * r.get("comm", 0) for r in rs))
        med[lay] = row
        cell = lambda s: "%.3f (%.3f-%.3f)" % row[s][:3] if s in row else "-"  # noqa: E731
        split = lambda s: "%.3f / %.3f" % row[s][3:] if s in row else "-"  # noqa: E731
        ratio = "%.2f" % (row["simulated"][0] / row["real"][0]) if len(row) == 2 else "-"
        check = "replay (its own one-node rate)" if lay.startswith("1n") else "independent"
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (lay, cell("real"), cell("simulated"), ratio,
                                                             split("real"), split("simulated"), check))
    both = [l for l in lays if len(med[l]) == 2]
    rank = lambda side: sorted(both, key=lambda l: med[l][side][0])  # noqa: E731
    out += ["", "Ranking (fastest first): real %s; simulated %s: %s" % (
        " < ".join(rank("real")), " < ".join(rank("simulated")),
        "the same" if rank("real") == rank("simulated") else "DIFFERENT")]
    shares = sorted(r["others_share"] for r in recs if "others_share" in r)
    if shares:
        out.append("%d runs; others' CPU share median %.1f %%, max %.1f %%" % (
            len(shares), 100 * shares[len(shares) // 2], 100 * shares[-1]))
    return "\n".join(out)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if a.summarize:
        with open(a.summarize) as f:
            recs = [json.loads(l) for l in f if l.strip()]
        print(summary([r for r in recs if r.get("tool") == TOOL]))
        return 0
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    work = a.work or tempfile.mkdtemp(prefix=TOOL + "-")
    os.makedirs(work, exist_ok=True)
    start = os.path.getsize(a.out) if os.path.exists(a.out) else 0
    with open(a.out, "a") as sink:
        measure(a, work, sink)
    with open(a.out) as f:
        f.seek(start)
        print(summary([json.loads(l) for l in f if l.strip()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
