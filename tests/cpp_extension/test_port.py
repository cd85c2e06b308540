"""`python -m cpp_extension port`: what it rewrites in C++ and Python, what it leaves alone,
what it reports, idempotence, the command line, and the README table it generates."""

from __future__ import annotations

import json
import textwrap

import pytest

from cpp_extension.port import main as _port
from cpp_extension.port import port_map
from cpp_extension.port import sdk_names as _port_names
from cpp_extension.port.cxx import port_cxx
from cpp_extension.port.python import port_python
from tests.cpp_extension.conftest import REPO, run_python

INCLUDE = str(REPO / "core" / "include")


@pytest.fixture(scope="module")
def headers():
    return _port_names.sdk_headers(INCLUDE)


def cxx(text: str, headers) -> tuple[str, list]:
    result = port_cxx(textwrap.dedent(text), "src/op.cpp", headers)
    return result.text, result.missing


def names(missing) -> list[str]:
    return [m.name for m in missing]


# ---- the header scan -------------------------------------------------------------------------


def test_header_scan_finds_functions_methods_types_macros(headers):
    for name in (
        "cat", "zeros_like", "empty", "Tensor", "TensorOptions", "kFloat", "Half", "irange",
        "DimVector", "acc_type", "parallel_for", "parallel_reduce", "RegisterOperators",
        "Library", "indexing", "Slice", "cuda", "OptionalCUDAGuard", "getCurrentCUDAStream",
        "CUDAEvent", "contiguous", "packed_accessor32", "sum", "neg_", "add_out", "tanh",
    ):  # fmt: skip
        assert name in headers.names, name
    for macro in ("SDK_CHECK", "SDK_DISPATCH_FLOATING_TYPES", "SDK_LIBRARY", "SDK_CHECK_EQ"):
        assert macro in headers.macros
    assert "sdk/tensor.h" in headers.headers and "sdk/extension.h" in headers.headers
    for absent in ("_cudnn_rnn", "torch", "c10", "SDK_NO_SUCH_MACRO"):
        assert absent not in headers.names and absent not in headers.macros


def test_header_scan_expands_x_macro_tables_across_headers(tmp_path, monkeypatch):
    # The names a table's rows generate through another header's helper macro (`kFloat` from
    # SDK_DTYPES and `k##Torch`) are declared as surely as written-out ones.
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "cache"))
    inc = tmp_path / "include"
    (inc / "sdk").mkdir(parents=True)
    (inc / "sdk" / "table.h").write_text(
        '#define MY_TYPES(X) \\\n  X(F32, 0, "float32", Float) \\\n  X(I64, 1, "int64", Long)\n'
    )
    (inc / "sdk" / "use.h").write_text(
        '#include "sdk/table.h"\n'
        "namespace sdk {\n"
        "#define KIND_ROW(NAME, code, name, Torch) Torch##Kind = code,\n"
        "enum class Kind { MY_TYPES(KIND_ROW) };\n"
        "#define CONST_ROW(NAME, code, ...) constexpr int k##NAME = code;\n"
        "MY_TYPES(CONST_ROW)\n"
        "}\n"
    )
    found = _port_names.sdk_headers(str(inc))
    for name in ("kF32", "kI64", "FloatKind", "LongKind"):
        assert name in found.names and name in found.namespace_names, name
    assert "kX" not in found.names and "kNAME" not in found.names
    rows = _port_names.x_macro_tables([(inc / "sdk" / "table.h").read_text()])["MY_TYPES"]
    assert [row.split(",")[0] for row in rows] == ["F32", "I64"]


def test_header_scan_follows_header_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "cache"))
    inc = tmp_path / "include"
    (inc / "sdk").mkdir(parents=True)
    header = inc / "sdk" / "extra.h"
    header.write_text("namespace sdk { inline Tensor cumsum_like(const Tensor& x); }\n")
    first = _port_names.sdk_headers(str(inc))
    assert "cumsum_like" in first.names and "sdk/extra.h" in first.headers
    assert list((tmp_path / "cache" / "port").glob("headers-*.json"))  # kept for the next run
    header.write_text("namespace sdk { inline Tensor sort_like(const Tensor& x, int d); }\n")
    second = _port_names.sdk_headers(str(inc))
    assert "sort_like" in second.names and "cumsum_like" not in second.names
    for cached in (tmp_path / "cache" / "port").glob("headers-*.json"):
        cached.write_text("not json")
    _port_names._scan.cache_clear()
    assert "sort_like" in _port_names.sdk_headers(str(inc)).names  # a bad cache is re-read


def test_declared_names_tells_declarations_from_calls():
    found = _port_names.declared_names(
        """
        inline Tensor scaled(const Tensor& x) { return helper(x) * other(x); }
        const Tensor& Tensor::clamp_(Scalar lo) const { auto y = made(1); y.method(2); }
        std::vector<int> listed(int n);
        template <typename T> T* pointer_to(T& v);
        // Tensor commented(int);
        enum class Mode { Fast, Slow = 2 };
        """
    )
    assert {"scaled", "clamp_", "listed", "pointer_to", "Mode", "Fast", "Slow"} <= found
    assert not {"helper", "other", "made", "method", "commented"} & found


def test_names_declared_through_macros_are_found(headers):
    # math.h declares mm_out and matmul_out with `name##_out` inside a macro
    assert {"mm_out", "matmul_out", "bmm_out"} <= headers.namespace_names
    code = _port_names.expand_declaring_macros(
        """
        #define DEFINE_PAIR(name, cfunc) \\
          inline Tensor name(const Tensor& x) { return cfunc(x, #name); } \\
          inline Tensor& name##_out(Tensor& out, const Tensor& x) { return out; }
        namespace sdk {
        DEFINE_PAIR(twice, sdk_twice)
        struct Options {
        #define FIELD(T, name) inline T name() const { return name##_; } T name##_
          FIELD(bool, sparse_grad) = false;
        };
        }
        """
    )
    every, at_namespace = _port_names.declarations(code)
    assert {"twice", "twice_out"} <= at_namespace
    assert "sparse_grad" in every and "sparse_grad" not in at_namespace  # a member stays one


# ---- C++ rewrites ----------------------------------------------------------------------------


def test_includes_namespaces_and_macros_are_rewritten(headers):
    text, missing = cxx(
        """
        #include <torch/extension.h>
        #include "ATen/Parallel.h"
        #  include <c10/util/irange.h>
        #include <vector>
        using namespace at;
        torch::Tensor f(const at::Tensor& x, c10::optional<double> s) {
          TORCH_CHECK(x.dim() == 2, "x: ", x.sizes());
          AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "f", [&] {});
          for (const auto i : c10::irange(3)) { (void)i; }
          return ::at::zeros_like(x).to(torch::kFloat32);
        }
        PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("f", &f); }
        """,
        headers,
    )
    assert missing == []
    assert text == textwrap.dedent(
        """
        #include <sdk/extension.h>
        #include "sdk/parallel.h"
        #  include <sdk/util.h>
        #include <vector>
        using namespace sdk;
        sdk::Tensor f(const sdk::Tensor& x, std::optional<double> s) {
          SDK_CHECK(x.dim() == 2, "x: ", x.sizes());
          SDK_DISPATCH_FLOATING_TYPES(x.scalar_type(), "f", [&] {});
          for (const auto i : sdk::irange(3)) { (void)i; }
          return ::sdk::zeros_like(x).to(sdk::kFloat32);
        }
        PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("f", &f); }
        """
    )


def test_a_macro_parameter_after_torch_namespace_is_not_a_missing_name(headers):
    # `torch::dt` in a checking macro names whatever dtype the caller passes; the same
    # spelling outside the macro, or a name that is no parameter, is still judged
    text, missing = cxx(
        """
        #define CHECK_DTYPE(x, dt) TORCH_CHECK((x).dtype() == torch::dt, #x " must be " #dt)
        #define CHECK_SHAPE(x, dt) \\
          TORCH_CHECK((x).dim() == 2 && (x).dtype() == at::dt, #x)
        #define CHECK_OTHER(x) TORCH_CHECK((x).dtype() == torch::dt, #x)
        void f(const torch::Tensor& a) { CHECK_DTYPE(a, kHalf); auto y = torch::dt; }
        """,
        headers,
    )
    assert '(x).dtype() == sdk::dt, #x " must be "' in text
    assert "CHECK_OTHER(x) SDK_CHECK((x).dtype() == torch::dt, #x)" in text
    assert "auto y = torch::dt;" in text
    assert "(x).dim() == 2 && (x).dtype() == sdk::dt" in text  # a continued body line
    assert [(m.name, m.line) for m in missing] == [("torch::dt", 5), ("torch::dt", 6)]


def test_comments_strings_and_other_namespaces_are_left_alone(headers):
    source = """
        // at::Tensor and TORCH_CHECK in a comment
        /* torch::zeros
           #include <torch/extension.h> */
        namespace flat { namespace at { int v; } int at; }
        const char* s = "torch::Tensor at::x TORCH_CHECK";
        const char* r = R"raw(c10::optional "quoted" )raw";
        char c = 'a';
        int big = 1'000'000;
        int k = flat::at + flat::at::v + std::vector<int>{}.at(0);
        #define MY_AT_THING 1
        int TORCH_like = 0;
        """
    text, missing = cxx(source, headers)
    assert text == textwrap.dedent(source)
    assert missing == []


def test_undefined_macros_and_unknown_headers_are_reported_not_dropped(headers):
    text, missing = cxx(
        """
        #include <ATen/native/TensorIterator.h>
        #include <ATen/some/new/Header.h>
        #include <torch/autograd.h>
        TORCH_NO_SUCH_MACRO(x);
        """,
        headers,
    )
    assert "#include <ATen/native/TensorIterator.h>" in text  # kept, not silently dropped
    assert "TORCH_NO_SUCH_MACRO(x)" in text
    by_name = {m.name: m for m in missing}
    assert by_name["ATen/native/TensorIterator.h"].line == 2
    assert "internal kernels" in by_name["ATen/native/TensorIterator.h"].reason
    assert by_name["ATen/some/new/Header.h"].kind == "header"
    assert (
        by_name["TORCH_NO_SUCH_MACRO"].kind == "macro" and by_name["TORCH_NO_SUCH_MACRO"].line == 5
    )
    if "sdk/autograd.h" in headers.headers:
        assert "#include <sdk/autograd.h>" in text
    else:
        assert (
            "torch/autograd.h" in by_name
            and "not in this SDK" in by_name["torch/autograd.h"].reason
        )


def test_missing_functions_namespaces_and_methods_reported_with_lines(headers):
    text, missing = cxx(
        """
        at::Tensor f(const at::Tensor& x) {
          auto a = at::_cudnn_rnn(x);
          auto b = torch::jit::load("m.pt");
          auto c = x._fancy_method(1);
          auto d = x.cumsum(0).sort(1);
          std::vector<int> v; v.size(); v.clear();
          return x.contiguous();
        }
        """,
        headers,
    )
    # a name the SDK lacks is left as it is (never rewritten to one that does not exist)
    assert "at::_cudnn_rnn(x)" in text and "torch::jit::load" in text
    found = {(m.name, m.line) for m in missing}
    assert ("at::_cudnn_rnn", 3) in found
    assert ("torch::jit", 4) in found
    expected_methods = {n for n in ("cumsum", "sort") if n not in headers.names}
    assert {n for n, _ in found if n.startswith(".")} == {f".{n}()" for n in expected_methods}
    assert all(line == 6 for n, line in found if n.startswith("."))


def test_own_functions_are_not_reported_as_missing_methods(headers):
    _, missing = cxx(
        """
        struct Acc { int cumsum(int v) { return v; } };
        int g(Acc a) { return a.cumsum(1); }
        """,
        headers,
    )
    assert missing == []


def test_a_projects_own_torch_named_macros_are_its_own(tmp_path, headers):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "dispatch_utils.h").write_text(
        "#define AT_DISPATCH_CASE_MY_TYPES(...) AT_DISPATCH_CASE(at::kFloat, __VA_ARGS__)\n"
    )
    (src / "op.cpp").write_text(
        '#include "dispatch_utils.h"\n'
        'void f(at::Tensor x) { AT_DISPATCH_SWITCH(x.scalar_type(), "f", '
        "AT_DISPATCH_CASE_MY_TYPES([&] {})); }\n"
    )
    out = tmp_path / "out"
    report = _port.port_paths([src], out, include_dir=INCLUDE)
    assert report.missing == []
    assert (out / "dispatch_utils.h").read_text() == (
        "#define AT_DISPATCH_CASE_MY_TYPES(...) SDK_DISPATCH_CASE(sdk::kFloat, __VA_ARGS__)\n"
    )
    assert "SDK_DISPATCH_SWITCH(" in (out / "op.cpp").read_text()
    assert "AT_DISPATCH_CASE_MY_TYPES([&] {})" in (out / "op.cpp").read_text()


def test_reopened_torch_namespaces_become_ours(headers):
    text, missing = cxx(
        "namespace at { namespace native {\nTensor my_kernel(const Tensor& x);\n} }\n"
        "namespace c10::cuda { void f(); }\nnamespace atlas { int v; }\n",
        headers,
    )
    assert text == (
        "namespace sdk { namespace native {\nTensor my_kernel(const Tensor& x);\n} }\n"
        "namespace sdk::cuda { void f(); }\nnamespace atlas { int v; }\n"
    )


def test_deprecated_data_template_becomes_data_ptr(headers):
    text, _ = cxx("float* p = x.data<float>(); auto q = y->data <double>(); v.data();", headers)
    assert text == "float* p = x.data_ptr<float>(); auto q = y->data_ptr <double>(); v.data();"


def test_porting_twice_is_porting_once(headers):
    source = """
        #include <torch/extension.h>
        #include <ATen/native/Foo.h>
        using namespace torch;
        at::Tensor f(at::Tensor x) { TORCH_CHECK(true); AT_ERROR("no"); return at::cumsum(x, 0); }
        """
    once, missing_once = cxx(source, headers)
    twice, missing_twice = cxx(once, headers)
    assert once == twice
    assert names(missing_once) == names(missing_twice)


def test_every_explicit_macro_target_exists(headers):
    for torch_name, ours in port_map.MACROS.items():
        assert ours in headers.macros or ours in port_map.BUILD_MACROS, (torch_name, ours)
    for target in {*port_map.INCLUDES.values(), *port_map.INCLUDE_PREFIXES.values()}:
        assert target.startswith("sdk/") and target.endswith(".h"), target


# ---- Python rewrites -------------------------------------------------------------------------


def py(text: str, path: str = "pkg/mod.py") -> tuple[str, list]:
    result = port_python(textwrap.dedent(text), path)
    return result.text, result.missing


def test_python_imports_and_names():
    text, missing = py(
        """
        import torch
        from torch.utils.cpp_extension import load, BuildExtension
        import torch.utils.cpp_extension as ce

        x = torch.zeros(3, dtype=torch.float32)
        y = torch.ops.myns.myop(x)  # torch.ops in a comment
        torch.library.register_autograd("myns::myop", lambda ctx, g: g)
        s = "torch.zeros stays in a string"
        m = load("m", ["m.cpp"]); p = ce.include_paths()
        """
    )
    assert missing == []
    assert text == textwrap.dedent(
        """
        import sdk
        from cpp_extension import load, BuildExtension
        import cpp_extension as ce

        x = sdk.zeros(3, dtype=sdk.float32)
        y = sdk.ops.myns.myop(x)  # torch.ops in a comment
        sdk.library.register_autograd("myns::myop", lambda ctx, g: g)
        s = "torch.zeros stays in a string"
        m = load("m", ["m.cpp"]); p = ce.include_paths()
        """
    )


def test_python_names_without_counterpart_keep_torch_imported():
    source = """
        import os
        import torch

        def f(x):
            a = torch.zeros(2)
            return torch.no_such_function(x), torch.nn.NoSuchLayer, a
        """
    text, missing = py(source)
    assert "import torch\nimport sdk\n" in text  # torch still needed, sdk added once
    assert "a = sdk.zeros(2)" in text and "torch.no_such_function(x)" in text
    assert [(m.name, m.line) for m in missing] == [
        ("torch.no_such_function", 7),
        ("torch.nn.NoSuchLayer", 7),
    ]
    again, _ = py(text)
    assert again == text


def test_setup_py_version_and_config_checks_port_without_torch():
    # setup.py files branch on torch.version.hip and search parallel_info() for OpenMP
    text, missing = py(
        """
        import torch
        from torch.__config__ import parallel_info
        from torch.utils.cpp_extension import CUDA_HOME, CppExtension

        WITH_CUDA = CUDA_HOME is not None or torch.version.hip
        if "backend: OpenMP" in parallel_info():
            extra = ["-fopenmp"]
        print(torch.version.cuda)
        """,
        "setup.py",
    )
    assert missing == []
    assert "from sdk.__config__ import parallel_info" in text
    assert "WITH_CUDA = CUDA_HOME is not None or sdk.version.hip" in text
    assert "print(sdk.version.cuda)" in text


def test_setup_py_abi_flag_mps_check_and_jit_glue_port():
    # the three names real packages' setup.py and Python glue use beside their extension
    text, missing = py(
        """
        import torch

        ABI = f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"
        DEVICE = "mps" if torch.backends.mps.is_available() else "cpu"

        @torch.jit._overload
        def fps(src, ratio=None):
            pass

        @torch.jit.script
        def fps(src: torch.Tensor, ratio: float = 0.5) -> torch.Tensor:
            if torch.jit.is_scripting():
                return src
            return src * ratio
        """,
        "setup.py",
    )
    assert missing == []
    assert "int(sdk._C._GLIBCXX_USE_CXX11_ABI)" in text
    assert "@sdk.jit._overload" in text and "@sdk.jit.script" in text
    assert "sdk.backends.mps.is_available()" in text


def test_names_in_f_string_fields_are_ported_or_keep_torch_imported():
    # before Python 3.12 an f-string is one token; its fields are code all the same
    text, missing = py(
        """
        import torch
        flags = [f"-DV={torch.version.hip!r:>8} {{torch.literal}} {torch.ones(1)[0]}"]
        """,
        "setup.py",
    )
    assert missing == [] and "import sdk\n" in text and "import torch" not in text
    assert "{sdk.version.hip!r:>8} {{torch.literal}} {sdk.ones(1)[0]}" in text
    text, missing = py('import torch\nx = f"{torch.no_such_thing(2)}"\n', "a.py")
    assert [m.name for m in missing] == ["torch.no_such_thing"]
    assert text.startswith("import torch\n")  # still needed by the field


def test_python_aliases_rewritten_only_when_every_use_maps():
    text, missing = py(
        """
        from torch import nn
        import torch.nn.functional as F
        from torch.autograd import Function, NoSuchThing

        class M(nn.Module):
            pass
        y = F.relu
        """
    )
    assert "from sdk import nn" in text and "import sdk.nn.functional as F" in text
    # the name that maps is imported from the SDK; the one that does not stays torch's
    assert "from sdk.autograd import Function\nfrom torch.autograd import NoSuchThing\n" in text
    assert [m.name for m in missing] == ["torch.autograd.NoSuchThing"]
    assert py(text)[0] == text


def test_python_from_imports_of_modules_and_split_names():
    text, missing = py(
        """
        from torch.utils import cpp_extension
        from torch.utils import cpp_extension as ce
        if True:
            from torch.utils.cpp_extension import (
                load,
                CUDA_HOME as cuda_home,
            )
        m = cpp_extension.load("m", ["m.cpp"]); p = ce.include_paths()
        """
    )
    assert missing == []
    assert text == textwrap.dedent(
        """
        import cpp_extension
        import cpp_extension as ce
        if True:
            from cpp_extension import (
                load,
                CUDA_HOME as cuda_home,
            )
        m = cpp_extension.load("m", ["m.cpp"]); p = ce.include_paths()
        """
    )
    assert py(text)[0] == text


def test_python_glue_of_a_package_has_no_torch_left(tmp_path):
    """setup.py, __init__.py and a wrapper module of a typical torch extension package: every
    torch import becomes the SDK's (the extension needs the SDK loaded, as it needed torch)."""
    src = tmp_path / "pkg"
    (src / "my_ops").mkdir(parents=True)
    (src / "setup.py").write_text(textwrap.dedent(
        """
        import torch
        from setuptools import setup
        from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension, CUDA_HOME

        ext = CUDAExtension if torch.cuda.is_available() and CUDA_HOME else CppExtension
        setup(name="my_ops", ext_modules=[ext("my_ops._C", ["csrc/op.cpp"])],
              cmdclass={"build_ext": BuildExtension})
        """
    ))  # fmt: skip
    (src / "my_ops" / "__init__.py").write_text("import torch\nfrom . import _C\n")
    (src / "my_ops" / "ops.py").write_text(textwrap.dedent(
        """
        import torch
        from torch import Tensor
        from torch.autograd import Function

        class Scale(Function):
            @staticmethod
            def forward(ctx, x: Tensor) -> Tensor:
                return torch.ops.my_ops.scale(x)
        """
    ))  # fmt: skip
    out = tmp_path / "out"
    report = _port.port_paths([src], out)
    assert report.missing == []
    for rel in ("setup.py", "my_ops/__init__.py", "my_ops/ops.py"):
        text = (out / rel).read_text()
        assert "torch" not in text, (rel, text)
    assert (
        "from cpp_extension import BuildExtension, CppExtension, CUDAExtension, CUDA_HOME"
        in (out / "setup.py").read_text()
    )
    assert (out / "my_ops" / "__init__.py").read_text() == "import sdk\nfrom . import _C\n"


def test_setup_py_dependency_and_cxx_in_strings_are_reported():
    text, missing = py(
        """
        from setuptools import setup
        from torch.utils.cpp_extension import CppExtension, BuildExtension
        SRC = '''
        #include <torch/extension.h>
        torch::Tensor f(torch::Tensor x) { return x; }
        '''
        setup(name="x", install_requires=["torch>=2.1", "numpy"],
              ext_modules=[CppExtension("x", ["x.cpp"])], cmdclass={"build_ext": BuildExtension})
        """,
        "setup.py",
    )
    assert "from cpp_extension import CppExtension, BuildExtension" in text
    kinds = {(m.kind, m.line) for m in missing}
    assert ("string", 4) in kinds and ("dependency", 8) in kinds


def test_cxx_in_python_strings_reported_or_ported_on_request(headers):
    source = textwrap.dedent(
        """
        from torch.utils.cpp_extension import load_inline
        CPP = r'''
        #include <torch/extension.h>
        at::Tensor f(at::Tensor x) { return at::_nope(x); }
        '''
        DOC = "torch::Tensor is mentioned here without code"
        """
    )
    left = port_python(source, "m.py")
    assert [(m.kind, m.line, m.name) for m in left.missing] == [
        ("string", 3, "#include <torch/extension.h>")
    ]
    assert "#include <torch/extension.h>" in left.text
    ported = port_python(source, "m.py", headers)
    assert "#include <sdk/extension.h>\nsdk::Tensor f(sdk::Tensor x) { return at::_nope(x); }" in (
        ported.text
    )
    assert [(m.line, m.name) for m in ported.missing] == [(5, "at::_nope")]
    assert 'DOC = "torch::Tensor is mentioned here without code"' in ported.text
    assert port_python(ported.text, "m.py", headers).text == ported.text


def test_invalid_python_is_reported_and_left_alone():
    text, missing = py("def broken(:\n    import torch\n")
    assert text == "def broken(:\n    import torch\n"
    assert missing and "not valid Python" in missing[0].reason


# ---- files, folders and the command line -----------------------------------------------------

EXT_CPP = """#include <torch/extension.h>
at::Tensor twice(const at::Tensor& x) { return x * 2; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("twice", &twice); }
"""


def _project(tmp_path):
    src = tmp_path / "proj"
    (src / "csrc").mkdir(parents=True)
    (src / "csrc" / "ext.cpp").write_text(EXT_CPP)
    (src / "csrc" / "kernel.cuh").write_text("#include <ATen/ATen.h>\n")
    (src / "setup.py").write_text("from torch.utils.cpp_extension import BuildExtension\n")
    (src / "README.txt").write_text("torch::Tensor in prose stays\n")
    (src / "build").mkdir()
    (src / "build" / "junk.cpp").write_text("at::Tensor junk;\n")
    return src


def test_port_folder_to_out_keeps_layout_and_copies_other_files(tmp_path, headers):
    src = _project(tmp_path)
    out = tmp_path / "out"
    report = _port.port_paths([src], out, include_dir=INCLUDE)
    assert (out / "csrc" / "ext.cpp").read_text().startswith("#include <sdk/extension.h>")
    assert (out / "csrc" / "kernel.cuh").read_text() == "#include <sdk/all.h>\n"
    assert (out / "setup.py").read_text() == "from cpp_extension import BuildExtension\n"
    assert (out / "README.txt").read_text() == "torch::Tensor in prose stays\n"
    assert not (out / "build").exists()  # build folders are not sources
    assert sorted(report.changed) == ["csrc/ext.cpp", "csrc/kernel.cuh", "setup.py"]
    assert report.rewrites["include"] == 2 and report.rewrites["python"] == 1
    assert (src / "csrc" / "ext.cpp").read_text() == EXT_CPP  # sources untouched
    summary = report.summary()
    assert "ported 4 files, 3 changed" in summary and "no SDK counterpart: none" in summary


def test_port_in_place_twice_changes_nothing_the_second_time(tmp_path):
    src = _project(tmp_path)
    first = _port.port_paths([src], in_place=True, include_dir=INCLUDE)
    snapshot = {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}
    second = _port.port_paths([src], in_place=True, include_dir=INCLUDE)
    assert len(first.changed) == 3 and second.changed == []
    assert snapshot == {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}


def test_port_single_files(tmp_path):
    src = _project(tmp_path)
    out = tmp_path / "out"
    _port.port_paths([src / "csrc" / "ext.cpp", src / "setup.py"], out, include_dir=INCLUDE)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "csrc/ext.cpp",
        "setup.py",
    ]


def test_bad_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        _port.port_paths([tmp_path / "nope"], tmp_path / "out")
    with pytest.raises(ValueError, match="exactly one of"):
        _port.port_paths([tmp_path], None)
    with pytest.raises(ValueError, match="is a source"):
        _port.port_paths([tmp_path], tmp_path)


def test_command_line(tmp_path):
    src = _project(tmp_path)
    (src / "csrc" / "more.cpp").write_text("#include <torch/extension.h>\nauto y = at::_nope(1);\n")
    out = tmp_path / "out"
    proc = run_python(
        f"import sys; from cpp_extension.__main__ import main; "
        f"sys.exit(main(['port', {str(src)!r}, '--out', {str(out)!r}, '--json', '--no-probe']))"
    )
    report = json.loads(proc.stdout)
    assert {f["path"] for f in report["files"]} >= {"csrc/ext.cpp", "csrc/more.cpp", "setup.py"}
    assert [(m["path"], m["line"], m["name"]) for m in report["missing"]] == [
        ("csrc/more.cpp", 2, "at::_nope")
    ]
    strict = run_python(
        f"import sys; from cpp_extension.__main__ import main; "
        f"sys.exit(main(['port', {str(src)!r}, '--out', {str(out)!r}, '--strict', '--no-probe']))",
        check=False,
    )
    assert strict.returncode == 1 and "csrc/more.cpp:2: at::_nope" in strict.stdout
    usage = run_python(
        "import sys; from cpp_extension.__main__ import main; sys.exit(main(['port', 'x']))",
        check=False,
    )
    assert usage.returncode == 2 and "--out DIR or --in-place" in usage.stderr


def test_torch_stream_logging_ports_to_the_prefixed_macros(headers):
    text, missing = cxx(
        """\
        #include <c10/util/Logging.h>
        void f(bool verbose, int n) {
          LOG_IF(INFO, verbose) << "n = " << n;
          if (n < 0) LOG(WARNING) << "negative";
          c10::ShowLogInfoToStderr();
        }
        """,
        headers,
    )
    assert missing == []
    assert "#include <sdk/logging.h>" in text
    assert 'SDK_LOG_IF(INFO, verbose) << "n = "' in text and "SDK_LOG(WARNING)" in text
    assert "sdk::ShowLogInfoToStderr();" in text
    # a project's own LOG macro is the project's
    own, missing = cxx("#define LOG(x) x\nint y = LOG(1);\n", headers)
    assert "SDK_LOG" not in own and missing == []


# ---- the README table ------------------------------------------------------------------------


def test_readme_table_is_generated_from_the_mapping():
    text = (REPO / "README.md").read_text()
    begin = text.index(_port.TABLE_BEGIN) + len(_port.TABLE_BEGIN)
    end = text.index(_port.TABLE_END)
    assert text[begin:end].strip() == _port.port_table(), (
        "README's porting table is stale: run python -m cpp_extension port --table README.md"
    )


def test_table_lists_every_mapping_entry():
    table = _port.port_table()
    for key in (*port_map.INCLUDES, *port_map.MACROS, *port_map.NAMESPACES):
        assert key in table, key


def test_update_readme_rewrites_between_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{_port.TABLE_BEGIN}\nold\n{_port.TABLE_END}\nafter\n")
    assert _port.update_readme(readme) is True
    assert _port.update_readme(readme) is False
    text = readme.read_text()
    assert text.startswith("intro\n") and text.endswith(f"{_port.TABLE_END}\nafter\n")
    assert "old" not in text and "| torch | here |" in text
    (tmp_path / "bare.md").write_text("no markers\n")
    with pytest.raises(ValueError, match="markers"):
        _port.update_readme(tmp_path / "bare.md")
