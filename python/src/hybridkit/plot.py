"""Figures of the report: matplotlib (Agg) drawn to SVG text, imported lazily.

Each function takes plain data (dicts of series -> [(x, y)]) and returns SVG text, so the
report module decides what to plot and this one only how.
"""

from __future__ import annotations

import io
from typing import Dict, List, Optional, Sequence, Tuple

Series = Dict[str, List[Tuple[float, float]]]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.grid": True,
                         "grid.alpha": 0.3, "figure.dpi": 96})
    return plt


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    _plt().close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def lines(panels: Dict[str, Series], xlabel: str, ylabel: str, logx: bool = False,
          logy: bool = False, hline: Optional[float] = None, xticks_int: bool = False,
          twins: Optional[Dict[str, Series]] = None, twin_label: str = "",
          crosses: Optional[Dict[str, List[Tuple[float, float]]]] = None,
          crosses_label: str = "", black: str = "", width: float = 4.2) -> str:
    """One subplot per panel (shared y), one line per series, a series keeping its colour in
    every panel (`black`: that series black and first in the legend; "best": black, dotted).
    twins[panel][series]: a dashed line in the series' colour (e.g. a model's prediction),
    one legend entry `twin_label`; crosses[panel]: points marked by red crosses
    (`crosses_label`).  A panel title "A, B" is drawn on two lines when panels are narrow."""
    from matplotlib.lines import Line2D

    plt = _plt()
    twins, crosses = twins or {}, crosses or {}
    names = sorted({n for p in (panels, twins) for s in p.values() for n in s},
                   key=lambda n: (n != black, n))
    colour = {n: "black" if n in (black, "best") else f"C{i}" for i, n in enumerate(names)}
    n = max(1, len(panels))
    fig, axes = plt.subplots(1, n, figsize=(min(width * n, 12), 3.2), squeeze=False, sharey=True)
    for ax, (title, series) in zip(axes[0], panels.items()):
        for name in names:
            pts = sorted(series.get(name, []))
            style = dict(color="black", linestyle=":", marker="") if name == "best" else \
                dict(marker="o", color=colour[name])
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            if pts and len(pts[0]) >= 4:  # (x, median, lo, hi[, flagged]): error bars
                err = [[max(0.0, p[1] - p[2]) for p in pts], [max(0.0, p[3] - p[1]) for p in pts]]
                ax.errorbar(xs, ys, yerr=err, capsize=3, label=name, **style)
                bad = [p for p in pts if len(p) >= 5 and p[4]]
                if bad:
                    ax.scatter([p[0] for p in bad], [p[1] for p in bad], marker="x", s=80,
                               color="red", zorder=4, linewidths=2)
            elif pts:
                ax.plot(xs, ys, label=name, **style)
            twin = sorted(twins.get(title, {}).get(name, []))
            if twin:
                ax.plot([p[0] for p in twin], [p[1] for p in twin], color=colour[name],
                        linestyle="--", linewidth=1)
        handles, _ = ax.get_legend_handles_labels()
        if twins.get(title):
            handles.append(Line2D([], [], color="grey", linestyle="--", label=twin_label))
        if crosses.get(title):
            ax.scatter(*zip(*crosses[title]), marker="x", s=70, color="red", zorder=4)
            handles.append(Line2D([], [], color="red", marker="x", linestyle="",
                                  label=crosses_label))
        if logx:
            ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        if hline is not None:
            ax.axhline(hline, color="grey", linestyle="--", linewidth=1)
        if xticks_int:
            xs = sorted({p[0] for s in series.values() for p in s})
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{x:g}" for x in xs])
        if n > 1 and len(title) > 30:
            ax.set_title(title.replace(", ", "\n", 1), fontsize=8)
        else:
            ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.legend(handles=handles, fontsize=7)
    axes[0][0].set_ylabel(ylabel)
    return _svg(fig)


def stacked_bars(labels: Sequence[str], parts: Dict[str, Sequence[float]], ylabel: str,
                 measured: Optional[Sequence[Optional[float]]] = None,
                 aside: Optional[Sequence[float]] = None, aside_label: str = "") -> str:
    """One bar per label, stacked parts (e.g. pack / post / wait / unpack / compute); a black
    tick at each `measured` value; an unstacked hatched bar beside each (`aside`)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(4.0, 0.7 * len(labels) + 2), 3.4))
    xs = list(range(len(labels)))
    width = 0.6 if aside is None else 0.5
    bottom = [0.0] * len(labels)
    for name, values in parts.items():
        ax.bar(xs, values, width=width, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, values)]
    if aside is not None:
        ax.bar([x + 0.4 for x in xs], aside, width=0.22, fill=False, hatch="///",
               edgecolor="grey", label=aside_label)
    if measured is not None:
        pts = [(x, m) for x, m in zip(xs, measured) if m is not None]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker="_", s=600, color="black",
                   zorder=3, label="measured time")
    ax.set_xticks(xs)
    ax.set_xticklabels(labels)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", rotation=45)
    for tick in ax.get_xticklabels():
        tick.set_horizontalalignment("right")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _svg(fig)


def bar_panels(labels: Sequence[str], panels: Dict[str, Sequence[float]], ylabels: Sequence[str]
               ) -> str:
    """Side-by-side bar charts over the same labels (e.g. memory per rank and per core)."""
    plt = _plt()
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(min(4.5 * n, 12), 3.4), squeeze=False)
    for ax, (title, values), ylabel in zip(axes[0], panels.items(), ylabels):
        ax.bar(labels, values, color="tab:blue")
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.tick_params(axis="x", rotation=45)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
    return _svg(fig)


def configurations(labels: Sequence[str], medians: Sequence[float], lows: Sequence[float],
                   highs: Sequence[float], pure: Sequence[bool], chosen: int,
                   ylabel: str) -> str:
    """The answer's figure: the median of each configuration as a bar with its min-max as
    an error bar, pure MPI and hybrid in two colours, the recommended one outlined."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(min(1.0 + 0.9 * len(labels), 10), 3.4))
    colours = ["tab:orange" if p else "tab:blue" for p in pure]
    below = [m - lo for m, lo in zip(medians, lows)]
    above = [hi - m for m, hi in zip(medians, highs)]
    bars = ax.bar(labels, medians, color=colours, yerr=[below, above], capsize=4,
                  ecolor="black")
    if 0 <= chosen < len(bars):
        bars[chosen].set_edgecolor("black")
        bars[chosen].set_linewidth(2.5)
    from matplotlib.patches import Patch
    handles = [Patch(color="tab:orange", label="pure MPI (1 thread per rank)"),
               Patch(color="tab:blue", label="hybrid")]
    ax.legend(handles=[h for h, on in zip(handles, (any(pure), not all(pure))) if on],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", rotation=30)
    for tick in ax.get_xticklabels():
        tick.set_horizontalalignment("right")
    return _svg(fig)
