"""The terminal summary of a study or sweep, beside its report: report.html written, the
answer first (the recommendation and the main app's configurations: median and min-max of
the repeats), the conditions in one line, then one row per app.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hybridkit import appcatalog
from hybridkit.advice.advise import advise, configurations, usable
from hybridkit.appdesc import AppDesc
from hybridkit.errors import HKError
from hybridkit.report.document import write_report
from hybridkit.study.quality import BUSY_SHARE, is_busy, is_functional, num
from hybridkit.study.rundata import assign_apps, entries, find_runs


def best_config(app: AppDesc, es):
    """The best configuration (median of its repeats) of the largest problem on the most
    cores, from performance results only (not busy, not oversubscribed)."""

    es = [e for e in es if e.result(app.metric.value) is not None]
    es = [e for e in es if usable(e)] or [e for e in es if not is_functional(e.run.info)]
    if not es:
        return None
    most = max(e.run.ranks * e.run.threads for e in es)
    es = [e for e in es if e.run.ranks * e.run.threads == most]
    top = max(app.problem_size(e.params) for e in es)
    es = [e for e in es if app.problem_size(e.params) == top]
    largest = max(app.problem_key(e.params) for e in es)
    return configurations([e for e in es if app.problem_key(e.params) == largest], app)[0]


def summary(out: Path, what: str = "study") -> int:
    """Write report.html, print the answer first (the recommendation, the main app's
    configurations: median and min-max of the repeats), then the summary table per app
    (`what`: study or sweep)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    apps = appcatalog.load_all([out / "apps"])
    runs = find_runs([out])
    assign_apps(runs, apps)
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    table = Table(title=f"{what} summary")
    for col in ("app", "runs ok", "incomplete", "flagged", "best on the most cores",
                "median [min-max]"):
        table.add_column(col)
    busy_runs = func_runs = 0
    for app in apps.values():
        mine = [r for r in runs if r.app == app.name and not r.superseded]
        if not mine:
            continue
        busy = sum(is_busy(r.info) and not is_functional(r.info) for r in mine if r.complete)
        func = sum(is_functional(r.info) for r in mine if r.complete)
        busy_runs += busy
        func_runs += func
        flags = ", ".join(x for x in (f"{busy} busy" if busy else "",
                                      f"{func} functional only" if func else "") if x)
        best, value = "-", "-"
        c = best_config(app, entries(mine, kind=app.kind))
        if c:
            best = f"{c.ranks}x{c.threads} {c.mode if app.metric.series else ''}".strip()
            value = f"{c.spread.text(app.metric.unit)} ({app.metric.value})"
            if not any(usable(e) for e in c.entries):
                value += " BUSY: unreliable"
        table.add_row(app.name, str(sum(r.complete for r in mine)),
                      str(sum(not r.complete for r in mine)), flags or "-", best, value)
    path = write_report(runs, apps, [out], out / "report.html", "html", title=f"hybridkit "
                        f"{what} {out.name}")
    # the answer first (as in the report), then the conditions in one line, then details
    try:
        advice = advise(runs, apps)
        app = apps[advice.app]
        console.print("[bold]ANSWER[/]")
        for line in advice.lines():
            console.print(line, markup=False, soft_wrap=True)
        cfg = Table(title=escape(f"{advice.app}: {app.metric.value} [{app.metric.unit}] on "
                                 f"{advice.cores} cores, median of the repeats (advised "
                                 f"problem)"))
        for col in ("configuration", "median", "min-max", "runs"):
            cfg.add_column(col)
        for c in advice.configs:
            mark = " (recommended)" if c is advice.chosen else ""
            cfg.add_row(f"{c.label()}{mark}", num(c.spread.median),
                        f"{num(c.spread.lo)}-{num(c.spread.hi)}", str(c.spread.n))
        console.print(cfg)
    except HKError as exc:
        console.print(f"no recommendation: {exc}", markup=False)
    if busy_runs or func_runs:
        console.print(f"[bold red]conditions:[/] {busy_runs} run(s) made while other programs "
                      f"used more than {BUSY_SHARE:.0%} of the machine (after repeating them), "
                      f"{func_runs} oversubscribed: flagged and left out of the advice")
    else:
        console.print("conditions: every run on a quiet machine, none oversubscribed")
    console.print(table)
    console.print(f"report: {path}")
    return 0
