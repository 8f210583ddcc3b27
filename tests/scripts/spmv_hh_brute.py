#!/usr/bin/env python3
"""The Holstein-Hubbard matrix of hk_spmv_generate ("hh:L,NUP,NDN,M") against a brute-force
construction written independently of src/spmv/hh.c: the basis enumerated and sorted in the
documented order (no ranking formulas), the Hamiltonian applied as second-quantised
operators on occupation tuples (fermion signs counted mode by mode in the Jordan-Wigner order
up modes, then down modes), entries summed in a dict.  Checks: the number of non-zeros, every
entry (to 1e-13), symmetry, the row order of columns, and that rows generated in blocks equal
the whole matrix.  usage: spmv_hh_brute.py SPMV_DUMP"""

import itertools
import math
import subprocess
import sys

T, U, W0, G = 1.0, 4.0, 1.0, 1.0  # the constants of src/spmv/hh.c


def brute(L, nup, ndn, M):
    ups = sorted(m for m in range(1 << L) if bin(m).count("1") == nup)
    dns = sorted(m for m in range(1 << L) if bin(m).count("1") == ndn)
    phs = sorted(p for p in itertools.product(range(M + 1), repeat=L) if sum(p) <= M)
    basis = [(u, d, p) for u in ups for d in dns for p in phs]
    index = {s: i for i, s in enumerate(basis)}
    bonds = {tuple(sorted((a, (a + 1) % L))) for a in range(L) if (a + 1) % L != a}
    shift = 1.0 + 2.0 * (nup + ndn) * (T + G * W0 * math.sqrt(M))

    def occ(u, d):  # occupation of the 2L modes: up 0..L-1, then down 0..L-1
        return [(u >> k) & 1 for k in range(L)] + [(d >> k) & 1 for k in range(L)]

    def annihilate(o, j):
        if not o[j]:
            return None, 0
        sign = (-1) ** sum(o[:j])
        o = list(o)
        o[j] = 0
        return o, sign

    def create(o, j):
        if o[j]:
            return None, 0
        sign = (-1) ** sum(o[:j])
        o = list(o)
        o[j] = 1
        return o, sign

    A = {}

    def add(i, s, v):
        j = index[s]
        A[(i, j)] = A.get((i, j), 0.0) + v

    for i, (u, d, p) in enumerate(basis):
        o = occ(u, d)
        n = [o[k] + o[L + k] for k in range(L)]
        add(i, (u, d, p), U * sum(o[k] * o[L + k] for k in range(L)) + W0 * sum(p) + shift)
        for a, b in bonds:
            for spin in (0, L):
                for x, y in ((a, b), (b, a)):  # c+_x c_y
                    o1, s1 = annihilate(o, spin + y)
                    if o1 is None:
                        continue
                    o2, s2 = create(o1, spin + x)
                    if o2 is None:
                        continue
                    u2 = sum(o2[k] << k for k in range(L))
                    d2 = sum(o2[L + k] << k for k in range(L))
                    add(i, (u2, d2, p), -T * s1 * s2)
        for k in range(L):
            for dk in (1, -1):
                q = list(p)
                q[k] += dk
                if q[k] < 0 or sum(q) > M or not n[k]:
                    continue
                amp = math.sqrt(p[k] + 1) if dk > 0 else math.sqrt(p[k])
                add(i, (u, d, tuple(q)), -G * W0 * n[k] * amp)
    return len(basis), {k: v for k, v in A.items() if v != 0.0 or k[0] == k[1]}


def dump(exe, spec, *block):
    out = subprocess.run([exe, spec, *map(str, block)], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    n = int(out[1].split()[0])
    entries = []
    for line in out[2:]:
        if line.strip():
            i, j, v = line.split()
            entries.append((int(i) - 1, int(j) - 1, float(v)))
    return n, entries


def main():
    exe = sys.argv[1]
    failures = 0
    for L, nup, ndn, M in [(3, 1, 1, 2), (4, 2, 1, 3), (2, 1, 1, 2), (1, 1, 1, 3), (5, 2, 2, 2),
                           (4, 0, 0, 2), (6, 3, 3, 1)]:
        spec = f"hh:{L},{nup},{ndn},{M}"
        n_b, want = brute(L, nup, ndn, M)
        n, got = dump(exe, spec)
        rows = {}
        for i, j, _ in got:
            rows.setdefault(i, []).append(j)
        have = {(i, j): v for i, j, v in got}
        problems = []
        if n != n_b:
            problems.append(f"{n} rows, brute force {n_b}")
        if len(got) != len(want):
            problems.append(f"{len(got)} non-zeros, brute force {len(want)}")
        if len(have) != len(got) or any(c != sorted(c) for c in rows.values()):
            problems.append("columns not ascending and unique within rows")
        bad = [k for k in set(want) | set(have)
               if abs(want.get(k, 0.0) - have.get(k, 0.0)) > 1e-13 * max(1.0, abs(want.get(k, 0.0)))]
        if bad:
            k = sorted(bad)[0]
            problems.append(f"{len(bad)} entries differ, first {k}: {have.get(k)} vs {want.get(k)}")
        if any(have.get((j, i)) != v for (i, j), v in have.items()):
            problems.append("not symmetric")
        # rows in blocks (any block boundaries) equal the whole matrix
        blocks = []
        b = 0
        for c in (n // 3, 1, n - n // 3 - 1):
            if c > 0:
                blocks += dump(exe, spec, b, c)[1]
            b += c
        if blocks != got:
            problems.append("rows generated in blocks differ from the whole")
        print(f"{spec}: {n} rows, {len(got)} non-zeros: {'ok' if not problems else '; '.join(problems)}")
        failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
