"""The report: sections built from validated records, rendered as HTML, Markdown or CSV.

    runs --> sections (title, text, tables, figures with one-line captions)
         --> html(): one self-contained page, figures as SVG images (data: URIs), no network
             markdown(): the text and tables (figures named by their captions)
             csv_rows(): one row per result of every record (long format)

Sections: machine and binding; per app (descriptions with report = [...]): performance vs
threads per process for each core count (Jin et al.'s layout), compute/comm/wait per mode,
memory per rank and per core; ping-pong intra vs inter node; the b_eff table; T_hybrid/T_pure
vs message size (Rabenseifner); overlap test; barrier costs; halo modes; the advice; runs
that are incomplete.  The apps' sections are built in hybridkit.report.apps, the benchmarks'
in hybridkit.report.bench, from the blocks of hybridkit.report.parts; this module assembles
and renders them (their names stay importable from here).  Simulated records (hybridkit
simulate) never enter those: each platform gets its own "Simulated on PLATFORM" sections
(hybridkit.report.simulate, docs/simulate-report.md).
"""

from __future__ import annotations

import base64
import csv
import html
import io
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from hybridkit import __version__
from hybridkit.advice.advise import advise
from hybridkit.appdesc import AppDesc
from hybridkit.errors import HKError
from hybridkit.launch.binding import bindings, expected_threads, pus_per_core, verdict
from hybridkit.report.apps import app_sections
from hybridkit.report.bench import (barrier_section, beff_section, epsilon_section, halo_section,
                                    overlap_section, pingpong_section, ratio_section)
from hybridkit.report.coll import coll_sections, collect_entries
from hybridkit.report.dsm import dsm_section as _dsm
from hybridkit.report.parts import Figure, Section, Table, configurations_plot, fmt_cell
from hybridkit.report.profile import profile_section as _prof
from hybridkit.report.simulate import simulated_sections
from hybridkit.study.quality import FUNCTIONAL, busy_share, is_busy, is_functional, load_text
from hybridkit.study.rundata import Entry, Run, entries, platform_of, split_simulated, study_meta


# --- sections ---------------------------------------------------------------------------

def machine_section(runs: Sequence[Run], meta: Dict[str, Any]) -> Section:
    sec = Section("Machine and binding")
    recs = [r for run in runs for r in run.records]
    if recs:
        p = recs[0]["provenance"]
        m = p["machine"]
        sec.tables.append(Table(["item", "value"], [
            ["hosts", ", ".join(sorted({h for r in recs for h in r["provenance"]["hosts"]}))],
            ["machine", f"{m['packages']} package(s), {m['numa_nodes']} NUMA node(s), "
                        f"{m['cores']} cores, {m['pus']} PUs ({m['source']})"],
            ["MPI", p["mpi_library"]], ["compiler", f"{p['compiler']} {p['cflags']}"],
            ["hybridkit", f"{p['hybridkit_version']} ({p['git_sha'][:12]})"],
        ]))
    rows = []
    for run in runs:
        if not run.records:
            continue
        v = verdict(bindings(run.records), pus_per_core(run.records), expected_threads(run.records))
        p = run.records[0]["provenance"]
        rows.append([run.app or "?", run.label, run.bind, p["omp_places"] or "",
                     p["omp_proc_bind"] or "", v.text])
    if rows:
        sec.tables.append(Table(["app", "run", "bind", "OMP_PLACES", "OMP_PROC_BIND",
                                 "binding verdict"], rows))
    sec.pre = meta.get("machine_text", "")
    return sec


def _flagged(runs: Sequence[Run]):
    """(complete runs, those made on a busy machine, those oversubscribed)"""
    done = [r for r in runs if r.complete]
    busy = [r for r in done if is_busy(r.info) and not is_functional(r.info)]
    func = [r for r in done if is_functional(r.info)]
    return done, busy, func


def conditions_section(runs: Sequence[Run]) -> Optional[Section]:
    """The banner: runs made while others used the machine, oversubscribed runs."""
    done, busy, func = _flagged(runs)
    if not busy and not func:
        return None
    sec = Section("Flagged runs (busy machine, oversubscribed)", banner=True)
    if busy:
        sec.text.append(f"BUSY MACHINE: {len(busy)} of {len(done)} run(s) were made while other "
                        f"programs used more than {busy_share():.0%} of the machine, even after "
                        f"repeating them. They are flagged in the tables, drawn as red crosses "
                        f"in the figures and left out of the advice; repeat the study on a "
                        f"quiet machine.")
    if func:
        apps = ", ".join(sorted({r.app or "?" for r in func}))
        sec.text.append(f"{len(func)} run(s) ({apps}) had more ranks x threads than cores "
                        f"(oversubscribed, unbound): {FUNCTIONAL}; never used for advice.")
    sec.tables.append(Table(["run", "app", "flag", "load of others during the run"],
                            [[r.label, r.app or "?", "oversubscribed" if is_functional(r.info)
                              else "busy", load_text(r.info)] for r in busy + func]))
    return sec


def _section_flags(sec: Section, es: Sequence[Entry]) -> Section:
    """A note on a benchmark section whose runs are not performance results."""
    runs = {id(e.run): e.run for e in es}.values()
    if any(is_functional(r.info) for r in runs):
        sec.text.insert(0, f"Oversubscribed: {FUNCTIONAL}.")
        sec.banner = True
    elif any(is_busy(r.info) for r in runs):
        sec.text.insert(0, "Measured while the machine was busy (others used it): not a "
                           "reliable performance result.")
        sec.banner = True
    return sec


def answer_section(runs: Sequence[Run], apps: Dict[str, AppDesc]) -> Section:
    """The report's first section: the recommendation, winner vs runner-up with margin and
    significance, best pure MPI vs best hybrid (the advice's lines, correctness first), and
    the figure behind it: every configuration of the advised problem, median and min-max."""

    sec = Section("Answer", anchor="answer")
    try:
        adv = advise(runs, apps)
    except HKError as exc:
        sec.text.append(str(exc))
        return sec
    sec.text += adv.lines()
    app = apps.get(adv.app)
    configs = adv.configs
    if app and configs:
        chosen = next((i for i, c in enumerate(configs) if c is adv.chosen), -1)
        unit = app.metric.unit
        where = "higher is better" if app.metric.higher_is_better else "lower is better"
        sec.figures.append(Figure(
            configurations_plot([c.label() for c in configs],
                                [c.spread.median for c in configs],
                                [c.spread.lo for c in configs], [c.spread.hi for c in configs],
                                [c.single_threaded for c in configs], chosen,
                                f"{app.metric.value} [{unit}]"),
            f"{adv.app} on {adv.cores} cores: {app.metric.value} ({unit}, {where}) of every "
            f"configuration, median of its repeats with min-max; pure MPI orange, hybrid "
            f"blue, the recommended one outlined"))
    return sec


def conditions_line(runs: Sequence[Run]) -> Section:
    """One short line on how the runs were made, linking to the appendix's details."""
    done, busy, func = _flagged(runs)
    bad = [r for r in runs if not r.complete]
    parts = [f"{len(done)} complete run(s)"]
    if busy:
        parts.append(f"{len(busy)} made on a busy machine (left out of the advice)")
    if func:
        parts.append(f"{len(func)} oversubscribed (functional only, left out)")
    if bad:
        parts.append(f"{len(bad)} incomplete")
    if not busy and not func:
        parts.append("none on a busy machine or oversubscribed")
    sec = Section("Measurement conditions", banner=bool(busy), anchor="conditions")
    sec.text.append("; ".join(parts) + ". Machine, binding per run and run lists: see the "
                    "appendix below.")
    return sec


def incomplete_section(runs: Sequence[Run]) -> Optional[Section]:
    bad = [r for r in runs if not r.complete]
    if not bad:
        return None
    return Section("Incomplete runs", text=[f"{len(bad)} run(s) did not complete; their valid "
                                            f"records are not used in the figures."],
                   tables=[Table(["run", "app", "status", "problem", "directory"],
                                 [[r.label + (f" (simulated on {r.view})" if r.view else ""),
                                   r.app or "?", r.status, r.problem, str(r.path)]
                                  for r in bad])])


BENCH_KINDS = {"pingpong_section": "bench.pingpong", "beff_section": "bench.beff",
               "ratio_section": "bench.beff", "overlap_section": "bench.overlap",
               "barrier_section": "bench.barrier", "halo_section": "bench.halo",
               "epsilon_section": "spmv"}


def build(runs: Sequence[Run], apps: Dict[str, AppDesc], meta: Dict[str, Any]) -> List[Section]:
    """The sections of the real runs, then those of each simulated platform (issue 26):
    the real ones see only the real records (split_simulated), the simulated ones are
    built per platform and titled with its name, so no table, figure or average mixes them."""

    every = runs
    runs, sims = split_simulated(runs)
    # the answer first, then the conditions in one line; details follow, the machine, the
    # per-run binding and the run lists go to the collapsed appendix at the end
    sections = [answer_section(every, apps), conditions_line(runs)]
    if sims and not any(r.records for r in runs):
        sections[1].text.append("No measured run: the records are simulated ("
                                + ", ".join(sims) + "), see the 'Simulated on' sections.")
    appendix = [machine_section(runs, meta)]
    banner = conditions_section(runs)
    if banner:
        appendix.insert(0, banner)
    sections += app_sections(runs, apps)
    for fn in (pingpong_section, beff_section, ratio_section, overlap_section,
               barrier_section, halo_section, epsilon_section, _dsm, _prof):
        sec = fn(runs)
        if sec:
            kind = BENCH_KINDS.get(fn.__name__)
            es = [e for e in entries(runs) if kind and e.record["kind"].startswith(kind)]
            sections.append(_section_flags(sec, es))
    sections += [_section_flags(sec, collect_entries(runs)) for sec in coll_sections(runs)]
    for platform, views in sims.items():
        sections += simulated_sections(platform, views)
    sec = incomplete_section([r for r in runs] + [r for v in sims.values() for r in v])
    if sec:
        appendix.append(sec)
    for sec in appendix:
        sec.appendix = True
    return sections + appendix


# --- renderers --------------------------------------------------------------------------

CSS = """body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
figure{margin:1em 0}figure img{max-width:100%;height:auto}
figcaption{font-size:.85em;color:#444}pre{background:#f6f6f6;padding:.5em;font-size:.8em;
overflow:auto}
.banner{border:2px solid #c00;background:#fff0f0;padding:.2em 1em;margin:1em 0}
.banner h2{color:#c00;border:none}"""


def html_page(sections: Sequence[Section], title: str) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(title)}</title>", f"<style>{CSS}</style></head><body>",
           f"<h1>{e(title)}</h1>", f"<p>hybridkit {e(__version__)} report</p>"]
    opened = False
    for sec in sections:
        if sec.appendix and not opened:
            opened = True
            out.append('<details id="appendix"><summary><h2 style="display:inline">Appendix: '
                       'machine, binding per run, run lists</h2></summary>')
        cls = ' class="banner"' if sec.banner else ""
        ident = f' id="{e(sec.anchor)}"' if sec.anchor else ""
        out.append(f"<section{ident}{cls}><h2>{e(sec.title)}</h2>")
        out += [f"<p>{e(t)}</p>" for t in sec.text]
        if sec.pre:
            out.append(f"<pre>{e(sec.pre)}</pre>")
        for t in sec.tables:
            out.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in t.headers) + "</tr>")
            out += ["<tr>" + "".join(f"<td>{e(fmt_cell(c))}</td>" for c in row) + "</tr>"
                    for row in t.rows]
            out.append("</table>")
        for f in sec.figures:
            data = base64.b64encode(f.svg.encode()).decode()
            out.append(f'<figure class="plot"><img alt="{e(f.caption)}" '
                       f'src="data:image/svg+xml;base64,{data}">'
                       f"<figcaption>{e(f.caption)}</figcaption></figure>")
        out.append("</section>")
    if opened:
        out.append("</details>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def markdown(sections: Sequence[Section], title: str) -> str:
    out = [f"# {title}", ""]
    opened = False
    for sec in sections:
        if sec.appendix and not opened:
            opened = True
            out += ["## Appendix", ""]
        out += [f"{'###' if sec.appendix else '##'} {sec.title}", ""]
        out += [t + "\n" for t in sec.text]
        if sec.pre:
            out += ["```", sec.pre.rstrip(), "```", ""]
        for t in sec.tables:
            out.append("| " + " | ".join(t.headers) + " |")
            out.append("|" + "---|" * len(t.headers))
            out += ["| " + " | ".join(fmt_cell(c).replace("|", "/") for c in row) + " |"
                    for row in t.rows]
            out.append("")
        out += [f"*Figure: {f.caption}*\n" for f in sec.figures]
    return "\n".join(out)


# simulated_on: the platform's name for a simulated record (hybridkit simulate), empty for a
# measured one, so a spreadsheet never averages the two without seeing it
CSV_HEADERS = ["app", "run", "status", "kind", "ranks", "threads", "params", "result", "min",
               "avg", "max", "value", "unit", "simulated_on"]


def csv_text(runs: Sequence[Run]) -> str:

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_HEADERS)
    for run in runs:
        for r in run.records:
            params = ";".join(f"{k}={v}" for k, v in r["params"].items())
            for name, res in r["results"].items():
                w.writerow([run.app or "", run.label, run.status, r["kind"], run.ranks,
                            run.threads, params, name, res.get("min"), res.get("avg"),
                            res.get("max"), res.get("value"), res.get("unit", ""),
                            platform_of(r) or ""])
    return buf.getvalue()


RENDERERS: Dict[str, Callable[[Sequence[Section], str], str]] = {
    "html": html_page, "md": markdown,
}


def write_report(runs: Sequence[Run], apps: Dict[str, AppDesc], paths: Sequence[Path],
                 output: Path, fmt: str, title: str, with_csv: bool = False) -> Path:
    """The report of `runs` (found under `paths`) as `fmt` (html, md) in `output`, and
    its results as CSV beside it when `with_csv`."""

    sections = build(runs, apps, study_meta(paths))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(RENDERERS[fmt](sections, title))
    if with_csv:
        output.with_suffix(".csv").write_text(csv_text(runs))
    return output
