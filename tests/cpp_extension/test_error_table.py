"""Every row of SDK_ERRORS (sdk/c_api.h) through every boundary: a C++ throw reaches Python as
the row's exception with its message (sdk._C, a pybind11 module, a registered op, the ctypes
bridge), and a Python raise in an op kernel or an autograd Function reaches C++ as the row's
status."""

from __future__ import annotations

import builtins
import re
import uuid

import pytest

import sdk
import sdk.library as L
from cpp_extension import _ctypes_bridge, load, load_inline
from sdk import _C
from tests._support import REPO, kept_folder, kept_source, toolchain_key


def _header_rows() -> list[tuple[str, int, str, str]]:
    """(KIND, code, builtin, sdk_type) of each SDK_ERRORS row, read from the header itself."""
    text = (REPO / "core" / "include" / "sdk" / "c_api.h").read_text()
    table = text.partition("#define SDK_ERRORS(X)")[2].partition("\n\n")[0]
    rows = re.findall(r"X\((\w+), (\d+), (\w+), (\w+),", table)
    return [(kind, int(code), builtin, own) for kind, code, builtin, own in rows]


ROWS = _header_rows()
CODES = [code for _, code, _, _ in ROWS]


def _raised(code: int) -> type:
    """The type sdk raises for a row: sdk's own where it differs from the builtin."""
    _, _, builtin, own = next(r for r in ROWS if r[1] == code)
    return getattr(sdk, own) if own != builtin else getattr(builtins, builtin)


def test_the_header_table_is_the_one_sdk_and_the_bridge_read():
    assert [r[0] for r in ROWS] == [
        "VALUE",
        "TYPE",
        "INDEX",
        "RUNTIME",
        "MEMORY",
        "NOT_IMPLEMENTED",
    ]
    assert CODES == [1, 2, 3, 4, 5, 6]  # the stable ABI's values
    assert {code: kind for kind, code, _, _ in ROWS} == {c: k for c, (k, _) in _C.ERRORS.items()}
    for kind, code, builtin, own in ROWS:
        exc = _raised(code)
        assert _C.ERRORS[code][1] is exc and sdk.error_type(code) is exc, kind
        assert _ctypes_bridge._error_type(code) is exc, kind
        assert _ctypes_bridge._header_errors()[code] is getattr(builtins, builtin), kind
        assert issubclass(exc, getattr(builtins, builtin)), kind
        if own != builtin:  # sdk's own types are also RuntimeError, as torch raises
            assert issubclass(exc, RuntimeError) and exc.__module__ == "sdk", kind
    for unknown in (0, 7, -1, 1000):
        assert sdk.error_type(unknown) is RuntimeError
        assert _ctypes_bridge._error_type(unknown) is RuntimeError


@pytest.mark.parametrize("code", CODES)
def test_a_core_status_raises_its_row_from_sdk_C(code):
    with pytest.raises(_raised(code)) as info:
        _C._raise_error(code, f"boom {code}")
    assert type(info.value) is _raised(code) and str(info.value) == f"boom {code}"


PYBIND = r"""
#include <sdk/extension.h>

void throw_kind(int64_t kind, const std::string& msg) {
  throw sdk::Error(static_cast<sdk_status>(kind), msg);
}

sdk::Tensor raise_kind(const sdk::Tensor&, int64_t kind) {
  throw sdk::Error(static_cast<sdk_status>(kind), "kernel kind " + std::to_string(kind));
}
SDK_LIBRARY({NS}, m) { m.def("raise_kind(Tensor x, int kind) -> Tensor"); }
SDK_LIBRARY_IMPL({NS}, CPU, m) { m.impl("raise_kind", &raise_kind); }

// the status and message a C++ caller sees when an op written in Python raises
std::tuple<int64_t, std::string> call_op(const std::string& name, const sdk::Tensor& x,
                                         int64_t kind) {
  try {
    sdk::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), "")
        .typed<sdk::Tensor(const sdk::Tensor&, int64_t)>().call(x, kind);
  } catch (const sdk::Error& e) {
    return {e.kind(), e.what()};
  }
  return {0, ""};
}

// the status and message a C++ caller sees when a Python autograd Function's backward raises
std::tuple<int64_t, std::string> backward_of(const sdk::Tensor& y) {
  try {
    y.backward();
  } catch (const sdk::Error& e) {
    return {e.kind(), e.what()};
  }
  return {0, ""};
}
"""

EXPORTED = r"""
#include <sdk/export.h>
#include <sdk/tensor.h>

SDK_EXPORT(export_throw, "(Tensor x, int kind) -> Tensor")
sdk_status export_throw(const sdk_tensor* x, int64_t kind, sdk_tensor** out) {
  (void)x;
  (void)out;
  SDK_EXPORT_TRY
  sdk::detail::throw_error(static_cast<sdk_status>(kind), "exported kind " + std::to_string(kind));
  SDK_EXPORT_CATCH
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(the pybind11 module, the ctypes module, the op namespace), built once."""
    ns = "errtable"  # stable: later runs load the kept builds instead of compiling again
    cache = kept_folder(tmp_path_factory, "error_table", *toolchain_key())
    mp = pytest.MonkeyPatch()
    mp.setenv("SDK_EXTENSIONS_DIR", str(cache))
    mp.setenv("MAX_JOBS", "2")
    try:
        pyb = load_inline(
            f"errs_{ns}",
            cpp_sources=PYBIND.replace("{NS}", ns),
            functions=["throw_kind", "call_op", "backward_of"],
        )
        src = kept_source(cache, "exported.cpp", EXPORTED)
        exported = load(f"errs_c_{ns}", [str(src)], is_python_module=False)
    finally:
        mp.undo()
    return pyb, exported, ns


@pytest.mark.parametrize("code", CODES)
def test_a_cpp_throw_raises_its_row_in_python(built, code):
    pyb, exported, ns = built
    calls = {
        "pybind11": (lambda: pyb.throw_kind(code, f"thrown {code}"), f"thrown {code}"),
        "registered op": (
            lambda: getattr(sdk.ops, ns).raise_kind(sdk.ones(2), code),
            f"kernel kind {code}",
        ),
        "SDK_EXPORT": (lambda: exported.export_throw(sdk.ones(2), code), f"exported kind {code}"),
    }
    for where, (call, message) in calls.items():
        with pytest.raises(BaseException) as info:
            call()
        assert type(info.value) is _raised(code), where
        assert message in str(info.value), where


def _raisers(code: int) -> list[type]:
    """What Python code raises for a row: the builtin and sdk's own type (when it has one)."""
    _, _, builtin, _ = next(r for r in ROWS if r[1] == code)
    return list(dict.fromkeys([getattr(builtins, builtin), _raised(code)]))


@pytest.fixture(scope="module")
def python_op():
    """An op written in Python that raises the exception type it is given (by index)."""
    ns = "p" + uuid.uuid4().hex[:10]
    raisers = [exc for code in CODES for exc in _raisers(code)] + [KeyError, ZeroDivisionError]

    @L.custom_op(f"{ns}::raise_nth", mutates_args=())
    def raise_nth(x: sdk.Tensor, n: int) -> sdk.Tensor:
        raise raisers[n](f"python kernel {n}")

    return f"{ns}::raise_nth", raisers


def _code_of(exc: type) -> int:
    for _, code, builtin, _ in ROWS:
        if builtin != "RuntimeError" and issubclass(exc, getattr(builtins, builtin)):
            return code
    return 4  # RUNTIME: anything else


def test_a_python_raise_in_an_op_reaches_cpp_as_its_row(built, python_op):
    pyb, _, _ = built
    name, raisers = python_op
    for n, exc in enumerate(raisers):
        kind, message = pyb.call_op(name, sdk.ones(2), n)
        assert kind == _code_of(exc), exc
        assert f"{exc.__name__}: {exc(f'python kernel {n}')}" in message, exc
        # called from Python, the kernel's own exception comes back unchanged
        with pytest.raises(exc, match=f"python kernel {n}") as info:
            getattr(sdk.ops, name.split("::")[0]).raise_nth(sdk.ones(2), n)
        assert type(info.value) is exc


def test_the_kinds_of_python_exceptions_follow_the_table_order():
    # RUNTIME is the fallback: NotImplementedError and sdk's own types are RuntimeErrors too
    assert _code_of(NotImplementedError) == 6
    assert _code_of(sdk.InvalidArgumentError) == 1 and _code_of(sdk.OutOfMemoryError) == 5
    assert _code_of(KeyError) == 4 and _code_of(RuntimeError) == 4


def _raising_function(exc: type, n: int) -> type:
    """An autograd Function whose backward raises `exc`."""

    class Raising(sdk.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise exc(f"python backward {n}")

    return Raising


def test_a_python_raise_in_autograd_backward_reaches_cpp_as_its_row(built):
    pyb, _, _ = built
    raisers = [exc for code in CODES for exc in _raisers(code)] + [KeyError]
    for n, exc in enumerate(raisers):
        x = sdk.ones(2, requires_grad=True)
        kind, message = pyb.backward_of(_raising_function(exc, n).apply(x).sum())
        assert kind == _code_of(exc), exc
        assert f"python backward {n}" in message, exc
