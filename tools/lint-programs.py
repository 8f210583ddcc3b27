#!/usr/bin/env python3
"""tools/lint-programs.py: every external program the tests and tools call is either installed
by tools/setup-deps.sh (or present in the fresh Debian 12 root of tools/fresh-check.sh) or
guarded by a skip (ctest lint.programs, issue 40).

A program found on a development machine but not on a fresh one makes a test fail there
(vcluster.spmv died with "'tc' (iproute2) not found" although CI was green).  This lint finds
the programs the code calls and classifies each through the table PROGRAMS (program ->
Debian package); it fails on

  - a program that is not in the table (a new dependency: add it, with its package),
  - a program whose package is neither installed by setup-deps.sh nor in the fresh root
    (BASE), unless the file that calls it guards it: `command -v NAME` / `shutil.which("NAME")`
    followed (on that line or the next three) by a skip (`skip`, `exit 77`, `pytest.skip`).

Where calls are found (heuristics, not a shell parser; a miss errs towards "unknown program"):
  shell (tests/**/*.sh, tools/**/*.sh, tools/vcluster/vcluster, .ci/run, the Makefile's
  recipes): the first word of every command (after ; | && || ( { $( ` and if/then/do/...),
  skipping builtins, keywords, functions of the file, variables and paths; heredoc bodies
  are skipped;
  Python (python/src, python/tests, tests/**/*.py): `which("X")`, `subprocess.*(["X", ...`
  and any string literal that is a program of the table;
  C (src, preload, apps, bench, tools, tests): the command of popen/system/exec strings;
  CMake: find_program(VAR NAMES...).

usage: lint-programs.py [--root DIR] [--list]   (--list prints every program found, where)
Exit 0 clean, 1 with one line per problem."""
import argparse
import os
import re
import sys
from collections import defaultdict

# program -> the Debian package that provides it (bookworm)
PROGRAMS = {
    # the fresh root (debootstrap minbase + fresh-check's --include) has these
    "awk": "mawk", "basename": "coreutils", "bash": "bash", "cat": "coreutils",
    "chmod": "coreutils", "chroot": "coreutils", "cmp": "diffutils", "cp": "coreutils",
    "cut": "coreutils", "date": "coreutils", "dirname": "coreutils", "du": "coreutils",
    "env": "coreutils", "expr": "coreutils", "false": "coreutils", "find": "findutils",
    "flock": "util-linux", "mountpoint": "util-linux", "grep": "grep", "gzip": "gzip", "head": "coreutils",
    "hostname": "hostname", "id": "coreutils", "install": "coreutils", "kill": "procps",
    "ln": "coreutils", "ls": "coreutils", "lscpu": "util-linux", "mkdir": "coreutils",
    "mkfifo": "coreutils", "mktemp": "coreutils", "mount": "mount", "mv": "coreutils",
    "nproc": "coreutils", "nsenter": "util-linux", "od": "coreutils", "pgrep": "procps",
    "pkill": "procps", "ps": "procps", "readlink": "coreutils", "realpath": "coreutils",
    "rm": "coreutils", "rmdir": "coreutils", "sed": "sed", "seq": "coreutils",
    "setsid": "util-linux", "sh": "dash", "sleep": "coreutils", "sort": "coreutils",
    "stat": "coreutils", "tail": "coreutils", "tar": "tar", "tee": "coreutils",
    "timeout": "coreutils", "touch": "coreutils", "sha256sum": "coreutils", "tr": "coreutils", "true": "coreutils",
    "umount": "mount", "uname": "coreutils", "uniq": "coreutils", "unshare": "util-linux",
    "wc": "coreutils", "which": "debianutils", "xargs": "findutils", "yes": "coreutils",
    "dpkg-query": "dpkg", "apt-get": "apt", "diff": "diffutils", "sync": "coreutils",
    "tac": "coreutils", "truncate": "coreutils", "stdbuf": "coreutils", "getconf": "libc-bin", "ldd": "libc-bin",
    "git": "git", "make": "make", "gmake": "make", "cmake": "cmake", "ctest": "cmake",
    "cc": "gcc", "gcc": "gcc", "g++": "g++", "pkg-config": "pkg-config",
    "python3": "python3", "addr2line": "binutils", "nm": "binutils", "objdump": "binutils",
    "readelf": "binutils", "strip": "binutils",
    # installed by tools/setup-deps.sh
    "gfortran": "gfortran", "ip": "iproute2", "tc": "iproute2", "ss": "iproute2",
    "hwloc-ls": "hwloc", "lstopo": "hwloc", "lstopo-no-graphics": "hwloc",
    "hwloc-calc": "hwloc", "hwloc-bind": "hwloc",
    "chromium": "chromium", "munged": "munge", "munge": "munge", "unmunge": "munge",
    "slurmctld": "slurmctld", "slurmd": "slurmd", "srun": "slurm-client",
    "sbatch": "slurm-client", "sinfo": "slurm-client", "squeue": "slurm-client",
    "scontrol": "slurm-client", "scancel": "slurm-client", "sacct": "slurm-client",
    "smpirun": "libsimgrid-dev", "smpicc": "libsimgrid-dev",
    "smpif90": "libsimgrid-dev",
    "mpirun": "openmpi-bin", "mpiexec": "openmpi-bin", "mpicc": "libopenmpi-dev",
    "mpif90": "libopenmpi-dev", "mpifort": "libopenmpi-dev", "ompi_info": "openmpi-bin",
    "mpirun.openmpi": "openmpi-bin", "mpiexec.openmpi": "openmpi-bin",
    "mpicc.openmpi": "libopenmpi-dev", "mpif90.openmpi": "libopenmpi-dev",
    "mpiexec.mpich": "mpich", "mpirun.mpich": "mpich", "mpiexec.hydra": "mpich",
    "mpicc.mpich": "libmpich-dev", "mpif90.mpich": "libmpich-dev", "mpichversion": "mpich",
    "mpifort.mpich": "libmpich-dev", "mpifort.openmpi": "libopenmpi-dev",
    # installed on demand by the one command that needs it (make docs, make fresh-check)
    "doxygen": "doxygen", "debootstrap": "debootstrap",
    "setpriv": "util-linux",
    # this project's own command (the Python front end, installed by make's venv step or
    # pip install --prefix in tests/scripts/install_python.sh)
    "hybridkit": "(hybridkit)",
    # tests/scripts/cache.sh's function (sourced by the tests that download once)
    "hk_cached": "(hybridkit)",
    "chown": "coreutils",
}

# packages of the fresh root: debootstrap --variant=minbase (Priority: required) plus
# tools/fresh-check.sh's --include list, and what those pull in (binutils with gcc, dash, ...)
BASE = {"apt", "bash", "coreutils", "dash", "debianutils", "diffutils", "dpkg", "findutils",
        "grep", "gzip", "hostname", "libc-bin", "mawk", "mount", "sed", "tar", "util-linux",
        "procps", "git", "make", "gcc", "g++", "cmake", "pkg-config", "python3", "binutils",
        "ca-certificates", "python3-venv"}
# installed on demand (apt-get in the same recipe) by the command that uses them
ON_DEMAND = {"doxygen", "debootstrap", "(hybridkit)"}

SHELL_SKIP = set("""
    if then else elif fi for while until do done case esac in function select time return
    exit break continue local export declare readonly unset shift set trap eval exec source
    . : [ [[ ]] test echo printf read cd pwd pushd popd wait jobs let type command builtin
    hash alias unalias getopts umask ulimit true false mapfile readarray disown shopt
    return caller enable kill printf ! { } ( ) $( ` sudo nohup then
""".split())
SHELL_SPLIT = re.compile(r"\|\||&&|;;|[;|&`({]|\$\(|\bthen\b|\bdo\b|\belse\b|\bif\b|\bwhile\b"
                         r"|\buntil\b|!|\btime\b")
WORD = re.compile(r"^[A-Za-z_][\w.+-]*$")
GUARD_SKIP = re.compile(r"\bskip\b|exit 77|pytest\.skip|SKIP")


def files(root):
    shell, py, c, cm = [], [], [], []
    for top in ("tests", "tools", "python/src", "python/tests", "apps", "src", "preload",
                "bench", "cmake", ".ci"):
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x not in ("__pycache__", "fixtures")]
            for n in names:
                p = os.path.join(d, n)
                if n.endswith(".sh") or p.endswith(("tools/vcluster/vcluster", ".ci/run")):
                    shell.append(p)
                elif n.endswith(".py"):
                    py.append(p)
                elif n.endswith(".c"):
                    c.append(p)
                elif n.endswith(".cmake") or n == "CMakeLists.txt":
                    cm.append(p)
    cm.append(os.path.join(root, "CMakeLists.txt"))
    return shell, py, c, cm


def strip_comment(line):
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t;"):
            break
        out.append(ch)
    return "".join(out)


def drop_arith(line):
    """(( ... )) and $(( ... )) removed, nested parentheses included"""
    out, i = [], 0
    while i < len(line):
        k = line.find("((", i)
        if k < 0:
            out.append(line[i:])
            break
        out.append(line[i:k - 1] if k > 0 and line[k - 1] == "$" else line[i:k])
        depth, j = 0, k
        while j < len(line):
            depth += {"(": 1, ")": -1}.get(line[j], 0)
            j += 1
            if depth == 0:
                break
        out.append(" ")
        i = j
    return "".join(out)


def unquote(text):
    """quoted strings blanked (to %Q%, newlines kept), also across lines; the command
    substitutions inside double quotes stay, each as a command of its own"""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            out.append(text[i:i + 2])
            i += 2
        elif ch == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            out.append("%Q%" + "\n" * text.count("\n", i, j))
            i = j + 1
        elif ch == '"':
            i += 1
            while i < n and text[i] != '"':
                if text.startswith("$(", i) and not text.startswith("$((", i):
                    depth, j = 1, i + 2
                    while j < n and depth:
                        depth += {"(": 1, ")": -1}.get(text[j], 0)
                        j += 1
                    out.append(" ; " + unquote(text[i + 2:j - 1]) + " ; ")
                    i = j
                    continue
                if text[i] == "\n":
                    out.append("\n")
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append("%Q%")
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def shell_text(text):
    """the script's code lines (numbered as in the file): heredoc bodies, comments,
    quoted strings and arithmetic blanked, continued lines joined"""
    lines, heredoc = [], None
    for raw in text.split("\n"):
        if heredoc:
            lines.append("")
            if raw.strip() == heredoc:
                heredoc = None
            continue
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", raw)
        if m:
            heredoc = m.group(1)
        lines.append(strip_comment(raw))
    lines = unquote("\n".join(lines)).split("\n")
    joined = []
    k = 0
    while k < len(lines):
        cur, first = lines[k], k
        while cur.endswith("\\") and k + 1 < len(lines):
            k += 1
            cur = cur[:-1] + " " + lines[k]
        cur = re.sub(r"(\w=)\(([^)]*)\)", r"\1%Q%", cur)     # arrays: a=(x y z)
        cur = re.sub(r"\[\[.*?\]\]", " [[ ]] ", cur)              # [[ $x =~ (a|b) ]]
        joined.append((first + 1, drop_arith(cur)))
        k += 1
    return joined


def shell_calls(path, text):
    """(program, line) of every command word of a shell script"""
    funcs = set(re.findall(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)", text, re.M))
    calls = []
    for no, line in shell_text(text):
        line = re.sub(r"^\s*[\w.*|\s\[\]%-]+\)", " ", line)  # a case pattern: srun | sbatch)
        for seg in SHELL_SPLIT.split(line):
            words = seg.split()
            while words and (re.match(r"^[A-Za-z_]\w*(\[[^]]*\])?\+?=", words[0])
                             or words[0] in ("sudo", "$sudo", "nohup", "command", "exec", "env",
                                             "!", "builtin", "then", "do", "else")
                             or words[0].startswith("-")):
                if words[0] == "command" and len(words) > 1 and words[1] == "-v":
                    words = []
                    break
                if words[0] == "env" and len(words) > 1 and words[1] == "-i":
                    words = words[2:]
                    continue
                words = words[1:]
            if words and words[0] == "timeout":
                words = [w for w in words[1:] if not re.match(r"^-|^\d|^\$", w)]
            if not words:
                continue
            w = words[0]
            if w in SHELL_SKIP or w in funcs or not WORD.match(w) or w.endswith(")"):
                continue
            calls.append((w, no))
    return calls


def python_calls(path, text):
    calls = []
    for no, line in enumerate(text.split("\n"), 1):
        for m in re.finditer(r"which\(\s*[\"']([\w.+-]+)[\"']", line):
            calls.append((m.group(1), no))
        for m in re.finditer(r"subprocess\.\w+\(\s*\[\s*[\"']([\w.+-]+)[\"']", line):
            calls.append((m.group(1), no))
        for m in re.finditer(r"[\"']([\w.+-]+)[\"']", line):
            name = m.group(1)
            if name in PROGRAMS and PROGRAMS[name] not in BASE:
                calls.append((name, no))
    return calls


def c_calls(path, text):
    if not re.search(r"\b(popen|system|execl?p?|posix_spawnp?)\s*\(", text):
        return []
    calls = []
    for no, line in enumerate(text.split("\n"), 1):
        for m in re.finditer(r"\"([a-z][\w.+-]*) (?:-|'|%)", line):
            calls.append((m.group(1), no))
    return calls


def cmake_calls(path, text):
    calls = []
    for m in re.finditer(r"find_program\(\s*\w+\s+(?:NAMES\s+)?([^)]*)\)", text):
        no = text.count("\n", 0, m.start()) + 1
        for w in m.group(1).split():
            if w in ("REQUIRED", "NAMES", "PATHS", "HINTS", "NO_DEFAULT_PATH", "DOC"):
                break
            if WORD.match(w):
                calls.append((w, no))
    return calls


def guarded(text, name):
    lines = text.split("\n")
    pat = re.compile(r"command -v\s+['\"]?" + re.escape(name) + r"\b|which\(\s*[\"']"
                     + re.escape(name) + r"[\"']")
    for i, line in enumerate(lines):
        if pat.search(line) and any(GUARD_SKIP.search(x) for x in lines[i:i + 4]):
            return True
    return False


def setup_packages(root):
    text = open(os.path.join(root, "tools/setup-deps.sh"), encoding="utf-8").read()
    pkgs = set()
    for m in re.finditer(r"(?:mpi_pkgs|want)=\"([^\"]*)\"", text):
        pkgs.update(w for w in m.group(1).split() if not w.startswith("$"))
    return pkgs


def makefile_calls(root):
    path = os.path.join(root, "Makefile")
    lines = open(path, encoding="utf-8").read().split("\n")
    recipe = "\n".join(l.lstrip("\t").lstrip("@-") if l.startswith("\t") else "" for l in lines)
    recipe = re.sub(r"\$\([A-Za-z_]\w*\)", "%V%", recipe)  # make's variables, not $(commands)
    return [(w, no) for w, no in shell_calls(path, recipe) if not w.startswith("$")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    shell, py, c, cm = files(root)
    found = defaultdict(list)  # program -> [(path, line)]
    texts = {}
    for kind, paths in ((shell_calls, shell), (python_calls, py), (c_calls, c), (cmake_calls, cm)):
        for p in paths:
            if p == os.path.abspath(__file__):
                continue
            texts[p] = open(p, encoding="utf-8", errors="replace").read()
            for name, no in kind(p, texts[p]):
                found[name].append((p, no))
    mk = os.path.join(root, "Makefile")
    texts[mk] = open(mk, encoding="utf-8").read()
    for name, no in makefile_calls(root):
        found[name].append((mk, no))
    installed = setup_packages(root)
    problems = []
    for name in sorted(found):
        where = found[name]
        pkg = PROGRAMS.get(name)
        if args.list:
            first = ", ".join(f"{os.path.relpath(p, root)}:{n}" for p, n in where[:3])
            print(f"{name:20s} {pkg or '?':16s} {len(where):3d} call(s): {first}")
        if pkg is None:
            p, n = where[0]
            problems.append(f"{os.path.relpath(p, root)}:{n}: '{name}': an external program not "
                            f"in tools/lint-programs.py's table: add it with its Debian package")
            continue
        if pkg in BASE or pkg in installed or pkg in ON_DEMAND:
            continue
        for p, n in where:
            if not guarded(texts[p], name):
                problems.append(f"{os.path.relpath(p, root)}:{n}: '{name}' (package {pkg}) is "
                                f"neither installed by tools/setup-deps.sh nor guarded by a skip")
    for line in problems:
        print(line)
    print(f"lint-programs: {len(found)} programs, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
