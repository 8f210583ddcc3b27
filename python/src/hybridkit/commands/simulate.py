"""`hybridkit simulate [PLATFORM] BINARY -- ARGS`: run hk-bench / hk-jacobi in SimGrid SMPI.

    platform (named, changed, or generated) --> platform.xml + hostfile in the run directory
    --> smpirun -platform ... -hostfile ... -np R BINARY ARGS --output records.jsonl
        (HK_NODE_SIZE = ranks per node: hk's node is the platform's node)
    --> every record gets "simulated": true, "platform": {...}, provenance.simulator
    --> validated like a real run's; report and advise read the run directory

The model (what a CPU, a NIC, a node are; how compute phases are timed) is in
docs/simulate.md and hybridkit.simplatform.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

from hybridkit import __version__
from hybridkit.cliargs import MAX_CORES, MAX_NODES, count
from hybridkit.errors import HKError, UsageError
from hybridkit.paths import repo_root
from hybridkit.rundir import (RESERVE, create_run_dir, iso, run_dir_name, run_streaming,
                              utc_now, write_json)
from hybridkit.simplatform import Platform, add_platform_arguments, platform_from_args

HELP = "run hk-bench or hk-jacobi on a simulated cluster (SimGrid SMPI)"
DESCRIPTION = """\
Run BINARY (hk-bench or hk-jacobi, built for SMPI: make build-smpi) with SimGrid's smpirun
on a simulated cluster: a named platform (--platform sr8000 | ibm-sp | fat-tree, whose
parameters the options below may change) or one generated from --nodes/--cores/--link-bw/
--link-lat/--nic-per-node/--cpu-injection. One rank per simulated CPU; --use-nodes N and
--ranks-per-node P (stride --stride) choose which CPUs run ranks, node by node, and hk's
node is the platform's node (HK_NODE_SIZE=P). OpenMP threads are not simulated: run
with one thread per rank (the threads of a node are ranks sharing it).

The run directory <results>/runs/<stamp>-<binary>-<R>x1-sim-<platform> holds platform.xml,
hostfile, command.txt, env.json, stdout.txt, stderr.txt, records.jsonl (each record
marked "simulated": true with its "platform") and run.json; hybridkit report and advise
read it like a real run's and keep the two apart.

Network: the platform's numbers as they are: smpi/bw-factor and smpi/lat-factor 1 (no
SMPI piecewise corrections), network/crosstraffic 0 (no acknowledgement traffic) and 1 us per
MPI_Test/MPI_Iprobe (SMPI's default: 100 us, growing), unless --smpi-factors default.
Compute phases (--compute): 'off' (default for hk-bench) costs them nothing; 'measured'
(default for hk-jacobi) replays each compute burst for the time it took on this machine
(smpi/host-speed = the platform's CPU speed), so a simulated CPU is as fast as one core of
this machine.

examples:
  hybridkit simulate --platform sr8000 --use-nodes 8 hk-bench -- orthogonal -m 1K:1M
  hybridkit simulate --platform ibm-sp --use-nodes 2 hk-bench -- multipath -m 4M
  hybridkit simulate --nodes 4 --cores 8 --link-bw 10GBps --link-lat 2us \\
      --cpu-injection 4GBps hk-bench -- beff --compare-hybrid --lmax 64K --time-per-loop 0.005
  hybridkit simulate --platform sr8000 --use-nodes 2 --ranks-per-node 4 hk-jacobi -- \\
      --mode pure --size 64 --iters 20"""

SMPI_BUILD = Path("build") / "smpi-release" / "bin"
# SimGrid's configuration keys (Configuring_SimGrid in its documentation): NAME is one of
# these namespaces followed by '/...' (smpi/host-speed, network/model, ...), or a bare key
CFG_NAMESPACES = ("bmf", "contexts", "cpu", "debug", "disk", "exception", "host", "maxmin",
                  "model-check", "network", "ns3", "plugin", "precision", "smpi", "storage",
                  "surf", "tracing", "vm")
CFG_BARE = ("path", "plugin", "clean-atexit", "verbose-exit")
CFG_NAME = re.compile(r"^[a-z][a-z0-9_-]*(/[A-Za-z0-9_.-]+)*$")


def simgrid_cfg(text: str) -> str:
    """--cfg NAME:VALUE as smpirun takes it: checked here, not by a simulation that aborts."""
    name, sep, value = text.partition(":")
    allowed = (f"expected NAME:VALUE with NAME a SimGrid configuration key "
               f"(smpi/..., network/..., cpu/..., host/..., one of the namespaces "
               f"{', '.join(CFG_NAMESPACES)}), e.g. network/weight-S:0")
    if not sep or not value:
        raise argparse.ArgumentTypeError(f"{text!r}: {allowed}")
    head = name.split("/", 1)[0]
    known = head in CFG_NAMESPACES if "/" in name else name in CFG_BARE
    if not CFG_NAME.match(name) or not known:
        raise argparse.ArgumentTypeError(f"{text!r}: {name!r} is no SimGrid configuration "
                                         f"key; {allowed}")
    return text
KNOWN = ("hk-bench", "hk-jacobi")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("binary", metavar="BINARY", help="hk-bench or hk-jacobi (or a path to "
                        "a binary built with smpicc)")
    add_platform_arguments(parser)
    g = parser.add_argument_group("ranks and simulation")
    g.add_argument("--use-nodes", type=count(MAX_NODES), metavar="N",
                   help="nodes that run ranks (default: all of the platform's)")
    g.add_argument("--ranks-per-node", type=count(MAX_CORES), metavar="P",
                   help="ranks per node, on CPUs 0, S, 2S, ... (default: every CPU)")
    g.add_argument("--stride", type=count(MAX_CORES), default=1, metavar="S",
                   help="CPU stride of the ranks in a node (default: 1)")
    g.add_argument("--compute", choices=("off", "measured"),
                   help="compute phases: off (free) or measured on this machine "
                        "(default: off for hk-bench, measured for hk-jacobi)")
    g.add_argument("--smpi-factors", choices=("one", "default"), default="one",
                   help="one: the platform's bandwidth and latency as they are (default); "
                        "default: SMPI's piecewise corrections and cross traffic")
    g.add_argument("--cfg", action="append", default=[], metavar="KEY:VALUE",
                   type=simgrid_cfg,
                   help="more SimGrid configuration (repeatable; KEY in SimGrid's "
                        "namespaces smpi/, network/, cpu/, host/, ...), e.g. "
                        "network/weight-S:0")
    g.add_argument("--results", type=Path, default=Path("results"), metavar="DIR",
                   help="results directory (default: %(default)s)")
    g.add_argument("--dry-run", action="store_true",
                   help="print the smpirun command and the platform, run nothing")
    parser.add_argument("binary_args", nargs="*", metavar="-- BINARY_ARGS",
                        help="arguments passed to BINARY")


def smpi_binary(name: str) -> Path:
    """An SMPI build of NAME: a path, else $HK_SMPI_BIN_DIR/NAME, else
    <repo>/build/smpi-release/bin/NAME."""
    if "/" in name:
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"binary {name} does not exist")
        return path.resolve()
    if name not in KNOWN:
        raise UsageError(f"BINARY must be one of {', '.join(KNOWN)} or a path, not '{name}'")
    dirs = []
    if os.environ.get("HK_SMPI_BIN_DIR"):
        dirs.append(Path(os.environ["HK_SMPI_BIN_DIR"]))
    root = repo_root()
    if root:
        dirs.append(root / SMPI_BUILD)
    for d in dirs:
        if (d / name).is_file():
            return (d / name).resolve()
    raise HKError(f"{name} built for SMPI not found in {', '.join(map(str, dirs)) or '(nowhere)'}"
                  f": run 'make build-smpi' (needs libsimgrid-dev) or set HK_SMPI_BIN_DIR")


def simgrid_version() -> Optional[str]:
    """'3.32' from `smpirun -version`, None when smpirun is missing."""
    exe = shutil.which("smpirun")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "-version"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    words = out.split()
    return words[words.index("version") + 1] if "version" in words[:-1] else out.strip() or None


def smpi_config(compute: str, factors: str, plat: Platform, extra: List[str]) -> List[str]:
    cfg = []
    if factors == "one":
        # "0:1": one piece, factor 1 from size 0 on (a bare "1" crashes SimGrid 3.32)
        cfg += ["smpi/bw-factor:0:1", "smpi/lat-factor:0:1", "network/crosstraffic:0",
                # SMPI charges 100 us (growing) per MPI_Test/MPI_Iprobe by default, which
                # staggers ranks polling in hk-bench's sleeping barrier: 1 us, not growing
                "smpi/test:1e-6", "smpi/iprobe:1e-6", "smpi/grow-injected-times:no"]
    if compute == "off":
        cfg.append("smpi/simulate-computation:no")
    else:
        cfg.append(f"smpi/host-speed:{plat.speed}")
    return cfg + list(extra)


def build_command(binary: Path, plat_xml: Path, hostfile: Path, np: int, cfg: List[str],
                  args: List[str]) -> List[str]:
    return (["smpirun", "-np", str(np), "-platform", str(plat_xml), "-hostfile", str(hostfile),
             "--log=xbt_cfg.thres:warning", "--log=smpi_config.thres:error"]
            + [f"--cfg={c}" for c in cfg] + [str(binary)] + args)


def mark_records(path: Path, platform_field: Dict, simulator: str) -> int:
    """Add the simulated-run fields to every record of path (rewritten in place)."""
    if not path.is_file():
        return 0
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            out.append(line)  # left as it is: validation names it
            continue
        record["simulated"] = True
        record["platform"] = platform_field
        if isinstance(record.get("provenance"), dict):
            record["provenance"]["simulator"] = simulator
        out.append(json.dumps(record, separators=(",", ":")))
    path.write_text("\n".join(out) + ("\n" if out else ""))
    return len(out)


def run(ns: argparse.Namespace) -> int:
    from hybridkit.records import load_records

    plat = platform_from_args(ns)
    nodes = ns.use_nodes or plat.nodes
    per_node = ns.ranks_per_node or (plat.cores + ns.stride - 1) // ns.stride
    hosts = plat.hosts(nodes, per_node, ns.stride)
    binary = smpi_binary(ns.binary)
    compute = ns.compute or ("measured" if binary.name == "hk-jacobi" else "off")
    cfg = smpi_config(compute, ns.smpi_factors, plat, ns.cfg)
    np = len(hosts)
    name = run_dir_name(binary.name, np, 1, f"sim-{plat.name}")
    results = ns.results.resolve()
    run_dir = results / "runs" / name if ns.dry_run else create_run_dir(results, name)
    plat_xml, hostfile = run_dir / "platform.xml", run_dir / "hostfile"
    records_path = run_dir / "records.jsonl"
    args = list(ns.binary_args) + list(getattr(ns, "extra", []) or []) + \
        ["--output", str(records_path)]
    argv = build_command(binary, plat_xml, hostfile, np, cfg, args)
    env = {"HK_NODE_SIZE": str(per_node), "OMP_NUM_THREADS": "1"}
    if ns.dry_run:
        print(f"# platform {plat.name}: {plat.nodes} nodes x {plat.cores} CPUs, "
              f"{nodes} x {per_node} ranks")
        print(" ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(argv))
        return 0
    version = simgrid_version()
    if version is None:
        raise HKError("smpirun not found: install SimGrid (apt-get install libsimgrid-dev; "
                      "make setup does)")
    plat.write(plat_xml, hostfile, hosts)
    (run_dir / "command.txt").write_text(
        " ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(argv) + "\n")
    write_json(run_dir / "env.json", {"launcher": env, "ranks": {}})
    info = {
        "hybridkit_version": __version__, "argv": argv, "binary": ns.binary, "np": np,
        "threads": 1, "mode": None, "bind": "none", "mpi": "smpi", "launcher": "smpirun",
        "simulated": True, "platform": plat.record_field(str(plat_xml)),
        "use_nodes": nodes, "ranks_per_node": per_node, "stride": ns.stride,
        "compute": compute, "smpi_config": cfg, "simulator": f"SimGrid {version} (SMPI)",
        "exit_code": None, "start": iso(utc_now()), "end": None, "duration_s": None,
        "records": None, "records_valid": None, "status": "running", "message": None,
    }
    write_json(run_dir / "run.json", info, reserve=RESERVE)
    print(f"# run directory: {run_dir}", flush=True)
    print(f"# command: {' '.join(argv)}", flush=True)
    t0 = time.monotonic()
    lost: List[str] = []
    code = run_streaming(argv, env, run_dir / "stdout.txt", run_dir / "stderr.txt", lost=lost)
    info.update(exit_code=code, end=iso(utc_now()), duration_s=round(time.monotonic() - t0, 3))
    mark_records(records_path, info["platform"], info["simulator"])
    problem: Optional[HKError] = None
    records: list = []
    try:
        records = load_records(records_path)
    except HKError as exc:
        problem = exc
    failed = ([f"{binary.name} exit code {code}"] if code else []) + \
        ([f"no valid records: {problem}"] if problem else [])
    info.update(records=len(records), records_valid=problem is None, output_lost=lost or None,
                status="failed" if failed else "ok", message="; ".join(failed + lost) or None)
    write_json(run_dir / "run.json", info)
    if problem is not None:
        print(f"hybridkit: error: no valid records: {problem}", file=sys.stderr)
    if code != 0:
        print(f"hybridkit: error: {binary.name} failed under smpirun with exit code {code} "
              f"(see {run_dir})", file=sys.stderr)
        return code
    return 0 if problem is None else 1
