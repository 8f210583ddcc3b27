"""The report's building blocks: sections of text, tables and figures (drawn when first
needed), and the small helpers every section uses (formatting, medians, run flags).

hybridkit.report.document assembles and renders the sections; hybridkit.report.apps builds
those of the apps, hybridkit.report.bench those of the benchmarks.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from hybridkit import plot
from hybridkit.study.quality import is_busy, is_functional
from hybridkit.study.rundata import Entry


MIB = 1024.0


@dataclass
class Figure:
    """A plot drawn when its SVG is first needed (Markdown and CSV never draw)."""

    draw: Callable[[], str]
    caption: str
    _svg: Optional[str] = None

    @property
    def svg(self) -> str:
        if self._svg is None:
            self._svg = self.draw()
        return self._svg


def _deferred(name: str) -> Callable[..., Callable[[], str]]:
    """hybridkit.plot.NAME with these arguments, called (and matplotlib imported) later."""
    def bind(*args: Any, **kwargs: Any) -> Callable[[], str]:
        def draw() -> str:
            return getattr(plot, name)(*args, **kwargs)
        return draw
    return bind


lines, stacked_bars, bar_panels, configurations_plot = (
    _deferred(n) for n in ("lines", "stacked_bars", "bar_panels", "configurations"))


@dataclass
class Table:
    headers: List[str]
    rows: List[List[Any]]


@dataclass
class Section:
    title: str
    text: List[str] = field(default_factory=list)
    tables: List[Table] = field(default_factory=list)
    figures: List[Figure] = field(default_factory=list)
    pre: str = ""
    banner: bool = False  # shown as a warning box
    appendix: bool = False  # after the results, collapsed (HTML <details>)
    anchor: str = ""  # HTML id, for links from other sections


def fmt_cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def entry_cores(e: Entry) -> int:
    return e.run.ranks * e.run.threads


def natural_key(text: str) -> List[Any]:
    """Sort key: 'size=64' before 'size=160'."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def mean_of(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def entries_flag(es: Sequence[Entry]) -> str:
    """What makes a group of results unfit for performance: 'functional' (oversubscribed),
    'busy' (a busy machine) or ''."""
    if any(is_functional(e.run.info) for e in es):
        return "functional"
    return "busy" if any(is_busy(e.run.info) for e in es) else ""


def entry_flag(e: Entry) -> str:
    return entries_flag([e])


def median_of(values: Sequence[float]) -> Optional[float]:
    vals = sorted(values)
    if not vals:
        return None
    n = len(vals)
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


def median_lines(series: Dict[str, List[Tuple[float, float]]]
                 ) -> Dict[str, List[Tuple[float, float]]]:
    """Repeats of a benchmark give several y at one x: their median, so lines do not zigzag."""
    out = {}
    for name, pts in series.items():
        by: Dict[float, List[float]] = {}
        for x, y in pts:
            by.setdefault(x, []).append(y)
        out[name] = [(x, statistics.median(ys)) for x, ys in sorted(by.items())]
    return out
