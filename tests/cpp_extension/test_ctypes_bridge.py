"""The ctypes bridge: SDK_EXPORT functions called with numpy arrays / sdk tensors, errors, ABI check."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

import cpp_extension
import sdk
from cpp_extension import _ctypes_bridge
from cpp_extension.builder import toolchain as _toolchain
from sdk.utils import elf as _elf
from tests.cpp_extension.conftest import require_core, require_sdk_tensors

TENSOR_CORE = (
    "sdk_from_dlpack",
    "sdk_to_dlpack",
    "sdk_empty",
    "sdk_contiguous",
    "sdk_set_last_error",
)

CXX_OPS = r"""
#include <sdk/export.h>

static sdk_status float64_copy(const char* op, const sdk_tensor* x, sdk_tensor** c) {
  if (sdk_tensor_dtype(x) != SDK_FLOAT64)
    return sdk_set_last_error(SDK_ERROR_TYPE, "expected a float64 tensor");
  return sdk_contiguous(x, c);
}

SDK_EXPORT(scale, "(Tensor x, float alpha) -> Tensor")
sdk_status scale(const sdk_tensor* x, double alpha, sdk_tensor** out) {
  sdk_tensor* c = nullptr;
  sdk_status s = float64_copy("scale", x, &c);
  if (s != SDK_OK) return s;
  s = sdk_empty(sdk_tensor_ndim(c), sdk_tensor_sizes(c), SDK_FLOAT64, sdk_tensor_device(c), out);
  if (s == SDK_OK) {
    const double* src = static_cast<const double*>(sdk_tensor_data_ptr(c));
    double* dst = static_cast<double*>(sdk_tensor_data_ptr(*out));
    for (int64_t i = 0; i < sdk_tensor_numel(c); ++i) dst[i] = alpha * src[i];
  }
  sdk_tensor_release(c);
  return s;
}

SDK_EXPORT(split_sign, "(Tensor x, Tensor? offset, int repeat, bool negate) -> (Tensor pos, Tensor neg)")
sdk_status split_sign(const sdk_tensor* x, const sdk_tensor* offset, int64_t repeat, int32_t negate,
                      sdk_tensor** pos, sdk_tensor** neg) {
  SDK_EXPORT_TRY
  if (repeat < 0) throw std::invalid_argument("split_sign: repeat must be >= 0");
  if (repeat > 100) throw std::out_of_range("split_sign: repeat too large");
  double off = offset ? *static_cast<const double*>(sdk_tensor_data_ptr(offset)) : 0.0;
  sdk_tensor* c = nullptr;
  sdk_status s = float64_copy("split_sign", x, &c);
  if (s != SDK_OK) return s;
  int64_t n = sdk_tensor_numel(c);
  sdk_empty(sdk_tensor_ndim(c), sdk_tensor_sizes(c), SDK_FLOAT64, sdk_tensor_device(c), pos);
  sdk_empty(sdk_tensor_ndim(c), sdk_tensor_sizes(c), SDK_FLOAT64, sdk_tensor_device(c), neg);
  const double* v = static_cast<const double*>(sdk_tensor_data_ptr(c));
  double* p = static_cast<double*>(sdk_tensor_data_ptr(*pos));
  double* q = static_cast<double*>(sdk_tensor_data_ptr(*neg));
  for (int64_t i = 0; i < n; ++i) {
    double t = (v[i] + off) * static_cast<double>(repeat) * (negate ? -1.0 : 1.0);
    p[i] = t > 0 ? t : 0;
    q[i] = t < 0 ? t : 0;
  }
  sdk_tensor_release(c);
  return SDK_OK;
  SDK_EXPORT_CATCH
}

SDK_EXPORT(not_yet, "() -> ()")
sdk_status not_yet(void) { return sdk_set_last_error(SDK_ERROR_NOT_IMPLEMENTED, "not_yet: later"); }
"""

C_OPS = r"""
#include <sdk/export.h>

SDK_EXPORT(add_one, "(Tensor x) -> Tensor")
sdk_status add_one(const sdk_tensor* x, sdk_tensor** out) {
  int64_t i, n;
  sdk_status s = sdk_clone(x, out);
  if (s != SDK_OK) return s;
  if (sdk_tensor_dtype(*out) != SDK_FLOAT32) {
    sdk_tensor_release(*out);
    *out = NULL;
    return sdk_set_last_error(SDK_ERROR_TYPE, "add_one: expected float32");
  }
  n = sdk_tensor_numel(*out);
  for (i = 0; i < n; ++i) ((float*)sdk_tensor_data_ptr(*out))[i] += 1.0f;
  return SDK_OK;
}

SDK_EXPORT(add_one_, "(Tensor x) -> ()")
sdk_status add_one_(const sdk_tensor* x) {
  int64_t i;
  if (sdk_tensor_dtype(x) != SDK_FLOAT32 || !sdk_tensor_is_contiguous(x))
    return sdk_set_last_error(SDK_ERROR_TYPE, "add_one_: expected contiguous float32");
  for (i = 0; i < sdk_tensor_numel(x); ++i) ((float*)sdk_tensor_data_ptr(x))[i] += 1.0f;
  return SDK_OK;
}
"""


def _np(t):
    return t.numpy() if hasattr(t, "numpy") else np.asarray(t)


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    require_core(*TENSOR_CORE)
    root = tmp_path_factory.mktemp("ctypes_ops")
    (root / "ops.cpp").write_text(CXX_OPS)
    return cpp_extension.load(
        "ctypes_ops", [str(root / "ops.cpp")], is_python_module=False, build_directory=root / "b"
    )


def test_scale_with_numpy_and_discovery(ops):
    assert {"scale", "split_sign", "not_yet"} <= set(dir(ops))
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    y = ops.scale(x, 2.5)
    np.testing.assert_allclose(_np(y), 2.5 * x)
    np.testing.assert_allclose(_np(ops.scale(x.T, 1.0)), x.T)  # strided input
    assert "(Tensor x, float alpha) -> Tensor" in ops.scale.__doc__


def test_tuple_results_optional_int_bool(ops):
    x = np.array([-2.0, 0.5, 3.0])
    pos, neg = ops.split_sign(x, None, 2, False)
    np.testing.assert_allclose(_np(pos), np.maximum(2 * x, 0))
    np.testing.assert_allclose(_np(neg), np.minimum(2 * x, 0))
    pos, neg = ops.split_sign(x, offset=np.array([1.0]), repeat=1, negate=True)
    np.testing.assert_allclose(_np(neg), np.minimum(-(x + 1), 0))


def test_errors_become_python_exceptions(ops):
    x = np.zeros(3)
    with pytest.raises(TypeError, match="expected a float64"):
        ops.scale(x.astype(np.float32), 1.0)
    with pytest.raises(sdk.InvalidArgumentError, match="repeat must be >= 0") as info:
        ops.split_sign(x, None, -1, False)
    assert isinstance(info.value, RuntimeError)  # as torch raises for bad values
    with pytest.raises(IndexError, match="too large"):
        ops.split_sign(x, None, 1000, False)
    with pytest.raises(NotImplementedError, match="later"):
        ops.not_yet()


def test_argument_mismatches_name_function_and_argument(ops):
    x = np.zeros(3)
    with pytest.raises(TypeError, match=r"scale\(\) takes 2 argument"):
        ops.scale(x, 1.0, 3)
    with pytest.raises(TypeError, match=r"scale\(\) missing argument 'alpha'"):
        ops.scale(x)
    with pytest.raises(TypeError, match=r"scale\(\): argument 'alpha' must be float"):
        ops.scale(x, "2")
    with pytest.raises(TypeError, match=r"scale\(\): argument 'x' must be a Tensor"):
        ops.scale([1.0, 2.0], 1.0)
    with pytest.raises(TypeError, match=r"argument 'repeat' must be int"):
        ops.split_sign(x, None, 1.5, False)
    with pytest.raises(AttributeError, match="exports: not_yet, scale, split_sign"):
        _ = ops.missing_function


def test_pure_c_source(tmp_path, ext_dir):
    require_core(*TENSOR_CORE)
    (tmp_path / "add.c").write_text(C_OPS)
    m = cpp_extension.load("c_add_one", [str(tmp_path / "add.c")], bridge="ctypes")
    x = np.array([1.0, 2.0], dtype=np.float32)
    np.testing.assert_array_equal(_np(m.add_one(x)), x + 1)
    with pytest.raises(TypeError, match="expected float32"):
        m.add_one(np.zeros(2))
    assert m.add_one_(x) is None
    np.testing.assert_array_equal(x, [2.0, 3.0])  # numpy memory was shared, not copied


def test_sdk_tensors_in_and_out(ops):
    require_sdk_tensors()
    import sdk

    x = sdk.tensor([[1.0, -2.0]], dtype=sdk.float64)
    y = ops.scale(x, 3.0)
    assert isinstance(y, sdk.Tensor)
    np.testing.assert_allclose(y.numpy(), [[3.0, -6.0]])


ABI_STUB = r"""
#include <stdint.h>
__attribute__((visibility("default"))) const uint32_t sdk_extension_abi_version = %s;
__attribute__((visibility("default"))) const char sdk_sig_f[] = "() -> ()";
__attribute__((visibility("default"))) int f(void) { return 0; }
"""


@pytest.mark.parametrize("delta", ["major", "minor"])
def test_abi_mismatch_is_refused_with_both_versions(tmp_path, delta):
    require_core("sdk_abi_version")
    major, minor = _toolchain.sdk_paths().abi
    built = (major + 1, 0) if delta == "major" else (major, minor + 1)
    src = tmp_path / "stub.c"
    src.write_text(ABI_STUB % f"(({built[0]}u << 16) | {built[1]}u)")
    so = tmp_path / "stub.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(src), "-o", str(so)], check=True)
    with pytest.raises(ImportError) as info:
        _ctypes_bridge.load_library(str(so), "stub")
    msg = str(info.value)
    assert f"ABI {built[0]}.{built[1]}" in msg and f"ABI {major}.{minor}" in msg


def test_signature_grammar():
    sig = _ctypes_bridge.parse_signature(
        "f", "(Tensor a, Tensor? b, float c, int, bool e) -> (Tensor, Tensor)"
    )
    assert [k for k, _ in sig.args] == ["Tensor", "Tensor?", "float", "int", "bool"]
    assert len(sig.results) == 2 and sig.tuple_result
    assert _ctypes_bridge.parse_signature("g", "() -> ()").results == ()
    with pytest.raises(ValueError, match="g: argument 'double x'"):
        _ctypes_bridge.parse_signature("g", "(double x) -> Tensor")
    with pytest.raises(ValueError, match="results must be Tensor"):
        _ctypes_bridge.parse_signature("g", "(Tensor x) -> float")


def test_elf_reader_agrees_with_nm(tmp_path):
    src = tmp_path / "s.c"
    src.write_text(ABI_STUB % "1u")
    so = tmp_path / "s.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(src), "-o", str(so)], check=True)
    elf = _elf.ElfFile(str(so))
    syms = elf.dynamic_symbols()
    assert set(_elf.dynamic_symbols_nm(str(so))) <= set(syms) | {"_init", "_fini"}
    assert elf.read_string(syms["sdk_sig_f"]) == "() -> ()"
    assert elf.read_u32(syms["sdk_extension_abi_version"]) == 1
    assert syms["f"].kind == "func"


def test_standalone_executable(tmp_path, ext_dir):
    require_core("sdk_abi_version")
    (tmp_path / "main.c").write_text(
        "#include <stdio.h>\n#include <sdk/c_api.h>\n"
        'int main(void) { printf("%u\\n", sdk_abi_version() >> 16); return 0; }\n'
    )
    exe = cpp_extension.load("standalone_abi", [str(tmp_path / "main.c")], is_standalone=True)
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    assert int(out) == _toolchain.sdk_paths().abi[0]


EDGE_OPS = r"""
#include <sdk/export.h>

SDK_EXPORT(same, "(Tensor x) -> Tensor")
sdk_status same(const sdk_tensor* x, sdk_tensor** out) {
  sdk_tensor_retain((sdk_tensor*)x);
  *out = (sdk_tensor*)x;
  return SDK_OK;
}

/* sets its first result, then fails: the bridge must release the half-made result */
SDK_EXPORT(half_done, "(Tensor x, int fail) -> (Tensor a, Tensor b)")
sdk_status half_done(const sdk_tensor* x, int64_t fail, sdk_tensor** a, sdk_tensor** b) {
  sdk_tensor_retain((sdk_tensor*)x);
  *a = (sdk_tensor*)x;
  if (fail == 1) return sdk_set_last_error(SDK_ERROR_VALUE, "half_done: asked to fail");
  if (fail == 2) return SDK_ERROR_INDEX; /* no message recorded */
  if (fail == 3) return SDK_OK;          /* b left unset */
  sdk_tensor_retain((sdk_tensor*)x);
  *b = (sdk_tensor*)x;
  return SDK_OK;
}
"""


@pytest.fixture(scope="module")
def edge_ops(tmp_path_factory):
    require_core("sdk_set_last_error", "sdk_tensor_retain")
    root = tmp_path_factory.mktemp("ctypes_edge")
    (root / "edge.c").write_text(EDGE_OPS)
    return cpp_extension.load(
        "ctypes_edge", [str(root / "edge.c")], is_python_module=False, build_directory=root / "b"
    )


def test_fast_path_shares_handles_and_counts_references(edge_ops):
    require_sdk_tensors()
    import sdk

    x = sdk.arange(4.0)
    y = edge_ops.same(x)  # its own handle back: the same object, the extra reference dropped
    assert y is x and x._use_count == 1
    a, b = edge_ops.half_done(x=x, fail=0)
    assert a is x and b is x and x._use_count == 1
    z = edge_ops.same(np.arange(3.0))  # a numpy argument: a new tensor
    assert isinstance(z, sdk.Tensor) and z._use_count == 1
    del y, a, b
    assert x._use_count == 1
    for fail in (1, 2, 3):
        with pytest.raises((ValueError, IndexError, RuntimeError)):
            edge_ops.half_done(x, fail)
    assert x._use_count == 1  # the result set before the failure was released


def test_errors_without_message_are_not_stale(edge_ops):
    x = np.zeros(2)
    with pytest.raises(ValueError, match="asked to fail"):
        edge_ops.half_done(x, 1)
    # the function returns a status without recording a message: not the previous one
    with pytest.raises(IndexError, match="no message") as info:
        edge_ops.half_done(x, 2)
    assert "asked to fail" not in str(info.value)
    with pytest.raises(RuntimeError, match="left a result unset"):
        edge_ops.half_done(x, 3)


def test_numpy_arguments_zero_copy_any_layout(edge_ops):
    require_sdk_tensors()
    a = np.arange(12.0).reshape(3, 4)
    for arr in (a, a.T, a[:, ::2], a[1]):
        y = edge_ops.same(arr)
        assert y.data_ptr() == arr.__array_interface__["data"][0]
        np.testing.assert_array_equal(y.numpy(), arr)
    ro = np.arange(3.0)
    ro.flags.writeable = False
    np.testing.assert_array_equal(edge_ops.same(ro).numpy(), ro)
    with pytest.raises(TypeError, match=r"same\(\): argument 'x'"):
        edge_ops.same(np.zeros(2, dtype=np.clongdouble))  # no such sdk dtype


def test_concurrent_calls_from_threads(edge_ops):
    require_sdk_tensors()
    import threading

    import sdk

    xs = [sdk.full((3,), float(i)) for i in range(4)]
    bad: list = []

    def work(x):
        for _ in range(2000):
            a, b = edge_ops.half_done(x, 0)
            if a._handle_address() != x._handle_address() or b.data_ptr() != x.data_ptr():
                bad.append(x)

    threads = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad and all(x._use_count == 1 for x in xs)


def test_load_library_public(edge_ops, tmp_path):
    require_sdk_tensors()
    import sdk

    lib = cpp_extension.load_library(edge_ops.__file__, name="edge_again")
    assert lib.__name__ == "edge_again" and {"same", "half_done"} <= set(dir(lib))
    x = sdk.ones(2)
    assert lib.same(x).data_ptr() == x.data_ptr()
    default = cpp_extension.load_library(edge_ops.__file__)
    assert default.__name__ == "ctypes_edge"
    with pytest.raises(FileNotFoundError, match="no such file"):
        cpp_extension.load_library(tmp_path / "missing.so")
    (tmp_path / "plain.c").write_text("int plain(void) { return 1; }\n")
    so = tmp_path / "plain.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(tmp_path / "plain.c"), "-o", str(so)], check=True)
    with pytest.raises(ImportError, match="neither a Python extension module"):
        cpp_extension.load_library(so)
