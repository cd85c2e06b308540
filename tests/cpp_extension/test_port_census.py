"""The census of torch names real extensions use: the committed file, the counting of a folder
of sources, and `port --coverage` computed from the census."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from cpp_extension.port import census as _port_census
from cpp_extension.port import main as _port
from tests.cpp_extension.conftest import REPO, run_python

INCLUDE = str(REPO / "core" / "include")
METHODS = frozenset({"contiguous", "data_ptr", "packed_accessor32", "sizes", "made_up_method"})


def _census(rows: list[list]) -> dict:
    return {
        "format": _port_census.CENSUS_FORMAT,
        "repos": [{"repo": "a/b", "commit": "0" * 40}],
        "names": rows,
    }


# ---- the committed census ---------------------------------------------------------------------


def test_committed_census_parses_and_is_consistent():
    census = _port_census.load_census()
    repos = census["repos"]
    assert len(repos) >= 100
    assert all(re.fullmatch(r"[0-9a-f]{40}", r["commit"]) for r in repos)
    assert len({r["repo"] for r in repos}) == len(repos)
    rows = census["names"]
    assert rows == sorted(rows, key=lambda r: (r[0], r[1]))
    for name, _kind, occ_cpu, rep_cpu, occ_cuda, rep_cuda, total in rows:
        assert max(rep_cpu, rep_cuda) <= total <= min(rep_cpu + rep_cuda, len(repos)), name
        assert occ_cpu >= rep_cpu and occ_cuda >= rep_cuda, name
    by_name = {r[0]: r for r in rows}
    assert by_name["torch/extension.h"][1] == "header"
    assert by_name["TORCH_CHECK"][1] == "macro"


def test_committed_census_is_listed_in_the_docs():
    doc = (REPO / "docs" / "porting-census.md").read_text()
    for entry in _port_census.load_census()["repos"]:
        assert entry["repo"] in doc and entry["commit"] in doc, entry


# ---- counting sources ---------------------------------------------------------------------------

SOURCE = textwrap.dedent(
    """\
    #include <torch/extension.h>
    #include <ATen/cuda/CUDAContext.h>
    #include <THC/THCAtomics.cuh>
    #include "my/own.h"
    #define TORCH_MY_OWN(x) x
    // at::ignored_in_comment(x); TORCH_WARN("no");
    at::Tensor f(const torch::Tensor& x) {
      TORCH_CHECK(x.is_cuda() && x.sizes().size() == 2, "at::not_in_string");
      TORCH_MY_OWN(1);
      auto y = at::zeros({2}, x.options());
      auto p = x.contiguous().data_ptr<float>();
      auto q = x.data<float>();
      auto a = x.packed_accessor32<float, 2, torch::RestrictPtrTraits>();
      THCudaCheck(cudaGetLastError());
      return at::zeros_like(y);
    }
    TORCH_LIBRARY(myops, m) {
      m.def("scale.out(Tensor x, *, float s=1.0, Tensor(a!) out) -> Tensor(a!)");
      m.def("pair(Tensor x, int[] d) -> (Tensor, Tensor)");
    }
    TORCH_LIBRARY_IMPL(myops, CUDA, m) {}
    """
)


def test_extract_counts_names_headers_macros_methods_and_schema():
    found = _port_census.extract(SOURCE, {"TORCH_MY_OWN"}, METHODS)
    assert found["header", "torch/extension.h"] == 1
    assert found["header", "ATen/cuda/CUDAContext.h"] == 1
    assert ("header", "my/own.h") not in found
    assert found["name", "at::Tensor"] == 1 and found["name", "torch::Tensor"] == 1
    assert found["name", "at::zeros"] == 1 and found["name", "torch::RestrictPtrTraits"] == 1
    assert found["name", "THCudaCheck"] == 1 and found["header", "THC/THCAtomics.cuh"] == 1
    assert ("name", "THCAtomics") not in found  # an include's path is not code
    assert found["macro", "TORCH_CHECK"] == 1 and found["macro", "TORCH_LIBRARY"] == 1
    assert ("macro", "TORCH_MY_OWN") not in found  # the project's own macro
    assert ("macro", "TORCH_WARN") not in found and ("name", "at::ignored_in_comment") not in found
    assert ("name", "at::not_in_string") not in found
    assert found["method", ".contiguous()"] == 1 and found["method", ".data_ptr()"] == 1
    assert found["method", ".data<>()"] == 1 and found["method", ".packed_accessor32()"] == 1
    assert ("method", ".size()") not in found  # not in the method list: std containers have it
    for feat, n in (("Tensor", 2), ("Tensor(a!)", 1), ("*", 1), ("default", 1), ("int[]", 1)):
        assert found["schema", f"schema:{feat}"] == n, feat
    assert found["schema", "schema:overload"] == 1
    assert found["schema", "schema:->tuple"] == 1 and found["schema", "schema:->Tensor(a!)"] == 1
    assert found["schema", "schema:impl:CUDA"] == 1


def test_a_name_completed_by_token_pasting_is_not_a_name():
    source = "#define REG(device) set(at::k##device, fn); use(at::kCPU);\n"
    found = _port_census.extract(source, set(), METHODS)
    assert ("name", "at::k") not in found
    assert found["name", "at::kCPU"] == 1


def test_schema_features_of_odd_schemas():
    assert _port_census.schema_features("not a schema") == []
    assert _port_census.schema_features("f() -> ()") == ["schema:->()"]
    assert _port_census.schema_features("ns::g(Tensor? x, SymInt[2] s) -> Tensor[]") == [
        "schema:Tensor?",
        "schema:SymInt[2]",
        "schema:->Tensor[]",
    ]


def test_build_census_counts_per_area_and_repository(tmp_path):
    for repo, files in {
        "one+ext": {"a.cpp": "at::Tensor x;\nat::Tensor y;\n", "k.cu": "at::Tensor z;\n"},
        "two+ext": {"third_party/lib.cpp": "at::Tensor v;\n", "b.cpp": "at::zeros({1});\n"},
        "three+none": {"c.cpp": "int main() {}\n"},
    }.items():
        for rel, text in files.items():
            (tmp_path / repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / repo / rel).write_text(text)
    (tmp_path / "one+ext" / "COMMIT").write_text("1" * 40 + "\n")
    census = _port_census.build_census(tmp_path, METHODS)
    names = [r[0] for r in census["names"]]
    assert names == ["at::Tensor", "at::zeros"]
    assert census["repos"] == [
        {"repo": "one/ext", "commit": "1" * 40, "files": {"cpu": 1, "cuda": 1}, "uses": [0]},
        {"repo": "two/ext", "commit": "", "files": {"cpu": 1, "cuda": 0}, "uses": [1]},
    ]
    assert census["repos_without_torch_names"] == [
        {"repo": "three/none", "commit": "", "files": {"cpu": 0, "cuda": 0}}
    ]
    rows = {r[0]: r[1:] for r in census["names"]}
    # the vendored copy under third_party/ is not counted
    assert rows["at::Tensor"] == ["name", 2, 1, 1, 1, 1]
    assert rows["at::zeros"] == ["name", 1, 1, 0, 0, 1]
    # unqualified after `using namespace at;`: counted where the repository qualifies it too
    (tmp_path / "one+ext" / "u.cpp").write_text(
        "using namespace at;\nTensor f(Tensor x) { return max(x, zeros_like(x)); }\n"
    )
    census = _port_census.build_census(tmp_path, METHODS)
    rows = {r[0]: r[1:] for r in census["names"]}
    assert rows["at::Tensor"] == ["name", 4, 1, 1, 1, 1]
    assert "at::zeros_like" not in rows and "at::max" not in rows and "at::f" not in rows
    assert census["repos"][0]["files"] == {"cpu": 1, "cuda": 1}  # u.cpp names nothing qualified
    again = json.loads(_port_census.dump_census(census))
    assert again == census


# ---- coverage ---------------------------------------------------------------------------------


def test_coverage_reports_counterparts_refusals_and_missing():
    census = _census(
        [
            ["at::zeros", "name", 30, 3, 0, 0, 3],
            ["at::made_up_census_fn", "name", 5, 2, 5, 1, 2],
            ["at::native::some_kernel", "name", 1, 1, 0, 0, 1],
            ["TORCH_CHECK", "macro", 60, 3, 4, 1, 3],
            ["TORCH_MADE_UP_CENSUS_MACRO", "macro", 4, 1, 0, 0, 1],
            [".contiguous()", "method", 0, 0, 10, 2, 2],
            [".made_up_method()", "method", 0, 0, 0, 0, 0],
            ["torch/extension.h", "header", 3, 3, 0, 0, 3],
            ["ATen/native/Foo.h", "header", 0, 0, 1, 1, 1],
            ["THCudaCheck", "name", 0, 0, 2, 1, 1],
            ["THCudaTensor", "name", 0, 0, 2, 1, 1],
        ]
    )
    report = _port_census.coverage_report(census, INCLUDE)
    status = {r.name: (r.status, r.reason) for r in report.rows}
    assert status["at::zeros"] == ("counterpart", "")
    assert status["TORCH_CHECK"] == ("counterpart", "")
    assert status[".contiguous()"] == ("counterpart", "")
    assert status["torch/extension.h"] == ("counterpart", "")
    assert status["at::made_up_census_fn"] == ("missing", "")
    assert status["TORCH_MADE_UP_CENSUS_MACRO"] == ("missing", "")
    assert status[".made_up_method()"] == ("missing", "")
    assert status["at::native::some_kernel"][0] == "refused"
    assert "internal" in status["at::native::some_kernel"][1]
    assert status["ATen/native/Foo.h"][0] == "refused"
    assert status["THCudaCheck"] == ("counterpart", "")  # the porter maps it
    assert status["THCudaTensor"][0] == "refused"  # THC's tensor API (THCState maps)
    # ranked by repositories, then occurrences
    assert [r.name for r in report.rows[:3]] == ["TORCH_CHECK", "at::zeros", "torch/extension.h"]
    assert [r.rank for r in report.rows] == list(range(1, len(report.rows) + 1))
    cpu_total = 30 + 5 + 1 + 60 + 4 + 3
    assert report.share("cpu") == pytest.approx((30 + 60 + 3) / cpu_total)
    assert report.share("cpu", ("counterpart", "refused")) == pytest.approx(94 / cpu_total)
    assert report.share("cuda") == pytest.approx((4 + 10 + 2) / 24)
    assert [r.name for r in report.open_names("cpu")] == ["at::made_up_census_fn"]
    assert report.open_names("cuda") == []
    assert report.uses == [] and "every torch name" not in report.summary()
    lines = _port_census.missing_list(report).splitlines()
    assert lines[0] == "1 at::made_up_census_fn 5 2 cpu"
    assert "1 at::made_up_census_fn 5 1 cuda" in lines


def test_schema_features_are_checked_by_the_sdk_parser():
    census = _census(
        [
            ["schema:Tensor(a!)", "schema", 2, 1, 0, 0, 1],
            ["schema:int[]", "schema", 2, 1, 0, 0, 1],
            ["schema:NoSuchType", "schema", 2, 1, 0, 0, 1],
        ]
    )
    status = {r.name: r.status for r in _port_census.coverage_report(census, INCLUDE).rows}
    assert status == {
        "schema:Tensor(a!)": "counterpart",
        "schema:int[]": "counterpart",
        "schema:NoSuchType": "missing",
    }


def test_coverage_is_computed_from_the_committed_census():
    census = _port_census.load_census()
    report = _port.coverage(INCLUDE)
    assert report.repos == len(census["repos"])
    assert sorted((r.name, r.kind) for r in report.rows) == sorted(
        (r[0], r[1]) for r in census["names"]
    )
    status = {r.name: r.status for r in report.rows}
    assert status["torch::Tensor"] == "counterpart" and status["TORCH_CHECK"] == "counterpart"


def _cli(*args: str, check: bool = True):
    return run_python(
        f"import sys; from cpp_extension.__main__ import main; sys.exit(main({['port', *args]!r}))",
        check=check,
    )


def test_coverage_command_line_reads_the_census(tmp_path):
    path = tmp_path / "census.json"
    path.write_text(
        json.dumps(
            _census(
                [["at::zeros", "name", 3, 1, 0, 0, 1], ["at::made_up_x", "name", 1, 1, 0, 0, 1]]
            )
        )
    )
    out = _cli("--coverage", "--census", str(path), "--json")
    data = json.loads(out.stdout)
    assert {r["name"]: r["status"] for r in data["names"]} == {
        "at::zeros": "counterpart",
        "at::made_up_x": "missing",
    }
    assert data["share"]["cpu"] == pytest.approx(0.75)
    text = _cli("--coverage", "--census", str(path))
    assert "cpu: 75.00% of occurrences have a counterpart" in text.stdout
    assert "2  at::made_up_x  name  1 1  0 0  missing" in text.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ('{"format": 99}', "not a census"),
        ('{"format": 1, "repos": [], "names": [["x", "bogus", 1, 1, 0, 0, 1]]}', "row 0"),
        ('{"format": 1, "names": []}', "no list of repositories"),
    ],
)
def test_bad_census_file_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "census.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        _port_census.load_census(path)
    result = _cli("--coverage", "--census", str(path), check=False)
    assert result.returncode == 2 and message in result.stderr


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("THCudaTensor", "name", "THC was removed"),
        ("ATen/native/cuda/Loops.cuh", "header", "internal kernels"),
        ("at::native::add_out", "name", "internal kernels"),
        ("ATen/native/cpu/Loops.h", "header", "internal kernels"),
        ("at::native::add", "name", "internal kernels"),
        ("ATen/cpu/vec/vec.h", "header", "Vectorized"),
        ("at::ScalarType::QUInt4x2", "name", "quantized"),
        (".dequantize()", "method", "quantized"),
        ("c10::xpu::getCurrentXPUStream", "name", "CPU and CUDA only"),
        (".unsafeGetTensorImpl()", "method", "TensorImpl"),
        ("at::check_generator", "name", "default one"),
        ("c10::StorageImpl", "name", "TensorImpl, StorageImpl"),
        ("at::unique_dim", "name", "deduplicate the rows"),
        ("at::kFloat8_e8m0fnu", "name", "no e8m0fnu or 4-bit float"),
        ("c10/util/Float4_e2m1fn_x2.h", "header", "no e8m0fnu or 4-bit float"),
        ("torch::native::getCudnnHandle", "name", "no cuDNN handles"),
        ("c10::TensorType::get", "name", "no TorchScript types"),
        ("c10::TypeKind::TupleType", "name", "no TorchScript types"),
        ("c10::Symbol::fromQualString", "name", "no TorchScript types"),
        ("at::jit::CodeTemplate", "name", "code templates"),
        ("ATen/code_template.h", "header", "code templates"),
        ("torch::deploy::InterpreterManager", "name", "torch::deploy"),
        ("torch/csrc/deploy/deploy.h", "header", "torch::deploy"),
        ("ATen/TypeDefault.h", "header", "removed from torch itself"),
        ("schema:Dict(str,Tensor)", "schema", "no dictionary values"),
        ("schema:->Dict(str,int[])", "schema", "no dictionary values"),
        ("at::AtenTypeXPU::DPCPPTensorContext", "name", "CPU and CUDA only"),
        ("at::kMLU", "name", "CPU and CUDA only"),
        ("at::QuantizerPtr", "name", "quantized"),
        ("at::kSparse", "name", "sparse"),
        ("torch/csrc/Exceptions.h", "header", "Python-binding"),
        ("torch/csrc/python_headers.h", "header", "include <Python.h>"),
        ("torch::autograd::profiler::record_function_enter_new", "name", "RECORD_FUNCTION"),
        ("c10::GeneratorImpl", "name", "generator internals"),
    ],
)
def test_refusals_name_their_reason(name, kind, reason):
    assert reason in (_port_census.refusal(name, kind) or "")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("at::zeros", "name"),
        ("torch::Tensor", "name"),
        ("TORCH_CHECK", "macro"),
        (".contiguous()", "method"),
        ("torch/extension.h", "header"),
        ("at::nativeish", "name"),
        ("schema:impl:Meta", "schema"),  # C++ Meta kernels since ABI 1.7
        ("schema:int[][]", "schema"),  # int[][] arguments since ABI 1.8
        ("c10::DeviceType", "name"),
        ("at::ScalarType", "name"),
        ("c10::SymInt", "name"),
        ("schema:int[]", "schema"),
    ],
)
def test_ordinary_names_are_not_refused(name, kind):
    assert _port_census.refusal(name, kind) is None


def test_record_stream_is_a_counterpart_not_a_refusal():
    census = _census([[".record_stream()", "method", 0, 0, 2, 1, 1]])
    status = {r.name: r.status for r in _port_census.coverage_report(census, INCLUDE).rows}
    assert status[".record_stream()"] == "counterpart"
    assert _port_census.refusal(".record_stream()", "method") is None


@pytest.mark.parametrize(
    "name",
    [
        "c10::cuda::CUDACachingAllocator::recordStream",
        "c10::cuda::CUDACachingAllocator::get",
        "c10::cuda::CUDACachingAllocator::CUDAAllocator",
        "c10::DataPtr",
        "at::DataPtr",
        "at::cuda::getCurrentCUDABlasLtHandle",
        "at::PhiloxCudaState",
        "at::CUDAGeneratorImpl",
        "at::cuda::detail::getDefaultCUDAGenerator",
        "at::cuda::philox::unpack",
        "at::get_generator_or_default",
        "at::_isnan",
    ],
)
def test_allocator_object_blaslt_handle_and_philox_are_counterparts(name):
    """The caching allocator's object, its DataPtr and recordStream, the default CUDA
    generator's Philox state (ABI 1.11), the cuBLASLt handle and at::_isnan: counterparts
    now, no longer refused or missing."""
    census = _census([[name, "name", 0, 0, 3, 2, 2]])
    status = {r.name: r.status for r in _port_census.coverage_report(census, INCLUDE).rows}
    assert status[name] == "counterpart"
    assert _port_census.refusal(name, "name") is None


def test_float8_names_are_counterparts_not_refusals():
    """The four 8-bit floats are dtypes of the core (ABI 1.10): torch's names of them map."""
    names = [
        ["c10::Float8_e4m3fn", "name", 3, 2, 0, 0, 2],
        ["at::kFloat8_e5m2", "name", 3, 2, 0, 0, 2],
        ["c10::ScalarType::Float8_e4m3fnuz", "name", 3, 2, 0, 0, 2],
        ["torch::headeronly::ScalarType::Float8_e5m2fnuz", "name", 3, 2, 0, 0, 2],
        ["c10/util/Float8_e5m2.h", "header", 3, 2, 0, 0, 2],
        ["c10::Float8_e4m3fn::from_bits", "name", 3, 2, 0, 0, 2],
    ]
    status = {r.name: r.status for r in _port_census.coverage_report(_census(names), INCLUDE).rows}
    assert status == {row[0]: "counterpart" for row in names}
    assert all(_port_census.refusal(row[0], row[1]) is None for row in names)


def test_complex_names_are_counterparts_not_refusals():
    """complex64 and complex128 are dtypes of the core (ABI 1.11): torch's names of them and of
    c10::complex map; only complex32 (ComplexHalf) is refused."""
    names = [
        ["c10::complex", "name", 3, 2, 0, 0, 2],
        ["at::kComplexFloat", "name", 3, 2, 0, 0, 2],
        ["at::ScalarType::ComplexDouble", "name", 3, 2, 0, 0, 2],
        ["c10/util/complex.h", "header", 3, 2, 0, 0, 2],
        ["at::isComplexType", "name", 3, 2, 0, 0, 2],
        ["c10::toRealValueType", "name", 3, 2, 0, 0, 2],
        ["AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES", "macro", 3, 2, 0, 0, 2],
    ]
    status = {r.name: r.status for r in _port_census.coverage_report(_census(names), INCLUDE).rows}
    assert status == {row[0]: "counterpart" for row in names}
    assert all(_port_census.refusal(row[0], row[1]) is None for row in names)
    assert "no complex32" in _port_census.refusal("at::kComplexHalf", "name")


def test_custom_class_names_are_counterparts_not_refusals():
    """torch's custom classes (ABI 1.12): the class_ API, intrusive_ptr and its header, and a
    schema's class types map."""
    names = [
        ["c10::intrusive_ptr", "name", 3, 2, 0, 0, 2],
        ["c10::make_intrusive", "name", 3, 2, 0, 0, 2],
        ["c10::intrusive_ptr_target", "name", 3, 2, 0, 0, 2],
        ["c10::weak_intrusive_ptr", "name", 3, 2, 0, 0, 2],
        ["torch::CustomClassHolder", "name", 3, 2, 0, 0, 2],
        ["torch::class_", "name", 3, 2, 0, 0, 2],
        ["torch::init", "name", 3, 2, 0, 0, 2],
        ["c10/util/intrusive_ptr.h", "header", 3, 2, 0, 0, 2],
        ["torch/custom_class.h", "header", 3, 2, 0, 0, 2],
        ["schema:__torch__.torch.classes", "schema", 3, 2, 0, 0, 2],
        ["schema:->__torch__.torch.classes", "schema", 3, 2, 0, 0, 2],
    ]
    status = {r.name: r.status for r in _port_census.coverage_report(_census(names), INCLUDE).rows}
    assert status == {row[0]: "counterpart" for row in names}
    assert all(_port_census.refusal(row[0], row[1]) is None for row in names)
    assert _port_census.schema_probe("schema:->__torch__.torch.classes") == (
        "",
        "probe(Tensor x) -> __torch__.torch.classes.probe.Probe",
    )


def test_int_list_list_schemas_are_a_counterpart_not_a_refusal():
    census = _census([["schema:int[][]", "schema", 3, 2, 0, 0, 2]])
    status = {r.name: r.status for r in _port_census.coverage_report(census, INCLUDE).rows}
    assert status["schema:int[][]"] == "counterpart"
    assert _port_census.schema_probe("schema:int[][]") == ("", "probe(int[][] x) -> ()")


def test_coverage_counts_the_repositories_ready_to_port():
    census = _census(
        [
            ["at::made_up_census_fn", "name", 1, 1, 0, 0, 1],
            ["at::native::k", "name", 1, 1, 0, 0, 1],
            ["at::zeros", "name", 2, 2, 0, 0, 2],
        ]
    )
    census["repos"] = [
        {"repo": "a/ready", "commit": "0" * 40, "uses": [1, 2]},  # refused + counterpart
        {"repo": "b/not", "commit": "1" * 40, "uses": [0, 2]},  # one name missing
    ]
    report = _port_census.coverage_report(census, INCLUDE)
    assert report.repos_ready() == 1
    assert "every torch name has a counterpart or a refusal: 1 of 2" in report.summary()
    assert report.as_json()["repos_ready"] == 1


def test_census_with_bad_uses_is_a_clear_error(tmp_path):
    census = _census([["at::zeros", "name", 1, 1, 0, 0, 1]])
    census["repos"][0]["uses"] = [5]
    path = tmp_path / "census.json"
    path.write_text(json.dumps(census))
    with pytest.raises(ValueError, match="repository 0 has bad `uses` rows"):
        _port_census.load_census(path)


def test_census_script_runs_on_a_folder_of_sources(tmp_path):
    src = tmp_path / "src" / "someone+ext"
    src.mkdir(parents=True)
    (src / "ext.cpp").write_text(
        "#include <torch/extension.h>\nat::Tensor f(at::Tensor x) {\n"
        "  return at::made_up_census_fn(x.contiguous());\n}\n"
    )
    (src / "COMMIT").write_text("2" * 40 + "\n")
    out, missing = tmp_path / "census.json", tmp_path / "missing.txt"
    script = REPO / "scripts" / "port_census.py"
    proc = run_python(
        f"import runpy, sys; sys.argv = ['port_census', {str(tmp_path / 'src')!r}, "
        f"'--out', {str(out)!r}, '--missing', {str(missing)!r}]; "
        f"runpy.run_path({str(script)!r}, run_name='__main__')",
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    census = _port_census.load_census(out)
    assert census["repos"] == [
        {
            "repo": "someone/ext",
            "commit": "2" * 40,
            "files": {"cpu": 1, "cuda": 0},
            "uses": [0, 1, 2, 3],
        }
    ]
    assert [r[0] for r in census["names"]] == [
        ".contiguous()", "at::Tensor", "at::made_up_census_fn", "torch/extension.h",
    ]  # fmt: skip
    assert missing.read_text() == "1 at::made_up_census_fn 1 1 cpu\n"
