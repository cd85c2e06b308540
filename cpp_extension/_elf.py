"""A small ELF reader: the dynamic symbol table of a shared library, and bytes at an address."""

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
    """Not an ELF file, or one this reader does not understand."""


class ElfFile:
    """Reads a whole (small) ELF file; 32/64-bit, little/big endian."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as f:
            self.data = f.read()
        if self.data[:4] != b"\x7fELF":
            raise ElfError(f"{path} is not an ELF file")
        self.is64 = self.data[4] == 2
        self.end = "<" if self.data[5] == 1 else ">"
        if self.is64:
            fields = struct.unpack_from(self.end + "HHIQQQIHHHHHH", self.data, 16)
        else:
            fields = struct.unpack_from(self.end + "HHIIIIIHHHHHH", self.data, 16)
        (_, _, _, _, self.phoff, self.shoff, _, _, self.phentsize, self.phnum) = fields[:10]
        self.shentsize, self.shnum, self.shstrndx = fields[10:]
        self.path = path

    def _sections(self) -> list[tuple[int, int, int, int, int]]:
        """(type, offset, size, link, entsize) per section header."""
        out = []
        for i in range(self.shnum):
            at = self.shoff + i * self.shentsize
            if self.is64:
                _, typ, _, _, off, size, link, _, _, ent = struct.unpack_from(
                    self.end + "IIQQQQIIQQ", self.data, at
                )
            else:
                _, typ, _, _, off, size, link, _, _, ent = struct.unpack_from(
                    self.end + "IIIIIIIIII", self.data, at
                )
            out.append((typ, off, size, link, ent))
        return out

    def dynamic_symbols(self) -> dict[str, Symbol]:
        """Defined symbols of .dynsym by name."""
        sections = self._sections()
        result: dict[str, Symbol] = {}
        for typ, off, size, link, ent in sections:
            if typ != _SHT_DYNSYM:
                continue
            _, str_off, str_size, _, _ = sections[link]
            strtab = self.data[str_off : str_off + str_size]
            ent = ent or (24 if self.is64 else 16)
            for at in range(off + ent, off + size, ent):  # entry 0 is the null symbol
                if self.is64:
                    name_i, info, _, shndx, value, sym_size = struct.unpack_from(
                        self.end + "IBBHQQ", self.data, at
                    )
                else:
                    name_i, value, sym_size, info, _, shndx = struct.unpack_from(
                        self.end + "IIIBBH", self.data, at
                    )
                if shndx == 0:  # undefined: imported from elsewhere
                    continue
                name = strtab[name_i : strtab.index(b"\0", name_i)].decode(errors="replace")
                kind = {_STT_OBJECT: "object", _STT_FUNC: "func"}.get(info & 0xF, "other")
                result[name] = Symbol(name, value, sym_size, kind)
        return result

    def read(self, vaddr: int, size: int) -> bytes:
        """`size` bytes at virtual address `vaddr`, from the file-backed part of a segment."""
        for i in range(self.phnum):
            at = self.phoff + i * self.phentsize
            if self.is64:
                typ, _, off, va, _, filesz, _, _ = struct.unpack_from(
                    self.end + "IIQQQQQQ", self.data, at
                )
            else:
                typ, off, va, _, filesz, _, _, _ = struct.unpack_from(
                    self.end + "IIIIIIII", self.data, at
                )
            if typ == _PT_LOAD and va <= vaddr and vaddr + size <= va + filesz:
                start = off + (vaddr - va)
                return self.data[start : start + size]
        raise ElfError(f"address {vaddr:#x} is not in a loaded segment of {self.path}")

    def read_string(self, sym: Symbol) -> str:
        raw = self.read(sym.value, sym.size)
        return raw.split(b"\0", 1)[0].decode()

    def read_u32(self, sym: Symbol) -> int:
        return struct.unpack(self.end + "I", self.read(sym.value, 4))[0]


def dynamic_symbols_nm(path: str) -> list[str]:
    """Fallback for files this reader rejects: defined dynamic symbol names from `nm -D`."""
    import subprocess

    out = subprocess.run(
        ["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True
    ).stdout
    return [line.split()[-1] for line in out.splitlines() if len(line.split()) >= 3]
