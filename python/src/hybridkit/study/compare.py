"""Regression check between two run sets: each app's metric, configuration by configuration.

    key = (app, ranks, threads, record params)   value = mean over repeats of the metric
    change = B / A - 1, signed so that negative is worse (metric.better)
    regression: change < -tolerance;  improvement: change > +tolerance

Configurations present in only one set are listed, not judged.  Simulated records
(hybridkit simulate) are configurations of their platform: a measured value is never
compared with a simulated one.  A run that did not
complete, or a record whose metric is null or not finite, is no measurement:
`missing` lists them and the command fails (a set of broken runs never passes as "no
regression").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from hybridkit.appdesc import PROGRAM_INFO_PARAMS, AppDesc
from hybridkit.study.rundata import Run, entries

Key = Tuple[str, int, int, Tuple[Tuple[str, str], ...]]


@dataclass(frozen=True)
class Change:
    key: Key
    unit: str
    metric: str
    a: float
    b: float
    change: float  # relative, positive = better
    verdict: str  # ok, regression, improvement

    def label(self) -> str:
        app, ranks, threads, params = self.key
        return f"{app} {ranks}x{threads} " + " ".join(f"{k}={v}" for k, v in params)


def missing(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> List[str]:
    """Why some of `runs` give no value: incomplete runs, and records that hold the metric
    without a finite number (null: the binary's NaN or inf).  A record without the metric
    at all is another kind of row (ping-pong at one node has no intra-node figures)."""
    out = [f"{r.path}: {r.status} ({r.problem})" for r in runs
           if not r.complete and not r.superseded]
    for app in apps.values():
        for e in entries(runs, kind=app.kind, app=app.name, include_simulated=True):
            res = e.record["results"].get(app.metric.value)
            if res is None:
                continue
            v = e.result(app.metric.value)
            if v is None or not math.isfinite(v):
                raw = res.get("value", res.get("avg")) if isinstance(res, dict) else res
                out.append(f"{e.run.path}: {app.name} metric {app.metric.value} is {raw!r}, "
                           "not a finite number")
    return out


def _key(app: AppDesc, e) -> Key:
    """The configuration; a simulated record's carries its platform (simulated_on=NAME), so
    it never matches a measured one nor one of another platform."""
    params = tuple(sorted((k, str(x)) for k, x in e.params.items()
                          if k != "iters" and k not in PROGRAM_INFO_PARAMS))
    if e.platform_label is not None:
        params += (("simulated_on", e.platform_label),)
    return (app.name, e.run.ranks, e.run.threads, params)


def record_keys(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> set:
    """The configurations `runs` hold records of, with or without the metric."""
    return {_key(app, e) for app in apps.values()
            for e in entries(runs, kind=app.kind, app=app.name, include_simulated=True)}


def metric_values(runs: Sequence[Run], apps: Dict[str, AppDesc]
                  ) -> Dict[Key, Tuple[float, AppDesc]]:
    sums: Dict[Key, List[float]] = {}
    desc: Dict[Key, AppDesc] = {}
    for app in apps.values():
        for e in entries(runs, kind=app.kind, app=app.name, include_simulated=True):
            v = e.result(app.metric.value)
            if v is None or not math.isfinite(v):
                continue  # listed by missing()
            key = _key(app, e)
            sums.setdefault(key, []).append(v)
            desc[key] = app
    return {k: (sum(v) / len(v), desc[k]) for k, v in sums.items()}


def lacking(a: Sequence[Run], b: Sequence[Run], apps: Dict[str, AppDesc]) -> List[str]:
    """Configurations whose metric one set has and the other's records of the same
    configuration lack (a dropped metric, not a configuration run in one set only)."""
    va, vb = metric_values(a, apps), metric_values(b, apps)
    ka, kb = record_keys(a, apps), record_keys(b, apps)
    out = []
    for name, have, other_keys, other_vals in (("B", va, kb, vb), ("A", vb, ka, va)):
        for k in sorted(set(have) - set(other_vals)):
            if k in other_keys:
                app = have[k][1]
                out.append(f"set {name} lacks metric {app.metric.value} of {k[0]} {k[1]}x{k[2]} "
                           + " ".join(f"{p}={v}" for p, v in k[3]))
    return out


def compare(a: Sequence[Run], b: Sequence[Run], apps: Dict[str, AppDesc],
            tolerance: float) -> Tuple[List[Change], List[str]]:
    """(changes of the common configurations, labels present in one set only)."""
    va, vb = metric_values(a, apps), metric_values(b, apps)
    changes = []
    for key in sorted(set(va) & set(vb)):
        (x, app), (y, _) = va[key], vb[key]
        if x == 0:
            continue
        rel = y / x - 1 if app.metric.higher_is_better else x / y - 1 if y else -1.0
        verdict = "regression" if rel < -tolerance else \
            "improvement" if rel > tolerance else "ok"
        changes.append(Change(key, app.metric.unit, app.metric.value, x, y, rel, verdict))
    only = [f"{'A' if k in va else 'B'} only: {k[0]} {k[1]}x{k[2]} "
            + " ".join(f"{p}={v}" for p, v in k[3]) for k in sorted(set(va) ^ set(vb))]
    return changes, only
