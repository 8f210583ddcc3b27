"""The shared libraries an ELF program needs (its DT_NEEDED entries), read without binutils.

hybridkit simulate uses it to tell a program built with smpicc (it needs libsimgrid.so) from
one built with mpicc (libmpi.so) or without MPI before smpirun is started:

    ELF header --e_phoff--> program headers --PT_DYNAMIC--> dynamic entries
        DT_NEEDED: offsets into the string table at DT_STRTAB (an address: the PT_LOAD
        segment holding it gives its place in the file)

The program headers are what the dynamic loader reads, so stripped files are read too.

smpicc links a program as a shared object (-shared: no PT_INTERP) that smpirun loads into its
own process, where libsimgrid is already loaded.  SMPI's mpi.h declares the MPI functions weak,
so a program that refers to nothing else of libsimgrid (no MPI_COMM_WORLD, no smpi_* helper)
has only weak references to it, and a linker with --as-needed drops libsimgrid from
DT_NEEDED (issue 43: such a program ran fine under smpirun but was refused).  dynamic()
also gives PT_INTERP's presence and the dynamic string table (DT_STRTAB, DT_STRSZ: the names
of the symbols the program imports or exports) to recognise it.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO, List, NamedTuple, Tuple

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ = 0, 1, 5, 10
MAX_STRTAB = 16 << 20  # bytes of the dynamic string table read at most
MAX_ENTRIES = 1 << 16  # dynamic entries read at most (a corrupt file never loops long)


class NotELF(ValueError):
    """The file is no ELF program (a script, a text file, a truncated file)."""


def _read(f: BinaryIO, offset: int, size: int) -> bytes:
    f.seek(offset)
    data = f.read(size)
    if len(data) != size:
        raise NotELF(f"truncated at byte {offset}")
    return data


def _layout(ident: bytes) -> Tuple[str, str, str]:
    """(byte order, header format from e_type on, program header format) of an ELF class."""
    order = {1: "<", 2: ">"}.get(ident[5])
    if order is None or ident[4] not in (1, 2):
        raise NotELF("unknown ELF class or byte order")
    if ident[4] == 2:  # 64-bit: e_type..e_shstrndx; p_type, p_flags, p_offset, p_vaddr, ...
        return order, "HHIQQQIHHHHHH", "IIQQQQQQ"
    return order, "HHIIIIIHHHHHH", "IIIIIIII"


class Dynamic(NamedTuple):
    """What the dynamic loader reads of an ELF file."""
    needed: List[str]  # DT_NEEDED names
    interp: bool       # a PT_INTERP (an executable); smpicc's shared objects have none
    strings: bytes     # the dynamic string table: NUL-separated names (b"" if none)

    def names(self, *names: str) -> bool:
        """Whether any of these names is in the dynamic string table (a symbol the
        program imports or exports, or a library name)."""
        return any(b"\0" + n.encode() + b"\0" in b"\0" + self.strings for n in names)


def needed(path: Path) -> List[str]:
    """The DT_NEEDED names of the ELF file at path ([] for a static program); NotELF when
    it is not one, OSError when it cannot be read."""
    return dynamic(path).needed


def dynamic(path: Path) -> Dynamic:
    """DT_NEEDED names, PT_INTERP and the dynamic string table of the ELF file at path;
    NotELF when it is not one, OSError when it cannot be read."""
    with open(path, "rb") as f:
        ident = f.read(16)
        if len(ident) < 16 or ident[:4] != b"\x7fELF":
            raise NotELF("no ELF header")
        order, head, phdr = _layout(ident)
        fields = struct.unpack(order + head, _read(f, 16, struct.calcsize(order + head)))
        phoff, phentsize, phnum = fields[4], fields[8], fields[9]
        size = struct.calcsize(order + phdr)
        if phnum and phentsize < size:
            raise NotELF("program header entries too small")
        loads, dyn, interp = [], None, False
        for i in range(phnum):
            p = struct.unpack(order + phdr, _read(f, phoff + i * phentsize, size))
            if ident[4] == 2:
                p_type, offset, vaddr, filesz = p[0], p[2], p[3], p[5]
            else:
                p_type, offset, vaddr, filesz = p[0], p[1], p[2], p[4]
            if p_type == PT_LOAD:
                loads.append((vaddr, offset, filesz))
            elif p_type == PT_DYNAMIC:
                dyn = (offset, filesz)
            elif p_type == PT_INTERP:
                interp = True
        if dyn is None:
            return Dynamic([], interp, b"")
        entry = "qQ" if ident[4] == 2 else "iI"
        width = struct.calcsize(order + entry)
        names, strtab, strsz = [], None, 0
        for i in range(min(dyn[1] // width, MAX_ENTRIES)):
            tag, value = struct.unpack(order + entry, _read(f, dyn[0] + i * width, width))
            if tag == DT_NULL:
                break
            if tag == DT_NEEDED:
                names.append(value)
            elif tag == DT_STRTAB:
                strtab = value
            elif tag == DT_STRSZ:
                strsz = value
        base = next((off + strtab - vaddr for vaddr, off, filesz in loads
                     if strtab is not None and vaddr <= strtab < vaddr + filesz), None)
        if base is None:
            if names:
                raise NotELF("no string table for the needed libraries")
            return Dynamic([], interp, b"")
        f.seek(base)
        strings = f.read(min(strsz, MAX_STRTAB))
        return Dynamic([_string(f, base + name) for name in names], interp, strings)


def _string(f: BinaryIO, offset: int) -> str:
    f.seek(offset)
    data = f.read(4096)
    end = data.find(b"\0")
    if end < 0:
        raise NotELF(f"unterminated name at byte {offset}")
    return data[:end].decode("utf-8", "replace")

