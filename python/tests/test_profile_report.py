"""The report's profile section (issue 25, hybridkit.report.profile) on hand-made records of
the kinds libhybridkit-profile.so writes: time per function summed over call sites, the size
histograms, the allreduces at or above the hybrid allreduce's threshold, checked by hand."""

from __future__ import annotations

from pathlib import Path

from hybridkit.report.profile import profile_section, size_histograms, time_per_function
from hybridkit.study.rundata import Entry, Run


def site(fn, where, calls, t, nbytes=0, intra=0):
    return {"kind": "profile.site", "params": {"function": fn, "site": where},
            "results": {"calls": {"value": calls}, "time": {"min": t / 2, "avg": t, "max": t * 2},
                        "bytes": {"value": nbytes}, "calls_intra": {"value": intra},
                        "calls_inter": {"value": 0}}}


def size(cls, lo, calls):
    return {"kind": "profile.size", "params": {"class": cls, "bytes_min": lo,
                                               "bytes_max": 2 * lo - 1 if lo else 0},
            "results": {"calls": {"value": calls}, "bytes": {"value": calls * lo}}}


def profiled():
    main = {"kind": "profile",
            "params": {"command": "./app", "procs": 2, "threads": 4},
            "results": {"wall_time": {"min": 9.0, "avg": 9.5, "max": 10.0},
                        "mpi_time_outside": {"min": 1.0, "avg": 2.0, "max": 3.0},
                        "mpi_time_parallel": {"min": 0, "avg": 0.5, "max": 1.0},
                        "f_comm": {"min": 0.1, "avg": 0.2, "max": 0.3},
                        "sleeping_threads": {"min": 3.0, "avg": 6.0, "max": 9.0},
                        "p2p_bytes_intra": {"value": 1000}, "p2p_bytes_inter": {"value": 0}}}
    records = [main,
               site("MPI_Waitall", "a.c:10", 100, 1.5), site("MPI_Allreduce", "a.c:20", 40, 0.25),
               site("MPI_Waitall", "b.c:5", 10, 0.75), site("MPI_Isend", "a.c:9", 100, 0.01, 800, 100),
               size("p2p", 8, 100), size("allreduce", 8, 30), size("allreduce", 16384, 7),
               size("allreduce", 65536, 3), size("collective", 0, 2)]
    return Run(Path("/nonexistent/profile-app-2x4"), info={"np": 2, "threads": 4},
               records=records)


def test_time_per_function_sums_sites_and_sorts():
    run = profiled()
    sites = [Entry(run, r) for r in run.records if r["kind"] == "profile.site"]
    fns = time_per_function(sites)
    assert list(fns) == ["MPI_Waitall", "MPI_Allreduce", "MPI_Isend"]
    assert fns["MPI_Waitall"] == 2.25 and fns["MPI_Allreduce"] == 0.25   # avg of two sites


def test_size_histograms_by_class():
    run = profiled()
    h = size_histograms([Entry(run, r) for r in run.records if r["kind"] == "profile.size"])
    assert h == {"p2p": {8: 100}, "collective": {0: 2}, "allreduce": {8: 30, 16384: 7, 65536: 3}}


def test_section_counts_allreduces_at_the_threshold(monkeypatch):
    monkeypatch.setenv("HK_ALLREDUCE_MIN_BYTES", "16384")
    sec = profile_section([profiled()])
    assert sec is not None and len(sec.figures) == 2
    assert "would go to the hybrid allreduce: 10 of 40" in sec.figures[1].caption
    summary = sec.tables[0].rows[0]
    assert summary[2:9] == [10.0, 2.0, 0.5, 0.2, 6.0, 1000.0, 0.0]
    assert [r[1] for r in sec.tables[1].rows][:2] == ["MPI_Waitall", "MPI_Waitall"]
    monkeypatch.setenv("HK_ALLREDUCE_MIN_BYTES", "65536")
    assert "would go to the hybrid allreduce: 3 of 40" in profile_section([profiled()]).figures[1].caption


def test_no_profile_records_no_section():
    assert profile_section([]) is None
