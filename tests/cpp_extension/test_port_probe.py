"""The port's compile probe (cpp_extension/port/probe.py) and the rule that every rewrite
the porter makes names something the SDK has (port_map targets checked against the headers)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from cpp_extension.port import census as _port_census
from cpp_extension.port import main as _port
from cpp_extension.port import port_map
from cpp_extension.port import probe as _port_probe
from cpp_extension.port import sdk_names as _port_names
from cpp_extension.port.cxx import _Edits, port_cxx
from tests.cpp_extension.conftest import REPO, run_python

INCLUDE = str(REPO / "core" / "include")
needs_cxx = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")


@pytest.fixture(scope="module")
def headers():
    return _port_names.sdk_headers(INCLUDE)


@pytest.fixture
def probe_cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(root))
    monkeypatch.setenv("MAX_JOBS", "2")
    return root


# ---- reading compiler output -----------------------------------------------------------------

GCC = """\
In file included from src/op.cpp:3:
src/helper.h:4:12: error: 'tensor' is not a member of 'sdk'
src/op.cpp:9:5: error: 'class sdk::Tensor' has no member named 'foo_bar'
src/op.cpp:11:3: error: 'nothere' was not declared in this scope
src/op.cpp:12:8: error: 'Thing' in namespace 'sdk::cuda' does not name a type
src/op.cpp:2:10: fatal error: gen/config.h: No such file or directory
src/op.cpp:14:1: error: no matching function for call to 'f(int)'
src/op.cpp:14:1: note: candidate: 'void f()'
"""
CLANG = """\
src/op.cpp:5:9: error: no member named 'tensor' in namespace 'sdk'
src/op.cpp:6:7: error: no member named 'foo_bar' in 'sdk::Tensor'
src/op.cpp:7:3: error: use of undeclared identifier 'nothere'
src/op.cpp:1:10: fatal error: 'gen/config.h' file not found
"""
NVCC = """\
src/k.cu(3): error: namespace "sdk" has no member "nothere"
src/k.cu(4): error: class "sdk::Tensor" has no member "foo"
src/k.cu(5): error: identifier "blockSum" is undefined
"""


def _found(output: str, root: str = "/probe") -> list[tuple[str, int, str, str]]:
    return [(d.path, d.line, d.kind, d.name) for d in _port_probe.parse_errors(output, root, "x")]


def test_gcc_errors_become_names_at_their_lines():
    assert _found(GCC) == [
        ("src/helper.h", 4, "name", "sdk::tensor"),
        ("src/op.cpp", 9, "method", ".foo_bar()"),
        ("src/op.cpp", 11, "name", "nothere"),
        ("src/op.cpp", 12, "name", "sdk::cuda::Thing"),
        ("src/op.cpp", 2, "header", "gen/config.h"),
        ("src/op.cpp", 14, "compile", "no matching function for call to 'f(int)'"),
    ]


def test_clang_and_nvcc_errors_become_names():
    assert _found(CLANG) == [
        ("src/op.cpp", 5, "name", "sdk::tensor"),
        ("src/op.cpp", 6, "method", ".foo_bar()"),
        ("src/op.cpp", 7, "name", "nothere"),
        ("src/op.cpp", 1, "header", "gen/config.h"),
    ]
    assert _found(NVCC) == [
        ("src/k.cu", 3, "name", "sdk::nothere"),
        ("src/k.cu", 4, "method", ".foo()"),
        ("src/k.cu", 5, "name", "blockSum"),
    ]


def test_an_error_inside_an_sdk_header_is_put_where_the_project_led_there():
    output = (
        "In file included from /probe/src/op.cpp:1:\n"
        "/sdk/include/sdk/tensor.h: In instantiation of 'void g(T) [with T = int]':\n"
        "/probe/src/op.cpp:7:4:   required from here\n"
        "/sdk/include/sdk/tensor.h:30:5: error: static assertion failed: a tensor type\n"
    )
    assert _found(output) == [
        ("src/op.cpp", 7, "compile", "static assertion failed: a tensor type")
    ]


def test_line_map_follows_edits_that_add_lines():
    text = "a\nb\nc\nd\n"
    edits = _Edits()
    edits.add(2, 3, "B1\nB2\nB3", "x")  # line 2 becomes three lines
    edits.add(4, 6, "C", "x")  # "c\n" (line 3 and its newline) joined to line 4
    assert edits.apply(text) == "a\nB1\nB2\nB3\nCd\n"
    assert edits.line_map(text) == [1, 2, 2, 2, 3, 5]
    same = _Edits()
    same.add(0, 1, "A", "x")
    assert same.line_map(text) is None


# ---- the probe on a ported project ----------------------------------------------------------

OP = """\
#include <torch/extension.h>
#include <ATen/native/Foo.h>
#include "helper.h"

torch::Tensor f(torch::Tensor x) {
  x.foo_bar();
  return helper(x);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("f", &f); }
"""
HELPER = """\
#pragma once
#include <torch/types.h>

inline at::Tensor helper(const at::Tensor& x) {
  return x.sin().not_a_method();
}
"""


def _project(root, op: str = OP):
    (root / "csrc").mkdir(parents=True)
    (root / "csrc" / "op.cpp").write_text(op)
    (root / "csrc" / "helper.h").write_text(HELPER)
    return root


@needs_cxx
def test_probe_reports_what_the_scan_cannot_see_at_the_original_lines(tmp_path, probe_cache):
    src = _project(tmp_path / "ext")
    report = _port.port_paths([src], tmp_path / "out", include_dir=INCLUDE)
    scanned = {(m.path, m.line, m.name) for m in report.missing}
    assert scanned == {("csrc/op.cpp", 2, "ATen/native/Foo.h")}  # a pattern sees no more
    found = _port_probe.probe(report.cxx, report.line_maps, include_dir=INCLUDE)
    assert (found.units, found.compiled) == (1, 1)
    # the include left (and reported) is blanked in the probe's copy, so the rest is checked
    assert {(m.path, m.line, m.name) for m in found.missing} == {
        ("csrc/op.cpp", 6, ".foo_bar()"),
        ("csrc/helper.h", 5, ".not_a_method()"),
    }
    report.add_probe(found)
    assert [(m.path, m.line) for m in report.missing] == [  # by file, then line
        ("csrc/helper.h", 5),
        ("csrc/op.cpp", 2),
        ("csrc/op.cpp", 6),
    ]
    assert "compile probe: 1 translation units (0 from the cache)" in report.summary()

    again = _port_probe.probe(report.cxx, report.line_maps, include_dir=INCLUDE)
    assert again.compiled == 0 and again.missing == found.missing  # answered by the cache
    folder = probe_cache / "port" / "probe"
    assert len(list(folder.glob("*.json"))) == 1 and folder.stat().st_mode & 0o077 == 0
    changed = dict(report.cxx, **{"csrc/helper.h": report.cxx["csrc/helper.h"].replace(
        ".not_a_method()", "")})  # fmt: skip
    fixed = _port_probe.probe(changed, report.line_maps, include_dir=INCLUDE)
    assert fixed.compiled == 1, "a project header's change invalidates the units"
    assert {m.name for m in fixed.missing} == {".foo_bar()"}


@needs_cxx
def test_a_header_the_probe_cannot_find_is_a_note_not_a_missing_name(probe_cache):
    text = '#include <sdk/tensor.h>\n#include "generated/config.h"\nint x = nothing;\n'
    found = _port_probe.probe({"src/a.cpp": text}, include_dir=INCLUDE)
    assert found.missing == []
    assert any(
        n.startswith("src/a.cpp:2: generated/config.h was not found by the compile probe")
        and n.endswith("the rest of src/a.cpp was not checked")
        for n in found.notes
    ), found.notes


# a project header named like the C library's: the real build (-I of its root only) never
# takes it for <math.h>, so neither may the probe, which also sees every header folder
SHADOWING_PROJECT = {
    "lib/math.h": "#error the project's math.h was taken for the C library's\n",
    "lib/helper.h": "inline int helper() { return 1; }\n",
    "ops/op.cpp": '#include <math.h>\n#include "helper.h"\nint y = helper() + nothing_here;\n',
    "ops/k.cu": '#include <math.h>\n#include "helper.h"\n__global__ void k() { nothing_here; }\n',
}


@needs_cxx
def test_a_project_header_named_like_a_system_one_does_not_shadow_it(probe_cache):
    compilers = _port_probe.find_compilers(INCLUDE)
    sources = dict(SHADOWING_PROJECT)
    if compilers.nvcc is None:
        del sources["ops/k.cu"]
    found = _port_probe.probe(sources, compilers=compilers)
    expected = {(u, 3, "nothing_here") for u in sources if u.startswith("ops/")}
    assert {(m.path, m.line, m.name) for m in found.missing} == expected, found.missing


SETUP_PY = """
import os
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension, CppExtension

define_macros = [("MAX_ORDER", 6)]
args = {"cxx": ["-O3", "-DHAVE_ZLIB", "-DTILE=32"], "nvcc": ["-D__CUDA_NO_HALF_OPERATORS__"]}
if os.environ.get("FORCE_CUDA"):
    define_macros += [("WITH_CUDA", None)]
    Extension = CUDAExtension
else:
    define_macros.append(("WITH_HIP", None))  # a ROCm build: the SDK has none
    Extension = CppExtension
setup(ext_modules=[Extension("m", ["m.cpp"], define_macros=define_macros + [("NAME", "x")],
                             extra_compile_args=args, include_dirs=["a"])])
"""


def test_setup_py_macros_are_read_from_every_branch_but_rocm():
    assert _port_probe.setup_py_macros(SETUP_PY) == [
        "-DHAVE_ZLIB", "-DMAX_ORDER=6", "-DNAME=x", "-DTILE=32", "-DWITH_CUDA",
        "-D__CUDA_NO_HALF_OPERATORS__",
    ]  # fmt: skip
    assert _port_probe.setup_py_macros("setup(") == []  # not Python: nothing, no error


@needs_cxx
def test_code_under_the_build_s_macros_is_probed(tmp_path, probe_cache):
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "setup.py").write_text(SETUP_PY)
    (ext / "m.cpp").write_text(
        "#include <torch/extension.h>\n#ifdef WITH_CUDA\nvoid f(torch::Tensor x) { x.nope(); }\n"
        "#endif\n#if TILE != 32\n#error setup.py's -DTILE=32 is missing\n#endif\n"
    )
    report = _port.port_paths([ext], tmp_path / "out", include_dir=INCLUDE)
    assert "-DWITH_CUDA" in report.defines
    found = _port_probe.probe(report.cxx, report.line_maps, include_dir=INCLUDE,
                              defines=report.defines)  # fmt: skip
    assert [(m.path, m.line, m.name) for m in found.missing] == [("m.cpp", 3, ".nope()")]
    bare = _port_probe.probe(report.cxx, report.line_maps, include_dir=INCLUDE)
    assert bare.compiled == 1, "the macros are part of a unit's cache key"
    assert [m.name for m in bare.missing] != [".nope()"]


KERNEL = """\
#include <torch/extension.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = not_declared_here(x[i], a);
}

void launch(torch::Tensor x) {
  scale<<<1, 32>>>(x.data_ptr<float>(), 2.0f, x.numel());
  x.record_in_a_way_the_sdk_has_not();
}
"""


@needs_cxx
def test_probe_compiles_cuda_units_with_nvcc(tmp_path, probe_cache):
    compilers = _port_probe.find_compilers(INCLUDE)
    if compilers.nvcc is None:
        pytest.skip("no CUDA toolkit: .cu files are not probed")
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "k.cu").write_text(KERNEL)
    report = _port.port_paths([tmp_path / "ext"], tmp_path / "out", include_dir=INCLUDE)
    found = _port_probe.probe(report.cxx, report.line_maps, compilers=compilers)
    assert found.units == 1
    assert {(m.path, m.line, m.name) for m in found.missing} == {
        ("k.cu", 5, "not_declared_here"),
        ("k.cu", 10, ".record_in_a_way_the_sdk_has_not()"),
    }


@needs_cxx
def test_probe_maps_lines_of_a_port_that_added_some(probe_cache):
    text = "#include <sdk/tensor.h>\n\n\nvoid g(sdk::Tensor x) { x.nope(); }\n"
    # the ported file has two lines more than the original at its top: line 4 was line 2
    found = _port_probe.probe({"a.cpp": text}, {"a.cpp": [1, 1, 1, 2]}, include_dir=INCLUDE)
    assert [(m.path, m.line, m.name) for m in found.missing] == [("a.cpp", 2, ".nope()")]


@needs_cxx
def test_command_line_probe_strict_and_no_probe(tmp_path, probe_cache):
    src = _project(tmp_path / "ext", OP.replace("#include <ATen/native/Foo.h>\n", ""))
    out = tmp_path / "out"
    argv = ["port", str(src), "--out", str(out), "--json", "--strict"]
    code = "import sys; from cpp_extension.__main__ import main; sys.exit(main({}))"
    env = {"SDK_PORT_INCLUDE": INCLUDE, "SDK_EXTENSIONS_DIR": str(probe_cache)}
    probed = run_python(code.format(argv), check=False, **env)
    assert probed.returncode == 1, probed.stderr
    report = json.loads(probed.stdout)
    assert {(m["path"], m["line"], m["name"]) for m in report["missing"]} == {
        ("csrc/op.cpp", 5, ".foo_bar()"),
        ("csrc/helper.h", 5, ".not_a_method()"),
    }
    assert report["probe"]["units"] == 1
    skipped = run_python(code.format([*argv, "--no-probe"]), **env)
    assert json.loads(skipped.stdout)["missing"] == [] and skipped.returncode == 0
    nocxx = run_python(code.format([*argv[:-2]]), CXX="no-such-compiler-here", **env)
    assert "no C++ compiler found: the compile probe did not run" in nocxx.stdout


# ---- every rewrite names something that exists -------------------------------------------------


def test_every_include_macro_and_method_target_is_in_the_headers(headers):
    for target in {*port_map.INCLUDES.values(), *port_map.INCLUDE_PREFIXES.values()}:
        assert target in headers.headers, target
    for target in port_map.MACROS.values():
        assert target in headers.macros or target in port_map.BUILD_MACROS, target
    for target in port_map.TEMPLATE_METHOD_RENAMES.values():
        assert target in headers.names, target
    for target in port_map.NAMESPACES.values():
        assert target in _port_names.declared_names(
            (REPO / "core/include/sdk/tensor_base.h").read_text(), namespace_only=True
        )


def test_every_python_target_is_importable():
    from cpp_extension.port.sdk_names import python_has

    for target in port_map.PYTHON_MODULES.values():
        assert python_has(target), target


@needs_cxx
def test_every_cxx_target_compiles(probe_cache):
    """One unit that includes every header the porter writes and names every std:: target
    and every macro it writes (sdk/cuda.h and sdk/thc.h only with a CUDA toolkit, whose
    include folder they need)."""
    compilers = _port_probe.find_compilers(INCLUDE)
    targets = sorted({*port_map.INCLUDES.values(), *port_map.INCLUDE_PREFIXES.values()})
    if compilers.nvcc is None:  # these two need the toolkit's headers
        targets.remove("sdk/cuda.h")
        targets.remove("sdk/thc.h")
    text = "".join(f"#include <{h}>\n" for h in targets)
    text += "".join(f"using {name};\n" for name in port_map.STD_NAMES.values())
    macros = set(port_map.MACROS.values()) - set(port_map.BUILD_MACROS)
    if not any(Path(d, "cublas_v2.h").exists() for d in compilers.include_dirs):
        macros.discard("SDK_CUDABLAS_CHECK")  # as torch's: where cuBLAS is installed
    text += "".join(f"#ifndef {m}\n#error {m}\n#endif\n" for m in sorted(macros))
    found = _port_probe.probe({"all.cpp": text}, compilers=compilers)
    assert found.missing == []


SCOPES = """\
namespace sdk {
class TensorIndex { public: const Tensor& tensor() const; };
inline Tensor zeros(IntArrayRef size);
namespace autograd {
struct Node { Tensor Variable(int i); };
template <class T> struct Function { static Tensor apply(Tensor x); };
}  // namespace autograd
enum class DeviceType { CPU, CUDA };
inline void f() { Tensor List(3); }
}  // namespace sdk
"""


@pytest.fixture
def scoped(tmp_path, monkeypatch):
    """Headers where tensor, Variable and List are declared, but not at namespace scope."""
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "cache"))
    (tmp_path / "include" / "sdk").mkdir(parents=True)
    (tmp_path / "include" / "sdk" / "scopes.h").write_text(SCOPES)
    return _port_names.sdk_headers(str(tmp_path / "include"))


def test_a_member_or_local_is_not_taken_for_a_namespace_name(scoped, tmp_path):
    """sdk::tensor does not exist where only TensorIndex::tensor() does (the false positive of
    --coverage): torch::tensor is left as it is and reported, never rewritten to it."""
    assert {"tensor", "Variable", "List"} <= scoped.names
    assert not {"tensor", "Variable", "List"} & scoped.namespace_names
    assert scoped.namespaces == {"sdk", "autograd"}
    result = port_cxx(
        "auto t = torch::tensor({1, 0}); auto z = torch::zeros({2});\n", "a.cpp", scoped
    )
    assert result.text == "auto t = torch::tensor({1, 0}); auto z = sdk::zeros({2});\n"
    assert [(m.name, m.reason) for m in result.missing] == [
        ("torch::tensor", "no sdk::tensor in this SDK version")
    ]
    census = tmp_path / "census.json"
    census.write_text(
        json.dumps(
            {
                "format": _port_census.CENSUS_FORMAT,
                "repos": [{"repo": "a/b", "commit": "0" * 40}],
                "names": [
                    ["torch::tensor", "name", 2, 1, 0, 0, 1],
                    ["torch::zeros", "name", 3, 1, 0, 0, 1],
                ],
            }
        )
    )
    status = {r.name: r.status for r in _port.coverage(scoped.include_dir, str(census)).rows}
    assert status == {"torch::tensor": "missing", "torch::zeros": "counterpart"}


def test_real_world_rewrites_to_names_that_do_not_exist_are_left_and_reported(scoped):
    """Found porting real extensions: each was rewritten to an sdk:: name that does not
    exist, unreported, and failed to compile."""
    text = textwrap.dedent(
        """\
        using torch::autograd::Variable;
        torch::List<int64_t> sizes;
        auto g = torch::autograd::any_variable_requires_grad({x});
        auto n = at::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES;
        auto s = torch::autograd::Function<F>::apply(x); auto c = at::DeviceType::CUDA;
        """
    )
    result = port_cxx(text, "a.cpp", scoped)
    assert result.text == text.replace("torch::autograd::Function", "sdk::autograd::Function") \
        .replace("at::DeviceType::CUDA", "sdk::DeviceType::CUDA")  # fmt: skip
    assert [(m.line, m.name) for m in result.missing] == [
        (1, "torch::autograd::Variable"),
        (2, "torch::List"),
        (3, "torch::autograd::any_variable_requires_grad"),
        (4, "at::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES"),
    ]


def test_optional_becomes_std_and_register_operators_gets_op(headers):
    text = textwrap.dedent(
        """\
        c10::optional<at::Tensor> a = c10::nullopt;
        at::optional<int64_t> b = at::make_optional<int64_t>(1);
        static auto r = torch::RegisterOperators("ns::f", &f);
        static auto s = torch::RegisterOperators().op("ns::g", &g);
        """
    )
    result = port_cxx(text, "a.cpp", headers)
    assert result.text == textwrap.dedent(
        """\
        std::optional<sdk::Tensor> a = std::nullopt;
        std::optional<int64_t> b = std::make_optional<int64_t>(1);
        static auto r = sdk::RegisterOperators().op("ns::f", &f);
        static auto s = sdk::RegisterOperators().op("ns::g", &g);
        """
    )
    assert result.missing == []
    assert port_cxx(result.text, "a.cpp", headers).text == result.text
