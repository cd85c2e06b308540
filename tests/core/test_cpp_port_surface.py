"""Builds and runs the C++ checks of the torch spellings ported extensions use beyond the ops
(test_port_surface_api.cpp, test_port_names_api.cpp, test_port_tail_api.cpp; its shifts against
numpy's; test_cuda_tensor_info_api.cpp, the host side of the CUDA indexing helpers;
test_th_blas_api.cpp, TH's BLAS calls), and compile
checks of their headers: each alone, the CUDA guards without the CUDA toolkit, sdk/all.h's
standard headers, and the refusal of a Dict argument."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests._compile_cache import run_compiler
from tests._support import build_once, run_folder
from tests.core.test_cpp_api import CPP, INCLUDE, LIBDIR, _cxx, _nvcc, _require_core, _run

NEW_HEADERS = [
    "boxing.h",
    "containers.h",
    "context.h",
    "cuda_guard.h",
    "cuda_kernel_utils.h",
    "cuda_tensor_info.h",
    "custom_class.h",
    "flags.h",
    "headeronly.h",
    "intrusive_ptr.h",
    "logging.h",
    "memory_format.h",
    "stable.h",
    "maybe_owned.h",
    "numeric_limits.h",
    "ops_bits.h",
    "cuda_warp.h",
    "ops_out.h",
    "registry.h",
    "symint.h",
    "tag.h",
    "tensor_utils.h",
    "th.h",
    "thc_numerics.h",
    "vec.h",
]
STRICT = ["-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}"]


def _syntax(tmp_path: Path, source: str, *extra: str) -> subprocess.CompletedProcess:
    src = tmp_path / "probe.cpp"
    src.write_text(source)
    return run_compiler([_cxx(), *STRICT, "-fsyntax-only", *extra, str(src)], timeout=300)


def _program(tmp_path_factory, program: str) -> Path:
    """tests/core/cpp/<program>.cpp built once per run (the tail program serves two tests)."""
    _require_core()

    def build(folder: Path) -> Path:
        exe = folder / program
        _run(
            [
                _cxx(), *STRICT, "-O1", str(CPP / f"{program}.cpp"), "-o", str(exe),
                f"-L{LIBDIR}", "-lsdk_core", f"-Wl,-rpath,{LIBDIR}",
            ]
        )  # fmt: skip
        return exe

    return build_once(run_folder(tmp_path_factory, program), build)


@pytest.mark.parametrize(
    "program",
    [
        "test_port_surface_api",
        "test_port_names_api",
        "test_port_tail_api",
        "test_vec_api",
        "test_cuda_tensor_info_api",
        "test_th_blas_api",
    ],
)
def test_cpp_program_passes(program: str, tmp_path_factory) -> None:
    exe = _program(tmp_path_factory, program)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout


@pytest.fixture(scope="module")
def tail_program(tmp_path_factory) -> Path:
    return _program(tmp_path_factory, "test_port_tail_api")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_bitwise_shifts_match_numpy(tail_program: Path, dtype: str) -> None:
    # out-of-range and negative shift amounts included: numpy and torch both give 0 (left,
    # unsigned right) or the sign (signed right)
    np = pytest.importorskip("numpy")
    proc = subprocess.run(
        [str(tail_program), "shifts", dtype], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    rows = np.array([line.split() for line in proc.stdout.splitlines()], dtype=np.int64)
    assert len(rows) > 4000
    a, s = rows[:, 0].astype(dtype), rows[:, 1].astype(dtype)
    assert (s.astype(np.int64) >= 8 * a.itemsize).any()
    assert dtype == "uint8" or (s < 0).any()
    with np.errstate(all="ignore"):
        left, right = np.left_shift(a, s), np.right_shift(a, s)
    np.testing.assert_array_equal(rows[:, 2], left.astype(np.int64))
    np.testing.assert_array_equal(rows[:, 3], right.astype(np.int64))


def _nvcc_compiles(tmp_path: Path, program: str, *flags: str) -> None:
    """tests/core/cpp/<program>.cpp compiles as CUDA (no GPU here: compile only)."""
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("nvcc not found")
    obj = tmp_path / f"{program}.o"
    src = CPP / f"{program}.cpp"
    _run([nvcc, "-std=c++17", "-x", "cu", f"-I{INCLUDE}", *flags, "-c", str(src), "-o", str(obj)])
    assert obj.stat().st_size > 0


def test_nvcc_compiles_warp_helpers_and_limits_in_device_code(tmp_path: Path) -> None:
    # every DeviceUtils.cuh / NumericLimits.cuh spelling, in kernels
    _nvcc_compiles(tmp_path, "cuda_warp_kernel")


def test_cuda_sources_get_cudas_16_bit_types_from_the_sdk_headers(tmp_path: Path) -> None:
    """torch's Half.h and BFloat16.h include cuda_fp16.h and cuda_bf16.h in CUDA sources, so
    ported kernels (fpscan's) use __half and __nv_bfloat16 with no include of their own. Their
    conversions are host functions too: run on the host, checked against numpy's rounding."""
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("nvcc not found")
    source = (
        "#include <sdk/all.h>\n"
        "#include <cstdio>\n"
        "int main() {\n"
        "  const float xs[] = {1.0f / 3, 1000.7f, -2.5e-5f, 65519.0f};\n"
        "  for (float x : xs) {\n"
        "    __half h = __float2half(x);\n"
        "    __nv_bfloat16 b = __float2bfloat16(x);\n"
        '    std::printf("%a %a\\n", __half2float(h), __bfloat162float(b));\n'
        "  }\n"
        "  return 0;\n"
        "}\n"
    )
    src, exe = tmp_path / "fp16.cu", tmp_path / "fp16"
    src.write_text(source)
    # An uninstrumented toolchain and program: under the sanitizer job the preloaded ASan
    # runtime crashes nvcc's link step (exit 139).
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    _run([nvcc, "-std=c++17", f"-I{INCLUDE}", str(src), "-o", str(exe)], env=env)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    got = np.array([[float.fromhex(v) for v in ln.split()] for ln in proc.stdout.splitlines()])
    xs = np.array([1.0 / 3, 1000.7, -2.5e-5, 65519.0], np.float32)
    bits = xs.view(np.uint32).astype(np.uint64)  # bfloat16: round to nearest even, 16 bits
    bf16 = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(got[:, 0], xs.astype(np.float16).astype(np.float64))
    np.testing.assert_array_equal(got[:, 1], bf16.astype(np.float64))


def test_nvcc_compiles_a_device_side_assertion_kernel(tmp_path: Path) -> None:
    # TORCH_DSA_KERNEL_ARGS / _LAUNCH and CUDA_KERNEL_ASSERT2 in the SDK's spellings
    import sysconfig

    import pybind11

    python = sysconfig.get_paths()["include"]
    _nvcc_compiles(tmp_path, "cuda_dsa_kernel", f"-I{pybind11.get_include()}", f"-I{python}")


@pytest.mark.parametrize("header", NEW_HEADERS)
def test_header_compiles_alone(header: str, tmp_path: Path) -> None:
    proc = _syntax(tmp_path, f"#include <sdk/{header}>\n#include <sdk/{header}>\n")
    assert proc.returncode == 0, proc.stderr


def test_cuda_guards_need_no_toolkit(tmp_path: Path) -> None:
    # No CUDA include path, and the header list shows no CUDA header was opened.
    source = (
        "#include <sdk/cuda_guard.h>\n"
        "void f(const sdk::Tensor& x) {\n"
        "  const sdk::cuda::OptionalCUDAGuard g(sdk::device_of(x));\n"
        "  const sdk::OptionalDeviceGuard dg(sdk::device_of(x));\n"
        "  cudaStream_t s = sdk::cuda::getCurrentCUDAStream();\n"
        "  sdk::cuda::CUDAStreamGuard sg(sdk::cuda::getStreamFromExternal(s, 0));\n"
        "}\n"
    )
    proc = _syntax(tmp_path, source, "-H")
    assert proc.returncode == 0, proc.stderr
    opened = [Path(line.split()[-1]) for line in proc.stderr.splitlines() if line.startswith(".")]
    toolkit = [p for p in opened if p.parent.name != "sdk" and "cuda" in str(p).lower()]
    assert opened and not toolkit, toolkit


def test_all_header_leaves_the_global_cuda_stream_name_to_the_source(tmp_path: Path) -> None:
    # torch/extension.h declares no cudaStream_t, so CPU sources declare a placeholder of
    # their own after it; the CUDA headers' counterpart still brings the runtime's, even
    # when included after sdk/all.h
    placeholder = (
        "#include <sdk/all.h>\n"
        "typedef void* cudaStream_t;\n"
        "cudaStream_t none() { return nullptr; }\n"
        "sdk::cuda::CUDAStream current() { return sdk::cuda::getCurrentCUDAStream(); }\n"
    )
    proc = _syntax(tmp_path, placeholder)
    assert proc.returncode == 0, proc.stderr
    later = (
        "#include <sdk/all.h>\n#include <sdk/cuda_guard.h>\n"
        "cudaStream_t s() { return sdk::cuda::getCurrentCUDAStream(); }\n"
    )
    proc = _syntax(tmp_path, later)
    assert proc.returncode == 0, proc.stderr


def test_stream_logging_shows_warnings_and_info_once_asked(tmp_path: Path) -> None:
    source = (
        "#include <sdk/logging.h>\n"
        "int main() {\n"
        '  SDK_LOG(INFO) << "hidden " << 1;\n'
        '  SDK_LOG(WARNING) << "shown " << 2;\n'
        "  int built = 0;\n"
        "  SDK_LOG_IF(WARNING, false) << (++built);\n"
        "  sdk::ShowLogInfoToStderr();\n"
        '  SDK_LOG_IF(INFO, true) << "now shown " << 3 << " built " << built;\n'
        '  SDK_LOG(FATAL) << "the end";\n'
        "  return 0;\n"
        "}\n"
    )
    src, exe = tmp_path / "log.cpp", tmp_path / "log"
    src.write_text(source)
    _run([_cxx(), *STRICT, str(src), "-o", str(exe)])
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0, "FATAL aborts"
    lines = proc.stderr.splitlines()
    assert [ln.split("] ", 1)[1] for ln in lines] == ["shown 2", "now shown 3 built 0", "the end"]
    assert lines[0].startswith("W ") and "log.cpp:4" in lines[0] and lines[2].startswith("F ")


def test_the_logging_header_brings_the_stream_manipulators(tmp_path: Path) -> None:
    """torch's c10/util/Logging.h includes <iomanip>: ported code (sru's test program) formats
    with std::setprecision after including torch's headers only."""
    source = (
        "#include <sdk/all.h>\n"
        "int main() {\n"
        "  std::cout << std::fixed << std::setprecision(4) << 3.14159265 << ' '\n"
        "            << std::setw(6) << std::setfill('*') << 42 << ' '\n"
        "            << std::scientific << std::setprecision(2) << 12345.678 << '\\n';\n"
        "  return 0;\n"
        "}\n"
    )
    src, exe = tmp_path / "fmt.cpp", tmp_path / "fmt"
    src.write_text(source)
    _run([_cxx(), *STRICT, str(src), "-o", str(exe)])
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [f"{3.14159265:.4f}", f"{42:*>6}", f"{12345.678:.2e}"]


def test_all_header_brings_the_standard_headers_ported_code_relies_on(tmp_path: Path) -> None:
    source = (
        "#include <sdk/all.h>\n"
        "int f() {\n"
        "  std::unordered_set<int> s{1}; std::unordered_map<int, int> m; std::map<int, int> o;\n"
        "  std::set<int> t; std::mutex mu; std::lock_guard<std::mutex> lock(mu);\n"
        "  std::atomic<int> a{0}; std::array<int, 2> arr{}; std::ostringstream os;\n"
        "  std::function<int()> fn = [] { return 1; }; std::thread::id id;\n"
        '  auto p = std::make_shared<int>(3); std::cout << "";\n'
        "  (void)id; (void)os; (void)arr; (void)t; (void)o; (void)m; (void)s;\n"
        "  return a.load() + fn() + *p + static_cast<int>(std::sqrt(4.0)) +\n"
        "         static_cast<int>(std::max<size_t>(1, 2)) + std::get<0>(std::make_tuple(1));\n"
        "}\n"
    )
    proc = _syntax(tmp_path, source)
    assert proc.returncode == 0, proc.stderr


def test_a_dict_argument_is_refused_at_compile_time(tmp_path: Path) -> None:
    source = (
        "#include <sdk/all.h>\n"
        'sdk::Tensor pick(const sdk::Dict<std::string, sdk::Tensor>& d) { return d.at("x"); }\n'
        'SDK_LIBRARY(dict_probe, m) { m.def("pick", &pick); }\n'
    )
    proc = _syntax(tmp_path, source)
    assert proc.returncode != 0
    assert "the op registry has no dictionary values" in proc.stderr
