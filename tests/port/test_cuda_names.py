"""The torch.cuda / torch.version / torch.amp names real extensions' setup.py files, Python
wrappers and C++ sources use: the porter maps every one (no name reported), and the C++
counterparts it maps to build and answer without a GPU as torch does (RuntimeError why)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import cpp_extension
from cpp_extension.port import sdk_names as _port_names
from cpp_extension.port.cxx import port_cxx
from cpp_extension.port.python import port_python
from tests._support import REPO

SETUP_PY = """
import torch
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

cc = []
if torch.cuda.is_available():
    major, minor = torch.cuda.get_device_capability(0)
    cc.append(f"-gencode=arch=compute_{major}{minor},code=sm_{major}{minor}")
if torch.version.cuda is not None and torch.version.cuda >= "11.8":
    cc.append("-DHAS_BF16")
if not torch.backends.cuda.is_built():
    print("no CUDA backend")
print(torch.cuda.get_arch_list())
"""

WRAPPER_PY = """
import torch
from torch.cuda.amp import custom_bwd, custom_fwd
import torch.cuda.amp as cuda_amp


class Scan(torch.autograd.Function):
    @staticmethod
    @custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        return x

    @staticmethod
    @custom_bwd
    def backward(ctx, g):
        return g


class Scan2(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda")
    def forward(ctx, x):
        return x

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, g):
        return g


def plan(x):
    props = torch.cuda.get_device_properties(x.device)
    free, total = torch.cuda.mem_get_info(x.device)
    name = torch.cuda.get_device_name()
    bf16 = torch.cuda.is_bf16_supported()
    dtype = torch.get_autocast_gpu_dtype() if torch.is_autocast_enabled() else x.dtype
    side = torch.cuda.Stream(priority=-1)
    side.wait_stream(torch.cuda.current_stream())
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    with torch.cuda.stream(side), torch.autocast(device_type="cuda", enabled=False):
        end.record(side)
    torch.cuda.default_stream().synchronize()
    with cuda_amp.autocast(enabled=False):
        pass
    return props.multi_processor_count, total - free, name, bf16, dtype, start.elapsed_time(end)
"""

KERNEL_CU = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAFunctions.h>

int64_t sm_count(const at::Tensor& x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  cudaDeviceProp* props = at::cuda::getCurrentDeviceProperties();
  int other = at::cuda::getDeviceProperties(x.get_device())->multiProcessorCount;
  at::cuda::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);
  start.record();
  stop.record(at::cuda::getCurrentCUDAStream());
  float ms = start.elapsed_time(stop);
  c10::cuda::stream_synchronize(at::cuda::getCurrentCUDAStream().stream());
  c10::cuda::device_synchronize();
  return props->multiProcessorCount + other + at::cuda::getNumGPUs() + int(ms);
}
"""


@pytest.mark.parametrize(
    "text, path",
    [(SETUP_PY, "setup.py"), (WRAPPER_PY, "pkg/ops.py")],
    ids=["setup.py", "wrapper"],
)
def test_the_python_names_all_map(text, path):
    result = port_python(textwrap.dedent(text), path)
    assert [m.name for m in result.missing] == []
    ported = result.text
    for name in (
        "torch.cuda.",
        "torch.version.",
        "torch.amp.",
        "torch.autocast",
        "torch.get_autocast",
        "torch.is_autocast",
    ):
        assert name not in ported, name
    if path == "setup.py":
        assert "sdk.version.cuda is not None" in ported
        assert "major, minor = sdk.cuda.get_device_capability(0)" in ported
    else:
        assert "from sdk.cuda.amp import custom_bwd, custom_fwd" in ported
        assert "import sdk.cuda.amp as cuda_amp" in ported
        assert '@sdk.amp.custom_fwd(device_type="cuda")' in ported


def test_the_cxx_names_all_map():
    headers = _port_names.sdk_headers(str(REPO / "core" / "include"))
    result = port_cxx(textwrap.dedent(KERNEL_CU), "src/kernel.cu", headers)
    assert [m.name for m in result.missing] == []
    for name in ("getCurrentDeviceProperties", "getDeviceProperties", "CUDAEvent", "getNumGPUs"):
        assert f"sdk::cuda::{name}" in result.text, name
    assert "sdk::cuda::stream_synchronize(" in result.text
    assert "sdk::cuda::device_synchronize()" in result.text


def test_toolkit_free_counterparts_build_and_say_why_without_a_gpu(tmp_path, monkeypatch):
    # stream_synchronize, device_synchronize and getNumGPUs need no CUDA toolkit (sdk/cuda_guard.h)
    import sdk.cuda

    if sdk.cuda.is_available():
        pytest.skip("a CUDA GPU is visible here")
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "ext"))
    src = """
    #include <sdk/cuda_guard.h>
    int64_t gpus() { return sdk::cuda::getNumGPUs(); }
    void sync_stream() { sdk::cuda::stream_synchronize(nullptr); }
    void sync_device() { sdk::cuda::device_synchronize(); }
    """
    m = cpp_extension.load_inline(
        "cuda_sync_names", textwrap.dedent(src), functions=["gpus", "sync_stream", "sync_device"]
    )
    assert m.gpus() == 0
    for call in (m.sync_stream, m.sync_device):
        with pytest.raises(RuntimeError, match="CUDA is not available: .+"):
            call()


# torch's ATen/cuda/CUDAUtils.h includes CUDAContext.h: code that includes only it uses the
# current stream and C10_CUDA_KERNEL_LAUNCH_CHECK (torch-harmonics' attention kernels do).
UTILS_CU = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAUtils.h>
#include <c10/core/MemoryFormat.h>

bool launch_checked(const at::Tensor& x) {
  TORCH_CHECK(at::cuda::check_device({x}));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  (void)stream;
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return x.is_contiguous(at::MemoryFormat::ChannelsLast);
}
"""


def test_cuda_utils_brings_the_cuda_context(tmp_path):
    result = _ported_cpp(UTILS_CU, "src/utils.cpp")
    assert "#include <sdk/cuda.h>" in result.text
    assert "#include <sdk/memory_format.h>" in result.text
    _compiles_with_cuda_headers(tmp_path / "utils.cpp", result.text)


def _ported_cpp(text: str, path: str):
    """The porter's result for a C++ source; every name in it has a counterpart."""
    headers = _port_names.sdk_headers(str(REPO / "core" / "include"))
    result = port_cxx(textwrap.dedent(text), path, headers)
    assert [m.name for m in result.missing] == []
    return result


def _compiles_with_cuda_headers(src: Path, text: str) -> None:
    """`text` passes a C++ syntax check against the SDK's and the CUDA toolkit's headers."""
    import shutil
    import subprocess
    import sysconfig

    import pybind11

    cxx = shutil.which("c++")
    paths = [*cpp_extension.include_paths(cuda=True), pybind11.get_include()]
    paths.append(sysconfig.get_paths()["include"])
    if cxx is None or not any((Path(p) / "cuda_runtime.h").exists() for p in paths):
        pytest.skip("no C++ compiler or CUDA toolkit headers here")
    src.write_text(text)
    cmd = [cxx, "-std=c++17", "-fsyntax-only", *(f"-I{p}" for p in paths), str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]


# c10/cuda/CUDAException.h's other checks, as cleanup code uses them: warn instead of throw,
# clear the last error, mark an error the caller handles.
CHECKS_CU = """
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>

void release(void* p) {
  C10_CUDA_CHECK_WARN(cudaFree(p));
  C10_CUDA_CLEAR_ERROR();
  const cudaError_t err = C10_CUDA_ERROR_HANDLED(cudaGetLastError());
  TORCH_CHECK(err == cudaSuccess, "left over: ", cudaGetErrorString(err));
}
"""


def test_the_warning_and_clearing_checks_map_and_compile(tmp_path):
    result = _ported_cpp(CHECKS_CU, "src/release.cpp")
    for name in ("SDK_CUDA_CHECK_WARN(", "SDK_CUDA_CLEAR_ERROR()", "SDK_CUDA_ERROR_HANDLED("):
        assert name in result.text, name
    _compiles_with_cuda_headers(tmp_path / "release.cpp", result.text)
