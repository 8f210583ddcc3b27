#!/usr/bin/env python3
"""What hk-bench orthogonal sends, counted by libhybridkit-profile.so (PMPI) on a real MPI.

    check_orthogonal.py PROFILE.jsonl BENCH.jsonl PATTERN NODES PPN

The profile counts every point-to-point call with its peer's node (HK_NODE_SIZE virtual
nodes); the bench's records give the sizes L and the timed iterations (one warm-up
repetition, -x 1).  Per size and repetition the seed's experiment (--pattern sendrecv;
seed 000, slide 'Experiment: Orthogonal parallel communication') sends, with MPI_Sendrecv:
every rank 1 message of L to the next node and 1 of L inside its node, every node leader
1 message of L x PPN to the next node's leader; so a node puts PPN x L on the network in
both models and nothing else is sent.  --pattern concurrent: every rank Isends L to 4
neighbours (2 on other nodes, 2 on its node), every leader L x PPN to 2 leaders.
"""
import sys

from hybridkit.records import load_records

WARMUP = 1


def expected(pattern, nodes, ppn, sizes):
    """{function: (calls_inter, bytes_inter, calls_intra, bytes_intra)} over all ranks."""
    ranks, leaders = nodes * ppn, nodes
    per_rank_inter, per_rank_intra, per_leader = (1, 1, 1) if pattern == "sendrecv" else (2, 2, 2)
    fn = "MPI_Sendrecv" if pattern == "sendrecv" else "MPI_Isend"
    calls_inter = calls_intra = bytes_inter = bytes_intra = 0
    for size, reps in sizes:
        calls_inter += reps * (ranks * per_rank_inter + leaders * per_leader)
        bytes_inter += reps * (ranks * per_rank_inter * size + leaders * per_leader * size * ppn)
        calls_intra += reps * ranks * per_rank_intra
        bytes_intra += reps * ranks * per_rank_intra * size
    return fn, (calls_inter, bytes_inter, calls_intra, bytes_intra)


def last_run(records):
    """The records of the last run in a file that --output appends to: the trailing sizes
    that increase (one record per size, in order)."""
    tail = []
    for r in reversed(records):
        if tail and r["params"]["size"] >= tail[0]["params"]["size"]:
            break
        tail.insert(0, r)
    return tail


def main(profile, bench, pattern, nodes, ppn):
    nodes, ppn = int(nodes), int(ppn)
    ortho = last_run([r for r in load_records(bench) if r["kind"] == "bench.orthogonal"])
    assert ortho and all(r["params"].get("pattern") == pattern for r in ortho), ortho
    sizes = [(r["params"]["size"], r["params"]["iters"] + WARMUP) for r in ortho]
    fn, want = expected(pattern, nodes, ppn, sizes)
    got = {}
    for s in load_records(profile):
        if s["kind"] != "profile.site":
            continue
        f, res = s["params"]["function"], s["results"]
        agg = got.setdefault(f, [0, 0, 0, 0])
        for i, k in enumerate(("calls_inter", "bytes_inter", "calls_intra", "bytes_intra")):
            agg[i] += res[k]["value"]
    # the exchange's sends: exactly the expected ones, and no other sending call moved bytes
    assert tuple(got.get(fn, ())) == want, (fn, got.get(fn), want)
    for other in ("MPI_Send", "MPI_Isend", "MPI_Sendrecv", "MPI_Ssend", "MPI_Rsend"):
        if other != fn and other in got:
            assert got[other][1] == got[other][3] == 0, (other, got[other])
    print(f"orthogonal --pattern {pattern}, {nodes} x {ppn}: {fn} inter {want[0]} calls "
          f"{want[1]} B, intra {want[2]} calls {want[3]} B: as expected")


if __name__ == "__main__":
    main(*sys.argv[1:])
