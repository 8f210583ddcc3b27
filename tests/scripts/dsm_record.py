#!/usr/bin/env python3
"""Checks a dsm.heat record of hk-dsm-heat (issue 21) against what must hold whatever the
timing: the layout asked for, the total bytes the sum of its parts, whole pages fetched
(bytes_fetched = fetches x page_size: the DSM fetches whole pages, docs/dsm.md), nothing
moved by a single rank (no other rank to fetch from or send to), bit-identical result.

    dsm_record.py FILE.jsonl GRID RANKS THREADS
"""
import json
import sys


def main(path, grid, ranks, threads):
    recs = [json.loads(line) for line in open(path) if line.strip()]
    assert len(recs) == 1 and recs[0]["kind"] == "dsm.heat", recs
    p, r = recs[0]["params"], recs[0]["results"]
    v = {k: x.get("value") for k, x in r.items()}
    assert (p["grid"], p["ranks"], p["threads"]) == (grid, int(ranks), int(threads)), p
    parts = v["bytes_fetched"] + v["bytes_diffs"] + v["bytes_notices"]
    assert abs(v["bytes_per_step"] - parts) <= 1e-9 * max(1.0, parts), (v, parts)
    assert v["bytes_fetched"] == v["fetches"] * p["page_size"], v
    if p["ranks"] == 1:
        assert v["bytes_per_step"] == 0 and v["fetches"] == 0, v
    else:
        assert v["fetches"] > 0 and v["bytes_diffs"] > 0, v  # rows share pages across ranks
    assert v["faults"] > 0, v  # every step writes the other field: write faults
    assert v["reference_diffs"] == 0 and p["verification"] == "reference", (v, p)
    t = r["time_per_step"]
    assert 0 < t["min"] <= t["avg"] <= t["max"], t
    print(f"{path}: dsm.heat record consistent")


if __name__ == "__main__":
    main(*sys.argv[1:])
