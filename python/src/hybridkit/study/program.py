"""A user's program as an app (issue 37): the record the runner writes for it.

A description with `[metric] source = "wall"` or `"output"` is a program that writes no
records of its own (hybridkit's apps write theirs through `--output`).  After each run the
runner measures the metric itself and appends one record of kind "program" to the run's
records.jsonl, so sweeps, reports, advice and compare read it like any other:

    source = "wall"     the launch's wall time, measured by the runner (s, lower is better)
    source = "output"   the last match of metric.regex (one group) in the program's stdout,
                        e.g. NPB's 'Mop/s total = 6107.61'

    record: kind "program", params (the run's parameters and the command), results
            {VALUE: {value, unit}, wall_time: {value, unit: "s"}, and the profiler's
            vmhwm, f_comm, mpi_time, sleeping_share when it ran}, provenance: copied from
            the profiler's record of the same run when the program ran under
            libhybridkit-profile.so (binding, MPI library, machine), else what the runner
            knows (launch layout, this host)

The program is never given an extra argument: its command line is the description's.
"""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from hybridkit import __version__
from hybridkit.appdesc import PROGRAM_KIND, AppDesc
from hybridkit.study.rundir import iso, utc_now

WALL = "wall_time"
MAX_OUTPUT = 64 << 20  # bytes of stdout searched for the metric (its end)


def _number(text: str) -> Optional[float]:
    try:
        v = float(text.replace("D", "E").replace("d", "e"))  # Fortran's 1.0D+03 too
    except ValueError:
        return None
    return v if v == v and v not in (float("inf"), float("-inf")) else None


def metric_value(app: AppDesc, run_dir: Path, wall: float) -> Tuple[Optional[float], str]:
    """(the run's metric, '') or (None, why not)."""
    if app.metric.source == "wall":
        return wall, ""
    path = run_dir / "stdout.txt"
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            f.seek(max(0, size - MAX_OUTPUT))
            text = f.read().decode("utf-8", "replace")
    except OSError as exc:
        return None, f"cannot read {path}: {exc}"
    matches = re.findall(app.metric.regex or "", text)
    if not matches:
        return None, (f"no line of its output matches the metric's regex "
                      f"{app.metric.regex!r} (see {path})")
    value = _number(matches[-1].strip())
    if value is None:
        return None, (f"the metric's regex {app.metric.regex!r} matched {matches[-1]!r}, "
                      f"which is no number")
    return value, ""


def _profile_provenance(records: List[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    for r in records:
        if str(r.get("kind", "")).startswith("profile") and isinstance(r.get("provenance"), dict):
            return dict(r["provenance"])
    return None


def _runner_provenance(info: Mapping[str, Any]) -> Dict[str, Any]:
    """What the runner knows when no preload told it more (hybridkit/schemas/record.schema.json)."""
    mpi = str(info.get("mpi") or "")
    hosts = info.get("hosts") or [socket.gethostname()]
    cpus = os.cpu_count() or 1
    return {
        "hybridkit_version": __version__, "git_sha": "", "compiler": "unknown", "cflags": "",
        "mpi_library": f"{mpi} (from the launcher; the program ran without the profiler)",
        "mpi_impl": mpi if mpi in ("openmpi", "mpich") else "other",
        "thread_level": {"requested": "single", "provided": "single"},
        "ranks": int(info.get("np") or 1), "threads_per_rank": int(info.get("threads") or 1),
        "nodes": int(info.get("nodes") or 1), "virtual_nodes": False, "hosts": list(hosts),
        "omp_places": None, "omp_proc_bind": None,
        "machine": {"source": "this machine (runner: os.cpu_count)", "packages": 0,
                    "numa_nodes": 0, "cores": cpus, "pus": cpus},
        "binding": [], "timestamp": iso(utc_now()),
    }


# what the profiler measured of the run, copied into the program's record (per rank)
FROM_PROFILE = ("vmhwm", "f_comm", "mpi_time", "sleeping_share")


def program_record(app: AppDesc, info: Mapping[str, Any], value: float, wall: float,
                   records: List[Mapping[str, Any]]) -> Dict[str, Any]:
    prov = _profile_provenance(records) or _runner_provenance(info)
    prof = next((r for r in records if r.get("kind") == "profile"), None)
    params: Dict[str, Any] = {k: v for k, v in (info.get("params") or {}).items()
                              if isinstance(v, (str, int, float, bool))}
    params["command"] = " ".join(str(a) for a in info.get("program_argv") or [app.binary])
    params["metric_source"] = (f"output: {app.metric.regex}" if app.metric.source == "output"
                               else "wall time of the launch")
    results: Dict[str, Any] = {WALL: {"value": round(wall, 6), "unit": "s"}}
    if app.metric.value != WALL:
        results[app.metric.value] = {"value": value, "unit": app.metric.unit}
    for name in FROM_PROFILE if prof else ():
        res = (prof.get("results") or {}).get(name)
        if isinstance(res, dict) and name not in results:
            results[name] = dict(res)
    return {"schema_version": 1, "kind": PROGRAM_KIND, "program": Path(app.binary).name,
            "params": params, "results": results, "warnings": [], "provenance": prov}


def append_record(path: Path, record: Mapping[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
