"""sdk.version and sdk.__config__: the torch.version / torch.__config__ names that setup.py
files read, answered for the SDK."""

import os

import sdk
from tests._support import run_python


def test_version_names_the_package_and_no_rocm():
    assert sdk.version.__version__ == sdk.__version__
    assert sdk.version.hip is None and sdk.version.debug is False
    assert sdk.version.cuda is None or sdk.version.cuda.count(".") == 1  # see tests/cuda


def test_parallel_info_reports_threads_and_never_openmp():
    info = sdk.parallel_info()
    text = sdk.__config__.parallel_info()
    assert f"sdk.get_num_threads() : {info['num_threads']}\n" in text
    assert "backend: native thread pool" in text and "OpenMP" not in text
    shown = os.environ.get("OMP_NUM_THREADS", "[not set]")
    assert f"\tOMP_NUM_THREADS : {shown}\n" in text


def test_parallel_info_follows_set_num_threads_and_the_environment():
    out = run_python(
        "import sdk; sdk.set_num_threads(3); print(sdk.__config__.parallel_info())",
        check=True,
        OMP_NUM_THREADS="5",
    ).stdout
    assert "sdk.get_num_threads() : 3\n" in out and "\tOMP_NUM_THREADS : 5\n" in out


def test_show_names_the_versions_and_the_cuda_backend():
    text = sdk.__config__.show()
    major, minor = sdk.abi_version()
    assert text.startswith(f"SDK {sdk.__version__}, C ABI {major}.{minor}\n")
    assert ("CUDA: available" in text) == sdk.cuda.is_available()


def test_cxx11_abi_flag_is_the_binding_s_own():
    # setup.py files pass torch._C._GLIBCXX_USE_CXX11_ABI on as a -D flag: here it is the
    # std::string ABI the binding was compiled with, the compiler's default for setup.py.
    import shutil
    import subprocess

    flag = sdk._C._GLIBCXX_USE_CXX11_ABI
    assert flag in (True, False)
    cxx = shutil.which("c++")
    if cxx:
        macros = subprocess.run([cxx, "-x", "c++", "-dM", "-E", "-"], input="#include <string>\n",
                                capture_output=True, text=True, check=True).stdout  # fmt: skip
        assert ("#define _GLIBCXX_USE_CXX11_ABI 1" in macros) == flag


def test_mps_is_never_available():
    assert sdk.backends.mps.is_available() is False and sdk.backends.mps.is_built() is False
    pick = "mps" if sdk.backends.mps.is_available() else "cpu"
    assert sdk.ones(1, device=pick).device.type == "cpu"
