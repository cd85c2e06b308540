"""setup.py's plan for the core library: every source compiled once, the longest first."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE_SRC = ROOT / "core" / "src"

# A staged copy of the tests (tests/sanitizers) or one beside an installed sdk has no build
# scripts to check.
pytestmark = pytest.mark.skipif(
    not (ROOT / "setup.py").is_file() or not (ROOT / "benchmarks" / "_first_build.py").is_file(),
    reason="needs the checkout's setup.py and benchmarks/_first_build.py",
)


@pytest.fixture(scope="module")
def setup_py():
    """setup.py as a module (its setup() call runs only as __main__)."""
    spec = importlib.util.spec_from_file_location("_sdk_setup_for_tests", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _all_core_cpp() -> set[Path]:
    """core/src/**/*.cpp, found independently: all but the CUDA backend (cuda/ except glue)."""
    found = set()
    for folder, _, files in os.walk(CORE_SRC):
        rel = Path(folder).relative_to(CORE_SRC).parts
        if rel[:1] == ("cuda",) and rel[:2] != ("cuda", "glue"):
            continue
        found.update(Path(folder) / f for f in files if f.endswith(".cpp"))
    return found


def test_every_core_source_is_compiled_exactly_once(setup_py):
    sources = setup_py.core_sources()
    assert len(sources) == len(set(sources)), "a source is listed twice"
    assert set(sources) == _all_core_cpp()


def test_the_longest_files_start_first(setup_py):
    heavy = setup_py.CORE_HEAVY_FIRST
    assert len(heavy) >= 4 and len(set(heavy)) == len(heavy)
    names = [p.name for p in setup_py.core_sources()]
    assert names[: len(heavy)] == list(heavy)
    rest = [p for p in setup_py.core_sources()[len(heavy) :] if p.parent == CORE_SRC]
    assert rest == sorted(rest), "the others go by name"


def test_the_heavy_list_names_only_core_sources(setup_py):
    """A renamed or split file must leave CORE_HEAVY_FIRST too (the build itself only skips
    a name that is gone)."""
    assert {CORE_SRC / n for n in setup_py.CORE_HEAVY_FIRST} <= _all_core_cpp()


def test_a_heavy_file_that_is_gone_is_skipped(setup_py, monkeypatch):
    monkeypatch.setattr(setup_py, "CORE_HEAVY_FIRST", ("no_such_file.cpp", "reduce.cpp"))
    sources = setup_py.core_sources()
    assert sources[0] == CORE_SRC / "reduce.cpp"
    assert set(sources) == _all_core_cpp()


def test_build_core_writes_the_sources_in_that_order(setup_py, tmp_path, monkeypatch):
    """The ninja file lists the compiles in core_sources() order: ninja starts equal-priority
    jobs in manifest order, so this is the order the build starts them in."""
    seen = {}

    def capture(build_dir, out, sources, flags, **kwargs):
        seen.update(sources=sources, flags=flags)

    monkeypatch.setattr(setup_py, "build_library", capture)
    setup_py.build_core(tmp_path / "build", tmp_path / "lib" / "libsdk_core.so")
    assert seen["sources"] == setup_py.core_sources()
    # the same planner renders them in that order
    sys.path.insert(0, str(ROOT))
    try:
        plan, ninja = setup_py._tooling("builder.plan"), setup_py._tooling("builder.ninja")
    finally:
        sys.path.remove(str(ROOT))
    names = [str(p) for p in seen["sources"]]
    graph = plan.Toolchain(plan.languages(names), launcher=[]).graph(tmp_path)
    target = plan.Target(str(tmp_path / "x.so"), names, tmp_path, seen["flags"])
    plan.add_target(graph, target, ["c++"])
    text = ninja.render(graph)
    builds = [line.split()[-1] for line in text.splitlines() if line.startswith("build ")]
    compiled = [b for b in builds if b.endswith(".cpp")]
    assert [Path(b).name for b in compiled] == [p.name for p in seen["sources"]]


def test_release_flags(setup_py, monkeypatch):
    """The core's release flags as docs/DESIGN.md states them (optimisation level, hidden
    symbols, no errno from math functions)."""
    monkeypatch.delenv("SDK_DEBUG", raising=False)
    flags = setup_py.CORE_CXXFLAGS
    assert "-std=c++17" in flags and "-fvisibility=hidden" in flags
    assert "-fno-math-errno" in flags
    assert [f for f in flags if f.startswith("-O")] == [setup_py.CORE_OPT_LEVEL]
    design = " ".join((ROOT / "docs" / "DESIGN.md").read_text().split())
    assert f"release flags `{setup_py.CORE_OPT_LEVEL}` (`CORE_OPT_LEVEL`)" in design


def _first_build():
    spec = importlib.util.spec_from_file_location(
        "_sdk_first_build", ROOT / "benchmarks" / "_first_build.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclass looks itself up there
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def test_makespan_of_the_first_build_estimate():
    """The estimate bench_build.py --first-build makes: jobs started in order on the first
    free worker; a long job last leaves a worker idle, first it does not."""
    fb = _first_build()
    assert fb.makespan([1, 1, 1, 1, 6], 2) == 8
    assert fb.makespan([6, 1, 1, 1, 1], 2) == 6
    assert fb.makespan([2, 2], 2, [5, 0]) == 5  # one worker busy (the runtime thread) at start


def test_first_build_phases_come_from_the_outputs(tmp_path):
    fb = _first_build()
    log = tmp_path / "times.log"
    log.write_text(
        "1.0 0.5 3.0 /x/build/core-tag/reduce.o\n"
        "0.1 0.0 0.1 \n"  # a version probe: no output
        "0.2 0.1 0.4 /x/sdk/lib/libsdk_core.so\n"
        "2.0 0.0 2.0 /x/build/pybind11-runtime-tag/pybind11_runtime.o.tmp\n"
        "0.5 0.0 0.6 build/temp.linux/sdk/csrc/args.o\n"
        "0.1 0.0 0.1 build/lib.linux/sdk/_C.cpython-311-x86_64-linux-gnu.so\n"
        "3.0 0.0 3.0 /cache/lltm_cpp/lltm.o\n"
    )
    phases = fb.classify(fb.read_log(log))
    got = {k: [r.name for r in v] for k, v in phases.items()}
    assert got == {
        "core": ["reduce.o"],
        "core link": ["libsdk_core.so"],
        "runtime": ["pybind11_runtime.o.tmp"],
        "binding": ["args.o"],
        "binding link": ["_C.cpython-311-x86_64-linux-gnu.so"],
        "demo": ["lltm.o"],
    }
    assert phases["core"][0].cpu == 1.5


class _FakeCompiler:
    """What BuildWithCore.build_extension touches of setuptools' compiler."""

    def __init__(self, events: list[str]) -> None:
        self.events = events

    def link_shared_object(self, *args, **kwargs) -> None:
        self.events.append("binding linked")


def _binding_build(setup_py, monkeypatch, core_body):
    """BuildWithCore.build_extension with the core's build replaced by `core_body` and
    setuptools' compile-and-link by one that compiles (at once), then links."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from setuptools import Distribution

    events: list[str] = []
    compiled = threading.Event()

    def compile_then_link(self, ext) -> None:
        events.append("binding compiled")
        compiled.set()
        self.compiler.link_shared_object()

    monkeypatch.setattr(setup_py.build_ext, "build_extension", compile_then_link)
    cmd = setup_py.BuildWithCore(Distribution({"ext_modules": [setup_py.binding]}))
    cmd.compiler = _FakeCompiler(events)
    cmd._core = ThreadPoolExecutor(1).submit(core_body, compiled, events)
    return cmd, events


def test_the_binding_compiles_beside_the_core_and_links_after_it(setup_py, monkeypatch):
    def core(compiled, events):  # the core ends only after the binding has compiled
        assert compiled.wait(10)
        events.append("core built")

    cmd, events = _binding_build(setup_py, monkeypatch, core)
    cmd.build_extension(setup_py.binding)
    assert events == ["binding compiled", "core built", "binding linked"]


def test_a_failed_core_build_fails_the_binding_link_with_its_error(setup_py, monkeypatch):
    def core(compiled, events):
        raise RuntimeError("building libsdk_core.so failed: the log is above")

    cmd, events = _binding_build(setup_py, monkeypatch, core)
    with pytest.raises(RuntimeError, match="building libsdk_core.so failed"):
        cmd.build_extension(setup_py.binding)
    assert "binding linked" not in events
    assert cmd.compiler.link_shared_object.__func__ is _FakeCompiler.link_shared_object


def test_pybind11_runtime_objects_can_be_deferred(setup_py, monkeypatch, tmp_path):
    """SDK_DEFER_PYBIND11_RUNTIME=1 (scripts/demo.sh) leaves the runtime object and the header
    out of the build, and says how to make them; by default the build makes them."""
    from setuptools import Distribution

    made: list[Path] = []
    monkeypatch.setattr(setup_py, "build_core", lambda *args, **kwargs: None)
    monkeypatch.setattr(setup_py, "cuda_toolkit", lambda: None)
    monkeypatch.setattr(setup_py, "copy_headers", lambda dest: None)
    monkeypatch.setattr(setup_py, "build_pybind11_runtime", lambda work, lib: made.append(lib))
    cmd = setup_py.BuildWithCore(Distribution({"ext_modules": [setup_py.binding]}))
    cmd.verbose = 0
    for value, runs in (("", 1), ("0", 1), ("1", 0)):
        monkeypatch.setenv("SDK_DEFER_PYBIND11_RUNTIME", value)
        made.clear()
        cmd._build_core(tmp_path)
        assert made == [tmp_path / "lib"] * runs, value
