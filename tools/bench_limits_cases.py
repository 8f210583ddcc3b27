"""Helpers of tools/bench-limits.py (issue 42): building the references in a temporary
directory, the cases, and the parsers of each program's output (the measured run and the
rounds: benchlib.py).

Never part of make test: it measures this machine, it asserts nothing."""
import json
import os
import re
import shutil
import statistics
import subprocess

GIRIH_FLAGS = "-O3 -march=native -fopenmp -ffp-contract=off -fcommon -DDP=1"
# hk-jacobi options per scheme; w8 is the best of docs/performance.md ("the pipeline in strips")
HK_VARIANTS = {
    "hk-w1": ["--halo-width", "1", "--temporal", "off", "--stores", "auto"],
    "hk-w1-nt": ["--halo-width", "1", "--temporal", "off", "--stores", "nt"],
    "hk-w4": ["--halo-width", "4", "--temporal", "wavefront"],
    "hk-w8": ["--halo-width", "8", "--temporal", "pipeline", "--looseness", "0:1",
              "--tile-rows", "32", "--tile-planes", "2", "--tile-strip", "64"],
    # the default tiles and strips (sized for the caches): w = 8 wavefront and pipeline
    "hk-w8-wave": ["--halo-width", "8", "--temporal", "wavefront"],
    "hk-w8-pipe": ["--halo-width", "8", "--temporal", "pipeline"],
}
LAYOUTS = [(1, 1), (1, 2), (2, 1)]
# girih's hand tuning of docs/performance.md (t-dim, num-wavefronts) per layout and size
GIRIH_TUNE = {(1, 1): {256: (31, 1), 512: (15, 2)}, (1, 2): (15, 2), (2, 1): (15, 1)}


def sh(cmd, cwd=None, log=None):
    """runs a build step; raises with its output when it fails"""
    p = subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), capture_output=True, text=True)
    if log is not None:
        log.write("$ %s\n%s%s" % (cmd if isinstance(cmd, str) else " ".join(cmd), p.stdout, p.stderr))
    if p.returncode != 0:
        raise RuntimeError("build step failed: %s\n%s%s" % (cmd, p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def mirror_export(git_dir, dest):
    """the mirror's HEAD into dest; returns the commit"""
    commit = sh(["git", "--git-dir", git_dir, "rev-parse", "HEAD"]).strip()
    os.makedirs(dest, exist_ok=True)
    sh("git --git-dir=%s archive HEAD | tar -x -C %s" % (git_dir, dest))
    return commit


def build_plain(repo, work, log):
    src = os.path.join(repo, "bench", "plain", "jacobi_omp.c")
    exe = os.path.join(work, "jacobi_omp")
    sh(["gcc", "-O3", "-march=native", "-fopenmp", "-o", exe, src, "-lm"], log=log)
    return exe


def patch_girih(src_dir):
    """girih 3e85fd6: with t-dim and num-wavefronts given, rank 0 returned from
    auto_tune_params before the MPI_Bcast the other ranks wait in (2 ranks hang).
    The patch jumps to the broadcasts instead; applied to the temporary copy only."""
    path = os.path.join(src_dir, "src", "kernels", "diamond_utils.c")
    with open(path) as f:
        s = f.read()
    old = "if( (p->t_dim != -1) && (p->stencil_ctx.num_wf !=-1) )\n        return;"
    mark = "  // broad cast the autotuning params\n"
    if s.count(old) != 1 or s.count(mark) != 1:
        raise RuntimeError("girih: the code the deadlock patch expects is not there")
    s = s.replace(old, old.replace("return;", "goto hk_bcast;"))
    s = s.replace(mark, "hk_bcast:\n" + mark)
    with open(path, "w") as f:
        f.write(s)


def build_girih(mirror, work, mpicc, log):
    src = os.path.join(work, "girih")
    commit = mirror_export(mirror, src)
    patch_girih(src)
    obj = os.path.join(src, "obj")
    os.makedirs(obj, exist_ok=True)
    flags = GIRIH_FLAGS.split()
    units = [os.path.join("src", "kernels", f) for f in sorted(os.listdir(os.path.join(src, "src", "kernels")))
             if f.endswith(".c")] + ["src/driver.c", "src/utils.c", "src/performance.c", "src/mpi_utils.c"]
    procs = []
    for u in units:
        o = os.path.join(obj, os.path.basename(u)[:-2] + ".o")
        procs.append(([mpicc] + flags + ["-Isrc", "-c", u, "-o", o], o))
    # verification.c is built without optimisation, as girih's Makefile does (VCFLAGS)
    procs.append(([mpicc, "-g", "-O0", "-fopenmp", "-fcommon", "-DDP=1", "-c", "src/verification.c",
                   "-o", os.path.join(obj, "verification.o")], None))
    objs = [os.path.join(obj, "verification.o")]
    for i in range(0, len(procs), 2):  # two at a time: two cores, shared
        running = [subprocess.Popen(c, cwd=src, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                   for c, _ in procs[i:i + 2]]
        for (c, o), p in zip(procs[i:i + 2], running):
            out = p.communicate()[0].decode(errors="replace")
            if p.returncode != 0:
                raise RuntimeError("girih build failed: %s\n%s" % (" ".join(c), out[-3000:]))
            if o:
                objs.append(o)
    exe = os.path.join(work, "girih_mwd")
    sh([mpicc] + flags + ["-o", exe] + objs + ["-lm"], cwd=src, log=log)
    return exe, commit


def build_osu(mirror, work, mpicc, log):
    exes, commit = build_osu_set(mirror, work, mpicc, log, ["osu_allreduce"])
    return exes["osu_allreduce"], commit


def build_osu_set(mirror, work, mpicc, log, names, precision=None):
    """OSU 7.4's blocking collective benchmarks `names` (osu_reduce, ...) from the mirror's
    HEAD, c/util's objects built once; precision: the printed decimals (FLOAT_PRECISION,
    OSU's default 2: 10 ns steps). Returns ({name: exe}, commit)"""
    src = os.path.join(work, "osu")
    commit = mirror_export(mirror, src)
    util = os.path.join(src, "c", "util")
    flags = ["-O2", "-I" + util, '-DPACKAGE_VERSION="7.4"'] + (
        ["-DFLOAT_PRECISION=%d" % precision] if precision is not None else [])
    objs = []
    for f in ("osu_util.c", "osu_util_mpi.c", "osu_util_graph.c", "osu_util_papi.c"):
        o = os.path.join(work, "%s%s.o" % (f[:-2], "" if precision is None else "-p%d" % precision))
        sh([mpicc] + flags + ["-c", os.path.join(util, f), "-o", o], log=log)
        objs.append(o)
    exes = {}
    for name in names:
        exe = os.path.join(work, name)
        sh([mpicc] + flags + ["-o", exe, os.path.join(src, "c", "mpi", "collective", "blocking", name + ".c")]
           + objs + ["-lm"], log=log)
        exes[name] = exe
    return exes, commit


def launcher(mpirun, P, T, env):
    """mpirun with the binding of the task: ranks bound to T cores each, threads to cores"""
    ncpu = os.cpu_count() or 1
    cmd = [mpirun, "-np", str(P), "--map-by", "slot:PE=%d" % T, "--bind-to", "core", "--report-bindings"]
    if P * T > ncpu:
        cmd.append("--oversubscribe")
    full = {"OMP_NUM_THREADS": str(T), "OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}
    full.update(env)
    for k, v in full.items():
        cmd += ["-x", "%s=%s" % (k, v)]
    return cmd


def girih_tune(layout, n, override):
    """(t-dim, num-wavefronts): the docs' tuning, t-dim lowered where girih's rule (the
    rank's y extent a multiple of the diamond width 2 (t-dim + 1)) does not hold"""
    t = override.get(layout) or GIRIH_TUNE[layout]
    if isinstance(t, dict):
        t = t.get(n, t[512] if n > 256 else t[256])
    tdim, nwf = t
    if n < 256 and layout not in override:
        tdim = min(tdim, 15)  # small grids: wide diamonds are mostly prologue and epilogue
    ny = n // layout[0]
    while tdim > 1 and ny % (2 * (tdim + 1)):
        tdim -= 1
    return tdim, nwf


def make_cases(a, tools):
    """every run of one round, in the order of a round (A B C A B C ...)"""
    cases = []
    sets = [("A", a.hk_bin, a.hk_lib)] + ([("B", a.hk_bin_b, a.hk_lib_b)] if a.hk_bin_b else [])
    for n in a.sizes:
        for P, T in LAYOUTS:
            lay = "%dx%d" % (P, T)
            base = {"size": n, "layout": lay, "ranks": P, "threads": T}
            if "jacobi" in a.only:
                for tag, binp, lib in sets:
                    for var, opts in HK_VARIANTS.items():
                        if var not in a.variants:
                            continue
                        argv = [os.path.join(binp, "hk-jacobi"), "--size", str(n), "--iters", str(a.iters),
                                "--warmup", str(a.warmup), "--boundary", "dirichlet", "--mode", "masteronly"] + opts
                        cases.append(dict(base, group="jacobi", variant=var, set=tag, parse="hk",
                                          launch=launcher(a.mpirun, P, T, {"LD_LIBRARY_PATH": lib}), argv=argv))
                if P == 1:
                    cases.append(dict(base, group="jacobi", variant="plain", set=None, parse="plain",
                                      launch=launcher(a.mpirun, 1, T, {}),
                                      argv=[tools["plain"], str(n), str(a.iters), str(a.warmup)]))
            if "girih" in a.only:
                tdim, nwf = girih_tune((P, T), n, a.girih_tune)
                argv = [tools["girih"], "--nx", str(n), "--ny", str(n), "--nz", str(n), "--nt", str(a.girih_nt),
                        "--target-ts", "2", "--target-kernel", "1", "--mwd-type", "2", "--t-dim", str(tdim),
                        "--num-wavefronts", str(nwf), "--thread-group-size", "1", "--verify", "0",
                        "--n-tests", str(3 if n <= 256 else 1)] + (["--npy", str(P)] if P > 1 else [])
                cases.append(dict(base, group="girih", variant="girih", set=None, parse="girih",
                                  launch=launcher(a.mpirun, P, T, {}), argv=argv))
    if "osu" in a.only:
        for tag, binp, lib in sets:
            for var in ("osu-plain", "osu-preload"):
                env = {"LD_PRELOAD": os.path.join(lib, "libhybridkit-preload.so")} if var == "osu-preload" else {}
                if var == "osu-plain" and tag == "B":
                    continue  # plain OSU does not depend on the hk set
                argv = [tools["osu"], "-m", a.osu_sizes, "-i", str(a.osu_iters)] + (
                    ["-T", a.osu_type] if a.osu_type else [])
                cases.append(dict(size=None, layout="2x1", ranks=2, threads=1, group="osu", variant=var,
                                  set=tag if var == "osu-preload" else None, parse="osu",
                                  launch=launcher(a.mpirun, 2, 1, env), argv=argv))
    for c in cases:
        c["id"] = "/".join(str(x) for x in (c["size"], c["layout"], c["variant"], c["set"]) if x is not None)
    return cases


def roofline_cases(a):
    """--roofline once per size and layout (set A, w = 1): hk-jacobi's own limits"""
    out = []
    for n in a.sizes:
        for P, T in LAYOUTS:
            argv = [os.path.join(a.hk_bin, "hk-jacobi"), "--size", str(n), "--iters", str(a.iters),
                    "--warmup", str(a.warmup), "--boundary", "dirichlet", "--mode", "masteronly",
                    "--roofline"] + HK_VARIANTS["hk-w1"]
            out.append({"size": n, "layout": "%dx%d" % (P, T), "ranks": P, "threads": T, "group": "roofline",
                        "variant": "roofline", "set": "A", "parse": "hk",
                        "launch": launcher(a.mpirun, P, T, {"LD_LIBRARY_PATH": a.hk_lib}), "argv": argv,
                        "id": "%d/%dx%d/roofline" % (n, P, T)})
    return out


def mpirun_bindings(stderr):
    """'r0 [B/.];r1 [./B]' from mpirun --report-bindings ('all' where a rank has every core)"""
    found = []
    for m in re.finditer(r"MCW rank (\d+) (?:bound to .*: (\S+)|is not bound)", stderr):
        found.append((int(m.group(1)), m.group(2) or "all"))
    return ";".join("r%d %s" % x for x in sorted(found))


def parse_hk(run, jsonl_text):
    rec = None
    for line in (jsonl_text or "").splitlines():
        if line.strip():
            rec = json.loads(line)
    if rec is None:
        m = re.search(r"^\s*mlups\s+([\d.eE+]+)", run["stdout"], re.M)
        return {"value": float(m.group(1)) if m else None, "unit": "MLUP/s", "ok": False}
    res, prov = rec["results"], rec.get("provenance", {})
    out = {"value": res["mlups"]["value"], "unit": "MLUP/s", "ok": "SUCCESSFUL" in run["stdout"],
           "hk_git_sha": prov.get("git_sha"), "stores": rec["params"].get("stores"),
           "temporal": rec["params"].get("temporal"), "procs": rec["params"].get("procs"),
           "thread_level": prov.get("thread_level"), "warnings": rec.get("warnings")}
    by_rank = {}
    for b in prov.get("binding", []):
        by_rank.setdefault(b["rank"], []).append(str(b.get("cpu")))
    out["binding_threads"] = ";".join("r%d cpus %s" % (r, ",".join(c)) for r, c in sorted(by_rank.items()))
    for k in ("roofline_mlups", "incore_mlups", "limit_mlups", "stream_bw", "stream_nt_bw", "roofline_spread"):
        if k in res:
            v = res[k]
            out[k] = v.get("value", v.get("avg")) if isinstance(v, dict) else v
    if "bound" in rec["params"]:
        out["bound"] = rec["params"]["bound"]
    return out


def parse_plain(run):
    m = re.search(r"^mlups ([\d.]+)", run["stdout"], re.M)
    c = re.search(r"^checksum (\S+)", run["stdout"], re.M)
    cpus = re.findall(r"^binding thread (\d+) cpu (\d+)", run["stdout"], re.M)
    return {"value": float(m.group(1)) if m else None, "unit": "MLUP/s",
            "ok": "Verification = SUCCESSFUL" in run["stdout"], "checksum": c.group(1) if c else None,
            "binding_threads": "r0 cpus " + ",".join(c for _, c in sorted(cpus, key=lambda x: int(x[0])))}


def parse_girih(run, ranks):
    """girih prints rank 0's share ('Total RANK0 MStencil/s MAX', its local cells over the
    best test's time per step); the y slabs are equal, so the whole grid's rate is ranks x that"""
    m = re.search(r"Total RANK0 MStencil/s MAX:\s*([\d.]+)", run["stdout"])
    bad = "nan and/or -inf/inf" in run["stdout"]
    nt = re.search(r"Modified nt from 0*(\d+) to 0*(\d+)", run["stdout"])
    return {"girih_nt_used": int(nt.group(2)) if nt else None,"value": float(m.group(1)) * ranks if m else None, "unit": "MLUP/s",
            "rank0_mstencils": float(m.group(1)) if m else None,
            "ok": bool(m) and "COMPLETED SUCCESSFULLY" in run["stdout"] and not bad}


def parse_osu(run):
    lat = {int(s): float(v) for s, v in re.findall(r"^(\d+)\s+([\d.]+)\s*$", run["stdout"], re.M)}
    out = {"value": lat or None, "unit": "us", "ok": bool(lat),
           "datatype": (re.findall(r"# Datatype: (\w+)", run["stdout"]) or [None])[0]}
    pre = parse_preload_summary(run["stdout"] + run["stderr"])
    if pre:
        out["preload"] = pre
    return out


def parse_preload_summary(text):
    """HK_PRELOAD_VERBOSE=1's lines 'hybridkit-preload: MPI_Reduce: 152 calls intercepted on
    2 ranks, 52 accelerated (chunked 52), 100 passed through (small 36, sampled 14)...' as
    {"MPI_Reduce": {"calls": 152, "accelerated": {"chunked": 52}, "passed": {...}}}"""
    out = {}
    pat = (r"hybridkit-preload: (MPI_\w+): (\d+) calls intercepted on \d+ ranks?, (\d+) accelerated"
           r"(?: \(([^)]*)\))?, (\d+) passed through(?: \(([^)]*)\))?(?:; threshold (\d+) bytes)?")
    pairs = lambda t: {k: int(v) for k, v in re.findall(r"([\w-]+) (\d+)", t or "")}
    for m in re.finditer(pat, text):
        out[m.group(1)] = {"calls": int(m.group(2)), "accelerated": pairs(m.group(4)),
                           "passed": pairs(m.group(6))}
        if m.group(7):
            out[m.group(1)]["threshold"] = int(m.group(7))
    m = re.search(r"hybridkit-preload: thread level: (.*); threshold (\d+) bytes", text)
    if m and "MPI_Allreduce" in out:  # the allreduce's threshold is on its thread-level line
        out["MPI_Allreduce"]["threshold"] = int(m.group(2))
        out["thread_level"] = m.group(1)
    return out


def med_range(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return statistics.median(xs), min(xs), max(xs), len(xs)


def which(name):
    p = shutil.which(name)
    if not p:
        raise RuntimeError("%s not found" % name)
    return p
