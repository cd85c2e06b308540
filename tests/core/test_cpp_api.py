"""Builds and runs the C++ API checks: the plain C++ test program, a pybind11 module, nvcc."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from tests._compile_cache import run_compiler
from tests._support import (
    build_once,
    import_path,
    include_dir,
    lib_dir,
    run_folder,
    subprocess_env,
)

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = include_dir()
LIBDIR = lib_dir()
CORE_LIB = LIBDIR / "libsdk_core.so"
CPP = Path(__file__).resolve().parent / "cpp"

# The headers this API consists of; each must compile on its own.
CPP_API_HEADERS = [
    "acc_type.h",
    "accessor.h",
    "all.h",
    "all_extension.h",
    "array_ref.h",
    "composite.h",
    "composite_math.h",
    "complex.h",
    "device.h",
    "dispatch.h",
    "div_rtn.h",
    "dtype.h",
    "elementwise.h",
    "error.h",
    "expand_utils.h",
    "float8.h",
    "half.h",
    "layers.h",
    "layout.h",
    "linalg.h",
    "macros.h",
    "math.h",
    "op_table.h",
    "ops.h",
    "ops_data.h",
    "ops_struct.h",
    "options.h",
    "parallel.h",
    "sampling.h",
    "scalar.h",
    "scan.h",
    "scatter.h",
    "sort.h",
    "storage.h",
    "tensor.h",
    "tensor_base.h",
    "tensor_methods.h",
    "util.h",
]


def _cxx() -> str:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        pytest.skip("no C++ compiler (g++/c++) on PATH")
    return cxx


def _require_core() -> None:
    if not CORE_LIB.exists():
        pytest.skip(f"core library not built ({CORE_LIB}); run python setup.py build_ext --inplace")
    # The programs inherit SDK_BLAS_LIBRARY, which importing sdk sets where the core's own
    # search misses scipy-openblas32 (an editable install): without it a program's first
    # matmul fails, or passes only when an earlier test in the worker imported sdk.
    import sdk  # noqa: F401


def _run(cmd: list[str], cwd: Path | None = None, env: dict | None = None, timeout: int = 900):
    proc = run_compiler(cmd, cwd=cwd, env=env, timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(
            f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
            f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
        )
    return proc


# ---------------------------------------------------------------------------------------
# The plain C++ program (no Python)
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cpp_program(tmp_path_factory) -> Path:
    _require_core()

    def build(folder: Path) -> Path:
        exe = folder / "test_tensor_api"
        _run(
            [
                _cxx(),
                "-std=c++17",
                "-O1",
                "-Wall",
                "-Wextra",
                "-Werror",
                f"-I{INCLUDE}",
                str(CPP / "test_tensor_api.cpp"),
                "-o",
                str(exe),
                f"-L{LIBDIR}",
                "-lsdk_core",
                f"-Wl,-rpath,{LIBDIR}",
            ]
        )
        return exe

    return build_once(run_folder(tmp_path_factory, "cpp_api_program"), build)


def test_cpp_program_passes(cpp_program: Path) -> None:
    proc = subprocess.run([str(cpp_program)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout


def test_cpp_program_depends_on_c_abi_only(cpp_program: Path) -> None:
    # Everything the binary takes from the core must be an extern "C" sdk_* symbol: no
    # C++ symbol of the core may leak into an extension through the headers.
    nm = shutil.which("nm")
    if not nm:
        pytest.skip("nm not available")
    out = _run([nm, "-D", "--undefined-only", str(cpp_program)]).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    from_core = [n for n in names if "sdk" in n]
    assert from_core, out
    assert all(n.startswith("sdk_") for n in from_core), from_core


@pytest.mark.parametrize("header", CPP_API_HEADERS)
def test_header_compiles_alone(header: str, tmp_path: Path) -> None:
    src = tmp_path / "one.cpp"
    src.write_text(f"#include <sdk/{header}>\n#include <sdk/{header}>\n")
    _run(
        [
            _cxx(),
            "-std=c++17",
            "-fsyntax-only",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{INCLUDE}",
            str(src),
        ]
    )


def test_tensor_header_stays_light(tmp_path: Path) -> None:
    # Compile time is a feature: no iostreams, no <functional>, no <sstream>.
    src = tmp_path / "light.cpp"
    src.write_text("#include <sdk/tensor.h>\n")
    proc = _run([_cxx(), "-std=c++17", "-E", "-H", f"-I{INCLUDE}", str(src), "-o", os.devnull])
    included = {
        Path(line.lstrip(". ").strip()).name
        for line in proc.stderr.splitlines()
        if line.startswith(".")
    }
    for heavy in ("iostream", "ostream", "sstream", "functional", "regex", "Python.h"):
        assert heavy not in included, f"tensor.h pulls in <{heavy}>"


def test_tensor_header_is_valid_under_pedantic_clang_style_flags(tmp_path: Path) -> None:
    src = tmp_path / "strict.cpp"
    src.write_text(
        textwrap.dedent(
            """
            #include <sdk/tensor.h>
            sdk::Tensor f(const sdk::Tensor& x) {
              SDK_CHECK(x.dim() == 2, "got ", x.sizes());
              return SDK_DISPATCH_FLOATING_TYPES(x.scalar_type(), "f", [&] {
                return x * static_cast<double>(scalar_t(2));
              });
            }
            """
        )
    )
    _run(
        [
            _cxx(),
            "-std=c++17",
            "-fsyntax-only",
            "-Wall",
            "-Wextra",
            "-Wshadow",
            "-Werror",
            f"-I{INCLUDE}",
            str(src),
        ]
    )


# ---------------------------------------------------------------------------------------
# nvcc: the headers in CUDA translation units (compile only; no GPU here)
# ---------------------------------------------------------------------------------------


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for cand in ("/usr/local/bin/nvcc", "/usr/local/cuda/bin/nvcc"):
        if Path(cand).exists():
            return cand
    return None


def test_nvcc_compiles_kernels_using_accessors(tmp_path: Path) -> None:
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("nvcc not found")
    obj = tmp_path / "cuda_kernel.o"
    _run(
        [
            nvcc,
            "-std=c++17",
            "-x",
            "cu",
            f"-I{INCLUDE}",
            "-c",
            str(CPP / "cuda_kernel.cpp"),
            "-o",
            str(obj),
        ]
    )
    assert obj.stat().st_size > 0


@pytest.mark.parametrize("program", ["cuda_float8_kernel", "cuda_complex_kernel"])
def test_nvcc_compiles_device_code_of_the_dtype_headers(program: str, tmp_path: Path) -> None:
    # float8 conversions and complex arithmetic in kernels (no GPU here: compile only)
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("nvcc not found")
    obj = tmp_path / f"{program}.o"
    src = CPP / f"{program}.cpp"
    _run([nvcc, "-std=c++17", "-x", "cu", f"-I{INCLUDE}", "-c", str(src), "-o", str(obj)])
    assert obj.stat().st_size > 0


def test_nvcc_compiles_extension_header(tmp_path: Path) -> None:
    # CUDA extensions usually include the pybind11 header in their .cu files too.
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("nvcc not found")
    try:
        import pybind11
    except ImportError:
        pytest.skip("pybind11 not installed")
    src = tmp_path / "ext_cuda.cu"
    src.write_text(
        "#include <sdk/extension.h>\n"
        f'#include "{CPP / "cuda_kernel.cpp"}"\n'
        'PYBIND11_MODULE(ext_cuda, m) { m.def("scale_rows", &scale_rows_cuda); }\n'
    )
    obj = tmp_path / "ext_cuda.o"
    _run(
        [
            nvcc,
            "-std=c++17",
            "-Xcompiler",
            "-fPIC",
            f"-I{INCLUDE}",
            f"-I{pybind11.get_include()}",
            f"-I{sysconfig.get_paths()['include']}",
            "-c",
            str(src),
            "-o",
            str(obj),
        ]
    )
    assert obj.stat().st_size > 0


# ---------------------------------------------------------------------------------------
# The pybind11 module (extension.h)
# ---------------------------------------------------------------------------------------


def _python_env(extra_path: Path) -> dict:
    env = subprocess_env()
    env["PYTHONPATH"] = os.pathsep.join([str(extra_path), env["PYTHONPATH"]])
    return env


def _sdk_capsule_problem() -> str | None:
    probe = (
        "import sdk, sdk._C as c\n"
        "assert hasattr(c, '_PYTHON_API'), 'sdk._C has no _PYTHON_API capsule'\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=import_path(),
        capture_output=True,
        text=True,
        timeout=300,
        env=subprocess_env(),
    )
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["import sdk failed"])[-1]
    return None


@pytest.fixture(scope="module")
def ext_dir(tmp_path_factory) -> Path:
    _require_core()
    try:
        import pybind11
    except ImportError:
        pytest.skip("pybind11 not installed")
    problem = _sdk_capsule_problem()
    if problem:
        pytest.skip(f"sdk is not importable with its capsule yet: {problem}")

    def build(out: Path) -> Path:
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        base = [
            _cxx(),
            "-std=c++17",
            "-O1",
            "-shared",
            "-fPIC",
            "-fvisibility=hidden",
            "-Wall",
            "-Wextra",
            f"-I{INCLUDE}",
            f"-I{pybind11.get_include()}",
            f"-I{sysconfig.get_paths()['include']}",
            str(CPP / "ext_module.cpp"),
            f"-L{LIBDIR}",
            "-lsdk_core",
            f"-Wl,-rpath,{LIBDIR}",
        ]
        _run(base + ["-DSDK_EXTENSION_NAME=ext_module", "-o", str(out / f"ext_module{suffix}")])
        # The same module without the import hook: no translator, no import-time check.
        _run(
            base
            + [
                "-DSDK_EXTENSION_NAME=ext_plain",
                "-DSDK_NO_IMPORT_HOOK",
                "-o",
                str(out / f"ext_plain{suffix}"),
            ]
        )
        return out

    return build_once(run_folder(tmp_path_factory, "cpp_api_ext_module"), build)


def _run_python(ext_dir: Path, code: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ext_dir,
        capture_output=True,
        text=True,
        timeout=300,
        env=_python_env(ext_dir),
    )
    assert proc.returncode == 0, f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    return proc


def test_module_casts_tensors_both_ways(ext_dir: Path) -> None:
    _run_python(
        ext_dir,
        """
        import numpy as np
        import sdk
        import ext_module as m

        x = m.arange(6)
        assert isinstance(x, sdk.Tensor), type(x)
        np.testing.assert_array_equal(x.numpy(), np.arange(6.0))
        y = m.scale(x, 2.5)
        assert isinstance(y, sdk.Tensor)
        np.testing.assert_allclose(y.numpy(), np.arange(6.0) * 2.5)

        # numpy in, without a copy: the C++ side sees numpy's memory and writes into it.
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        assert m.data_address(a) == a.ctypes.data
        np.testing.assert_allclose(m.scale(a, 2.0).numpy(), a * 2)
        m.fill_inplace(a, 7.0)
        assert (a == 7.0).all()

        # std::vector and std::tuple results, std::optional arguments, undefined -> None.
        parts = m.split3(np.ones((2, 7)))
        assert isinstance(parts, list) and [p.numpy().shape for p in parts] == [(2, 3), (2, 3), (2, 1)]
        values, indices = m.max_dim(np.array([[1.0, 5.0, 2.0], [9.0, 0.0, 3.0]]), 1)
        np.testing.assert_array_equal(values.numpy(), [5.0, 9.0])
        np.testing.assert_array_equal(indices.numpy(), [1, 0])
        assert m.is_given(x) and not m.is_given(None) and not m.is_given()
        assert m.undefined() is None

        # Scalars keep their kind.
        assert m.scalar_roundtrip(3) == 3 and type(m.scalar_roundtrip(3)) is int
        assert type(m.scalar_roundtrip(2.5)) is float and m.scalar_roundtrip(True) is True
        assert m.add_scalar(np.arange(3), 1).numpy().dtype == np.int64
        assert m.add_scalar(np.arange(3), 0.5).numpy().dtype == np.float32

        # noconvert(): only sdk.Tensor, and unconvertible objects give pybind11's TypeError.
        m.scale_strict(x, 1.0)
        for bad in (lambda: m.scale_strict(a, 1.0), lambda: m.scale("text", 1.0)):
            try:
                bad()
            except TypeError as e:
                assert "incompatible function arguments" in str(e)
            else:
                raise AssertionError("expected TypeError")
        print("ok")
        """,
    )


def test_module_translates_errors_to_python_types(ext_dir: Path) -> None:
    _run_python(
        ext_dir,
        """
        import numpy as np
        import ext_module as m
        import sdk

        cases = {
            "check": (RuntimeError, "custom check failed with value 42"),
            "value": (sdk.InvalidArgumentError, "bad value"),
            "type": (TypeError, "expected scalar type float32 but found float64"),
            "index": (IndexError, "out of range"),
            "not_implemented": (NotImplementedError, "not here"),
            "std": (IndexError, "plain std exception"),
        }
        for kind, (exc, text) in cases.items():
            try:
                m.fail(kind)
            except exc as e:
                assert text in str(e), (kind, str(e))
                assert type(e) is exc, (kind, type(e))
            else:
                raise AssertionError(kind + " did not raise")
        # A core error: the op and the shapes are in the message.
        try:
            m.checked_mm(np.ones((2, 3)), np.ones((2, 3)))
        except RuntimeError as e:  # sdk.InvalidArgumentError: also a ValueError
            assert isinstance(e, ValueError)
            assert "mm" in str(e) and "2" in str(e) and "3" in str(e), str(e)
        else:
            raise AssertionError("mm of (2,3) @ (2,3) did not raise")
        print("ok")
        """,
    )


def test_module_without_translator_still_raises(ext_dir: Path) -> None:
    _run_python(
        ext_dir,
        """
        import ext_plain as m
        try:
            m.fail("value")
        except RuntimeError as e:
            assert "bad value" in str(e)
        else:
            raise AssertionError("no exception")
        print(m.scale(m.arange(2), 2.0).numpy())
        """,
    )


def test_module_import_fails_cleanly_without_sdk(ext_dir: Path) -> None:
    # The import hook fetches the capsule (and checks the ABI) at import, so a broken sdk
    # is an ImportError at `import ext_module`, not a crash or a late error.
    _run_python(
        ext_dir,
        """
        import sys
        sys.modules["sdk._C"] = None  # makes importing sdk._C fail
        try:
            import ext_module
        except ImportError as e:
            print("ImportError:", e)
        else:
            raise AssertionError("import succeeded without sdk._C")
        """,
    )
