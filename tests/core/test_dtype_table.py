"""The dtype table SDK_DTYPES (sdk/c_api.h): every row gives the same facts in the C ABI, the C++
API (sdk/dtype.h), sdk._C.DTYPES and sdk's dtype objects; the schema parser takes exactly the
names the rows imply; and the codes are those of the frozen ABI 1.0 header."""

from __future__ import annotations

import ctypes
import re
import uuid
from pathlib import Path

import numpy as np
import pytest

import sdk
import sdk.library as L
from sdk import _dtype
from tests._compile_cache import run_compiler
from tests.core.test_cpp_api import INCLUDE, _cxx

ABI_1_0 = Path(__file__).resolve().parents[1] / "abi" / "abi_1_0" / "include" / "sdk" / "c_api.h"
_ROW = re.compile(r'X\((\w+), (\d+), "(\w+)", (\w+), (\d+), (\w+), ([\w<>]+), "(\w*)"\)')
# The names schemas took for ScalarType defaults before the table (torch's spellings).
_SCHEMA_NAMES_BEFORE = {
    "float": 8, "float32": 8, "double": 9, "float64": 9, "half": 6, "float16": 6,
    "bfloat16": 7, "long": 5, "int64": 5, "int": 4, "int32": 4, "short": 3, "int16": 3,
    "char": 2, "int8": 2, "byte": 1, "uint8": 1, "bool": 0,
}  # fmt: skip


def table_rows() -> list[tuple]:
    """(NAME, code, name, Torch, itemsize, kind, cpp_type, py_alias) of each SDK_DTYPES row."""
    text = (INCLUDE / "sdk" / "c_api.h").read_text()
    body = text[text.index("#define SDK_DTYPES(X)") :]
    body = re.sub(r"\s*\\\n\s*", " ", body[: body.index("\n\n")])  # one row a line
    rows = [(N, int(c), n, T, int(s), k, cpp, a) for N, c, n, T, s, k, cpp, a in _ROW.findall(body)]
    assert len(rows) == body.count("X("), "a row of SDK_DTYPES does not parse"
    return rows


ROWS = table_rows()


def test_rows_are_the_codes_in_order():
    assert [r[1] for r in ROWS] == list(range(len(ROWS))) and len(ROWS) == 16


def test_abi_1_0_codes_are_unchanged():
    """Rule 4 of c_api.h: every dtype code of ABI 1.0 names the same dtype today."""
    if not ABI_1_0.is_file():  # a staged copy of some test folders (tests/sanitizers)
        pytest.skip("the frozen ABI 1.0 headers (tests/abi) are not in this tree")
    old = dict(re.findall(r"\bSDK_(\w+) = (\d+),?\s*/\*!< ", ABI_1_0.read_text()))
    old_dtypes = {k: int(v) for k, v in old.items() if k in {r[0] for r in ROWS}}
    assert len(old_dtypes) == 10
    assert old_dtypes == {r[0]: r[1] for r in ROWS if r[0] in old_dtypes}


def test_c_abi_functions_follow_the_table():
    lib = ctypes.CDLL(sdk.get_library_path())
    lib.sdk_dtype_name.restype = ctypes.c_char_p
    lib.sdk_dtype_itemsize.restype = ctypes.c_int64
    assert lib.sdk_dtype_count() == len(ROWS)
    for _, code, name, _, itemsize, *_ in ROWS:
        assert lib.sdk_dtype_name(code).decode() == name
        assert lib.sdk_dtype_itemsize(code) == itemsize
    for bad in (-1, len(ROWS), 127):
        assert lib.sdk_dtype_name(bad) is None and lib.sdk_dtype_itemsize(bad) == 0


def test_python_dtypes_follow_the_table():
    assert list(sdk._C.DTYPES) == [r[2] for r in ROWS]
    assert _dtype.DTYPES == tuple(getattr(sdk, r[2]) for r in ROWS)
    for _, code, name, torch_name, itemsize, kind, _, alias in ROWS:
        d = getattr(sdk, name)
        assert sdk._C.DTYPES[name] == (code, torch_name, itemsize, kind, alias)
        assert (d.code, d.name, d.itemsize, repr(d)) == (code, name, itemsize, f"sdk.{name}")
        assert d.is_floating_point == (kind in ("FLOAT", "BFLOAT") or kind.startswith("FLOAT8_"))
        assert d.is_complex == (kind == "COMPLEX")
        assert d.is_signed == (kind in ("INT", "COMPLEX") or d.is_floating_point)
        assert getattr(_dtype, "bool_" if name == "bool" else name) is d
        assert _dtype.as_dtype(name) is d and (not alias or getattr(sdk, alias) is d)
        t = sdk.zeros(2, dtype=d)
        assert t.dtype is d and t.element_size() == itemsize
        assert t.is_floating_point() == d.is_floating_point
        if kind == "BFLOAT" or kind.startswith("FLOAT8_"):  # numpy has no bfloat16, no float8
            with pytest.raises(TypeError, match=f"numpy has no {name}"):
                _dtype.to_numpy_dtype(d)
            continue
        assert _dtype.to_numpy_dtype(d) == np.dtype(name) and _dtype.from_numpy_dtype(name) is d
        assert t.numpy().dtype == np.dtype(name)  # the array interface's typestr
        assert np.from_dlpack(t).dtype == np.dtype(name)  # the DLPack kind and width
        assert sdk.from_dlpack(np.zeros(2, name)).dtype is d


def test_python_names_are_the_old_ones():
    """sdk's dtype attributes and as_dtype's names are what they were before the table."""
    aliases = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
               "int": "int32", "short": "int16", "cfloat": "complex64",
               "cdouble": "complex128"}  # fmt: skip
    assert {a: d.name for a, d in _dtype.TORCH_NAMES.items() if a != d.name} == aliases
    assert set(_dtype._BY_NAME) == {r[2] for r in ROWS} | set(aliases) | {"bool_"}
    for bad in ("byte", "char", "Float", "bool_x", "complex32"):
        with pytest.raises(TypeError, match="unknown dtype name"):
            _dtype.as_dtype(bad)


def _cpp_checks() -> str:
    """static_asserts of every row's facts in the C++ API."""
    lines = ["#include <type_traits>", '#include "sdk/all.h"', "using namespace sdk;"]
    for _, code, name, torch_name, itemsize, kind, cpp, _ in ROWS:
        st = f"ScalarType::{torch_name}"
        floating = "true" if kind in ("FLOAT", "BFLOAT") or kind.startswith("FLOAT8_") else "false"
        integral = "true" if kind in ("INT", "UINT") else "false"
        lines += [
            f"static_assert(static_cast<int>(k{torch_name}) == {code} && to_c({st}) == {code});",
            f"static_assert(from_c_dtype({code}) == {st} && elementSize({st}) == {itemsize});",
            f'static_assert(std::string_view(toString({st})) == "{name}");',
            f"static_assert(isFloatingType({st}) == {floating});",
            f"static_assert(isIntegralType({st}, false) == {integral});",
            f"static_assert(isIntegralType({st}, true) == ({integral} || {code} == 0));",
            f"static_assert(CppTypeToScalarType<{cpp}>::value == {st});",
            f"static_assert(std::is_same_v<ScalarTypeToCPPTypeT<{st}>, {cpp}>);",
            f"static_assert(TypeMeta::Make<{cpp}>().itemsize() == {itemsize});",
        ]
    lines.append(f"static_assert(from_c_dtype({len(ROWS)}) == ScalarType::Undefined);")
    lines.append('static_assert(std::string_view(toString(ScalarType::Undefined)) == "undefined");')
    return "\n".join(lines) + "\n"


def test_cpp_api_follows_the_table(tmp_path):
    src = tmp_path / "dtype_facts.cpp"
    src.write_text("#include <string_view>\n" + _cpp_checks())
    cmd = [_cxx(), "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{INCLUDE}"]
    r = run_compiler([*cmd, str(src)], timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]


def _default_of(text: str):
    """The ScalarType a schema default `text` names, parsed by the core."""
    n = "t" + uuid.uuid4().hex[:10]
    lib = L.Library(n, "DEF")
    try:
        lib.define(f"pick(Tensor x, ScalarType dt={text}) -> ScalarType")
        lib.impl("pick", lambda x, dt: dt, "CPU")
        return getattr(sdk.ops, n).pick(sdk.ones(1))
    finally:
        lib._destroy()


def test_schema_takes_exactly_the_names_the_table_implies():
    implied = {}
    for _, code, name, torch_name, *_ in ROWS:
        implied[name] = implied[torch_name.lower()] = code
    # The names of before the table, and each later row's: its name (float8_e4m3fn, ABI 1.10)
    # and its ScalarType's lowercased where that differs (complexfloat, ABI 1.11).
    assert {k: v for k, v in implied.items() if v < 10} == _SCHEMA_NAMES_BEFORE
    later = {r[2]: r[1] for r in ROWS[10:]} | {r[3].lower(): r[1] for r in ROWS[10:]}
    assert {k: v for k, v in implied.items() if v >= 10} == later
    for text, code in implied.items():
        assert _default_of(text) is _dtype.DTYPES[code], text
    for text in ("Float", "FLOAT", "bool_", "float3", "floatt", "uint16", "cfloat", "Half"):
        with pytest.raises(Exception, match=f"default '{text}' of argument 'dt' is not a valid"):
            _default_of(text)
