"""`hybridkit tune allreduce`: measure and store the hybrid allreduce tuning table.

    hk-bench allreduce --threads 1..T --min-bytes 0 (R ranks x T threads, every algorithm)
        --> records (bench.allreduce, type double)
        --> per size the fastest (algorithm, threads) by the slowest rank's time
        --> rows: consecutive sizes with the same winner merged
        --> JSON file the C library loads through HK_COLL_TUNING (src/coll/config.c):

    {"format": "hybridkit-allreduce-tuning", "version": 1, "min_bytes": 16384,
     "rows": [{"max_bytes": 8192, "algorithm": "mpi", "threads": 1},
              {"max_bytes": null, "algorithm": "chunked", "threads": 2}], ...}

A message of b bytes uses the first row with b <= max_bytes (null: no limit). A size
between two measured ones takes the row of the larger one. `min_bytes` is where the
library stops passing messages straight to MPI: the end of the first row when that
row is mpi, else 0. The measurements themselves are kept under "measured".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from hybridkit.advice import collmodel
from hybridkit.cliargs import MAX_ITERS, MAX_RANKS, MAX_THREADS, count
from hybridkit.errors import HKError, UsageError
from hybridkit.launch.cpuset import local_cores
from hybridkit.launch.launchers import MPIS, LaunchSpec, default_mpi, launcher_for
from hybridkit.paths import find_binary
from hybridkit.records import load_records

HELP = "tune the library for this machine"
DESCRIPTION = "Measure and store tuning tables the hybridkit library loads at run time."
ALLREDUCE_HELP = "measure the best hybrid allreduce algorithm and thread count per message size"
ALLREDUCE_DESCRIPTION = """\
Run 'hk-bench allreduce' with R ranks x T threads (every algorithm; the hybrid ones at
1..T threads, tiny-message threshold off), pick the fastest algorithm and thread count
for every message size (time of the slowest rank, double sums) and write the table the
library loads when HK_COLL_TUNING names it. With --from-records, build the table from
existing bench.allreduce records instead of running anything.

examples:
  hybridkit tune allreduce --np 2 --threads 4
  hybridkit tune allreduce --np 4 --threads 2 --mpi mpich --sizes 1K:16M
  hybridkit tune allreduce --from-records results/runs/*/records.jsonl --output t.json

then: export HK_COLL_TUNING=<output> (and mpirun -x HK_COLL_TUNING for Open MPI)."""

FORMAT = "hybridkit-allreduce-tuning"
VERSION = 1
ALGORITHMS = ("mpi", "chunked", "chunked-shifted", "hierarchical")
DEFAULT_OUTPUT = Path("results") / "tuning" / "allreduce.json"
SIZES = re.compile(r"^\d+[KMG]?(:\d+[KMG]?)?$", re.IGNORECASE)

Choice = Tuple[str, int]  # (algorithm, threads)
NEAR = 1.05  # --check: a pick whose measured time is within 5 % of the best's is "near"


def sizes_arg(text: str) -> str:
    if not SIZES.match(text):
        raise argparse.ArgumentTypeError(f"expected MIN:MAX bytes like 8:16M, got {text!r}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`tune` has only subcommands."""


def add_allreduce_arguments(parser: argparse.ArgumentParser) -> None:

    parser.add_argument("--np", type=count(MAX_RANKS), default=2, metavar="R",
                        help=f"MPI ranks, 1 to {MAX_RANKS} (default: %(default)s)")
    parser.add_argument("--threads", type=count(MAX_THREADS), default=None, metavar="T",
                        help=f"largest thread count tried, 1 to {MAX_THREADS} (default: cores / "
                             "ranks, at least 1)")
    parser.add_argument("--mpi", choices=MPIS, default=None,
                        help="MPI library (default: $HK_MPI; auto or unset: the MPI of the mpicc on "
                             "PATH)")
    parser.add_argument("--sizes", type=sizes_arg, default="8:16M", metavar="MIN:MAX",
                        help="message sizes in bytes, doubling (default: %(default)s)")
    parser.add_argument("--iters", type=count(MAX_ITERS), default=None, metavar="N",
                        help="timed iterations per size, 1 to 10^9 (default: hk-bench's "
                             "adaptive count)")
    parser.add_argument("--oversubscribe", action="store_true",
                        help="allow more ranks x threads than cores (timings then mislead)")
    parser.add_argument("--from-records", nargs="+", type=Path, metavar="FILE",
                        help="build the table from these bench.allreduce records; run nothing")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, metavar="FILE",
                        help="tuning table to write (default: %(default)s)")


# ---------------------------------------------------------------- the table

def measurements(records: Iterable[dict]) -> Dict[int, Dict[Choice, float]]:
    """size -> {(algorithm, threads): time of the slowest rank (us)}, double sums, only
    rows that ran what they were asked (a hybrid row that fell back measures mpi)."""
    table: Dict[int, Dict[Choice, float]] = {}
    for rec in records:
        if rec.get("kind") != "bench.allreduce":
            continue
        p, r = rec["params"], rec["results"]
        if p.get("type") != "double" or p.get("algorithm") not in ALGORITHMS:
            continue
        alg = p["algorithm"]
        if alg != "mpi" and p.get("ran", alg) != alg:
            continue
        threads = 1 if alg == "mpi" else int(p.get("threads_used", p.get("threads", 1)))
        time = float(r["time"]["max"])
        per_size = table.setdefault(int(p["size"]), {})
        key = (alg, threads)
        per_size[key] = min(time, per_size.get(key, time))
    return table


def best(per_size: Dict[Choice, float]) -> Choice:
    """The fastest choice; ties go to mpi, then fewer threads (cheaper to run)."""
    return min(per_size, key=lambda c: (per_size[c], c[0] != "mpi", c[1], c[0]))


def build_table(records: Iterable[dict], meta: Optional[dict] = None) -> dict:
    """The tuning table (a JSON-ready dict) from bench.allreduce records."""
    table = measurements(records)
    if not table:
        raise HKError("no bench.allreduce records of type double to build the table from")
    sizes = sorted(table)
    winners = [best(table[s]) for s in sizes]
    entry = merge_rows(sizes, winners)
    measured = [{"size": s, "best": f"{w[0]} x{w[1]}",
                 "time_us": {f"{a} x{t}": round(v, 3) for (a, t), v in sorted(table[s].items())}}
                for s, w in zip(sizes, winners)]
    return {"format": FORMAT, "version": VERSION, **(meta or {}), **entry, "measured": measured}


def merge_rows(sizes: Sequence[int], winners: Sequence[Choice]) -> dict:
    """{"min_bytes", "rows"} of one collective: consecutive sizes with the same winner
    merged, the last row open (max_bytes null); min_bytes the end of the first row + 1
    when that row is mpi, else 0.  Shared by the measured and the predicted tables."""
    rows: List[dict] = []
    for size, (alg, threads) in zip(sizes, winners):
        if rows and (rows[-1]["algorithm"], rows[-1]["threads"]) == (alg, threads):
            rows[-1]["max_bytes"] = size
        else:
            rows.append({"max_bytes": size, "algorithm": alg, "threads": threads})
    rows[-1]["max_bytes"] = None
    first = rows[0]
    min_bytes = (first["max_bytes"] + 1 if first["algorithm"] == "mpi" and first["max_bytes"]
                 else 0)
    return {"min_bytes": min_bytes, "rows": rows}


def write_table(table: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1) + "\n")


def describe(table: dict) -> str:
    lines = [f"# tuning table: {len(table['rows'])} row(s), min_bytes {table['min_bytes']}"]
    lo = 0
    for row in table["rows"]:
        hi = row["max_bytes"]
        span = f"{lo}..{hi}" if hi is not None else f"{lo}.."
        lines.append(f"  {span:>22} B  {row['algorithm']} x{row['threads']}")
        lo = (hi or 0) + 1
    return "\n".join(lines)


# ---------------------------------------------------------------- running

def load(paths: Sequence[Path]) -> List[dict]:

    records: List[dict] = []
    for path in paths:
        records.extend(load_records(path))
    return records


def measure(ns: argparse.Namespace, records_path: Path) -> None:
    """Run hk-bench allreduce once (every algorithm, threads 1..T, no tiny-message
    threshold), writing its records to records_path."""
    threads = ns.threads or max(1, local_cores() // ns.np)
    records_path.unlink(missing_ok=True)
    run_bench(ns, ["allreduce", "-m", ns.sizes, "--threads",
                   ",".join(map(str, range(1, threads + 1))), "--min-bytes", "0"],
              records_path, threads)


def run_allreduce(ns: argparse.Namespace) -> int:
    if ns.from_records:
        records = load(ns.from_records)
        meta = {"source": [str(p) for p in ns.from_records]}
    else:
        records_path = ns.output.with_suffix(".records.jsonl")
        measure(ns, records_path)
        records = load([records_path])
        meta = {"source": [str(records_path)]}
    if records:
        prov = records[0].get("provenance", {})
        meta.update(machine=platform.node(), mpi=prov.get("mpi_impl"),
                    ranks=prov.get("ranks"), threads=prov.get("threads_per_rank"))
    table = build_table(records, meta)
    write_table(table, ns.output)
    print(describe(table))
    print(f"# written to {ns.output}; use it with: export HK_COLL_TUNING={ns.output.resolve()}")
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------- version 2: every collective

FORMAT_V2 = "hybridkit-coll-tuning"
COLLECTIVES = collmodel.COLLECTIVES  # every one 'hk-bench coll' measures and the model predicts
COLL_HELP = "tune one hybrid collective (or all): measured, or predicted by the cost model"
COLL_DESCRIPTION = """\
Without --predict: run 'hk-bench coll' for the collective(s) (every algorithm, 1..T threads,
threshold off), pick the fastest per size and write the version 2 table (HK_COLL_TUNING).
With --predict: fit the cost model (hybridkit.advice.collmodel) to 'hk-bench collparams'
(or --params FILE: bench.collparams records or a fitted JSON), predict every algorithm and
thread count per size for --np ranks, --ranks-per-node per node, and write the table from the
predictions ("predicted", "model" keep them). --check K also measures K sizes per collective
with 'hk-bench coll' and prints predicted vs measured and how often the model's pick is the
measured best ("check" in the table). alltoallv: 'hk-bench coll' gives every pair the same
count; the table's bytes are the most a rank sends (P x the per-pair bytes).

examples:
  hybridkit tune all --predict --np 2 --threads 1
  hybridkit tune reduce --predict --params collparams.jsonl --np 4 --ranks-per-node 2
  hybridkit tune all --predict --check 4 --np 2
  hybridkit tune bcast --np 2 --threads 1
  hybridkit tune alltoallv --predict --np 4 --threads 2"""


def table_name(collective: str) -> str:
    return collective.replace("-", "_")


def sizes_of(text: str) -> List[int]:
    """MIN:MAX (bytes, K/M/G suffixes) -> the doubling sizes"""
    def one(v: str) -> int:
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(v[-1:].upper(), 1)
        return int(v[:-1] if mult > 1 else v) * mult
    lo, _, hi = text.partition(":")
    lo_b, hi_b = one(lo), one(hi or lo)
    out, s = [], max(1, lo_b)
    while s <= hi_b:
        out.append(s)
        s *= 2
    return out


def coll_measurements(records: Iterable[dict]) -> Dict[str, Dict[int, Dict[Choice, float]]]:
    """collective -> size -> {(algorithm, threads): slowest rank's time (us)} from bench.coll
    records that ran what they were asked (mpi rows always count)"""
    out: Dict[str, Dict[int, Dict[Choice, float]]] = {}
    for rec in records:
        if rec.get("kind") != "bench.coll":
            continue
        p, r = rec["params"], rec["results"]
        alg = p.get("algorithm")
        if alg not in ALGORITHMS or (alg != "mpi" and p.get("ran", alg) != alg):
            continue
        if p.get("type") not in (None, "double", "byte"):
            continue
        threads = 1 if alg == "mpi" else int(p.get("threads_used", p.get("threads", 1)))
        time = float(r["time"]["max"])
        cell = out.setdefault(p["collective"], {}).setdefault(int(p["size"]), {})
        key = (alg, threads)
        cell[key] = min(time, cell.get(key, time))
    return out


def build_table_v2(records: Iterable[dict], meta: Optional[dict] = None) -> dict:
    """The version 2 table from bench.coll records (every collective found)."""
    table = coll_measurements(records)
    if not table:
        raise HKError("no bench.coll records to build the table from")
    colls, measured = {}, {}
    for coll in sorted(table, key=COLLECTIVES.index):
        sizes = sorted(table[coll])
        winners = [best(table[coll][s]) for s in sizes]
        colls[table_name(coll)] = merge_rows(sizes, winners)
        measured[table_name(coll)] = [
            {"size": s, "best": f"{w[0]} x{w[1]}",
             "time_us": {f"{a} x{t}": round(v, 3) for (a, t), v in sorted(table[coll][s].items())}}
            for s, w in zip(sizes, winners)]
    return {"format": FORMAT_V2, "version": 2, **(meta or {}), "collectives": colls,
            "measured": measured}


def predict_table(params, collectives: Sequence[str], sizes: Sequence[int], ranks: int,
                  ranks_per_node: int, max_threads: int, meta: Optional[dict] = None) -> dict:
    """The version 2 table from the model's pick per size."""
    colls, predicted = {}, {}
    for coll in collectives:
        picks = [collmodel.best(params, coll, s, ranks, ranks_per_node, max_threads)
                 for s in sizes]
        colls[table_name(coll)] = merge_rows(sizes, [(a, t) for a, t, _ in picks])
        predicted[table_name(coll)] = [
            {"size": s, "best": f"{a} x{t}", "time_us": round(sec * 1e6, 3)}
            for s, (a, t, sec) in zip(sizes, picks)]
    return {"format": FORMAT_V2, "version": 2, **(meta or {}), "collectives": colls,
            "predicted": predicted, "model": params.to_json(),
            "shape": {"ranks": ranks, "ranks_per_node": ranks_per_node, "threads": max_threads}}


def check(params, records: Iterable[dict]) -> dict:
    """Predicted vs measured for every bench.coll case: per case the ratio predicted /
    measured (slowest rank); per (collective, size) whether the model's pick (among the
    measured choices) is the measured best ("equal") and whether its measured time is
    within 5 % of the best's ("near": a tie in the noise of this machine).
    {"cases", "picks", "agree", "near"}"""
    recs = list(records)
    shape: Dict[str, Tuple[int, int]] = {}
    for rec in recs:
        if rec.get("kind") == "bench.coll":
            p = rec["params"]
            shape[p["collective"]] = (int(p["ranks"]), int(p["ranks_per_node"]))
    cases, picks = [], []
    for coll, per_size in coll_measurements(recs).items():
        ranks, local = shape[coll]
        for size, choices in sorted(per_size.items()):
            pred = {c: collmodel.predict(params, coll, c[0], c[1], size, ranks, local)
                    for c in choices}
            for c, us in sorted(choices.items()):
                cases.append({"collective": coll, "size": size, "algorithm": c[0],
                              "threads": c[1], "measured_us": us,
                              "predicted_us": pred[c] * 1e6, "ratio": pred[c] * 1e6 / us})
            mine = min(pred, key=lambda c: (pred[c], c[0] != "mpi", c[1], c[0]))
            top = best(choices)
            picks.append({"collective": coll, "size": size, "model": f"{mine[0]} x{mine[1]}",
                          "measured": "%s x%d" % top, "equal": mine == top,
                          "near": choices[mine] <= NEAR * choices[top]})
    n = len(picks)
    agree = sum(p["equal"] for p in picks) / n if n else float("nan")
    near = sum(p["near"] for p in picks) / n if n else float("nan")
    return {"cases": cases, "picks": picks, "agree": agree, "near": near}


def describe_check(result: dict) -> str:
    lines = ["# predicted / measured (slowest rank)"]
    by: Dict[str, List[float]] = {}
    for c in result["cases"]:
        by.setdefault(c["collective"], []).append(c["ratio"])
    for coll, ratios in by.items():
        lines.append(f"  {coll:>15}: ratio {min(ratios):.2f} .. {max(ratios):.2f} "
                     f"({len(ratios)} cases)")
    lines.append(f"# model's pick = measured best in {result['agree']:.0%} of "
                 f"{len(result['picks'])} (collective, size) cases; within 5 % of the best "
                 f"in {result['near']:.0%}")
    return "\n".join(lines)


def add_coll_arguments(parser: argparse.ArgumentParser, collective: str) -> None:
    add_allreduce_arguments(parser)
    parser.set_defaults(collective=collective)
    parser.add_argument("--predict", action="store_true",
                        help="write the table from the cost model instead of measuring "
                             "every case")
    parser.add_argument("--params", type=Path, metavar="FILE",
                        help="with --predict: bench.collparams records (JSONL) or a fitted "
                             "model (JSON) instead of running hk-bench collparams")
    parser.add_argument("--ranks-per-node", type=count(MAX_RANKS), default=None, metavar="L",
                        help="with --predict: ranks per node of the launch the table is for "
                             "(default: --np, one node)")
    parser.add_argument("--check", type=count(64), default=0, metavar="K",
                        help="with --predict: measure K sizes per collective and compare")


def coll_arguments(collective: str):
    return lambda parser: add_coll_arguments(parser, collective)


def run_bench(ns: argparse.Namespace, bench_args: List[str], records_path: Path,
              threads: int) -> None:
    """Run hk-bench with bench_args (+ --output records_path)."""
    mpi = ns.mpi or default_mpi()
    cores = local_cores()
    if ns.np * threads > cores and not ns.oversubscribe:
        raise UsageError(f"{ns.np} ranks x {threads} threads need {ns.np * threads} cores, this "
                         f"machine has {cores} (pass --oversubscribe to run anyway)")
    binary = find_binary("hk-bench", mpi)
    args = bench_args + ["--output", str(records_path)]
    if ns.iters:
        args += ["-i", str(ns.iters)]
    spec = LaunchSpec(binary=str(binary), args=args, np=ns.np, threads=threads, mpi=mpi,
                      oversubscribe=ns.np * threads > cores, cores_per_host=cores)
    launcher = launcher_for("mpirun", mpi)
    launcher.check_available()
    launch = launcher.build(spec)
    records_path.parent.mkdir(parents=True, exist_ok=True)
    print(f"# {launch.shell_line()}", flush=True)
    proc = subprocess.run(launch.argv, env={**os.environ, **launch.env},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        said = [ln for ln in proc.stderr.strip().splitlines() if ln.strip("- ")]
        raise HKError(f"hk-bench {bench_args[0]} failed (exit {proc.returncode}): "
                      f"{(said or ['no message'])[0]}")


def load_params(path: Path):
    """A fitted model (JSON: MachineParams or a table with "model") or records to fit."""
    text = path.read_text()
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict) and ("copy_rate" in obj or "model" in obj):
        return collmodel.MachineParams.from_json(obj.get("model", obj))
    return collmodel.fit(load_records(path))


def run_collective(ns: argparse.Namespace) -> int:
    colls = list(COLLECTIVES) if ns.collective == "all" else [ns.collective]
    threads = ns.threads or max(1, local_cores() // ns.np)
    out = ns.output if ns.output != DEFAULT_OUTPUT else DEFAULT_OUTPUT.with_name(
        f"{table_name(ns.collective)}{'.predicted' if ns.predict else ''}.json")
    tlist = ",".join(map(str, range(1, threads + 1)))
    meta: dict = {"machine": platform.node()}
    if not ns.predict:
        if ns.from_records:
            records = load(ns.from_records)
        else:
            path = out.with_suffix(".records.jsonl")
            path.unlink(missing_ok=True)
            for coll in colls:
                run_bench(ns, ["coll", "--collective", coll, "--threads", tlist,
                               "--min-bytes", "0", "-m", ns.sizes], path, threads)
            records = load([path])
        table = build_table_v2(records, meta)
    else:
        if ns.params:
            params = load_params(ns.params)
        else:
            path = out.with_suffix(".collparams.jsonl")
            path.unlink(missing_ok=True)
            run_bench(ns, ["collparams", "--threads", tlist], path, threads)
            params = collmodel.fit(load([path]))
        local = ns.ranks_per_node or ns.np
        table = predict_table(params, colls, sizes_of(ns.sizes), ns.np, local, threads, meta)
        if ns.check:
            every = sizes_of(ns.sizes)  # K sizes spread over the range, both ends included
            k = min(ns.check, len(every))
            some = sorted({every[round(i * (len(every) - 1) / max(1, k - 1))] for i in range(k)})
            path = out.with_suffix(".check.jsonl")
            path.unlink(missing_ok=True)
            for coll in colls:
                for s in some:
                    run_bench(ns, ["coll", "--collective", coll, "--threads", tlist,
                                   "--min-bytes", "0", "-m", f"{s}:{s}"], path, threads)
            result = check(params, load([path]))
            table["check"] = {"agree": result["agree"], "near": result["near"],
                              "picks": result["picks"], "cases": result["cases"]}
            print(describe_check(result))
    write_table(table, out)
    for name, entry in table["collectives"].items():
        print(f"## {name}")
        print(describe(entry))
    print(f"# written to {out}; use it with: export HK_COLL_TUNING={out.resolve()}")
    sys.stdout.flush()
    return 0


def run_allreduce_or_predict(ns: argparse.Namespace) -> int:
    """`tune allreduce`: version 1 as before; with --predict the model's version 2 table"""
    if getattr(ns, "predict", False):
        return run_collective(ns)
    return run_allreduce(ns)
