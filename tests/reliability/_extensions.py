"""Two small extensions, one per bridge (pybind11, ctypes), built once into a private cache."""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# Shared by both bridges: `flag` is an int32 tensor of two elements. The op sets flag[1] = 1
# when it starts, then polls flag[0] until another Python thread writes a nonzero into it: with
# the GIL held during the op, that thread could neither see the start nor write.
_WAIT = """
#include <chrono>
#include <cstdint>
#include <thread>

static bool poll_flag(void* data, double timeout_s) {
  volatile int32_t* p = static_cast<volatile int32_t*>(data);
  p[1] = 1;
  auto t0 = std::chrono::steady_clock::now();
  while (p[0] == 0) {
    std::chrono::duration<double> waited = std::chrono::steady_clock::now() - t0;
    if (waited.count() > timeout_s) return false;
    std::this_thread::yield();
  }
  return true;
}
"""

PYBIND11_SOURCE = (
    _WAIT
    + r"""
#include <stdexcept>

// a * alpha + b. The shape check comes after a temporary exists, so the error path has
// something to free.
sdk::Tensor scaled_add(sdk::Tensor a, sdk::Tensor b, double alpha) {
  sdk::Tensor scaled = a * alpha;
  SDK_CHECK_VALUE(a.sizes() == b.sizes(), "scaled_add: shapes differ: ", a.sizes(), " vs ",
                  b.sizes());
  return scaled + b;
}

// A C++ exception that is not an sdk::Error, thrown with temporaries alive.
sdk::Tensor throw_std(sdk::Tensor a) {
  sdk::Tensor doubled = a * 2;
  throw std::out_of_range("throw_std: always fails");
}

// True once flag[0] != 0; false after timeout_s. Runs without the GIL (flag: int32, 2 values).
bool wait_for_flag(sdk::Tensor flag, double timeout_s) {
  return poll_flag(flag.data_ptr(), timeout_s);
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("scaled_add", &scaled_add);
  m.def("throw_std", &throw_std);
  m.def("wait_for_flag", &wait_for_flag, pybind11::call_guard<pybind11::gil_scoped_release>());
}
"""
)

CTYPES_SOURCE = (
    _WAIT
    + r"""
#include <cstdio>

namespace {
struct Ref {  // owns one reference, released on every return path
  sdk_tensor* t = nullptr;
  ~Ref() { sdk_tensor_release(t); }
};

bool same_shape(const sdk_tensor* a, const sdk_tensor* b) {
  if (sdk_tensor_ndim(a) != sdk_tensor_ndim(b)) return false;
  for (int64_t d = 0; d < sdk_tensor_ndim(a); ++d)
    if (sdk_tensor_sizes(a)[d] != sdk_tensor_sizes(b)[d]) return false;
  return true;
}
}  // namespace

SDK_EXPORT(scaled_add, "(Tensor a, Tensor b, float alpha) -> Tensor")
sdk_status scaled_add(const sdk_tensor* a, const sdk_tensor* b, double alpha,
                      sdk_tensor** out) {
  Ref scaled;
  sdk_scalar s = {alpha, 0, SDK_SCALAR_FLOAT, 0};
  sdk_status st = sdk_binary_scalar(SDK_MUL, a, s, 0, nullptr, &scaled.t);
  if (st != SDK_OK) return st;
  if (!same_shape(a, b)) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "scaled_add: shapes differ: %lld vs %lld elements",
                  static_cast<long long>(sdk_tensor_numel(a)),
                  static_cast<long long>(sdk_tensor_numel(b)));
    return sdk_set_last_error(SDK_ERROR_VALUE, msg);
  }
  return sdk_binary(SDK_ADD, scaled.t, b, nullptr, out);
}

SDK_EXPORT(wait_for_flag, "(Tensor flag, float timeout_s) -> ()")
sdk_status wait_for_flag(const sdk_tensor* flag, double timeout_s) {
  if (poll_flag(sdk_tensor_data_ptr(flag), timeout_s)) return SDK_OK;
  return sdk_set_last_error(SDK_ERROR_RUNTIME, "wait_for_flag: timed out");
}
"""
)


@dataclass
class Built:
    pybind11: object  # the imported module
    ctypes: object  # the CtypesExtension
    pybind11_path: str
    ctypes_path: str


@contextmanager
def _extensions_dir(root: Path):
    old = os.environ.get("SDK_EXTENSIONS_DIR")
    os.environ["SDK_EXTENSIONS_DIR"] = str(root)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SDK_EXTENSIONS_DIR", None)
        else:
            os.environ["SDK_EXTENSIONS_DIR"] = old


def build(root: Path) -> Built:
    """Build (or reuse from `root`) both extensions and load them in this process."""
    import cpp_extension

    with _extensions_dir(root):
        pyb = cpp_extension.load_inline("reliability_pyb", PYBIND11_SOURCE)
        cty = cpp_extension.load_inline(
            "reliability_ctypes", CTYPES_SOURCE, is_python_module=False, bridge="ctypes"
        )
    return Built(pyb, cty, pyb.__file__, cty.__file__)
