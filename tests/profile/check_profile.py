#!/usr/bin/env python3
"""Known answers of libhybridkit-profile.so on tests/profile/prof_known.c.

    check_profile.py FILE.jsonl STDERR NP THREADS SLEEP NODE_SIZE

prof_known's MPI calls are fixed (see its file comment), so the profile's counts and
bytes are exact: per function, summed over the call sites and ranks, the calls, the
bytes, the calls inside parallel regions and off the main thread (when MPI provides
MPI_THREAD_MULTIPLE), the intra/inter-node split (NODE_SIZE: the
HK_NODE_SIZE of the run, 0 for real nodes: one node here), the size histograms. Times
are checked within generous bounds only: the barrier that rank 0 enters SLEEP seconds
late costs every other rank at least half of SLEEP outside parallel regions, and its
threads - 1 as many sleeping thread-seconds. The records validate against the schemas
of their kinds (hybridkit.records), and rank 0 printed the summary.
"""
import sys

from hybridkit.records import load_records


def main(path, stderr, np, nt, sleep, node_size):
    np, nt, sleep, node_size = int(np), int(nt), float(sleep), int(node_size)
    recs = load_records(path)  # validates every record against its kind's schema
    runs = [r for r in recs if r["kind"] == "profile"]
    sites = [r for r in recs if r["kind"] == "profile.site"]
    sizes = [r for r in recs if r["kind"] == "profile.size"]
    assert len(runs) == 1, [r["kind"] for r in recs]
    run = runs[0]
    p, res = run["params"], run["results"]
    v = {k: x.get("value") for k, x in res.items()}
    assert (p["procs"], p["threads"]) == (np, nt), p
    assert p["thread_level"] == "multiple", p
    multiple = p["thread_level_provided"] == "multiple"
    workers = 2 * (nt - 1) * np if multiple else 0  # MPI_Comm_size by threads 1..nt-1
    assert run["provenance"]["ranks"] == np

    per = {}
    for s in sites:
        f = s["params"]["function"]
        agg = per.setdefault(f, {k: 0 for k in ("calls", "bytes", "calls_intra", "calls_inter",
                                                "calls_parallel", "calls_off_main")})
        for k in agg:
            agg[k] += s["results"][k]["value"]
    inter = node_size > 0 and np > 1 and node_size < np  # every ring neighbour elsewhere when 1
    want = {  # function: (calls, bytes)
        "MPI_Sendrecv": (10 * np, 10 * 1000 * np),
        "MPI_Isend": (7 * np, 7 * 3 * np),
        "MPI_Irecv": (7 * np, 7 * 3 * np),
        "MPI_Waitall": (7 * np, 0),
        "MPI_Allreduce": (5 * np, 5 * 8192 * np),
        "MPI_Barrier": (np, 0),
        "MPI_Comm_rank": (4 * np, 0),
        "MPI_Comm_size": (np + workers, 0),
    }
    assert set(per) == set(want), (sorted(per), sorted(want))
    for f, (calls, nbytes) in want.items():
        assert (per[f]["calls"], per[f]["bytes"]) == (calls, nbytes), (f, per[f])
        off = workers if f == "MPI_Comm_size" else 0
        assert per[f]["calls_off_main"] == off, (f, per[f])
    for f in ("MPI_Sendrecv", "MPI_Isend", "MPI_Irecv"):
        n = want[f][0]
        if node_size == 1 and np > 1:
            assert (per[f]["calls_intra"], per[f]["calls_inter"]) == (0, n), (f, per[f])
        elif not inter:
            assert (per[f]["calls_intra"], per[f]["calls_inter"]) == (n, 0), (f, per[f])
    par = 3 * np if nt > 1 else 0  # a team of one thread is no active parallel region
    assert per["MPI_Comm_rank"]["calls_parallel"] == par, per["MPI_Comm_rank"]
    assert per["MPI_Comm_size"]["calls_parallel"] == workers, per["MPI_Comm_size"]
    assert sum(a["calls_parallel"] for a in per.values()) == par + workers
    worker_sites = [s for s in sites if s["params"]["function"] == "MPI_Comm_size"
                    and s["results"]["calls_off_main"]["value"]]
    assert all(s["results"]["threads"]["value"] == nt - 1 for s in worker_sites), worker_sites
    assert v["calls"] == sum(a["calls"] for a in per.values()), v
    assert v["calls_parallel"] == par + workers and v["dropped_calls"] == 0, v
    assert v["calls_off_main"] == workers, v
    if node_size == 1 and np > 1:
        assert (v["p2p_bytes_intra"], v["p2p_bytes_inter"]) == (0, 2 * 21 * np + 10000 * np), v
    assert v["allreduce_calls"] == 5 * np, v

    hist = {(s["params"]["class"], s["params"]["bytes_min"]): s["results"]["calls"]["value"]
            for s in sizes}
    assert hist == {("p2p", 512): 10 * np, ("p2p", 2): 7 * np, ("allreduce", 8192): 5 * np,
                    ("collective", 0): np}, hist

    mo = res["mpi_time_outside"]
    if np > 1:
        barrier = [s for s in sites if s["params"]["function"] == "MPI_Barrier"][0]
        assert barrier["results"]["time"]["max"] >= 0.5 * sleep, barrier["results"]["time"]
        assert mo["max"] >= 0.5 * sleep, mo
        sl = res["sleeping_threads"]
        assert sl["max"] >= 0.5 * sleep * (nt - 1), sl
        assert sl["max"] <= (nt - 1) * res["wall_time"]["max"] + 1e-9, sl
        if nt == 1:
            assert sl["max"] == 0, sl
    assert 0 <= res["f_comm"]["min"] <= res["f_comm"]["max"] <= 1, res["f_comm"]
    assert res["vmhwm"]["min"] > 0, res["vmhwm"]
    main_sr = [s for s in sites if s["params"]["function"] == "MPI_Sendrecv"]
    assert all("prof_known" in s["params"]["site"] or "main" in s["params"]["site"]
               for s in main_sr), [s["params"]["site"] for s in main_sr]
    text = open(stderr).read()
    assert "hybridkit-profile: " in text and "MPI_Sendrecv" in text, text
    print(f"{path}: profile of prof_known correct ({len(sites)} sites)")


if __name__ == "__main__":
    main(*sys.argv[1:])
