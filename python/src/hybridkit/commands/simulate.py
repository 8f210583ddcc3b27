"""`hybridkit simulate [PLATFORM] BINARY -- ARGS`: run a program in SimGrid SMPI.

    platform (named, changed, or generated) --> platform.xml + hostfile in the run directory
    BINARY checked: an ELF program needing libsimgrid (built with smpicc), else refused
    --> stdbuf -oL smpirun -platform ... -hostfile ... -np R BINARY ARGS [--output records.jsonl]
        (HK_NODE_SIZE = ranks per node: hk's node is the platform's node; --output only
        for hk binaries, which write records; in its own process group, stopped after
        --timeout or when hybridkit gets SIGINT/SIGTERM/SIGHUP)
    --> hk binaries: every record gets "simulated": true, "platform": {...},
        provenance.simulator, validated like a real run's; report and advise read them
    --> any program: run.json keeps the simulated time SimGrid reports (smpi/display-timing),
        and status ok / failed / timeout / signal

The model (what a CPU, a NIC, a node are; how compute phases are timed) is in
docs/simulate.md and hybridkit.simulate.platform.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hybridkit import __version__
from hybridkit.cliargs import DEFAULT_RUN_TIMEOUT, MAX_CORES, MAX_NODES, count, positive_float
from hybridkit.errors import HKError, UsageError, env_dir
from hybridkit.paths import repo_root
from hybridkit.records import load_records
from hybridkit.simulate.elfneeded import NotELF, dynamic
from hybridkit.simulate.noderate import (add_node_rate_arguments, layout_model, modelled_mode,
                                         per_thread, scaled_speed)
from hybridkit.simulate.platform import Platform, add_platform_arguments, platform_from_args
from hybridkit.study.onerun import timed_out
from hybridkit.study.rundir import (RESERVE, TimedOut, create_run_dir, exit_status, iso,
                                    run_dir_name, run_streaming, utc_now, write_json)

HELP = ("run hk-bench, hk-jacobi, hk-mz or an smpicc-built program on a simulated cluster "
        "(SimGrid SMPI)")
DESCRIPTION = """\
Run BINARY (hk-bench, hk-jacobi or hk-mz, built for SMPI: make build-smpi, or the path of your own
program built with SimGrid's smpicc) with SimGrid's smpirun on a simulated cluster: a
named platform (--platform sr8000 | ibm-sp | fat-tree, whose parameters the options below
may change) or one generated from --nodes/--cores/--link-bw/--link-lat/--nic-per-node/
--cpu-injection. One rank per simulated CPU; --use-nodes N and
--ranks-per-node P (stride --stride) choose which CPUs run ranks, node by node, and hk's
node is the platform's node (HK_NODE_SIZE=P). Every rank runs one thread; OpenMP threads
are modelled, not run: --threads T (hk-jacobi masteronly, funneled, task; hk-mz) places ranks at
stride T and, with a node rate R(n) (--node-rate FILE, or the roofline --node-bw/--core-bw),
each rank computes R(P*T) / (P R(1)) times as fast as one core (T = 1 too: ranks share the
node's memory). SMPI 3.32 provides MPI_THREAD_SINGLE: funneled runs as masteronly, task as
pure-nb at T - 1 threads' rate (docs/simulate.md); task-balanced, multiple* are refused.

The run directory <results>/runs/<stamp>-<binary>-<R>x<T>-sim-<platform> holds platform.xml,
hostfile, command.txt, env.json, stdout.txt, stderr.txt, records.jsonl (each record
marked "simulated": true with its "platform") and run.json; hybridkit report and advise
read it like a real run's and keep the two apart.

Your own program (a path, e.g. ./prog built with smpicc) gets ARGS only, no --output: it
writes no records, and run.json keeps the simulated time SimGrid reports (also printed). A
program not built with smpicc (another MPI library, or no MPI: mpicc, gcc, a script) is
refused before anything runs; a failed run's error line says what SimGrid said. A run still going after --timeout S (default 3600) is stopped
and marked 'timeout' in run.json; one ended by a signal is marked 'signal'.

Network: the platform's numbers as they are: smpi/bw-factor and smpi/lat-factor 1 (no
SMPI piecewise corrections), network/crosstraffic 0 (no acknowledgement traffic) and 1 us per
MPI_Test/MPI_Iprobe (SMPI's default: 100 us, growing), unless --smpi-factors default.
Compute phases (--compute): 'off' (default for hk-bench) costs them nothing; 'measured'
(default for hk-jacobi and your own programs) replays each compute burst for the time it
took on this machine (smpi/host-speed = the platform's CPU speed), so a simulated CPU is as
fast as one core of this machine (with a node rate: its speed factor times that).

examples:
  hybridkit simulate --platform sr8000 --use-nodes 8 hk-bench -- orthogonal -m 1K:1M
  hybridkit simulate --platform ibm-sp --use-nodes 2 hk-bench -- multipath -m 4M
  hybridkit simulate --nodes 4 --cores 8 --link-bw 10GBps --link-lat 2us \\
      --cpu-injection 4GBps hk-bench -- beff --compare-hybrid --lmax 64K --time-per-loop 0.005
  hybridkit simulate --nodes 16 --cores 8 --link-bw 25GBps --link-lat 1.5us \\
      --ranks-per-node 2 --threads 4 --node-bw 40GBps --core-bw 12GBps hk-jacobi -- \\
      --mode task --size 256 --iters 10
  smpicc -O2 -o prog prog.c && hybridkit simulate --platform sr8000 --use-nodes 2 \\
      --ranks-per-node 2 --timeout 60 ./prog -- 100"""

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
KNOWN = ("hk-bench", "hk-jacobi", "hk-mz")
# what an MPI program (C/C++, Fortran) calls first: a shared object importing one is an MPI
# program for smpirun (check_smpi_program)
SMPI_ENTRY = ("MPI_Init", "MPI_Init_thread", "mpi_init_", "mpi_init_thread_")
# what hk's record writer puts in every hk binary (src/core/record_out.c): such a binary
# takes --output FILE and writes records there
RECORDS_MARK = b"schema_version"
# SimGrid's own diagnostics of a simulation that ends with exit code 0 nonetheless (3.32)
SMPI_FAILURES = (("Deadlock detected", "SimGrid found a deadlock (ranks waiting for each "
                  "other forever)"),
                 ("MPI_Abort was called", "a rank called MPI_Abort"),
                 ("Do all your MPI ranks call MPI_Finalize()", "SimGrid says a rank ended "
                  "without MPI_Finalize (or the ranks stalled)"))
SIMULATED_TIME = re.compile(r"Simulated time: (\S+) seconds")
# SimGrid's own fatal messages (3.32): "[host:rank:(pid) t] file:line: [cat/CRITICAL] text",
# "[smpirun] ** error: text", and the hint it prints after a failed dlopen ("Error: Did you
# compile the program with a SMPI-specific compiler ...?")
SMPI_FATAL = re.compile(r"\[[\w./-]+/CRITICAL\] (.+)|^\[smpirun\] \*\* error: (.+)|^(Error: .+)",
                        re.MULTILINE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("binary", metavar="BINARY", help="hk-bench, hk-jacobi or hk-mz (or a "
                        "path to a program built with smpicc)")
    add_platform_arguments(parser)
    add_node_rate_arguments(parser)
    g = parser.add_argument_group("ranks and simulation")
    g.add_argument("--use-nodes", type=count(MAX_NODES), metavar="N",
                   help="nodes that run ranks (default: all of the platform's)")
    g.add_argument("--ranks-per-node", type=count(MAX_CORES), metavar="P",
                   help="ranks per node, on CPUs 0, S, 2S, ... (default: every CPU)")
    g.add_argument("--stride", type=count(MAX_CORES), metavar="S",
                   help="CPU stride of the ranks in a node (default: the threads per rank)")
    g.add_argument("--compute", choices=("off", "measured"),
                   help="compute phases: off (free) or measured on this machine "
                        "(default: off for hk-bench, measured for hk-jacobi and others)")
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
    g.add_argument("--timeout", type=positive_float, default=DEFAULT_RUN_TIMEOUT, metavar="S",
                   help="seconds (real time) the simulation may take before it is stopped "
                        "and the run marked 'timeout' in run.json (default: %(default)g)")
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
    smpi_dir = env_dir("HK_SMPI_BIN_DIR")
    if smpi_dir is not None:
        dirs.append(smpi_dir)
    root = repo_root()
    if root:
        dirs.append(root / SMPI_BUILD)
    for d in dirs:
        if (d / name).is_file():
            return (d / name).resolve()
    raise HKError(f"{name} built for SMPI not found in {', '.join(map(str, dirs)) or '(nowhere)'}"
                  f": run 'make build-smpi' (needs libsimgrid-dev) or set HK_SMPI_BIN_DIR")


def check_smpi_program(path: Path, name: str) -> None:
    """UsageError unless path is an ELF program needing libsimgrid: smpirun can run nothing
    else (SimGrid 3.32 aborts on an executable, a script, a program built with mpicc)."""
    refused = f"{name} is not built for SimGrid SMPI (build it with smpicc)"
    try:
        elf = dynamic(path)
    except NotELF as exc:
        raise UsageError(f"{refused}: it is not an ELF program ({exc})") from None
    except OSError as exc:
        raise UsageError(f"{name}: cannot read: {exc.strerror}") from None
    libs = elf.needed
    if any(lib.startswith("libsimgrid") for lib in libs):
        return
    mpi = [lib for lib in libs if lib.startswith(("libmpi", "libmpich"))]
    # smpicc's shared object whose only references to libsimgrid are SMPI's weak MPI
    # functions: the linker (--as-needed) dropped libsimgrid, smpirun provides it (elfneeded)
    if not mpi and not elf.interp and elf.names(*SMPI_ENTRY):
        return
    how = (f"it links {mpi[0]}, another MPI library (built with mpicc?)" if mpi else
           "it does not link libsimgrid" + ("" if libs else " (a static program)"))
    raise UsageError(f"{refused}: {how}")


def writes_records(path: Path) -> bool:
    """Whether the program is an hk binary that takes --output FILE and writes records."""
    if not path.name.startswith("hk-"):
        return False
    with open(path, "rb") as f:
        return RECORDS_MARK in f.read()


def simulated_time(stderr_path: Path) -> Optional[float]:
    """The simulated time SimGrid prints at the end (smpi/display-timing), None without it."""
    try:
        text = stderr_path.read_text(errors="replace")
    except OSError:
        return None
    found = SIMULATED_TIME.findall(text)
    try:
        return float(found[-1]) if found else None
    except ValueError:
        return None


def smpi_failure(stderr_path: Path) -> Optional[str]:
    """What SimGrid said went wrong in a simulation that ended with exit code 0."""
    try:
        text = stderr_path.read_text(errors="replace")
    except OSError:
        return None
    return next((why for mark, why in SMPI_FAILURES if mark in text), None)


def smpi_fatal(stderr_path: Path) -> Optional[str]:
    """SimGrid's own words on why a simulation failed: its first fatal message and the
    hint after it (the error line says them, not only stderr.txt); None without one."""
    try:
        text = stderr_path.read_text(errors="replace")
    except OSError:
        return None
    found = [next(g for g in m.groups() if g).strip() for m in SMPI_FATAL.finditer(text)]
    return " ".join(found[:2])[:500] or None


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Caught:
    """SIGINT, SIGTERM and SIGHUP to hybridkit while the simulation runs: the signal is noted
    and KeyboardInterrupt raised, so that run_streaming stops smpirun's process group and the
    run is recorded as stopped by that signal."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.number: Optional[int] = None
        self.old: List[Tuple[int, object]] = []

    def _handler(self, number: int, frame: object) -> None:
        if self.number is not None:  # the first one is being handled: stopping the group
            return
        self.number = number
        raise KeyboardInterrupt

    def __enter__(self) -> "_Caught":
        try:
            for number in self.SIGNALS:
                self.old.append((number, signal.signal(number, self._handler)))
        except ValueError:  # not the main thread: the default handling stays
            pass
        return self

    def __exit__(self, *exc: object) -> None:
        for number, old in self.old:
            signal.signal(number, old)


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
    # the ranks share one process whose stdout is a pipe: without line buffering their
    # output would come at the end only, and be lost when the run is stopped
    line_buffered = ["stdbuf", "-oL"] if shutil.which("stdbuf") else []
    return (line_buffered + ["smpirun", "-np", str(np), "-platform", str(plat_xml),
                             "-hostfile", str(hostfile),
                             "--log=xbt_cfg.thres:warning", "--log=smpi_config.thres:error"]
            + [f"--cfg={c}" for c in cfg + ["smpi/display-timing:yes"]] + [str(binary)] + args)


def mark_records(path: Path, platform_field: Dict, simulator: str, threads: int = 1) -> int:
    """Add the simulated-run fields to every record of path (rewritten in place); the records
    say the modelled threads (threads > 1) and mode (a node rate's mode_model)."""
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
        modelled_mode(record, platform_field.get("node_rate"))
        if isinstance(record.get("provenance"), dict):
            record["provenance"]["simulator"] = simulator
            if threads > 1:
                record["provenance"]["threads_per_rank"] = threads
        if threads > 1 and isinstance(record.get("params"), dict) and \
                "threads" in record["params"]:
            record["params"]["threads"] = threads
            per_thread(record.get("results"), threads)
        out.append(json.dumps(record, separators=(",", ":")))
    path.write_text("\n".join(out) + ("\n" if out else ""))
    return len(out)


def run(ns: argparse.Namespace) -> int:
    plat = platform_from_args(ns)
    nodes = ns.use_nodes or plat.nodes
    stride = ns.stride or ns.threads
    per_node = ns.ranks_per_node or (plat.cores + stride - 1) // stride
    hosts = plat.hosts(nodes, per_node, stride)
    binary = smpi_binary(ns.binary)
    check_smpi_program(binary, ns.binary)
    records_expected = writes_records(binary)
    compute = ns.compute or ("off" if binary.name == "hk-bench" else "measured")
    args = list(ns.binary_args) + list(getattr(ns, "extra", []) or [])
    model, factor, args, modelled = layout_model(ns, binary.name, args, compute, per_node,
                                                 plat.cores)
    # smpi/host-speed stays the platform's speed (a measured burst of t s is t x speed
    # flops); the hosts run factor x faster (every burst scales)
    cfg = smpi_config(compute, ns.smpi_factors, plat, ns.cfg)
    plat_field = plat.record_field("")
    if model is not None:
        plat = replace(plat, speed=scaled_speed(plat.speed, factor))
        plat_field["node_rate"] = dict(model.field(per_node, ns.threads, plat.cores), speed_factor=factor,
                                       **({"mode_model": modelled} if modelled else {}))
    np = len(hosts)
    name = run_dir_name(binary.name, np, ns.threads, f"sim-{plat.name}")
    results = ns.results.resolve()
    run_dir = results / "runs" / name if ns.dry_run else create_run_dir(results, name)
    plat_xml, hostfile = run_dir / "platform.xml", run_dir / "hostfile"
    records_path = run_dir / "records.jsonl"
    args += ["--output", str(records_path)] if records_expected else []
    argv = build_command(binary, plat_xml, hostfile, np, cfg, args)
    env = {"HK_NODE_SIZE": str(per_node), "OMP_NUM_THREADS": "1"}
    if ns.dry_run:
        print(f"# platform {plat.name}: {plat.nodes} nodes x {plat.cores} CPUs, "
              f"{nodes} x {per_node} ranks" + (f" x {ns.threads} threads" if ns.threads > 1
                                               else ""))
        if model is not None:
            print(f"# node rate {model.source}: speed factor {factor:.4g} (CPU speed "
                  f"{plat.speed})")
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
        "threads": ns.threads, "mode": None, "bind": "none", "mpi": "smpi",
        "launcher": "smpirun", "simulated": True,
        "platform": dict(plat_field, file=str(plat_xml)),
        "use_nodes": nodes, "ranks_per_node": per_node, "stride": stride,
        "compute": compute, "smpi_config": cfg, "simulator": f"SimGrid {version} (SMPI)",
        "records_expected": records_expected, "timeout_s": ns.timeout,
        "exit_code": None, "start": iso(utc_now()), "end": None, "duration_s": None,
        "simulated_time_s": None, "records": None, "records_valid": None,
        "status": "running", "message": None,
    }
    write_json(run_dir / "run.json", info, reserve=RESERVE)
    print(f"# run directory: {run_dir}", flush=True)
    print(f"# command: {' '.join(argv)}", flush=True)
    return launch(argv, env, run_dir, info, binary.name, ns.timeout)


def launch(argv: List[str], env: Dict[str, str], run_dir: Path, info: Dict, name: str,
           timeout: float) -> int:
    """Run the simulation and record how it ended in run.json: never left 'running'."""
    t0 = time.monotonic()
    lost: List[str] = []
    caught = _Caught()
    code: Optional[int] = None
    stopped: Optional[TimedOut] = None
    try:
        with caught:
            code = run_streaming(argv, env, run_dir / "stdout.txt", run_dir / "stderr.txt",
                                 lost=lost, timeout=timeout)
    except TimedOut as exc:
        stopped, code = exc, exc.code
    except KeyboardInterrupt:  # a signal came after run_streaming had stopped the program
        caught.number = caught.number or signal.SIGINT
    info.update(exit_code=code, end=iso(utc_now()), duration_s=round(time.monotonic() - t0, 3),
                simulated_time_s=simulated_time(run_dir / "stderr.txt"),
                output_lost=lost or None)
    if caught.number is not None:
        sig = signal_name(caught.number)
        info.update(status="signal", signal=sig,
                    message=f"hybridkit got {sig}: the simulation was stopped")
        write_json(run_dir / "run.json", info)
        print(f"hybridkit: error: {name} stopped: hybridkit got {sig} (see {run_dir})",
              file=sys.stderr)
        return exit_status(-caught.number)
    if stopped is not None:  # run.json says timeout, as `hybridkit run`'s
        raise timed_out(info, run_dir, stopped, t0, name)
    return finish(info, run_dir, name, code, lost)


def finish(info: Dict, run_dir: Path, name: str, code: int, lost: List[str]) -> int:
    """A simulation that ended by itself: its status, records (hk binaries) and time."""

    failed = []
    fatal = smpi_fatal(run_dir / "stderr.txt") if code else None
    said = f": SimGrid: {fatal}" if fatal else ""
    if code > 128 and code - 128 in signal.valid_signals():
        info["signal"] = signal_name(code - 128)
        failed.append(f"{name} ended by signal {info['signal']} (exit code {code}){said}")
    elif code:
        failed.append(f"{name} exit code {code}{said}")
    else:
        why = smpi_failure(run_dir / "stderr.txt")
        failed += [why] if why else []
    problem: Optional[HKError] = None
    if info["records_expected"]:
        records_path = run_dir / "records.jsonl"
        mark_records(records_path, info["platform"], info["simulator"], info["threads"])
        records: list = []
        try:
            records = load_records(records_path)
        except HKError as exc:
            problem = exc
            failed.append(f"no valid records: {exc}")
        info.update(records=len(records), records_valid=problem is None)
    status = "signal" if "signal" in info else "failed" if failed else "ok"
    info.update(status=status, message="; ".join(failed + lost) or None)
    write_json(run_dir / "run.json", info)
    if info["simulated_time_s"] is not None:
        print(f"# simulated time: {info['simulated_time_s']:g} s", flush=True)
    if problem is not None:
        print(f"hybridkit: error: no valid records: {problem}", file=sys.stderr)
    if code:
        by = f", {info['signal']}" if "signal" in info else ""
        print(f"hybridkit: error: {name} failed under smpirun with exit code {code}{by}{said} "
              f"(see {run_dir})", file=sys.stderr)
    elif failed and problem is None:
        print(f"hybridkit: error: {failed[0]} (see {run_dir})", file=sys.stderr)
    return code or (1 if failed else 0)
