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

--predict: the table from the cost model (hybridkit.advice.collmodel) instead of timing
every case: hk-bench collparams (or --params records) -> fitted machine parameters ->
predicted time of every (algorithm, threads) per size -> the same rows; kept under
"model" and "predicted". --check also measures (hk-bench allreduce) and reports predicted
vs measured per case and how often the model's pick is the measured best.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
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

With --predict, run 'hk-bench collparams' instead (or take --params records) and write the
table the cost model predicts; --check then also measures and compares.

examples:
  hybridkit tune allreduce --np 2 --threads 4
  hybridkit tune allreduce --np 1 --threads 2 --predict --check
  hybridkit tune allreduce --np 4 --threads 2 --mpi mpich --sizes 1K:16M
  hybridkit tune allreduce --from-records results/runs/*/records.jsonl --output t.json

then: export HK_COLL_TUNING=<output> (and mpirun -x HK_COLL_TUNING for Open MPI)."""

FORMAT = "hybridkit-allreduce-tuning"
VERSION = 1
ALGORITHMS = ("mpi", "chunked", "chunked-shifted", "hierarchical")
DEFAULT_OUTPUT = Path("results") / "tuning" / "allreduce.json"
SIZES = re.compile(r"^\d+[KMG]?(:\d+[KMG]?)?$", re.IGNORECASE)

Choice = Tuple[str, int]  # (algorithm, threads)


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
                        help="MPI library (default: $HK_MPI, else openmpi)")
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
    parser.add_argument("--predict", action="store_true",
                        help="write the table the cost model predicts from the machine "
                             "parameters (hk-bench collparams), not from timing every case")
    parser.add_argument("--params", nargs="+", type=Path, metavar="FILE",
                        help="with --predict: fit to these bench.collparams records; run no "
                             "collparams")
    parser.add_argument("--check", action="store_true",
                        help="with --predict: also measure (hk-bench allreduce, or the "
                             "--from-records records) and report predicted vs measured")


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
    return table_of(table, meta, "measured")


def table_of(table: Dict[int, Dict[Choice, float]], meta: Optional[dict], key: str) -> dict:
    """Rows from per-size times (us) of the choices, measured or predicted (kept as `key`)."""
    sizes = sorted(table)
    winners = [best(table[s]) for s in sizes]
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
    kept = [{"size": s, "best": f"{w[0]} x{w[1]}",
             "time_us": {f"{a} x{t}": round(v, 3) for (a, t), v in sorted(table[s].items())}}
            for s, w in zip(sizes, winners)]
    return {"format": FORMAT, "version": VERSION, **(meta or {}), "min_bytes": min_bytes,
            "rows": rows, key: kept}


def size_list(spec: str) -> List[int]:
    """hk-bench's sizes of -m MIN:MAX: MIN, 2 MIN, ... up to MAX."""
    def parse(t: str) -> int:
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:].upper(), 1)
        return int(t[:-1] if mult > 1 else t) * mult
    lo, _, hi = spec.partition(":")
    a, b = parse(lo), parse(hi or lo)
    out = []
    while a <= b:
        out.append(a)
        a *= 2
    return out


def predictions(params: "collmodel.MachineParams", sizes: Sequence[int], ranks: int,
                ranks_per_node: int, threads: int) -> Dict[int, Dict[Choice, float]]:
    """size -> {(algorithm, threads): predicted us}, the choices the measured mode times
    (one-rank runs: mpi only, as measurements() keeps only rows that ran as asked)."""
    out: Dict[int, Dict[Choice, float]] = {}
    for size in sizes:
        row = {}
        for alg, t in collmodel.choices(params, threads):
            if alg != "mpi" and (ranks == 1 or (t == 1 and alg != "hierarchical")):
                continue  # the library falls back: the measured table has no such row
            sec = collmodel.predict(params, "allreduce", alg, t, size, ranks, ranks_per_node)
            if math.isfinite(sec):
                row[(alg, t)] = sec * 1e6
        out[size] = row
    return out


def compare(predicted: Dict[int, Dict[Choice, float]], measured: Dict[int, Dict[Choice, float]]
            ) -> dict:
    """Predicted vs measured: the ratio of every case both have, and per size whether the
    model's pick is the measured best (a pick within 5 % of the best counts: noise)."""
    ratios, picks, rows = [], 0, []
    sizes = sorted(set(predicted) & set(measured))
    for size in sizes:
        common = set(predicted[size]) & set(measured[size])
        if not common:
            continue
        p = {c: predicted[size][c] for c in common}
        m = {c: measured[size][c] for c in common}
        pick, top = best(p), best(m)
        ok = m[pick] <= 1.05 * m[top]
        picks += ok
        for c in sorted(common):
            ratios.append(p[c] / m[c])
        rows.append({"size": size, "predicted_best": f"{pick[0]} x{pick[1]}",
                     "measured_best": f"{top[0]} x{top[1]}", "pick_ok": ok,
                     "ratio": {f"{a} x{t}": round(p[(a, t)] / m[(a, t)], 3)
                               for a, t in sorted(common)}})
    if not rows:
        raise HKError("no size both predicted and measured to compare")
    return {"cases": len(ratios), "sizes": len(rows), "pick_equals_best": picks / len(rows),
            "ratio_min": min(ratios), "ratio_median": statistics.median(ratios),
            "ratio_max": max(ratios), "per_size": rows}


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


def measure(ns: argparse.Namespace, records_path: Path, experiment: str = "allreduce") -> None:
    """Run hk-bench allreduce (or collparams) once, writing its records to records_path."""

    mpi = ns.mpi or default_mpi()
    cores = local_cores()
    threads = ns.threads or max(1, cores // ns.np)
    if ns.np * threads > cores and not ns.oversubscribe:
        raise UsageError(f"{ns.np} ranks x {threads} threads need {ns.np * threads} cores, this "
                         f"machine has {cores} (pass --oversubscribe to run anyway)")
    binary = find_binary("hk-bench", mpi)
    args = ["allreduce", "-m", ns.sizes, "--threads", ",".join(map(str, range(1, threads + 1))),
            "--min-bytes", "0", "--output", str(records_path)]
    if experiment == "collparams":
        args = ["collparams", "--output", str(records_path)]
    if ns.iters and experiment == "allreduce":
        args += ["-i", str(ns.iters)]
    spec = LaunchSpec(binary=str(binary), args=args, np=ns.np, threads=threads, mpi=mpi,
                      oversubscribe=ns.np * threads > cores, cores_per_host=cores)
    launcher = launcher_for("mpirun", mpi)
    launcher.check_available()
    launch = launcher.build(spec)
    records_path.parent.mkdir(parents=True, exist_ok=True)
    records_path.unlink(missing_ok=True)
    print(f"# {launch.shell_line()}", flush=True)
    proc = subprocess.run(launch.argv, env={**os.environ, **launch.env},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no message"]
        raise HKError(f"hk-bench {experiment} failed (exit {proc.returncode}): {tail[0]}")


def shape(ns: argparse.Namespace, records: Sequence[dict]) -> Tuple[int, int, int]:
    """(ranks, ranks per node, threads) of the table: the measured allreduce records'
    provenance when there are some, else the command line (HK_NODE_SIZE: ranks per node)."""
    if records:
        prov = records[0].get("provenance", {})
        ranks = int(prov.get("ranks", ns.np))
        nodes = max(1, int(prov.get("nodes", 1)))
        return ranks, max(1, ranks // nodes), int(prov.get("threads_per_rank", 1))
    threads = ns.threads or max(1, local_cores() // ns.np)
    node = os.environ.get("HK_NODE_SIZE", "").strip()
    per_node = int(node) if node.isdigit() and int(node) > 0 else ns.np
    return ns.np, per_node, threads


def run_predict(ns: argparse.Namespace) -> int:
    if ns.params:
        prec = load(ns.params)
        source = [str(p) for p in ns.params]
    else:
        ppath = ns.output.with_suffix(".collparams.jsonl")
        measure(ns, ppath, "collparams")
        prec = load([ppath])
        source = [str(ppath)]
    params = collmodel.fit(prec)
    measured_records: List[dict] = []
    if ns.check:
        if ns.from_records:
            measured_records = load(ns.from_records)
        else:
            mpath = ns.output.with_suffix(".records.jsonl")
            measure(ns, mpath)
            measured_records = load([mpath])
    ranks, per_node, threads = shape(ns, measured_records)
    if measured_records:
        params = collmodel.fit_overhead(params, measured_records, ranks, per_node)
    sizes = (sorted(measurements(measured_records)) if measured_records else size_list(ns.sizes))
    predicted = predictions(params, sizes, ranks, per_node, threads)
    meta = {"source": source, "machine": platform.node(), "ranks": ranks,
            "ranks_per_node": per_node, "threads": threads, "model": params.to_json()}
    table = table_of(predicted, meta, "predicted")
    if measured_records:
        table["check"] = compare(predicted, measurements(measured_records))
    write_table(table, ns.output)
    print(describe(table))
    if measured_records:
        chk = table["check"]
        print(f"# predicted vs measured: {chk['cases']} cases over {chk['sizes']} sizes, ratio "
              f"{chk['ratio_min']:.2f} .. {chk['ratio_max']:.2f} (median "
              f"{chk['ratio_median']:.2f}); the model's pick is the measured best (within 5 %) "
              f"at {100 * chk['pick_equals_best']:.0f} % of the sizes")
        for row in chk["per_size"]:
            print(f"  {row['size']:>10} B  predicted {row['predicted_best']:<20} measured "
                  f"{row['measured_best']:<20} {'ok' if row['pick_ok'] else 'MISS'}")
    print(f"# written to {ns.output}; use it with: export HK_COLL_TUNING={ns.output.resolve()}")
    sys.stdout.flush()
    return 0


def run_allreduce(ns: argparse.Namespace) -> int:
    if ns.params or ns.check:
        if not ns.predict:
            raise UsageError("--params and --check go with --predict")
    if ns.predict:
        return run_predict(ns)
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
