#!/usr/bin/env python3
"""Known answers of libhybridkit-profile.so on the Fortran programs of this directory.

    check_fortran.py FILE.jsonl STDERR NP THREADS SOURCE ring|threads|more

ring: prof_f77.f / prof_f90.f90 / prof_f08.f90 (their calls are listed in prof_f77.f);
threads: threads_f90.f90 (every OpenMP thread makes one MPI_Send on an even rank, one
MPI_Recv on an odd rank); more: prof_more.f90 (the other conversions; its comment).  Checked exactly, summed over call sites and ranks: the calls
and bytes per MPI function, the calls inside parallel regions and off the main thread,
the size histogram; and every call site names SOURCE's file and a line of that function's
call statement (addr2line of the Fortran caller's return address,
not a wrapper's or an MPI library's).  The records validate against their schemas.
"""
import os
import re
import sys

from hybridkit.records import load_records


def call_lines(source):
    """{MPI function: the lines of its `call MPI_<name>(...)` statements}: the line
    where one starts and its continuation lines (fixed form: a character in column 6;
    free form: a trailing &), as the compiler may put the call on any of them"""
    text = open(source).read().split("\n")
    fixed = source.endswith(".f")
    lines = {}
    for i, line in enumerate(text):
        code = line.split("!")[0]
        for m in re.finditer(r"\bcall\s+(mpi_[a-z_]+)\s*\(", code, re.I):
            name = "MPI_" + m.group(1)[4:].capitalize()
            stmt = {i + 1}
            j = i
            while j + 1 < len(text):
                nxt = text[j + 1]
                if fixed:
                    more = len(nxt) > 5 and nxt[0] not in "cC*!" and nxt[5] not in " 0"
                else:
                    more = text[j].split("!")[0].rstrip().endswith("&")
                if not more:
                    break
                j += 1
                stmt.add(j + 1)
            lines.setdefault(name, set()).update(stmt)
    return lines


def want_ring(np, nt):
    # function: (calls, bytes, size histogram bins {(class, bytes_min): calls})
    return {
        "MPI_Comm_rank": (np, 0),
        "MPI_Comm_size": (np, 0),
        "MPI_Send": (3 * np, 3 * 800 * np),
        "MPI_Recv": (3 * np, 3 * 800 * np),
        "MPI_Get_count": (3 * np, 0),
        "MPI_Irecv": (2 * np, 2 * 40 * np),
        "MPI_Isend": (2 * np, 2 * 40 * np),
        "MPI_Waitall": (2 * np, 0),
        "MPI_Allreduce": (6 * np, (4 * 512 + 2 * 64) * np),
        "MPI_Barrier": (np, 0),
    }, {("p2p", 512): 3 * np, ("p2p", 32): 2 * np, ("allreduce", 512): 4 * np,
        ("allreduce", 64): 2 * np, ("collective", 0): np}


def want_threads(np, nt):
    pairs = np // 2
    return {
        "MPI_Comm_rank": (np, 0),
        "MPI_Comm_size": (np, 0),
        "MPI_Send": (nt * pairs, 16 * nt * pairs),
        "MPI_Recv": (nt * pairs, 16 * nt * pairs),
    }, {("p2p", 16): nt * pairs}


def want_more(np, nt):
    per_rank = {  # function: (calls, bytes) of one rank (prof_more.f90's comment)
        "MPI_Comm_rank": (1, 0), "MPI_Comm_size": (2, 0), "MPI_Comm_dup": (1, 0),
        "MPI_Comm_split": (1, 0), "MPI_Comm_free": (3, 0), "MPI_Cart_create": (1, 0),
        "MPI_Cart_shift": (1, 0), "MPI_Sendrecv": (1, 80), "MPI_Send_init": (1, 0),
        "MPI_Recv_init": (1, 0), "MPI_Startall": (1, 0), "MPI_Waitall": (1, 0),
        "MPI_Start": (2, 0), "MPI_Wait": (6, 0), "MPI_Request_free": (2, 0),
        "MPI_Irecv": (2, 32), "MPI_Isend": (3, 48), "MPI_Waitany": (3, 0),
        "MPI_Probe": (1, 0), "MPI_Iprobe": (2, 0), "MPI_Recv": (1, 16), "MPI_Test": (1, 0),
        "MPI_Testall": (1, 0), "MPI_Testany": (1, 0), "MPI_Testsome": (1, 0),
        "MPI_Waitsome": (1, 0), "MPI_Bcast": (1, 32), "MPI_Reduce": (1, 32),
        "MPI_Gatherv": (1, 4), "MPI_Scan": (1, 4), "MPI_Ibarrier": (1, 0),
        "MPI_Iallreduce": (1, 8), "MPI_Barrier": (1, 0),
    }
    return {f: (c * np, b * np) for f, (c, b) in per_rank.items()}, {
        ("p2p", 64): np, ("p2p", 16): 3 * np, ("collective", 32): 2 * np,
        ("collective", 4): 2 * np, ("collective", 0): 2 * np, ("allreduce", 8): np}


def main(path, stderr, np, nt, source, kind):
    np, nt = int(np), int(nt)
    recs = load_records(path)  # validates every record against its kind's schema
    runs = [r for r in recs if r["kind"] == "profile"]
    sites = [r for r in recs if r["kind"] == "profile.site"]
    sizes = [r for r in recs if r["kind"] == "profile.size"]
    assert len(runs) == 1, [r["kind"] for r in recs]
    p = runs[0]["params"]
    assert (p["procs"], p["threads"]) == (np, nt), p
    want, hist_want = {"ring": want_ring, "threads": want_threads, "more": want_more}[kind](np, nt)

    per = {}
    for s in sites:
        f = s["params"]["function"]
        agg = per.setdefault(f, {k: 0 for k in ("calls", "bytes", "calls_parallel",
                                                "calls_off_main")})
        for k in agg:
            agg[k] += s["results"][k]["value"]
    assert set(per) == set(want), (sorted(per), sorted(want))
    for f, (calls, nbytes) in want.items():
        assert (per[f]["calls"], per[f]["bytes"]) == (calls, nbytes), (f, per[f], calls, nbytes)
        if kind != "threads" or f.startswith("MPI_Comm"):
            assert per[f]["calls_parallel"] == per[f]["calls_off_main"] == 0, (f, per[f])
        else:  # every call inside the region, one per thread, threads 1.. off the main one
            par = calls if nt > 1 else 0
            assert per[f]["calls_parallel"] == par, (f, per[f])
            assert per[f]["calls_off_main"] == calls - calls // nt, (f, per[f])

    hist = {(s["params"]["class"], s["params"]["bytes_min"]): s["results"]["calls"]["value"]
            for s in sizes}
    assert hist == hist_want, (hist, hist_want)

    lines = call_lines(source)
    if kind == "more":
        # gfortran 12 gives some mpi_f08 calls whose arguments are local derived-type
        # variables (`call MPI_Comm_size(c, n)` with TYPE(MPI_Comm) :: c; not with
        # MPI_COMM_WORLD) the line of the `program` statement (-O0) or of `end program`
        # (-O2) in the debug info: addr2line of the call instruction itself says so, in
        # a ten-line program too.  The site is still the program's own code.
        text = open(source).read().split("\n")
        prog = {i + 1 for i, t in enumerate(text) if re.match(r"\s*(end\s+)?program\b", t, re.I)}
        for f in lines:
            lines[f] |= prog
    base = os.path.basename(source)
    for s in sites:
        f, where = s["params"]["function"], s["params"]["site"]
        m = re.match(r"(\S+):(\d+) ", where)
        assert m and m.group(1) == base and int(m.group(2)) in lines[f], (
            f"{f}: site {where!r}, want {base}:{sorted(lines[f])}")

    text = open(stderr).read()
    assert "hybridkit-profile: " in text and "MPI_Send" in text, text
    print(f"{path}: profile of {base} correct ({len(sites)} sites)")


if __name__ == "__main__":
    main(*sys.argv[1:])
