"""Idioms met porting published CUDA packages: ATen/NativeFunctions.h included only for the
ATen headers it brings, at::_isnan / at::_isinf (ATen/NumericUtils.h), cub temporary storage
from the caching allocator's object (a CUB_WRAPPER-style macro), and Philox seeds for device
random numbers. The porter maps every name, and the host-side helpers give torch's answers."""

from __future__ import annotations

import subprocess
import textwrap

from cpp_extension.port import sdk_names as _port_names
from cpp_extension.port.cxx import port_cxx
from tests._support import REPO

INCLUDE = str(REPO / "core" / "include")

BINDING_CPP = """
#include <torch/extension.h>
#include <ATen/NativeFunctions.h>

torch::Tensor scale(const torch::Tensor& x) { return x * 2; }
"""

NUMERIC_CU = """
#include <ATen/NumericUtils.h>
template <typename scalar_t>
__device__ bool finite(scalar_t v) { return !at::_isnan(v) && !at::_isinf(v); }
"""

CUB_CU = """
#include <c10/cuda/CUDACachingAllocator.h>
#define CUB_WRAPPER(func, ...)                                              \\
  do {                                                                      \\
    size_t temp_storage_bytes = 0;                                          \\
    func(nullptr, temp_storage_bytes, __VA_ARGS__);                         \\
    auto& caching_allocator = *::c10::cuda::CUDACachingAllocator::get();    \\
    auto temp_storage = caching_allocator.allocate(temp_storage_bytes);     \\
    func(temp_storage.get(), temp_storage_bytes, __VA_ARGS__);              \\
  } while (false)
"""

PHILOX_CU = """
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraphsUtils.cuh>
__global__ void draw(at::PhiloxCudaState philox_args, float* out) {
  auto seeds = at::cuda::philox::unpack(philox_args);
  out[0] = static_cast<float>(std::get<0>(seeds) + std::get<1>(seeds));
}
void launch(float* out) {
  auto gen = at::get_generator_or_default<at::CUDAGeneratorImpl>(
      std::nullopt, at::cuda::detail::getDefaultCUDAGenerator());
  at::PhiloxCudaState rng_engine_inputs;
  {
    std::lock_guard<std::mutex> lock(gen->mutex_);
    rng_engine_inputs = gen->philox_cuda_state(4);
  }
  draw<<<1, 1>>>(rng_engine_inputs, out);
}
"""


def _port(text: str, path: str):
    return port_cxx(textwrap.dedent(text), path, _port_names.sdk_headers(INCLUDE))


def test_native_functions_header_maps_when_no_native_name_is_used():
    result = _port(BINDING_CPP, "binding.cpp")
    assert [m.name for m in result.missing] == []
    assert "#include <sdk/tensor.h>" in result.text and "NativeFunctions" not in result.text


def test_an_at_native_name_is_still_reported():
    result = _port(
        BINDING_CPP + "void f(at::Tensor& o) { at::native::add_out(o, o, o); }\n", "b.cpp"
    )
    assert any(m.name == "at::native" for m in result.missing)


def test_numeric_utils_cub_wrapper_and_philox_names_all_map():
    for text, path in ((NUMERIC_CU, "n.cu"), (CUB_CU, "c.cu"), (PHILOX_CU, "p.cu")):
        result = _port(text, path)
        assert [m.name for m in result.missing] == [], path
    assert "*::sdk::cuda::CUDACachingAllocator::get()" in _port(CUB_CU, "c.cu").text
    philox = _port(PHILOX_CU, "p.cu").text
    assert "#include <sdk/cuda_generator.h>" in philox and "sdk::cuda::philox::unpack" in philox


ISNAN_MAIN = """
#include <cmath>
#include <cstdio>
#include <limits>
#include <sdk/numeric_limits.h>
template <typename T> void row(const char* name, T v) {
  std::printf("%s %d %d\\n", name, int(sdk::_isnan(v)), int(sdk::_isinf(v)));
}
int main() {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  row("f_nan", nan); row("f_inf", -inf); row("f_one", 1.5f); row("f_max", 3.4e38f);
  row("d_nan", double(nan)); row("d_inf", double(inf)); row("d_big", 1e300);
  row("h_nan", sdk::Half(nan)); row("h_inf", sdk::Half(inf)); row("h_max", sdk::Half(65504.f));
  row("b_nan", sdk::BFloat16(nan)); row("b_inf", sdk::BFloat16(-inf));
  row("i", 7); row("l", int64_t{-1}); row("bool", true);
}
"""


def test_isnan_and_isinf_for_every_kind_of_dtype(tmp_path):
    src, exe = tmp_path / "isnan.cpp", tmp_path / "isnan"
    src.write_text(ISNAN_MAIN)
    build = subprocess.run(
        ["c++", "-std=c++17", f"-I{INCLUDE}", str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    rows = dict(
        line.split(" ", 1) for line in subprocess.check_output([str(exe)], text=True).splitlines()
    )
    assert rows == {
        "f_nan": "1 0", "f_inf": "0 1", "f_one": "0 0", "f_max": "0 0",
        "d_nan": "1 0", "d_inf": "0 1", "d_big": "0 0",
        "h_nan": "1 0", "h_inf": "0 1", "h_max": "0 0",
        "b_nan": "1 0", "b_inf": "0 1",
        "i": "0 0", "l": "0 0", "bool": "0 0",
    }  # fmt: skip
