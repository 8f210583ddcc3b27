"""HK_MPI=auto: which MPI the `mpicc` on PATH is, for make (the preset, the build directory)
and for the CLI (the launcher). Standard library only: make runs this file as a script before
the venv exists (`python3 python/src/hybridkit/launch/mpivendor.py --make`).

The probe: the MPI's own header, preprocessed by its own wrapper,

    echo '#include <mpi.h>' | mpicc -E -dM -x c -      (every macro the header defines)

and the vendor read from the macros each one's mpi.h defines (I_MPI_VERSION, CRAY_MPICH_VERSION,
MVAPICH2_VERSION / MVAPICH_VERSION, OPEN_MPI, MPICH_VERSION; the MPICH derivatives define
MPICH_VERSION too, so they are asked first). Why this probe and not another:
  - it reads the header the build compiles against, whatever the wrapper is called or how it
    was installed (a module, Spack, a distribution's alternatives symlink);
  - one preprocessor run (~0.05-0.2 s), no link and no program started: nothing that needs a
    launcher, PMI or OMPI_ALLOW_RUN_AS_ROOT, so it answers as root, as a user on a login node,
    and for Cray's wrappers, whose programs cannot start outside an allocation
    (MPI_Get_library_version of a compiled program, what the provenance records, needs all that);
  - the wrappers' own options differ per vendor (-showme:version is Open MPI's only, -show/-v
    print different things per MPICH derivative, Cray's `cc` has neither), and mpichversion /
    ompi_info exist for their own kind only.
The names are those of the provenance's mpi_vendor (hk__mpi_vendor_of in src/core/record_out.c).
Cray's programming environment has no mpicc: its `cc` wraps cray-mpich, taken when the
cray-mpich module is loaded (CRAY_MPICH_DIR or CRAY_MPICH_VERSION set) and no mpicc is on PATH.
No wrapper at all (a fresh Debian root before `make setup`): Open MPI, which setup installs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Dict, NamedTuple, Optional

# (macro, vendor), the first defined one names the MPI
MARKS = (("I_MPI_VERSION", "intelmpi"), ("CRAY_MPICH_VERSION", "cray-mpich"),
         ("MVAPICH2_VERSION", "mvapich"), ("MVAPICH_VERSION", "mvapich"),
         ("OPEN_MPI", "openmpi"), ("MPICH_VERSION", "mpich"))

# vendor -> HK_MPI (the launcher family of hybridkit run: hybridkit.launch.launchers.MPIS)
# and the CMake preset make builds with (MPICH derivatives in MPICH's build directory;
# the others in the default one, configured with their own wrapper)
FAMILY = {"openmpi": ("openmpi", "release"), "mpich": ("mpich", "mpich-release"),
          "mvapich": ("mpich", "mpich-release"), "intelmpi": ("intelmpi", "mpich-release"),
          "cray-mpich": ("cray-mpich", "release"), "other": ("mpich", "release")}

# the launcher beside the wrapper, per HK_MPI (Cray: srun, wherever it is)
LAUNCHER_NAMES = {"openmpi": ("mpirun", "mpiexec"), "mpich": ("mpiexec",),
                  "intelmpi": ("mpiexec", "mpirun"), "cray-mpich": ("srun",)}

# Debian's suffixed wrappers, which the presets name (CMakePresets.json)
PRESET_WRAPPER = {"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}


class Detected(NamedTuple):
    vendor: str    # openmpi, mpich, mvapich, intelmpi, cray-mpich, other; "none": no wrapper
    mpi: str       # HK_MPI: openmpi, mpich, intelmpi, cray-mpich
    preset: str    # release or mpich-release
    mpicc: str     # absolute path of the wrapper, "" when none
    launcher: str  # absolute path of its launcher, "" when none found


def vendor_of_macros(text: str) -> str:
    """The vendor whose mark `text` (the output of `cc -E -dM`) defines, else 'other'."""
    defined = {line.split()[1] for line in text.splitlines()
               if line.startswith("#define ") and len(line.split()) > 1}
    for macro, vendor in MARKS:
        if macro in defined:
            return vendor
    return "other"


def foreign_launcher(program: str, marks) -> Optional[str]:
    """The first line of `PROGRAM --version` when it shows one of `marks` (another MPI's
    launcher: OpenRTE, HYDRA, Intel(R) MPI), else None (also when it cannot run in 10 s)."""
    try:
        proc = subprocess.run([program, "--version"], capture_output=True, text=True,
                              timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (proc.stdout + proc.stderr).strip()
    return text.splitlines()[0] if any(m in text for m in marks) else None


def find_wrapper(environ: Optional[Dict[str, str]] = None) -> str:
    """The MPI C wrapper on PATH: mpicc, else Cray's cc with the cray-mpich module loaded."""
    env = os.environ if environ is None else environ
    path = env.get("PATH", os.defpath)
    found = shutil.which("mpicc", path=path)
    if not found and (env.get("CRAY_MPICH_DIR") or env.get("CRAY_MPICH_VERSION")):
        found = shutil.which("cc", path=path)
    return os.path.abspath(found) if found else ""


def probe(mpicc: str, timeout: float = 60) -> str:
    """The vendor of wrapper `mpicc` (see the module's docstring); 'other' when the header
    does not preprocess."""
    try:
        done = subprocess.run([mpicc, "-E", "-dM", "-x", "c", "-"], input="#include <mpi.h>\n",
                              capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return "other"
    return vendor_of_macros(done.stdout) if done.returncode == 0 else "other"


def detect(environ: Optional[Dict[str, str]] = None) -> Detected:
    """What HK_MPI=auto means here (uncached: the caller keeps the answer)."""
    env = os.environ if environ is None else environ
    path = env.get("PATH", os.defpath)
    mpicc = find_wrapper(env)
    if not mpicc:
        return Detected("none", "openmpi", "release", "", "")
    vendor = probe(mpicc)
    mpi, preset = FAMILY[vendor]
    names = LAUNCHER_NAMES[mpi]
    beside = (os.path.join(os.path.dirname(mpicc), n) for n in names)
    launcher = next((c for c in beside if os.path.isfile(c) and os.access(c, os.X_OK)), "") \
        or next((w for w in (shutil.which(n, path=path) for n in names) if w), "")
    return Detected(vendor, mpi, preset, mpicc, launcher)


def make_words(d: Detected) -> str:
    """The line make reads: HK_MPI, preset, vendor, then the wrapper and launcher to pass to
    CMake ('-' for both when the preset's Debian wrapper is this very one, or none exists)."""
    cc, run = d.mpicc or "-", d.launcher or "-"
    preset_cc = shutil.which(PRESET_WRAPPER.get(d.mpi, ""), path=os.environ.get("PATH")) \
        if d.mpi in PRESET_WRAPPER else None
    if not d.mpicc or (preset_cc and os.path.realpath(preset_cc) == os.path.realpath(d.mpicc)):
        cc = run = "-"
    return f"{d.mpi} {d.preset} {d.vendor} {cc} {run}"


def main(argv) -> int:
    d = detect()
    if argv[1:] == ["--make"]:
        print(make_words(d))
    else:
        print(f"{d.vendor} {d.mpi} {d.preset} {d.mpicc or '-'} {d.launcher or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
