"""c10's object registry (c10/util/Registry.h: Registry, Registerer, the C10_*_REGISTRY and
C10_REGISTER_* macros) ported to sdk/registry.h and run; c10's command-line flags
(c10/util/Flags.h) ported to sdk/flags.h and run; torch::jit::CustomClassHolder written as
sdk::CustomClassHolder (no sdk::jit namespace: the rest of torch::jit stays reported); and TorchScript's class-type calls (getCustomClassType,
registerCustomClass) refused with their reason, in the porter and the census."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from cpp_extension.port import census as _port_census
from cpp_extension.port import sdk_names as _port_names
from cpp_extension.port.cxx import port_cxx
from tests._support import REPO

INCLUDE = str(REPO / "core" / "include")

# torch's spelling; ported, built and run below.
REGISTRY_PROGRAM = """\
#include <c10/util/Registry.h>
#include <cstdio>
#include <memory>
#include <string>

struct Shape {
  virtual ~Shape() = default;
  virtual int area() const = 0;
};
struct Square : Shape {
  explicit Square(int s) : s(s) {}
  int s;
  int area() const override { return s * s; }
};
struct Line : Shape {
  explicit Line(int s) : s(s) {}
  int s;
  int area() const override { return 0 * s; }
};
namespace geo {
struct Twice : Shape {
  explicit Twice(int s) : s(s) {}
  int s;
  int area() const override { return 2 * s; }
};
}  // namespace geo

C10_DECLARE_REGISTRY(ShapeRegistry, Shape, int);
C10_DEFINE_REGISTRY(ShapeRegistry, Shape, int);
C10_REGISTER_CLASS(ShapeRegistry, square, Square);
C10_REGISTER_CLASS_WITH_PRIORITY(ShapeRegistry, flat, c10::REGISTRY_DEFAULT, Square);
C10_REGISTER_CLASS_WITH_PRIORITY(ShapeRegistry, flat, c10::REGISTRY_PREFERRED, Line);
C10_REGISTER_CLASS_WITH_PRIORITY(ShapeRegistry, flat, c10::REGISTRY_FALLBACK, geo::Twice);
C10_REGISTER_TYPED_CREATOR(ShapeRegistry, std::string("twice"),
                           [](int s) { return std::unique_ptr<Shape>(new geo::Twice(s)); });
C10_DECLARE_SHARED_REGISTRY(Shared, Shape, int);
C10_DEFINE_SHARED_REGISTRY(Shared, Shape, int);
C10_REGISTER_CLASS(Shared, sq, Square);

int main() {
  auto* r = ShapeRegistry();
  std::printf("%d %d %d\\n", r->Create("square", 3)->area(), r->Create("flat", 3)->area(),
              r->Create("twice", 5)->area());
  std::printf("%d %d %d %zu\\n", r->Create("none", 1) == nullptr, int(r->Has("square")),
              int(r->Has("none")), r->Keys().size());
  std::printf("%s %s %d\\n", r->HelpMessage("square"), r->HelpMessage("flat"),
              r->HelpMessage("none") == nullptr);
  std::shared_ptr<Shape> sp = Shared()->Create("sq", 4);
  std::printf("%d\\n", sp->area());
  try {
    RegistererShapeRegistry again("square", r, RegistererShapeRegistry::DefaultCreator<Line>);
    std::printf("registered twice\\n");
  } catch (const std::exception& e) {
    std::printf("%s\\n", e.what());
  }
}
"""


def _port(text: str, path: str = "k.cpp"):
    return port_cxx(textwrap.dedent(text), path, _port_names.sdk_headers(INCLUDE))


def _build(tmp_path, source: str):
    from tests.core.test_cpp_api import _cxx

    src, exe = tmp_path / "prog.cpp", tmp_path / "prog"
    src.write_text(source)
    cmd = [_cxx(), "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(src)]
    build = subprocess.run([*cmd, "-o", str(exe)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-4000:]
    return exe


def _build_and_run(tmp_path, source: str) -> subprocess.CompletedProcess:
    from tests.core.test_cpp_api import _cxx

    src, exe = tmp_path / "prog.cpp", tmp_path / "prog"
    src.write_text(source)
    cmd = [_cxx(), "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(src)]
    build = subprocess.run([*cmd, "-o", str(exe)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-4000:]
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True)


def test_registry_ports_and_keeps_torchs_semantics(tmp_path):
    result = _port(REGISTRY_PROGRAM)
    assert result.missing == []
    assert "#include <sdk/registry.h>" in result.text and "C10_" not in result.text
    run = _build_and_run(tmp_path, result.text)
    lines = run.stdout.splitlines()
    # created by key; the highest priority of "flat" wins (Line, area 0) whatever the order
    assert lines[0] == "9 0 10"
    # an unknown key makes nullptr; the keys are square, flat, twice
    assert lines[1] == "1 1 0 3"
    # a class's help message is its type's name; a creator has none ("")
    assert lines[2] == "Square Line 1"
    assert lines[3] == "16"
    # the same key at the same priority is an error (torch exits; this throws)
    assert lines[4].startswith("Key already registered with the same priority: square")
    assert run.stderr.splitlines() == [
        "Overwriting already registered item for key flat",
        "Higher priority item already registered, skipping registration of flat",
    ]


def test_jit_custom_class_holder_is_the_same_base(tmp_path):
    result = _port(
        """\
        #include <torch/custom_class.h>
        #include <type_traits>
        struct Counter : torch::jit::CustomClassHolder {
          int64_t n = 0;
        };
        static_assert(std::is_base_of_v<torch::CustomClassHolder, Counter>);
        int main() { return 0; }
        """
    )
    assert result.missing == []
    assert "struct Counter : sdk::CustomClassHolder {" in result.text
    _build_and_run(tmp_path, result.text)  # the static_assert holds


CLASS_TYPE_REASON = (
    "no TorchScript class types: a custom class has the one name class_<T>(ns, Name) gives "
    "it (schema type __torch__.torch.classes.ns.Name), with no ClassType object to look up, "
    "rename or register again"
)


def test_class_type_calls_are_reported_by_the_porter():
    result = _port(
        """\
        #include <torch/custom_class.h>
        struct Ragged : torch::CustomClassHolder {};
        void rename() {
          torch::ClassTypePtr p = torch::getCustomClassType<c10::intrusive_ptr<Ragged>>();
          torch::registerCustomClass(p);
        }
        """
    )
    assert [(m.line, m.name) for m in result.missing] == [
        (4, "torch::ClassTypePtr"),
        (4, "torch::getCustomClassType"),
        (5, "torch::registerCustomClass"),
    ]


def _row(name: str, kind: str):
    census = {"format": 1, "repos": [], "names": [[name, kind, 1, 1, 2, 1, 1]]}
    (row,) = _port_census.coverage_report(census, INCLUDE).rows
    return row.status, row.reason


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("c10/util/Registry.h", "header"),
        ("C10_DECLARE_REGISTRY", "macro"),
        ("C10_DEFINE_REGISTRY", "macro"),
        ("C10_REGISTER_CLASS", "macro"),
        ("C10_REGISTER_CLASS_WITH_PRIORITY", "macro"),
        ("C10_REGISTER_CREATOR", "macro"),
        ("C10_DECLARE_SHARED_REGISTRY", "macro"),
        ("c10::REGISTRY_DEFAULT", "name"),
        ("c10::Registry", "name"),
        ("c10::Registerer", "name"),
        ("torch::jit::CustomClassHolder", "name"),
        ("torch::CustomClassHolder", "name"),
        ("c10/util/Flags.h", "header"),
        ("torch::UsageMessage", "name"),
        ("torch::SetUsageMessage", "name"),
        ("torch::ParseCommandLineFlags", "name"),
    ],
)
def test_census_counterparts(name, kind):
    assert _row(name, kind) == ("counterpart", "")


@pytest.mark.parametrize(
    "name",
    [
        "torch::getCustomClassType",
        "torch::registerCustomClass",
        "torch::getCustomClass",
        "torch::isCustomClassRegistered",
        "torch::ClassTypePtr",
        "c10::ClassType",
        "at::ClassType",
        "c10::QualifiedName",
    ],
)
def test_census_refuses_class_types_with_the_reason(name):
    assert _row(name, "name") == ("refused", CLASS_TYPE_REASON)


FLAGS_PROGRAM = """\
#include <torch/torch.h>
#include <c10/util/Flags.h>
#include <cstdio>

C10_DEFINE_string(model, "", "Path to the model");
C10_DEFINE_bool(use_gpu, false, "Whether to use the GPU");
C10_DEFINE_int(beam, 4, "Beam size");
C10_DEFINE_int64(big, 1, "A large number");
C10_DEFINE_double(scale, 0.5, "A scale");
C10_DECLARE_int(beam);

int main(int argc, char* argv[]) {
  torch::SetUsageMessage("./prog --model PATH files...");
  const bool ok = torch::ParseCommandLineFlags(&argc, &argv);
  std::printf("%d %d %d\\n", int(ok), int(c10::CommandLineFlagsHasBeenParsed()), argc);
  for (int i = 1; i < argc; ++i) std::printf("%s\\n", argv[i]);
  std::printf("%s %d %d %lld %g\\n", FLAGS_model.c_str(), int(FLAGS_use_gpu), FLAGS_beam,
              (long long)FLAGS_big, FLAGS_scale);
  std::printf("%s\\n", torch::UsageMessage());
}
"""


@pytest.fixture(scope="module")
def flags_program(tmp_path_factory):
    result = _port(FLAGS_PROGRAM)
    assert result.missing == []
    assert "SDK_DEFINE_string(model" in result.text and "C10_" not in result.text
    return _build(tmp_path_factory.mktemp("flags"), result.text)


def _flags(exe, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)


def test_flags_are_parsed_and_other_arguments_kept(flags_program):
    run = _flags(
        flags_program,
        *("a", "--model=m.pt", "--use_gpu", "TRUE", "b", "--beam", "8"),
        *("--big=123456789012", "--scale=2.5", "c"),
    )
    assert run.returncode == 0 and run.stderr == ""
    assert run.stdout.splitlines() == [
        "1 1 4",
        "a",
        "b",
        "c",
        "m.pt 1 8 123456789012 2.5",
        "./prog --model PATH files...",
    ]


@pytest.mark.parametrize(
    ("args", "kept", "message"),
    [
        (["--beam"], [], "expecting a value for --beam"),
        (["x", "--nope=1", "y"], ["x"], "unrecognized commandline argument: --nope=1"),
        (["--use_gpu", "yes"], [], "Cannot convert argument to bool: yes"),
    ],
)
def test_a_wrong_flag_stops_the_parse_with_its_reason(flags_program, args, kept, message):
    run = _flags(flags_program, *args)
    lines = run.stdout.splitlines()
    assert lines[0] == f"0 1 {1 + len(kept)}" and lines[1 : 1 + len(kept)] == kept
    assert lines[1 + len(kept)] == " 0 4 1 0.5"  # the defaults stay
    assert message in run.stderr


def test_help_prints_the_usage_and_every_flag_then_exits(flags_program):
    run = _flags(flags_program, "--help")
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert lines[:2] == ["./prog --model PATH files...", "Arguments: "]
    assert sorted(lines[2:]) == [
        "    beam: (int, default 4) Beam size",
        "    big: (int64_t, default 1) A large number",
        '    model: (std::string, default "") Path to the model',
        "    scale: (double, default 0.5) A scale",
        "    use_gpu: (bool, default false) Whether to use the GPU",
    ]


@pytest.mark.parametrize("name", ["torch::jit", "torch::jit::load", "torch::jit::Module"])
def test_the_rest_of_torch_jit_stays_refused(name):
    status, reason = _row(name, "name")
    assert status == "refused" and reason.startswith("no TorchScript")
