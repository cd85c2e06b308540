"""THC-era CUDA extensions (DCNv2, Pointnet2, maskrcnn-benchmark's csrc, PyTorchEMD) and the
ATen/cuda/detail/ helpers real kernels include: the porter rewrites THC's calls to today's
spellings and maps the headers; the census counts them as counterparts; the ported idioms
compile with nvcc (THC's cuBLAS wrappers where cuBLAS's header is installed)."""

from __future__ import annotations

import math
import subprocess
import textwrap

import pytest

from cpp_extension.port import census as _port_census
from cpp_extension.port import sdk_names as _port_names
from cpp_extension.port.cxx import port_cxx
from tests._compile_cache import run_compiler
from tests._support import REPO

INCLUDE = str(REPO / "core" / "include")


def _port(text: str, path: str = "k.cu"):
    return port_cxx(textwrap.dedent(text), path, _port_names.sdk_headers(INCLUDE))


# ---- the porter's rules --------------------------------------------------------------------

THC_FILE = """\
#include <ATen/ATen.h>
#include <THC/THC.h>
#include <THC/THCDeviceUtils.cuh>
extern THCState *state;
void launch(int64_t n) {
  cudaStream_t stream = THCState_getCurrentStream(state);
  float* buf = static_cast<float*>(THCudaMalloc(state, n * sizeof(float)));
  dim3 grid(std::min(THCCeilDiv((long)n, 512L), 4096L));
  THCudaCheck(cudaGetLastError());
  THCudaFree(state, buf);
}
"""

THC_PORTED = """\
#include <sdk/all.h>
#include <sdk/thc.h>
#include <sdk/thc.h>

void launch(int64_t n) {
  cudaStream_t stream = sdk::cuda::getCurrentCUDAStream();
  float* buf = static_cast<float*>(sdk::cuda::CUDACachingAllocator::raw_alloc(n * sizeof(float)));
  dim3 grid(std::min(sdk::ceil_div((long)n, 512L), 4096L));
  SDK_CUDA_CHECK(cudaGetLastError());
  sdk::cuda::CUDACachingAllocator::raw_delete(buf);
}
"""


def test_thc_calls_become_todays_spellings_without_the_state():
    result = _port(THC_FILE)
    assert result.text == THC_PORTED
    assert result.missing == []
    # the extern declaration, the stream, malloc, ceil-div and free; the check is a macro
    assert result.rewrites == {"include": 3, "thc": 5, "macro": 1}
    assert result.lines is None  # the removed declaration leaves its line: lines stay put


def test_a_context_state_becomes_null_and_the_cublas_wrappers_keep_it():
    text = """\
    #include <THC/THC.h>
    THCState *state = at::globalContext().lazyInitCUDA();
    void gemm(float* a, const float** pa, float** pc) {
      THCudaBlas_Sgemm(state, 'n', 't', 2, 3, 4, 1.0f, a, 2, a, 3, 0.0f, a, 2);
      THCudaBlas_SgemmBatched(state, 'n', 'n', 2, 3, 4, 1.0f, pa, 2, pa, 4, 0.0f, pc, 2, 8);
      cudaStream_t s = THCState_getCurrentStream(at::globalContext().getTHCState());
      cudaStream_t d = THCState_getCurrentStreamOnDevice(state, 1);
      THCState* other = at::globalContext().getTHCState();
    }
    """
    result = _port(text)
    lines = result.text.splitlines()
    assert lines[1] == "THCState *state = nullptr;"
    assert "THCudaBlas_Sgemm(state, 'n', 't'" in lines[3]  # sdk/thc.h declares it
    assert lines[5].strip() == "cudaStream_t s = sdk::cuda::getCurrentCUDAStream();"
    assert lines[6].strip() == "cudaStream_t d = sdk::cuda::getCurrentCUDAStream(1);"
    assert lines[7].strip() == "THCState* other = nullptr;"
    assert result.missing == []


def test_an_extern_state_still_passed_to_a_cublas_wrapper_becomes_a_null_stand_in():
    text = """\
    #include <TH/TH.h>
    extern THCState *state;
    void f(const at::Tensor& x, float* a) {
      THArgCheck(x.is_contiguous(), 1, "input tensor has to be contiguous");
      THArgCheck(x.dim() == 4, 2, "expected %d dims", 4);
      THCudaBlas_Sgemm(state, 'n', 't', 1, 2, 3, 1.0f, a, 1, a, 2, 0.0f, a, 1);
    }
    """
    result = _port(text)
    lines = result.text.splitlines()
    assert lines[0] == "#include <sdk/th.h>"
    assert lines[1] == "static THCState *const state = nullptr;"
    assert lines[3].strip() == (
        'SDK_CHECK(x.is_contiguous(), "invalid argument ", 1, ": ", '
        '"input tensor has to be contiguous");'
    )
    # a printf format is not SDK_CHECK's message: left, and reported
    assert lines[4].strip().startswith("THArgCheck(")
    assert [(m.line, m.name) for m in result.missing] == [(5, "THArgCheck")]
    assert result.rewrites == {"include": 1, "namespace": 1, "thc": 2}


def test_thc_names_without_counterpart_are_reported_not_silently_kept():
    text = """\
    #include <THC/THC.h>
    #include <THC/THCTensorMath.h>
    void f(THCudaTensor* t, THCState* state) {
      THCudaTensor_resize2d(state, t, 2, 3);
      float* (*alloc)(THCState*, size_t) = THCudaMalloc;  // not a call: nothing to drop
    }
    """
    result = _port(text)
    found = {(m.line, m.name, m.kind) for m in result.missing}
    assert found == {
        (2, "THC/THCTensorMath.h", "header"),
        (3, "THCudaTensor", "name"),
        (4, "THCudaTensor_resize2d", "name"),
        (5, "THCudaMalloc", "name"),
    }
    reasons = {m.name: m.reason for m in result.missing}
    assert "THC was removed" in reasons["THCudaTensor_resize2d"]
    assert "THC was removed" in reasons["THC/THCTensorMath.h"]


def test_a_project_defining_a_thc_name_keeps_it():
    text = """\
    #define THCCeilDivHost(a, b) (((a) + (b) - 1) / (b))
    template <typename T> T THCNumberOfBlocks(T n) { return THCCeilDivHost(n, T(256)); }
    """
    result = _port(text)
    assert result.missing == [] and result.text == textwrap.dedent(text)


def test_porting_twice_changes_nothing_more():
    once = _port(THC_FILE).text
    twice = _port(once)
    assert twice.text == once and twice.rewrites == {}


DETAIL_FILE = """\
#include <ATen/cuda/detail/IndexUtils.cuh>
#include <ATen/cuda/detail/TensorInfo.cuh>
#include <ATen/cuda/detail/KernelUtils.h>
#include <ATen/cuda/detail/UnpackRaw.cuh>
template <typename scalar_t>
__global__ void copy(at::cuda::detail::TensorInfo<scalar_t, int> src, scalar_t* out, int n) {
  CUDA_KERNEL_LOOP(i, n) {
    out[i] = src.data[at::cuda::detail::IndexToOffset<scalar_t, int, -1>::get(i, src)];
  }
}
void launch(const at::Tensor& x, at::Tensor& y) {
  TORCH_CHECK(at::cuda::detail::canUse32BitIndexMath(x), "too large");
  auto info = at::cuda::detail::getTensorInfo<float, int>(x);
  info.collapseDims();
  const int n = static_cast<int>(x.numel());
  copy<float><<<at::cuda::detail::GET_BLOCKS(n), at::cuda::detail::CUDA_NUM_THREADS>>>(
      info, y.data_ptr<float>(), n);
}
"""


def test_cuda_detail_helpers_map():
    result = _port(DETAIL_FILE)
    assert result.missing == []
    text = result.text
    assert text.count("#include <sdk/cuda_tensor_info.h>") == 2
    assert "#include <sdk/cuda_kernel_utils.h>" in text
    assert "#include <sdk/cuda_generator.h>" in text  # UnpackRaw.cuh: philox::unpack
    assert "sdk::cuda::detail::IndexToOffset<scalar_t, int, -1>::get" in text
    assert "sdk::cuda::detail::GET_BLOCKS(n), sdk::cuda::detail::CUDA_NUM_THREADS" in text
    assert "at::" not in text


def test_the_rest_of_cuda_detail_stays_reported():
    result = _port(
        """\
        #include <ATen/cuda/detail/OffsetCalculator.cuh>
        bool f(const at::Tensor& t) { return at::cuda::detail::maybeOverlappingIndices(t); }
        """
    )
    assert [(m.name, m.kind) for m in result.missing] == [
        ("ATen/cuda/detail/OffsetCalculator.cuh", "header"),
        ("at::cuda::detail::maybeOverlappingIndices", "name"),
    ]


# ---- the census ----------------------------------------------------------------------------

COUNTERPARTS = [
    ("THC/THC.h", "header"),
    ("THC/THCDeviceUtils.cuh", "header"),
    ("THC/THCGeneral.h", "header"),
    ("THCState", "name"),
    ("THCudaCheck", "name"),
    ("THCudaMalloc", "name"),
    ("THCudaFree", "name"),
    ("THCCeilDiv", "name"),
    ("THCState_getCurrentStream", "name"),
    ("THCudaBlas_Sgemm", "name"),
    ("THCudaBlas_SgemmBatched", "name"),
    ("THCudaBlas_Sgemv", "name"),
    ("THC/THCNumerics.cuh", "header"),
    ("THCNumerics", "name"),
    ("THFloatBlas_gemm", "name"),
    ("THArgCheck", "name"),
    ("TH/TH.h", "header"),
    ("ATen/cuda/detail/IndexUtils.cuh", "header"),
    ("ATen/cuda/detail/TensorInfo.cuh", "header"),
    ("ATen/cuda/detail/KernelUtils.h", "header"),
    ("ATen/cuda/detail/UnpackRaw.cuh", "header"),
    ("at::cuda::detail::canUse32BitIndexMath", "name"),
    ("at::cuda::detail::TensorInfo", "name"),
    ("at::cuda::detail::getTensorInfo", "name"),
    ("at::cuda::detail::IndexToOffset", "name"),
    ("at::cuda::detail::CUDA_NUM_THREADS", "name"),
    ("at::cuda::detail::GET_BLOCKS", "name"),
]


def _census(rows: list) -> dict:
    return {"format": 1, "repos": [], "names": rows}


@pytest.mark.parametrize(("name", "kind"), COUNTERPARTS)
def test_census_counts_thc_and_detail_names_as_counterparts(name, kind):
    census = _census([[name, kind, 0, 0, 3, 2, 2]])
    (row,) = _port_census.coverage_report(census, INCLUDE).rows
    assert (row.status, row.reason) == ("counterpart", "")
    if "detail" in name:  # the narrowed refusal leaves them out (THC/'s covers the folder)
        assert _port_census.refusal(name, kind) is None


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("THFloatTensor", "name", "tensor C API"),
        ("THCudaTensor", "name", "tensor C API"),
        ("THC/THCTensorMath.h", "header", "THC was removed"),
        ("THC/THCAtomics.muh", "header", "torch_musa's copy of THC/THCAtomics.cuh for MUSA GPUs"),
        ("ATen/cuda/detail/DeviceThreadHandles.h", "header", "internals"),
        ("ATen/detail/CUDAHooksInterface.h", "header", "internals"),
        ("at::cuda::detail::maybeOverlappingIndices", "name", "internals"),
        ("at::detail::computeStorageNbytes", "name", "internals"),
    ],
)
def test_the_rest_stays_refused(name, kind, reason):
    census = _census([[name, kind, 0, 0, 3, 2, 2]])
    (row,) = _port_census.coverage_report(census, INCLUDE).rows
    assert row.status == "refused" and reason in row.reason


# ---- ported idioms compile -----------------------------------------------------------------

KERNELS_CU = """\
#include <ATen/ATen.h>
#include <THC/THC.h>
#include <THC/THCAtomics.cuh>
#include <THC/THCDeviceUtils.cuh>
#include <ATen/cuda/detail/IndexUtils.cuh>
#include <ATen/cuda/detail/KernelUtils.h>

extern THCState *state;

template <typename T>
__global__ void pool(const T* in, T* out, int n) {
  CUDA_KERNEL_LOOP(i, n) {
    T v = THCNumerics<T>::add(in[i], WARP_SHFL_DOWN(in[i], 1));
    if (THCNumerics<T>::isnan(v)) v = THCNumerics<T>::lower_bound();
    atomicAdd(out + (i % 7), v);
  }
}

__global__ void gather(at::cuda::detail::TensorInfo<float, int> src, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = src.data[at::cuda::detail::IndexToOffset<float, int, -1>::get(i, src)];
  }
}

at::Tensor run(const at::Tensor& x) {
  auto out = at::zeros({7}, x.options());
  const int n = static_cast<int>(x.numel());
  cudaStream_t stream = THCState_getCurrentStream(state);
  dim3 grid(std::min(THCCeilDiv((long)n, 512L), 4096L));
  pool<float><<<grid, 512, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  THCudaCheck(cudaGetLastError());
  float* scratch = static_cast<float*>(THCudaMalloc(state, n * sizeof(float)));
  if (at::cuda::detail::canUse32BitIndexMath(x)) {
    auto info = at::cuda::detail::getTensorInfo<float, int>(x);
    info.collapseDims();
    gather<<<at::cuda::detail::GET_BLOCKS(n), at::cuda::detail::CUDA_NUM_THREADS, 0,
             THCState_getCurrentStream(state)>>>(info, scratch, n);
  }
  THCudaFree(state, scratch);
  return out;
}
"""

BLAS_CU = """\
#include <ATen/ATen.h>
#include <THC/THC.h>

THCState *state = at::globalContext().lazyInitCUDA();

void gemms(float* a, const float** pa, float** pc, double* d, int64_t batch) {
  THCudaBlas_Sgemm(state, 'n', 't', 4, 3, 2, 1.0f, a, 4, a, 3, 0.0f, a, 4);
  THCudaBlas_SgemmBatched(state, 'n', 'n', 4, 3, 2, 1.0f, pa, 4, pa, 2, 0.0f, pc, 4, batch);
  THCudaBlas_Sgemv(state, 't', 4, 3, 1.0f, a, 4, a, 1, 0.0f, a, 1);
  THCudaBlas_Dgemm(state, 'n', 'n', 4, 3, 2, 1.0, d, 4, d, 2, 0.0, d, 4);
}
"""


def _nvcc_compile(tmp_path, source: str, name: str):
    from tests.cuda.conftest import require_nvcc

    tk = require_nvcc()
    src, obj = tmp_path / f"{name}.cu", tmp_path / f"{name}.o"
    src.write_text(source)
    cmd = [tk.nvcc, "-std=c++17", f"-I{INCLUDE}", "-c", str(src), "-o", str(obj)]
    return run_compiler(cmd, timeout=600), obj


@pytest.mark.parametrize(("source", "name"), [(KERNELS_CU, "kernels"), (BLAS_CU, "blas")])
def test_ported_thc_idioms_compile_with_nvcc(source, name, tmp_path):
    result = _port(source, f"{name}.cu")
    assert result.missing == []
    if name == "blas":
        probe, _ = _nvcc_compile(tmp_path, "#include <cublas_v2.h>\n", "has_cublas")
        if probe.returncode != 0:
            pytest.skip("cuBLAS's header is not installed: THC's cuBLAS wrappers are not declared")
    proc, obj = _nvcc_compile(tmp_path, result.text, name)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert obj.stat().st_size > 0


# ---- THCNumerics ---------------------------------------------------------------------------


def test_thc_numerics_header_maps_and_its_names_are_declared():
    result = _port(
        """\
        #include <THC/THCNumerics.cuh>
        template <typename T>
        __device__ T clamp_low(T v) {
          return THCNumerics<T>::lt(v, THCNumerics<T>::min()) ? ScalarConvert<int, T>::to(0) : v;
        }
        """
    )
    assert result.text.splitlines()[0] == "#include <sdk/thc.h>"
    assert result.missing == []


UNARY = """exp exp10 expm1 log log10 log1p log2 lgamma cos sin tan acos asin atan cosh sinh tanh
acosh asinh erf erfc sqrt rsqrt abs neg ceil floor trunc round frac cinv""".split()
BINARY = "add sub mul div pow atan2".split()
FLOAT_INPUTS = [0.3, 1.7, 2.5, -0.6, 3.25]
INT_CASES = {  # (C++ type, numpy dtype): operand pairs, with wrapping and negative exponents
    ("int8_t", "int8"): [(100, 100), (-128, 3), (-7, 2), (5, -2), (-1, -3), (1, -4), (-3, 4)],
    ("uint8_t", "uint8"): [(200, 100), (7, 3), (3, 6), (0, 5)],
    ("int64_t", "int64"): [(2**62, 4), (-9, 4), (3, 21), (-2, -1), (10, 3)],
}


def _thc_program(tmp_path) -> list[str]:
    from tests.core.test_cpp_api import _cxx

    lines = ["#include <sdk/thc_numerics.h>", "#include <cstdio>", "int main() {"]
    for cpp in ("float", "double", "sdk::Half"):
        for x in FLOAT_INPUTS:
            for f in UNARY:
                lines.append(
                    f'  std::printf("{cpp} {f} {x!r} %.17g\\n", '
                    f"double(float(THCNumerics<{cpp}>::{f}({cpp}({x}f)))));"
                    if cpp == "sdk::Half"
                    else f'  std::printf("{cpp} {f} {x!r} %.17g\\n", '
                    f"double(THCNumerics<{cpp}>::{f}({cpp}({x}))));"
                )
            for f in BINARY:
                y = FLOAT_INPUTS[(FLOAT_INPUTS.index(x) + 1) % len(FLOAT_INPUTS)]
                cast = "float" if cpp == "sdk::Half" else cpp
                lines.append(
                    f'  std::printf("{cpp} {f} {x!r},{y!r} %.17g\\n", double({cast}('
                    f"THCNumerics<{cpp}>::{f}({cpp}({x}), {cpp}({y})))));"
                )
    for (cpp, _), pairs in INT_CASES.items():
        for a, b in pairs:
            for f in ("add", "sub", "mul", "div", "pow"):
                lines.append(
                    f'  std::printf("{cpp} {f} {a},{b} %lld\\n", (long long)'
                    f"THCNumerics<{cpp}>::{f}({cpp}({a}LL), {cpp}({b}LL)));"
                )
            for f in ("abs", "neg"):
                lines.append(
                    f'  std::printf("{cpp} {f} {a} %lld\\n", (long long)'
                    f"THCNumerics<{cpp}>::{f}({cpp}({a}LL)));"
                )
    lines += ["}"]
    src, exe = tmp_path / "thc_numerics.cpp", tmp_path / "thc_numerics"
    src.write_text("\n".join(lines) + "\n")
    cmd = [_cxx(), "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(src)]
    built = run_compiler([*cmd, "-o", str(exe)], timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")


def _float_reference(f: str, x, y, dtype):
    import numpy as np

    compute = np.float32 if dtype == np.float16 else dtype
    x, y = compute(dtype(x)), compute(dtype(y)) if y is not None else None
    with np.errstate(all="ignore"):
        table = {
            "exp10": lambda: np.power(compute(10), x),
            "lgamma": lambda: compute(math.lgamma(float(x))),
            "erf": lambda: compute(math.erf(float(x))),
            "erfc": lambda: compute(math.erfc(float(x))),
            "acosh": lambda: np.arccosh(x),
            "asinh": lambda: np.arcsinh(x),
            "acos": lambda: np.arccos(x),
            "asin": lambda: np.arcsin(x),
            "atan": lambda: np.arctan(x),
            "rsqrt": lambda: compute(1) / np.sqrt(x),
            "neg": lambda: -x,
            "round": lambda: np.sign(x) * np.floor(np.abs(x) + compute(0.5)),  # half away from 0
            "frac": lambda: x - np.trunc(x),
            "cinv": lambda: compute(1) / x,
            "atan2": lambda: np.arctan2(x, y),
            "add": lambda: x + y,
            "sub": lambda: x - y,
            "mul": lambda: x * y,
            "div": lambda: x / y,
            "pow": lambda: np.power(x, y),
        }
        value = table[f]() if f in table else getattr(np, f)(x)
    return float(dtype(value))


def _int_reference(f: str, a: int, b: int | None, dtype) -> int:
    """THCNumerics's integer result: exact, then wrapped to dtype's width."""
    import numpy as np

    if f == "abs":
        value = abs(a)
    elif f == "neg":
        value = -a
    elif f == "div":
        value = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C's truncation
    elif f == "pow" and b < 0:  # the integer part of a^b
        value = 1 if a == 1 else (1 if b % 2 == 0 else -1) if a == -1 else 0
    else:
        value = {"add": a + b, "sub": a - b, "mul": a * b, "pow": a**b}[f]
    bits = 8 * np.dtype(dtype).itemsize
    wrapped = value % 2**bits
    if np.issubdtype(dtype, np.signedinteger) and wrapped >= 2 ** (bits - 1):
        wrapped -= 2**bits
    return wrapped


def test_thc_numerics_values_match_numpy(tmp_path):
    import numpy as np

    dtypes = {"float": np.float32, "double": np.float64, "sdk::Half": np.float16}
    ints = {cpp: np.dtype(name).type for cpp, name in INT_CASES}
    checked = 0
    for line in _thc_program(tmp_path):
        if not line:
            continue
        cpp, f, args, got = line.split(" ")
        if cpp in ints:
            a, *rest = (int(v) for v in args.split(","))
            assert int(got) == _int_reference(f, a, rest[0] if rest else None, ints[cpp]), line
        else:
            x, *rest = (float(v) for v in args.split(","))
            want = _float_reference(f, x, rest[0] if rest else None, dtypes[cpp])
            rtol = {"float": 2e-6, "double": 1e-14, "sdk::Half": 1e-3}[cpp]
            assert float(got) == pytest.approx(want, rel=rtol, abs=rtol, nan_ok=True), line
        checked += 1
    assert checked == 3 * len(FLOAT_INPUTS) * (len(UNARY) + len(BINARY)) + 7 * sum(
        len(p) for p in INT_CASES.values()
    )


def test_thc_numerics_limits_nan_and_bits(tmp_path):
    from tests.core.test_cpp_api import _cxx

    src, exe = tmp_path / "limits.cpp", tmp_path / "limits"
    src.write_text(
        textwrap.dedent(
            """\
            #include <sdk/thc_numerics.h>
            #include <cstdio>
            #include <limits>
            int main() {
              const float nan = std::numeric_limits<float>::quiet_NaN();
              std::printf("%d %d %d\\n", THCNumerics<float>::isnan(nan),
                          THCNumerics<float>::eq_with_nan(nan, nan),
                          THCNumerics<float>::eq_with_nan(0.0f, -0.0f));
              std::printf("%d %d\\n", THCNumerics<sdk::Half>::isinf(
                          THCNumerics<sdk::Half>::upper_bound()),
                          THCNumerics<int32_t>::isnan(7));
              std::printf("%.17g %.17g %d %d\\n", double(float(THCNumerics<sdk::Half>::max())),
                          double(THCNumerics<double>::min()), int(THCNumerics<int8_t>::min()),
                          int(THCNumerics<uint8_t>::upper_bound()));
              std::printf("%d %d %d\\n", THCNumerics<bool>::add(true, true),
                          THCNumerics<bool>::mul(true, false), scalar_cast<int>(2.75));
            }
            """
        )
    )
    cmd = [_cxx(), "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(src)]
    built = run_compiler([*cmd, "-o", str(exe)], timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    import numpy as np

    assert out[:5] == ["1", "1", "0", "1", "0"]  # NaN bits equal themselves; -0 is not +0
    assert float(out[5]) == float(np.finfo(np.float16).max)
    assert float(out[6]) == -float(np.finfo(np.float64).max)
    assert out[7:] == ["-128", "255", "1", "0", "2"]
