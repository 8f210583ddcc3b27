"""The report's DSM section (issue 21, hybridkit.report.dsm) on a synthetic set of records:
hk-dsm-heat's (kind dsm.heat) at two grids, two rank counts, two schedules, with repeats,
and hk-jacobi --dims 2's (kind jacobi) as the MPI reference at one grid. The expected table
is computed here by hand from the numbers written into the records."""

from __future__ import annotations

import json
from pathlib import Path

from hybridkit import appcatalog
from hybridkit.report.document import build, markdown
from hybridkit.report.dsm import dsm_section
from hybridkit.study.rundata import Run, assign_apps, find_runs, study_meta


def _stats(v):
    return {"min": v, "avg": v, "max": v, "unit": "s"}


def dsm_run(n, ranks, schedule, t, barrier, fault, nbytes, faults=10.0, threads=1):
    rec = {"kind": "dsm.heat",
           "params": {"grid": f"{n}x{n}", "dims": 2, "boundary": "periodic", "ranks": ranks,
                      "threads": threads, "schedule": schedule, "home": "block", "iters": 10},
           "results": {"time_per_step": _stats(t), "barrier": _stats(barrier),
                       "fault": _stats(fault),
                       "bytes_per_step": {"value": nbytes, "unit": "B/step"},
                       "faults": {"value": faults, "unit": "faults/step"}}}
    return Run(Path(f"/nonexistent/dsm-{n}-{ranks}-{schedule}-{t}"),
               info={"np": ranks, "threads": threads}, records=[rec])


def mpi_run(n, ranks, mode, t, comm, intra, inter, width=1, threads=1):
    rec = {"kind": "jacobi",
           "params": {"grid": f"{n}x{n}x1", "dims": 2, "boundary": "periodic", "mode": mode,
                      "halo_width": width},
           "results": {"time_per_iter": _stats(t), "comm": _stats(comm),
                       "bytes_intra": {"value": intra}, "bytes_inter": {"value": inter}}}
    return Run(Path(f"/nonexistent/mpi-{n}-{ranks}-{mode}"),
               info={"np": ranks, "threads": threads}, records=[rec])


RUNS = [
    # 250x250: 1 rank, static (two repeats: median 0.002), 2 ranks static and static,1
    dsm_run(250, 1, "static", 0.001, 0.0, 0.0, 0.0),
    dsm_run(250, 1, "static", 0.003, 0.0, 0.0, 0.0),
    dsm_run(250, 2, "static", 0.004, 0.001, 0.0005, 65536.0),
    dsm_run(250, 2, "static,1", 0.040, 0.010, 0.020, 4e6),
    dsm_run(1000, 1, "static", 0.020, 0.0, 0.0, 0.0),
    dsm_run(1000, 2, "static", 0.012, 0.001, 0.001, 131072.0),
    # the MPI reference at 250x250, 2 ranks: pure is the faster mode (masteronly left out)
    mpi_run(250, 2, "pure", 0.0008, 0.0001, 4016.0, 0.0),
    mpi_run(250, 2, "masteronly", 0.0010, 0.0002, 4016.0, 0.0),
    # a 3D jacobi record and a record at other ranks are not references
    mpi_run(250, 4, "pure", 0.0001, 0.00001, 1.0, 1.0),
]


def _rows():
    sec = dsm_section(RUNS)
    assert sec is not None
    head = sec.tables[0].headers
    return sec, {(r[0], r[2], r[3]): dict(zip(head, r)) for r in sec.tables[0].rows}


def test_table_by_hand():
    sec, rows = _rows()
    assert set(rows) == {("250x250", "1x1", "static"), ("250x250", "2x1", "static"),
                         ("250x250", "2x1", "static,1"), ("1000x1000", "1x1", "static"),
                         ("1000x1000", "2x1", "static")}
    one = rows[("250x250", "1x1", "static")]
    assert one["time/step [ms]"] == "2" and one["runs"] == 2      # median of 1 and 3 ms
    assert one["speedup vs fewest ranks"] == "1 (vs 1)"
    two = rows[("250x250", "2x1", "static")]
    assert two["speedup vs fewest ranks"] == f"{0.002 / 0.004:.3g} (vs 1)"  # slower on 2
    assert two["DSM bytes/step"] == "65536"
    assert two["protocol/step [ms]"] == f"{1e3 * 0.0015:.4g}"
    assert two["MPI mode"] == "pure" and two["MPI time/step [ms]"] == "0.8"
    assert two["MPI halo bytes/step"] == "4016"
    assert two["time ratio DSM/MPI"] == f"{0.004 / 0.0008:.3g}"   # 5
    assert two["comm ratio DSM/MPI"] == f"{0.0015 / 0.0001:.3g}"  # 15
    chunk = rows[("250x250", "2x1", "static,1")]
    assert chunk["speedup vs fewest ranks"] == "1 (vs 2)"  # no 1-rank static,1 run
    assert chunk["time ratio DSM/MPI"] == f"{0.040 / 0.0008:.3g}"  # 50
    big = rows[("1000x1000", "2x1", "static")]
    assert big["speedup vs fewest ranks"] == f"{0.020 / 0.012:.3g} (vs 1)"
    assert big["MPI mode"] == "-" and big["time ratio DSM/MPI"] == "-"
    # the figures: time and bytes per step, a panel per layout, MPI beside the DSM
    assert len(sec.figures) == 2
    assert all(f.svg.startswith("<svg") for f in sec.figures)


def test_halo_width_divides_mpi_bytes():
    runs = [dsm_run(64, 2, "static", 0.01, 0.001, 0.0, 100.0),
            mpi_run(64, 2, "pure", 0.001, 0.0005, 800.0, 200.0, width=2)]
    sec = dsm_section(runs)
    row = dict(zip(sec.tables[0].headers, sec.tables[0].rows[0]))
    assert row["MPI halo bytes/step"] == "500"  # (800 + 200) bytes per exchange of 2 sweeps


def test_no_records_no_section():
    assert dsm_section([mpi_run(250, 2, "pure", 0.001, 0.0001, 1.0, 0.0)]) is None


def test_recorded_quick_sweep(fixtures):
    """A recorded `hybridkit sweep dsm --quick` and `sweep dsm-mpi --quick` (2-core machine,
    busy: the numbers are not performance results): the section is in the report, and its
    ratios are the records' numbers, read here directly."""
    root = fixtures / "dsm_quick"
    apps = appcatalog.load_all()
    assert "dsm" in apps and apps["dsm"].kind == "dsm.heat" and "dsm" in apps["dsm"].report
    assert "dsm-mpi" in apps and apps["dsm-mpi"].kind == "jacobi"
    runs = find_runs([root])
    assign_apps(runs, apps)
    sections = build(runs, apps, study_meta([root]))
    sec = next(s for s in sections if s.title.startswith("DSM: the heat example"))
    dsm, mpi = {}, {}
    for f in (root / "runs").glob("*/*/records.jsonl"):
        for line in f.read_text().splitlines():
            r = json.loads(line)
            p, res = r["params"], r["results"]
            if r["kind"] == "dsm.heat":
                dsm[(p["grid"], p["ranks"], p["schedule"])] = (
                    res["time_per_step"]["max"], res["bytes_per_step"]["value"],
                    res["barrier"]["avg"] + res["fault"]["avg"])
            elif r["kind"] == "jacobi" and p["dims"] == 2:
                n = r["provenance"]["ranks"]
                mpi[(p["grid"].rsplit("x", 1)[0], n)] = (res["time_per_iter"]["max"],
                                                          res["comm"]["avg"])
    head = sec.tables[0].headers
    rows = {(r[0], r[2], r[3]): dict(zip(head, r)) for r in sec.tables[0].rows}
    assert len(rows) == len(dsm) == 8 and len(mpi) == 4
    for (grid, ranks, schedule), (t, nbytes, proto) in dsm.items():
        row = rows[(grid, f"{ranks}x1", schedule)]
        mt, mc = mpi[(grid, ranks)]
        assert row["time ratio DSM/MPI"] == f"{t / mt:.3g}"
        assert row["comm ratio DSM/MPI"] == (f"{proto / mc:.3g}" if ranks > 1 else "-")
        assert row["DSM bytes/step"] == f"{nbytes:.0f}"
        assert (nbytes == 0) == (ranks == 1)  # one rank moves nothing
        one = dsm[(grid, 1, schedule)][0]
        assert row["speedup vs fewest ranks"] == f"{one / t:.3g} (vs 1)"
    # the tutorial's schedule finding in bytes (exact, not timing): static,1 moves more
    for grid in ("250x250", "1000x1000"):
        assert dsm[(grid, 2, "static,1")][1] > 10 * dsm[(grid, 2, "static")][1]
    assert all(f.svg.startswith("<svg") for f in sec.figures)
    assert "time ratio DSM/MPI" in markdown(sections, "dsm")
