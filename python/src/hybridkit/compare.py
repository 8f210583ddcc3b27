"""Regression check between two run sets: each app's metric, configuration by configuration.

    key = (app, ranks, threads, record params)   value = mean over repeats of the metric
    change = B / A - 1, signed so that negative is worse (metric.better)
    regression: change < -tolerance;  improvement: change > +tolerance

Configurations present in only one set are listed, not judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from hybridkit.appdesc import AppDesc
from hybridkit.rundata import Run, entries

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


def metric_values(runs: Sequence[Run], apps: Dict[str, AppDesc]
                  ) -> Dict[Key, Tuple[float, AppDesc]]:
    sums: Dict[Key, List[float]] = {}
    desc: Dict[Key, AppDesc] = {}
    for app in apps.values():
        for e in entries(runs, kind=app.kind, app=app.name):
            v = e.result(app.metric.value)
            if v is None:
                continue
            params = tuple(sorted((k, str(x)) for k, x in e.params.items() if k != "iters"))
            key = (app.name, e.run.ranks, e.run.threads, params)
            sums.setdefault(key, []).append(v)
            desc[key] = app
    return {k: (sum(v) / len(v), desc[k]) for k, v in sums.items()}


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
