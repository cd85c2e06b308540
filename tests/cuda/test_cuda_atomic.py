"""sdk/cuda_atomic.h (torch's ATen/cuda/Atomic.cuh names): every overload compiles with nvcc
here; where a GPU is visible, many threads updating neighbouring elements of every dtype give
exact counts, so a narrow update that disturbed its neighbours would show."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import sdk
from tests._support import REPO, run_folder
from tests.cuda.conftest import TEST_ARCH, gpu_available, require_nvcc

SOURCE = Path(__file__).resolve().parent / "cuda_atomic.cu"
on_gpu = pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU visible")

# every function for every type, without pybind11 (a compile check that needs no GPU)
INSTANTIATE = """
#include <sdk/cuda.h>
#include <sdk/cuda_atomic.h>
template <typename T> __global__ void all(T* p, T v) {
  atomicAdd(p, v); gpuAtomicAdd(p, v); gpuAtomicAddNoReturn(p, v);
  gpuAtomicMul(p, v); gpuAtomicMax(p, v); gpuAtomicMin(p, v);
}
#define ONE(T) template __global__ void all<T>(T*, T);
ONE(sdk::Half) ONE(sdk::BFloat16) ONE(float) ONE(double) ONE(uint8_t) ONE(int8_t)
ONE(int16_t) ONE(int32_t) ONE(int64_t) ONE(bool)
"""

DTYPES = ["float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64"]


def test_every_overload_compiles_with_nvcc(tmp_path):
    toolkit = require_nvcc()
    src = tmp_path / "all.cu"
    src.write_text(INSTANTIATE)
    arch = TEST_ARCH.replace(".", "")
    include = REPO / "core" / "include"
    cmd = [
        toolkit.nvcc,
        "-std=c++17",
        "--expt-relaxed-constexpr",
        f"-arch=sm_{arch}",
        f"-I{include}",
    ]
    proc = subprocess.run(
        [*cmd, "-c", str(src), "-o", str(tmp_path / "all.o")], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "all.o").stat().st_size > 0


# Kernels templated on scalar_t add a float accumulator (or an int literal) into a scalar_t
# buffer: torch's gpuAtomicAdd is one overload per type, so the value converts.
MIXED = """
#include <sdk/cuda.h>
#include <sdk/cuda_atomic.h>
template <typename scalar_t> __global__ void accumulate(scalar_t* grad, float part) {
  gpuAtomicAdd(grad, part); gpuAtomicAddNoReturn(grad + 1, part); gpuAtomicAdd(grad + 2, 1);
  gpuAtomicMax(grad + 3, part); gpuAtomicMin(grad + 3, 0); gpuAtomicMul(grad + 4, 2.0);
}
template __global__ void accumulate<double>(double*, float);
template __global__ void accumulate<float>(float*, float);
template __global__ void accumulate<sdk::Half>(sdk::Half*, float);
template __global__ void accumulate<sdk::BFloat16>(sdk::BFloat16*, float);
"""


def test_a_value_of_another_type_converts(tmp_path):
    toolkit = require_nvcc()
    src = tmp_path / "mixed.cu"
    src.write_text(MIXED)
    cmd = [toolkit.nvcc, "-std=c++17", "--expt-relaxed-constexpr", f"-I{REPO / 'core' / 'include'}"]
    cmd += [f"-arch=sm_{TEST_ARCH.replace('.', '')}", "-c", str(src), "-o", str(tmp_path / "m.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_the_header_is_empty_for_host_compilers(tmp_path):
    # included from a .cpp (sdk/cuda.h's users do), it declares nothing device-only
    src = tmp_path / "host.cpp"
    src.write_text("#include <sdk/cuda_atomic.h>\nint main() { return 0; }\n")
    proc = subprocess.run(
        ["c++", "-std=c++17", f"-I{REPO / 'core' / 'include'}", "-fsyntax-only", str(src)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def atomics(tmp_path_factory):
    require_nvcc()
    if not gpu_available():
        pytest.skip("no CUDA GPU visible")
    import cpp_extension

    mp = pytest.MonkeyPatch()
    mp.setenv("SDK_EXTENSIONS_DIR", str(run_folder(tmp_path_factory, "cuda_atomic")))
    mp.setenv("SDK_CUDA_ARCH_LIST", TEST_ARCH)
    try:
        yield cpp_extension.load("cuda_atomic_test", [str(SOURCE)])
    finally:
        mp.undo()


def _window(dtype: str, fill: float) -> tuple:
    """Five elements starting one element into a buffer: the ends share words with bytes
    the kernel never names, which must keep their value."""
    buf = sdk.full((9,), fill, dtype=getattr(sdk, dtype), device="cuda")
    return buf, buf[1:6]


@on_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["add", "add_noreturn"])
def test_adds_count_exactly_and_leave_neighbours_alone(atomics, dtype, op):
    buf, window = _window(dtype, 0)
    atomics.update(window, 100, op, 1.0)
    got = buf.cpu().tolist()
    assert got == [0] + [100] * 5 + [0] * 3, (dtype, op, got)


@on_gpu
def test_negative_64_bit_adds_bool_or_and_nan_max(atomics):
    buf, window = _window("int64", 2**40)
    atomics.update(window, 100, "add", -3.0)
    assert buf.cpu().tolist() == [2**40] + [2**40 - 300] * 5 + [2**40] * 3
    buf, window = _window("bool", 0)
    atomics.update(window, 100, "add", 1.0)
    assert buf.cpu().tolist() == [False] + [True] * 5 + [False] * 3
    buf, window = _window("float32", 0)
    window[2] = float("nan")
    atomics.update(window, 100, "max", 1.0)
    got = buf.cpu().tolist()
    assert got[3] != got[3] and got[:3] + got[4:] == [0, 99, 99, 99, 99, 0, 0, 0]


@on_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_min_and_mul(atomics, dtype):
    buf, window = _window(dtype, 0)
    atomics.update(window, 100, "max", 1.0)
    assert buf.cpu().tolist() == [0] + [99] * 5 + [0] * 3
    buf, window = _window(dtype, 100)
    atomics.update(window, 100, "min", 1.0)
    assert buf.cpu().tolist() == [100] + [0] * 5 + [100] * 3
    buf, window = _window(dtype, 1)
    atomics.update(window, 5, "mul", 2.0)
    assert buf.cpu().tolist() == [1] + [32] * 5 + [1] * 3
