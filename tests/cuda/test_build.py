"""CUDA builds without a GPU: the backend library, .cu sources through load() and through
setup.py build_ext (the LLTM CUDA example), and clear errors when called with CPU tensors."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import sdk
from tests.cuda.conftest import REPO, TEST_ARCH, require_nvcc, run_python, subprocess_env

LLTM_CUDA = REPO / "examples" / "lltm" / "cuda"

SCALE_CU = r"""
// A kernel behind the ctypes bridge: x * alpha on the GPU, refusing CPU tensors.
#include <cuda_runtime.h>
#include <sdk/export.h>

__global__ void scale_kernel(const float* x, float* y, float alpha, int64_t n) {
  int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

SDK_EXPORT(cuda_scale, "(Tensor x, float alpha) -> Tensor")
sdk_status cuda_scale(const sdk_tensor* x, double alpha, sdk_tensor** out) {
  if (sdk_tensor_device(x).type != SDK_CUDA)
    return sdk_set_last_error(SDK_ERROR_VALUE, "x must be a CUDA tensor");
  if (sdk_tensor_dtype(x) != SDK_FLOAT32 || !sdk_tensor_is_contiguous(x))
    return sdk_set_last_error(SDK_ERROR_TYPE, "x must be contiguous float32");
  sdk_status s = sdk_empty(sdk_tensor_ndim(x), sdk_tensor_sizes(x), SDK_FLOAT32,
                           sdk_tensor_device(x), out);
  if (s != SDK_OK) return s;
  int64_t n = sdk_tensor_numel(x);
  void* stream = nullptr;
  sdk_cuda_get_stream(sdk_tensor_device(x).index, &stream);
  scale_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      (const float*)sdk_tensor_data_ptr(x), (float*)sdk_tensor_data_ptr(*out), (float)alpha, n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return sdk_set_last_error(SDK_ERROR_RUNTIME, cudaGetErrorString(e));
  return SDK_OK;
}
"""


def _readelf_needed(path) -> list[str]:
    exe = shutil.which("readelf")
    if exe is None:
        pytest.skip("readelf (binutils) not found")
    out = subprocess.run([exe, "-d", str(path)], capture_output=True, text=True).stdout
    return [line.split("[")[1].split("]")[0] for line in out.splitlines() if "(NEEDED)" in line]


def test_backend_library_is_built_and_separate():
    require_nvcc()
    lib_dir = os.path.dirname(sdk.get_library_path())
    backend = os.path.join(lib_dir, "libsdk_cuda.so")
    assert os.path.isfile(backend), (
        "nvcc is here but sdk/lib/libsdk_cuda.so is missing: "
        "run `python setup.py build_ext --inplace`"
    )
    from sdk.utils import elf as _elf

    assert "sdk_cuda_backend_init" in _elf.ElfFile(backend).dynamic_symbols()
    needed = _readelf_needed(backend)
    assert any(n.startswith("libcudart.so") for n in needed)
    assert not any("cublas" in n for n in needed)  # cuBLAS is opened lazily, optional
    # CPU users need no CUDA library: the core itself links none
    core_needed = _readelf_needed(sdk.get_library_path())
    assert not any("cuda" in n for n in core_needed), core_needed


def test_the_build_records_its_toolkit_for_version_cuda():
    tk = require_nvcc()
    lib_dir = os.path.dirname(sdk.get_library_path())
    if not os.path.isfile(os.path.join(lib_dir, "libsdk_cuda.so")):
        pytest.skip("built without the CUDA backend (test_backend_library_is_built_and_separate)")
    record = os.path.join(lib_dir, "libsdk_cuda.version")
    assert os.path.isfile(record), "the backend has no build record: rebuild with setup.py"
    expected = f"{tk.version[0]}.{tk.version[1]}"
    with open(record) as f:
        assert f.read() == expected + "\n"
    proc = run_python(
        "import sdk.version, sdk.backends.cuda as b; print(sdk.version.cuda, b.is_built())"
    )
    assert proc.stdout.split() == [expected, "True"], proc.stderr


def test_load_cu_with_ctypes_bridge(cuda_env):
    require_nvcc()
    src = cuda_env / "scale.cu"
    src.write_text(SCALE_CU)
    proc = run_python(
        f"""
        import sdk, cpp_extension
        m = cpp_extension.load("cuda_scale_ext", [{str(src)!r}], is_python_module=False)
        try:
            m.cuda_scale(sdk.ones(4), 2.0)
        except ValueError as e:
            print("ERR", e)
        info = cpp_extension.last_load_info()
        print("BUILT", info["built"])
        print(open(info["build_directory"] + "/build.ninja").read())
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ERR cuda_scale(): x must be a CUDA tensor" in proc.stdout
    assert "BUILT True" in proc.stdout
    assert "nvcc" in proc.stdout


def _copy_example(tmp_path):
    dst = tmp_path / "lltm_cuda"
    shutil.copytree(LLTM_CUDA, dst, ignore=shutil.ignore_patterns("build", "*.so", "__pycache__"))
    return dst


CALL_WITH_CPU = """
import sdk, {module}
x = sdk.randn(2, 3)
try:
    {module}.forward(x, x, x, x, x)
except RuntimeError as e:
    print("ERR", e)
print("FUNCS", sorted(n for n in dir({module}) if not n.startswith("_")))
"""


def test_lltm_cuda_setup_py_build_ext(cuda_env):
    require_nvcc()
    src = _copy_example(cuda_env)
    proc = subprocess.run(
        [os.sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=900,
        env=subprocess_env(SDK_CUDA_ARCH_LIST=TEST_ARCH),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert list(src.glob("lltm_cuda*.so")), "no extension module was produced"
    ninja = next((src / "build").rglob("build.ninja")).read_text()
    assert "lltm_cuda_kernel.cu" in ninja and "nvcc" in ninja
    assert f"code=sm_{TEST_ARCH.replace('.', '')}" in ninja  # SDK_CUDA_ARCH_LIST honoured
    run = run_python(CALL_WITH_CPU.format(module="lltm_cuda"), cwd=src)
    assert run.returncode == 0, run.stderr
    assert "ERR input must be a CUDA tensor" in run.stdout
    assert "FUNCS ['backward', 'forward']" in run.stdout


def test_lltm_cuda_jit_load(cuda_env):
    require_nvcc()
    prelude = f"import sys\nsys.path.insert(0, {str(LLTM_CUDA)!r})\nfrom jit import lltm_cuda\n"
    proc = run_python(prelude + CALL_WITH_CPU.format(module="lltm_cuda"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "ERR input must be a CUDA tensor" in proc.stdout
    assert "FUNCS ['backward', 'forward']" in proc.stdout


RDC_DEVICE = """
// Defined here, called from kern.cu: needs relocatable device code and a device link.
__device__ float twice(float x) { return 2.0f * x; }
"""

RDC_KERNEL = r"""
#include <cuda_runtime.h>
#include <sdk/export.h>

extern __device__ float twice(float x);

__global__ void twice_kernel(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = twice(p[i]);
}

SDK_EXPORT(twice_inplace, "(Tensor x) -> ()")
sdk_status twice_inplace(const sdk_tensor* x) {
  if (sdk_tensor_device(x).type != SDK_CUDA)
    return sdk_set_last_error(SDK_ERROR_VALUE, "x must be a CUDA tensor");
  int n = (int)sdk_tensor_numel(x);
  twice_kernel<<<(n + 255) / 256, 256>>>((float*)sdk_tensor_data_ptr(x), n);
  return cudaGetLastError() == cudaSuccess ? SDK_OK
                                           : sdk_set_last_error(SDK_ERROR_RUNTIME, "launch failed");
}
"""


def test_load_dlink_relocatable_device_code(cuda_env):
    require_nvcc()
    (cuda_env / "dev.cu").write_text(RDC_DEVICE)
    (cuda_env / "kern.cu").write_text(RDC_KERNEL)
    sources = [str(cuda_env / "dev.cu"), str(cuda_env / "kern.cu")]
    code = f"""
        import sdk, cpp_extension
        m = cpp_extension.load("rdc_ext", {sources!r}, is_python_module=False, dlink=True)
        try:
            m.twice_inplace(sdk.ones(3))
        except ValueError as e:
            print("ERR", e)
        info = cpp_extension.last_load_info()
        print(open(info["build_directory"] + "/build.ninja").read())
        """
    proc = run_python(code)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "ERR twice_inplace(): x must be a CUDA tensor" in proc.stdout
    assert "-rdc=true" in proc.stdout and "-dlink" in proc.stdout and "dlink.o" in proc.stdout
    # without the device link the cross-file call cannot be built: a clear BuildError
    proc = run_python(
        f"""
        import cpp_extension
        try:
            cpp_extension.load("rdc_ext_no_dlink", {sources!r}, is_python_module=False)
        except cpp_extension.BuildError as e:
            print("BUILD-ERROR", str(e).splitlines()[0])
        """
    )
    assert "BUILD-ERROR" in proc.stdout, proc.stdout + proc.stderr


def test_load_honours_arch_list_and_ccbin(cuda_env, monkeypatch):
    require_nvcc()
    src = cuda_env / "scale.cu"
    src.write_text(SCALE_CU)
    proc = run_python(
        f"""
        import cpp_extension
        cpp_extension.load("arch_ext", [{str(src)!r}], is_python_module=False)
        info = cpp_extension.last_load_info()
        print(open(info["build_directory"] + "/build.ninja").read())
        """,
        SDK_CUDA_ARCH_LIST="8.0;9.0a",
        CXX="g++",
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "-gencode=arch=compute_80,code=sm_80" in proc.stdout
    assert "-gencode=arch=compute_90a,code=sm_90a" in proc.stdout
    assert "-ccbin" in proc.stdout


def test_setup_py_dlink(cuda_env):
    require_nvcc()
    (cuda_env / "dev.cu").write_text(RDC_DEVICE)
    (cuda_env / "kern.cu").write_text(RDC_KERNEL)
    (cuda_env / "setup.py").write_text(
        "from setuptools import setup\n"
        "from cpp_extension import BuildExtension, CUDAExtension\n"
        'setup(name="rdc_mod", ext_modules=[CUDAExtension("rdc_mod", ["dev.cu", "kern.cu"],'
        ' dlink=True)], cmdclass={"build_ext": BuildExtension})\n'
    )
    proc = subprocess.run(
        [os.sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=cuda_env,
        capture_output=True,
        text=True,
        timeout=900,
        env=subprocess_env(),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert list(cuda_env.glob("rdc_mod*.so"))
    ninja = next((cuda_env / "build").rglob("build.ninja")).read_text()
    assert "-rdc=true" in ninja and "-dlink" in ninja and "cudadevrt" in ninja
