"""Malformed binaries and hostile SDK_EXPORT signatures: cpp_extension.load_library,
sdk.ops.load_library and the ctypes bridge raise ImportError naming the file (and the
function), never CalledProcessError, struct.error, UnicodeDecodeError, ArgumentError or a
half-working object."""

from __future__ import annotations

import numpy as np
import pytest

import cpp_extension
import sdk.ops
from cpp_extension import _ctypes_bridge
from sdk.utils import elf as _elf
from tests.cpp_extension.conftest import require_core
from tests.security.conftest import abi_version, compile_c

STUB = r"""
#include <stdint.h>
#define EXPORT __attribute__((visibility("default")))
EXPORT const uint32_t sdk_extension_abi_version = %(abi)du;
EXPORT const char sdk_sig_%(name)s[] = %(sig)s;
EXPORT int %(name)s(void) { return 0; }
"""


def _stub(tmp_path, name: str, sig: str):
    out = tmp_path / f"stub_{abs(hash((name, sig)))}.so"
    return compile_c(STUB % {"abi": abi_version(), "name": name, "sig": sig}, out)


@pytest.fixture(scope="module")
def good_library(tmp_path_factory):
    require_core("sdk_abi_version")
    folder = tmp_path_factory.mktemp("good")
    return compile_c(
        STUB % {"abi": abi_version(), "name": "f", "sig": '"() -> ()"'}, folder / "good.so"
    )


def _loaders(path):
    """Every public way to load a binary, by name."""
    return {
        "cpp_extension.load_library": lambda: cpp_extension.load_library(path),
        "ctypes bridge": lambda: _ctypes_bridge.load_library(str(path), "hostile"),
        "sdk.ops.load_library": lambda: sdk.ops.load_library(path),
    }


def _malformed(tmp_path, good, kind: str):
    data = good.read_bytes()
    out = tmp_path / f"{kind}.so"
    if kind == "text":
        out.write_text("this is not a shared library\n")
    elif kind == "empty":
        out.write_bytes(b"")
    elif kind == "elf magic only":
        out.write_bytes(b"\x7fELF")
    elif kind.startswith("truncated"):
        out.write_bytes(data[: int(kind.split()[1])])
    elif kind == "section table past the end":
        mutated = bytearray(data)
        mutated[0x28:0x30] = (len(data) + 4096).to_bytes(8, "little")  # e_shoff
        out.write_bytes(bytes(mutated))
    return out


MALFORMED = [
    "text",
    "empty",
    "elf magic only",
    "truncated 20",
    "truncated 64",
    "truncated 1000",
    "truncated 4000",
    "section table past the end",
]


@pytest.mark.parametrize("kind", MALFORMED)
def test_malformed_binaries_are_import_errors_naming_the_file(tmp_path, good_library, kind):
    path = _malformed(tmp_path, good_library, kind)
    for loader, load in _loaders(path).items():
        if loader == "sdk.ops.load_library" and kind == "section table past the end":
            continue  # dlopen reads no section header: the library loads, as it should
        with pytest.raises(ImportError) as info:
            load()
        assert str(path) in str(info.value), (loader, str(info.value))


HOSTILE = [
    # (function name, C string literal of the signature, text the message must contain)
    ("_functions", '"() -> ()"', "names starting with '_' are refused"),
    ("__class__", '"() -> ()"', "names starting with '_' are refused"),
    ("__getattr__", '"() -> ()"', "names starting with '_' are refused"),
    ("f", '"(" "\\xff\\xfe" ") -> ()"', "not UTF-8"),
    ("f", '"Tensor x -> Tensor"', "is not of the form"),
    ("f", '"(double x) -> ()"', "argument 'double x'"),
    ("f", '"() -> float"', "results must be Tensor"),
    ("f", None, "at most 1024"),  # 1025 arguments
    ("f", None, "at most 1024"),  # 1000 arguments and 100 results
]


@pytest.mark.parametrize("case", range(len(HOSTILE)))
def test_hostile_signatures_are_import_errors_naming_file_and_function(tmp_path, case):
    require_core("sdk_abi_version")
    name, sig, text = HOSTILE[case]
    if sig is None:
        args, results = (1025, 0) if case == len(HOSTILE) - 2 else (1000, 100)
        arg_list = ", ".join(f"int a{i}" for i in range(args))
        res = "(" + ", ".join(["Tensor"] * results) + ")" if results else "()"
        sig = f'"({arg_list}) -> {res}"'
    path = _stub(tmp_path, name, sig)
    for loader, load in _loaders(path).items():
        if loader == "sdk.ops.load_library":
            continue  # loads operator libraries: SDK_EXPORT signatures are not its business
        with pytest.raises(ImportError) as info:
            load()
        msg = str(info.value)
        assert str(path) in msg and f"SDK_EXPORT({name}, ...)" in msg, (loader, msg)
        assert text in msg and info.value.name == name and info.value.path == str(path)


def test_the_largest_signature_the_bridge_can_call_still_loads(tmp_path):
    require_core("sdk_abi_version")
    sig = '"(' + ", ".join(f"int a{i}" for i in range(1024)) + ') -> ()"'
    lib = _ctypes_bridge.load_library(str(_stub(tmp_path, "wide", sig)), "wide")
    assert len(lib.wide.signature.args) == 1024


def test_elf_reader_fuzz_raises_only_elf_errors(good_library):
    """Random truncations and byte flips of a real library: the reader answers or raises
    ElfError (with the file's name), never struct.error, IndexError or UnicodeDecodeError."""
    rng = np.random.default_rng(7)
    data = good_library.read_bytes()
    path = good_library.with_name("mutated.so")
    answered = 0
    for _ in range(400):
        keep = len(data) if rng.random() < 0.5 else int(rng.integers(0, len(data) + 1))
        mutated = bytearray(data[:keep])
        for _ in range(int(rng.integers(0, 8))):
            if mutated:
                # mostly the headers and tables: where offsets and sizes live
                at = int(rng.integers(0, min(len(mutated), 256 if rng.random() < 0.5 else 1 << 20)))
                mutated[at] = int(rng.integers(0, 256))
        path.write_bytes(bytes(mutated))
        try:
            elf = _elf.ElfFile(str(path))
            for sym in elf.dynamic_symbols().values():
                if sym.kind == "object" and sym.size < 4096:
                    elf.read_string(sym)
            answered += 1
        except _elf.ElfError as e:
            assert str(path) in str(e)
    assert answered > 10
