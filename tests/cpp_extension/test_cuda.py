"""CUDA sources go to nvcc (compile and link only: no GPU on CI)."""

from __future__ import annotations

import shutil

import pytest

import cpp_extension
from tests.cpp_extension.conftest import require_core

KERNEL = """
#include <sdk/export.h>
__global__ void fill(float* p, float v) { p[threadIdx.x] = v; }

SDK_EXPORT(check_launch, "(int n) -> ()")
sdk_status check_launch(int64_t n) {
  if (n <= 0 || n > 1024) return sdk_set_last_error(SDK_ERROR_VALUE, "n must be in 1..1024");
  return SDK_OK;  // launching needs a GPU; the host side runs anywhere
}
"""


def test_cu_source_compiled_by_nvcc(tmp_path, ext_dir):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    require_core("sdk_set_last_error")
    (tmp_path / "k.cu").write_text(KERNEL)
    m = cpp_extension.load("cuda_host", [str(tmp_path / "k.cu")], is_python_module=False)
    build = cpp_extension.last_load_info()["build_directory"]
    with open(f"{build}/build.ninja") as f:
        assert "k.cuda.o: cuda" in f.read(), "the .cu file goes through the nvcc rule"
    m.check_launch(32)
    with pytest.raises(ValueError, match="1..1024"):
        m.check_launch(0)


FORGETS_RETURN_ON_DEVICE = """
#include <sdk/export.h>
__device__ float half_of(float v) { if (v > 0) return v / 2; }  /* no return for v <= 0 */
__global__ void halve(float* p) { p[threadIdx.x] = half_of(p[threadIdx.x]); }

SDK_EXPORT(noop, "() -> ()")
sdk_status noop() { return SDK_OK; }
"""


def test_a_missing_return_in_cuda_code_fails_the_build_unless_the_user_allows_it(tmp_path, ext_dir):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    require_core("sdk_set_last_error")
    src = tmp_path / "noret.cu"
    src.write_text(FORGETS_RETURN_ON_DEVICE)
    with pytest.raises(cpp_extension.BuildError, match="missing return statement"):
        cpp_extension.load("cuda_noret", [str(src)], is_python_module=False)
    allow = ["-Xcudafe", "--diag_warning=940", "--compiler-options", "-Wno-error=return-type"]
    m = cpp_extension.load(
        "cuda_noret", [str(src)], is_python_module=False, extra_cuda_cflags=allow
    )
    m.noop()
