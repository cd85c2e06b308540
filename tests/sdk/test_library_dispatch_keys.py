"""Dispatch-key names come from one table (SDK_DISPATCH_KEYS in sdk/c_api.h and the other
spellings in sdk/dispatch_key.h): sdk._C and sdk.library accept exactly those names, each for
the key the table gives it (tests/cpp_extension/test_dispatch_key_names.py does the same for
sdk/library.h's SDK_LIBRARY_IMPL)."""

from __future__ import annotations

import re
import uuid

import pytest

import sdk
import sdk.library as L
from sdk import _C
from tests._support import REPO

INCLUDE = REPO / "core" / "include" / "sdk"


def header_names() -> dict[str, int]:
    """{name: code} of every dispatch-key name, read from the headers themselves."""
    api = (INCLUDE / "c_api.h").read_text()
    keys = api.partition("#define SDK_DISPATCH_KEYS(X)")[2].partition("\n\n")[0]
    codes = {key: int(code) for key, code in re.findall(r"X\((\w+), (\d+), \w+,", keys)}
    names = {name: codes[key] for key, _, name in re.findall(r"X\((\w+), (\d+), (\w+),", keys)}
    codes["IGNORED"] = int(re.search(r"#define SDK_DISPATCH_IGNORED \((-?\d+)\)", _dk()).group(1))
    aliases = _dk().partition("#define SDK_DISPATCH_KEY_ALIASES(X)")[2].partition("\n\n")[0]
    names.update({name: codes[key] for name, key in re.findall(r"X\((\w+), (\w+)\)", aliases)})
    devices = _dk().partition("#define SDK_DISPATCH_DEVICE_TYPES(X)")[2].partition("\n\n")[0]
    names.update({name: codes[key] for name, key in re.findall(r'X\("(\w+)", (\w+)\)', devices)})
    return names


def _dk() -> str:
    return (INCLUDE / "dispatch_key.h").read_text()


NAMES = header_names()


def test_the_tables_hold_torchs_names():
    assert {n: c for n, c in NAMES.items() if c >= 0 and n[0].isupper()} == {
        "CPU": 0, "CUDA": 1, "Autograd": 2, "CompositeImplicitAutograd": 3,
        "CompositeExplicitAutograd": 4, "Meta": 5, "AutogradCPU": 2, "AutogradCUDA": 2,
        "Math": 3, "DefaultBackend": 4, "CompositeExplicitAutogradNonFunctional": 4,
    }  # fmt: skip
    assert NAMES["cpu"] == 0 and NAMES["cuda"] == 1 and NAMES["default"] == 4
    assert NAMES["BackendSelect"] == _C.DISPATCH_IGNORED < -1


def test_sdk_C_and_sdk_library_read_exactly_the_table():
    assert _C.DISPATCH_KEYS == NAMES
    assert {k: v for k, v in L._KEYS.items() if k} == NAMES
    for key, code in (("CPU", 0), ("CUDA", 1), ("AUTOGRAD", 2), ("META", 5)):
        assert getattr(_C, f"DISPATCH_{key}") == code


@pytest.fixture
def op():
    ns = "k" + uuid.uuid4().hex[:10]
    lib = L.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    yield f"{ns}::f", lib
    lib._destroy()


@pytest.mark.parametrize("name", sorted(NAMES))
def test_sdk_library_registers_a_kernel_for_every_name(op, name):
    qualname, lib = op
    handle = _C.op_find(qualname)
    lib.impl("f", lambda x: x + 1, name)
    code = NAMES[name]
    if code == _C.DISPATCH_IGNORED:  # accepted and dropped, as sdk/library.h does
        assert not any(handle._has_kernel(k) for k in range(6))
        impl = L.Library(qualname.split("::")[0], "IMPL", name)
        impl.impl("f", lambda x: x)  # dropped too
        assert not any(handle._has_kernel(k) for k in range(6))
        impl._destroy()
    elif code == _C.DISPATCH_META:  # a Python Meta kernel is the op's shape function
        assert not any(handle._has_kernel(k) for k in range(6))
        assert L.has_fake(qualname)
    else:
        assert handle._has_kernel(code)
        assert [k for k in range(6) if handle._has_kernel(k)] == [code]


@pytest.mark.parametrize("name", ["cpU", "Autograd_CPU", "XLA", "meta", "Undefined"])
def test_other_names_are_refused_with_the_list(op, name):
    qualname, lib = op
    with pytest.raises(
        ValueError, match=f"unknown dispatch key '{name}'.*'CompositeImplicitAutograd'"
    ):
        lib.impl("f", lambda x: x, name)
    with pytest.raises(ValueError, match="unknown dispatch key"):
        L.Library(qualname.split("::")[0], "IMPL", name)


def test_an_ignored_key_is_only_for_impl_libraries():
    with pytest.raises(ValueError, match="only an IMPL library takes dispatch key 'BackendSelect'"):
        L.Library("k" + uuid.uuid4().hex[:10], "FRAGMENT", "BackendSelect")
    impl = L.Library("k" + uuid.uuid4().hex[:10], "IMPL", "BackendSelect")
    with pytest.raises(ValueError, match="cannot define ops"):
        impl.define("g(Tensor x) -> Tensor")


def test_registered_kernels_run_for_their_key(op):
    qualname, lib = op
    lib.impl("f", lambda x: x * 3, "cpu")
    out = getattr(sdk.ops, qualname.split("::")[0]).f(sdk.ones(2))
    assert out.tolist() == [3.0, 3.0]
