"""Sweep plans: an app description's parameter product.

    layouts (ranks x threads)  x  param values (declared order)  x  repeats
        layouts: every factorisation R x T = c of each core count c per node, R per node,
                 so R x nodes ranks in all; or the description's fixed ranks (per node)
                 and threads
        filtered by the description's constraints (pure: 1 thread, task: >= 2, ...)

Each planned run has a stable id, `<R>x<T>-<param>_<value>-...[-r<k>]`, and its own
directory <out>/runs/<app>/<id>/ (run_dir_of); hybridkit.study.sweep runs the plan.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from hybridkit.appdesc import AppDesc, ParamSet
from hybridkit.errors import HKError, UsageError


@dataclass(frozen=True)
class Cluster:
    """Where runs go: `nodes` nodes of `cores` cores each (1 node: this machine)."""

    cores: int
    nodes: int = 1
    hosts: Tuple[str, ...] = ()
    hostfile: Optional[str] = None
    remote: bool = False  # cores were not checked against this machine
    emulated: bool = False  # nodes emulated on this machine (vcluster): they share its cores
    link_rate: Optional[str] = None  # emulated nodes: tc rate limit of every node's link


@dataclass(frozen=True)
class PlannedRun:
    app: str
    ranks: int  # in all (over the nodes)
    threads: int
    params: Tuple[Tuple[str, Any], ...]
    repeat: int = 1
    repeats: int = 1
    oversubscribe: bool = False

    @property
    def run_id(self) -> str:
        parts = [f"{self.ranks}x{self.threads}"]
        parts += [f"{k}_{_slug(v)}" for k, v in self.params]
        if self.repeats > 1:
            parts.append(f"r{self.repeat}")
        return "-".join(parts)

    @property
    def param_dict(self) -> Dict[str, Any]:
        return dict(self.params)

    def label(self) -> str:
        values = " ".join(f"{k}={v}" for k, v in self.params)
        rep = f" #{self.repeat}" if self.repeats > 1 else ""
        return f"{self.app} {self.ranks}x{self.threads} {values}{rep}".rstrip()


def _slug(value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "", str(value).replace(",", "+").replace(":", "-")) or "x"


def last_level_cache(root: str = "/sys/devices/system/cpu/cpu0/cache") -> Optional[int]:
    """Bytes of this machine's last-level cache (the highest level cpu0 sees, from /sys, the
    kernel's copy of what hwloc reads); None when unknown."""
    best: Tuple[int, int] = (0, 0)
    for d in Path(root).glob("index*"):
        try:
            level = int((d / "level").read_text())
            kind = (d / "type").read_text().strip()
            text = (d / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", text)
        if m:
            size = int(m.group(1)) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[m.group(2)]
            best = max(best, (level, size))
    return best[1] or None


LLC_TOKEN = re.compile(r"^llc\*(\d+(?:\.\d+)?)$")


def resolve_value(value: Any, llc: Optional[int] = None) -> Any:
    """'llc*K': the edge N (a multiple of 8) of the smallest cube grid whose two double
    fields take K times the last-level cache (a memory-bound Jacobi problem); other values
    unchanged. Without a known cache size: 32 MiB is assumed."""
    m = LLC_TOKEN.match(value) if isinstance(value, str) else None
    if not m:
        return value
    cache = llc if llc is not None else (last_level_cache() or 32 * 1024 ** 2)
    cells = float(m.group(1)) * cache / 16.0
    edge = math.ceil(cells ** (1.0 / 3.0) - 1e-9)
    return max(8, -(-edge // 8) * 8)


def divisors(n: int) -> List[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def factorisations(cores: int) -> List[Tuple[int, int]]:
    """Every (ranks, threads) with ranks x threads == cores, most ranks first."""
    if cores < 1:
        raise UsageError(f"core count must be >= 1, got {cores}")
    return [(cores // t, t) for t in divisors(cores)]


def core_counts(tokens: Iterable[Any], max_cores: int) -> List[int]:
    """Resolve 'max', 'powers' (1, 2, 4, ... and max) and integers to core counts."""
    out: List[int] = []
    for tok in tokens:
        if tok == "max":
            counts = [max_cores]
        elif tok == "powers":
            counts = [2 ** k for k in range(int(math.log2(max_cores)) + 1)] + [max_cores]
        elif isinstance(tok, int) and tok >= 1:
            counts = [tok]
        else:
            raise HKError(f"bad core count {tok!r} (use 'max', 'powers' or a positive integer)")
        out += [c for c in counts if c not in out]
    return sorted(set(out))


def _layouts(pset: ParamSet, cluster: Cluster, cores: Optional[Sequence[int]]
             ) -> List[Tuple[int, int]]:
    """(ranks in all, threads) of one parameter set."""
    if pset.fixed_layout and not cores:
        threads = [cluster.cores if t == "max" else int(t) for t in pset.threads]
        return [(int(r) * cluster.nodes, t) for r in pset.ranks for t in threads]
    counts = list(cores) if cores else core_counts(pset.cores or ("max",), cluster.cores)
    out: List[Tuple[int, int]] = []
    for c in counts:
        out += [(r * cluster.nodes, t) for r, t in factorisations(c)]
    return out


def expand(app: AppDesc, set_name: str, cluster: Cluster,
           cores: Optional[Sequence[int]] = None,
           overrides: Optional[Mapping[str, Sequence[Any]]] = None,
           repeats: int = 1) -> List[PlannedRun]:
    """The runs of one app: layouts x parameter product x repeats, constraints applied.

    `cores` (per node) replaces the set's layout rule with factorisations; `overrides`
    replaces the values of named parameters (UsageError for a parameter the app lacks)."""
    pset = app.sets[set_name]
    params = {k: tuple(resolve_value(v) for v in vals) for k, vals in pset.params.items()}
    for name, values in (overrides or {}).items():
        if name not in params:
            known = ", ".join(params) or "none"
            raise UsageError(f"app {app.name!r} has no parameter {name!r} (its parameters: "
                             f"{known})")
        allowed = app.allowed(name)
        # a value must be allowed, or stand for allowed ones ("all" of the modes)
        bad = [v for v in values if allowed and v not in allowed and app.values(name, v) == (v,)]
        if bad:
            raise UsageError(f"unknown {name} {bad[0]!r} for {app.name} (choose from "
                             f"{', '.join(map(str, allowed))})")
        params[name] = tuple(values)
    params = {k: tuple(x for v in vals for x in app.values(k, v)) for k, vals in params.items()}
    if cluster.nodes > 1:  # real nodes: no virtual-node parameters
        for name in app.single_node_params():
            params.pop(name, None)
    for c in cores or ():
        if c > cluster.cores and not cluster.remote:
            raise UsageError(f"--cores {c}: this machine has {cluster.cores} cores "
                             f"(use --hosts, --hostfile or --vcluster for more nodes)")
    names = list(params)
    layouts = _layouts(pset, cluster, cores)
    check_plan_size(app.name, len(layouts), {n: len(params[n]) for n in names}, repeats)
    runs: List[PlannedRun] = []
    seen = set()
    for ranks, threads in layouts:
        per_node = math.ceil(ranks / cluster.nodes) * threads
        over = per_node > cluster.cores and not cluster.remote
        if cluster.emulated and ranks * threads > cluster.cores:
            over = True  # emulated nodes share this machine's cores: a functional run
        for values in itertools.product(*(params[n] for n in names)):
            combo = dict(zip(names, values))
            if not app.allows(combo, ranks, threads):
                continue
            for k in range(1, repeats + 1):
                run = PlannedRun(app.name, ranks, threads, tuple(combo.items()), k, repeats,
                                 over)
                if run.run_id not in seen:  # the same layout from two core counts
                    seen.add(run.run_id)
                    runs.append(run)
    return runs


MAX_PLAN_RUNS = 10000  # runs of one app's plan; a larger plan is refused before it is built


def check_plan_size(app: str, layouts: int, values: Mapping[str, int], repeats: int) -> None:
    """UsageError when layouts x parameter values x repeats exceeds MAX_PLAN_RUNS (counted
    before the constraints filter and before a run is made)."""
    total = layouts * repeats
    for n in values.values():
        total *= n
    if total > MAX_PLAN_RUNS:
        factors = [f"{layouts} layouts"] + [f"{n} values of {k}" for k, n in values.items() if n > 1] \
            + ([f"{repeats} repeats"] if repeats > 1 else [])
        raise UsageError(f"the plan of {app} would have {total} runs ({' x '.join(factors)}), "
                         f"at most {MAX_PLAN_RUNS}: give fewer values, cores or --repeat")


def check_fits(runs: Sequence[PlannedRun], app: AppDesc, cluster: Cluster) -> List[str]:
    """Notes for runs that need more cores than there are; UsageError if not allowed."""
    over = [r for r in runs if r.oversubscribe]
    if over and not app.oversubscribe and not cluster.emulated:
        r = over[0]
        raise UsageError(f"{app.name}: {r.ranks} ranks x {r.threads} threads need "
                         f"{r.ranks * r.threads} cores, this machine has {cluster.cores}")
    return [f"{app.name}: {len(over)} run(s) oversubscribed ({cluster.cores} cores): "
            f"binding off, timings not representative"] if over else []


def run_dir_of(out: Path, run: PlannedRun) -> Path:
    return out / "runs" / run.app / run.run_id
