"""sdk.utils.elf: a small ELF reader for loaders: a shared library's dynamic symbol table,
bytes at an address, and whether every segment dlopen maps lies inside the file.

The one reader of the project: sdk.ops.load_library and cpp_extension's loaders check a
binary with it before dlopen (a truncated file would be a SIGBUS there), and the ctypes
bridge reads an extension's exported signatures with it. Pure Python (struct); imports
nothing from sdk, so the lowest layers may use it."""

from __future__ import annotations

import struct

_SHT_DYNSYM = 11
_PT_LOAD = 1
_STT_OBJECT = 1
_STT_FUNC = 2


class Symbol:
    """A defined dynamic symbol; kind is "object", "func" or "other"."""

    __slots__ = ("name", "value", "size", "kind")

    def __init__(self, name: str, value: int, size: int, kind: str) -> None:
        self.name, self.value, self.size, self.kind = name, value, size, kind


class ElfError(ValueError):
    """Not an ELF file, or one this reader does not understand: truncated, or with a table
    that points outside the file. The message names the file and what is wrong."""


class ElfFile:
    """Reads a whole (small) ELF file; 32/64-bit, little/big endian.

    Every offset and size read from the file is checked against the bytes present before
    it is used, so that any file (truncated, hostile) gives an ElfError, never another
    exception."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as f:
            self.data = f.read()
        self.path = path
        if self.data[:4] != b"\x7fELF":
            raise ElfError(f"{path} is not an ELF file")
        if len(self.data) < 6 or self.data[4] not in (1, 2) or self.data[5] not in (1, 2):
            raise ElfError(f"{path}: unknown ELF class or byte order (a damaged header)")
        self.is64 = self.data[4] == 2
        self.end = "<" if self.data[5] == 1 else ">"
        fields = self._unpack("HHIQQQIHHHHHH" if self.is64 else "HHIIIIIHHHHHH", 16, "header")
        (_, _, _, _, self.phoff, self.shoff, _, _, self.phentsize, self.phnum) = fields[:10]
        self.shentsize, self.shnum, self.shstrndx = fields[10:]

    def _unpack(self, fmt: str, at: int, what: str) -> tuple:
        size = struct.calcsize(self.end + fmt)
        if at < 0 or at + size > len(self.data):
            raise ElfError(
                f"{self.path}: the {what} at offset {at} runs past the end of the file "
                f"({len(self.data)} bytes): a truncated or damaged ELF file"
            )
        return struct.unpack_from(self.end + fmt, self.data, at)

    def _table(self, off: int, count: int, entsize: int, minimum: int, what: str) -> None:
        """An ElfError unless `count` entries of `entsize` (>= minimum) bytes fit at `off`."""
        if not count:
            return
        if entsize < minimum:
            raise ElfError(f"{self.path}: {what} entries of {entsize} bytes (at least {minimum})")
        if off + count * entsize > len(self.data):
            raise ElfError(
                f"{self.path}: the {what} table ({count} x {entsize} bytes at offset {off}) "
                f"runs past the end of the file ({len(self.data)} bytes): a truncated file"
            )

    def _sections(self) -> list[tuple[int, int, int, int, int]]:
        """(type, offset, size, link, entsize) per section header."""
        fmt = "IIQQQQIIQQ" if self.is64 else "IIIIIIIIII"
        self._table(self.shoff, self.shnum, self.shentsize, struct.calcsize(fmt), "section")
        out = []
        for i in range(self.shnum):
            at = self.shoff + i * self.shentsize
            _, typ, _, _, off, size, link, _, _, ent = self._unpack(fmt, at, "section header")
            out.append((typ, off, size, link, ent))
        return out

    def dynamic_symbols(self) -> dict[str, Symbol]:
        """Defined symbols of .dynsym by name (a name that is not UTF-8 keeps U+FFFD)."""
        sections = self._sections()
        result: dict[str, Symbol] = {}
        fmt = "IBBHQQ" if self.is64 else "IIIBBH"
        for typ, off, size, link, ent in sections:
            if typ != _SHT_DYNSYM:
                continue
            if link >= len(sections):
                raise ElfError(f"{self.path}: .dynsym links to section {link}, which is absent")
            _, str_off, str_size, _, _ = sections[link]
            if str_off + str_size > len(self.data):
                raise ElfError(f"{self.path}: the dynamic string table runs past the file's end")
            strtab = self.data[str_off : str_off + str_size]
            ent = ent or struct.calcsize(self.end + fmt)
            self._table(off, size // ent, ent, struct.calcsize(self.end + fmt), "symbol")
            for at in range(off + ent, off + size - ent + 1, ent):  # entry 0 is the null one
                if self.is64:
                    name_i, info, _, shndx, value, sym_size = self._unpack(fmt, at, "symbol")
                else:
                    name_i, value, sym_size, info, _, shndx = self._unpack(fmt, at, "symbol")
                if shndx == 0:  # undefined: imported from elsewhere
                    continue
                stop = strtab.find(b"\0", name_i)
                if name_i >= len(strtab) or stop < 0:
                    raise ElfError(
                        f"{self.path}: a symbol name at {name_i} lies outside the string table"
                    )
                name = strtab[name_i:stop].decode(errors="replace")
                kind = {_STT_OBJECT: "object", _STT_FUNC: "func"}.get(info & 0xF, "other")
                result[name] = Symbol(name, value, sym_size, kind)
        return result

    def _segments(self) -> list[tuple[int, int, int, int]]:
        """(type, file offset, virtual address, size in the file) per program header."""
        fmt = "IIQQQQQQ" if self.is64 else "IIIIIIII"
        self._table(self.phoff, self.phnum, self.phentsize, struct.calcsize(fmt), "segment")
        out = []
        for i in range(self.phnum):
            at = self.phoff + i * self.phentsize
            if self.is64:
                typ, _, off, va, _, filesz, _, _ = self._unpack(fmt, at, "segment header")
            else:
                typ, off, va, _, filesz, _, _, _ = self._unpack(fmt, at, "segment header")
            out.append((typ, off, va, filesz))
        return out

    def check_loadable(self) -> None:
        """ElfError unless every segment the loader maps lies inside the file: dlopen maps
        them, and a page past the end of a truncated file is a SIGBUS, not an error. (sdk.ops
        checks this before its dlopen, as cpp_extension's loaders do.)"""
        loads = [(off, size) for typ, off, _, size in self._segments() if typ == _PT_LOAD]
        if not loads:
            raise ElfError(f"{self.path} has no loadable segment: not a shared library")
        for off, size in loads:
            if off + size > len(self.data):
                raise ElfError(
                    f"{self.path} is truncated: a segment of {size} bytes at offset {off} "
                    f"ends past the end of the file ({len(self.data)} bytes)"
                )

    def read(self, vaddr: int, size: int) -> bytes:
        """`size` bytes at virtual address `vaddr`, from the file-backed part of a segment."""
        for typ, off, va, filesz in self._segments():
            if typ == _PT_LOAD and va <= vaddr and vaddr + size <= va + filesz:
                start = off + (vaddr - va)
                if start + size > len(self.data):
                    break
                return self.data[start : start + size]
        raise ElfError(f"address {vaddr:#x} is not in a loaded segment of {self.path}")

    def read_string(self, sym: Symbol) -> str:
        """The NUL-terminated UTF-8 text a data symbol holds; ElfError naming the symbol
        when it is not UTF-8."""
        raw = self.read(sym.value, sym.size)
        try:
            return raw.split(b"\0", 1)[0].decode()
        except UnicodeDecodeError as e:
            raise ElfError(f"{self.path}: {sym.name} does not hold UTF-8 text ({e})") from None

    def read_u32(self, sym: Symbol) -> int:
        return struct.unpack(self.end + "I", self.read(sym.value, 4))[0]


def dynamic_symbols_nm(path: str) -> list[str]:
    """The defined dynamic symbol names `nm -D` lists (the tests check the reader against
    it). ElfError (with nm's complaint) when nm cannot read the file, or is missing."""
    import subprocess

    try:
        proc = subprocess.run(
            ["nm", "-D", "--defined-only", path], capture_output=True, text=True, errors="replace"
        )
    except OSError as e:
        raise ElfError(f"{path}: cannot run nm to read its symbols ({e})") from None
    if proc.returncode != 0:
        why = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        raise ElfError(f"{path} is not a shared library that nm can read: {why[0]}")
    return [line.split()[-1] for line in proc.stdout.splitlines() if len(line.split()) >= 3]
