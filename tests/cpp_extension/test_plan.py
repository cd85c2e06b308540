"""The build planner (cpp_extension/builder/plan.py) shared by load(), BuildExtension and setup.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cpp_extension.builder import jit as _build
from cpp_extension.builder import ninja as _ninja
from cpp_extension.builder import plan as _plan
from cpp_extension.builder import toolchain as _toolchain

needs_cxx = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")


def test_language_of_each_source_kind():
    assert [_plan.language(p) for p in ("a.cpp", "b.cc", "c.cxx", "d.c", "e.cu", "f.cuh")] == [
        "cxx", "cxx", "cxx", "c", "cuda", "cuda",
    ]  # fmt: skip
    # C++ always (it links); a listed CUDA header alone compiles nothing
    assert _plan.languages(["x.c", "y.cuh"]) == {"c", "cxx"}
    assert _plan.languages(["x.cpp", "k.cu"], with_cuda=False) == {"cxx"}


def test_object_names_are_unique_and_headers_skipped(tmp_path):
    sources = ["a/ops.cpp", "b/ops.cpp", "ops.cu", "kernels.cuh", "c/ops.c"]
    got = _plan.object_paths(sources, tmp_path)
    names = [Path(obj).name for _, obj, _ in got]
    assert [src for src, _, _ in got] == ["a/ops.cpp", "b/ops.cpp", "ops.cu", "c/ops.c"]
    assert names == ["ops.o", "ops_1.o", "ops.cuda.o", "ops_2.o"]
    assert [lang for _, _, lang in got] == ["cxx", "cxx", "cuda", "c"]


def test_compile_flags_put_the_users_last_and_fit_each_language():
    flags = _plan.compile_flags(
        cxx=["-std=c++17", "-O2"],
        c=["-std=c11"],
        common=["-fPIC", "-DNAME=x", "-I/inc"],
        user_cxx=["-std=c++20", "-O3"],
        user_nvcc=["-lineinfo"],
        with_cuda=True,
        rdc=True,
    )
    assert flags["cxx"] == ["-std=c++17", "-O2", "-fPIC", "-DNAME=x", "-I/inc", "-std=c++20", "-O3"]
    assert flags["c"] == ["-std=c11", "-fPIC", "-DNAME=x", "-I/inc", "-O3"]  # no -std=c++20
    cuda = flags["cuda"]
    assert cuda[-1] == "-lineinfo" and "-rdc=true" in cuda
    assert cuda.index("-DNAME=x") < cuda.index("-lineinfo")
    # nvcc's host code gets -fPIC through --compiler-options, never as a bare flag
    assert "-fPIC" not in [f for i, f in enumerate(cuda) if cuda[i - 1] != "--compiler-options"]
    assert _plan.compile_flags(cxx=[], c=[], common=[])["cuda"] == []


def test_link_flags_order():
    ld = _plan.link_flags(
        objects=["/x/extra.a"],
        library_dirs=["/lib"],
        libraries=["sdk_core"],
        rpaths=["$ORIGIN/lib"],
        extra=["-Wl,--as-needed"],
    )
    assert ld[:2] == ["-shared", _plan.HIDE_STATIC_LIBS]
    assert ld[2:] == [
        "/x/extra.a",
        "-L/lib",
        "-lsdk_core",
        "-Wl,-rpath,$ORIGIN/lib",
        "-Wl,--as-needed",
    ]
    assert _plan.link_flags(shared=False, libraries=["m"]) == ["-lm"]


def test_target_with_device_link_renders_one_graph(tmp_path):
    graph = _ninja.BuildPlan(tmp_path, {"cxx": ["c++"], "cuda": ["nvcc"]})
    flags = {
        "cxx": ["-O2"],
        "c": [],
        "cuda": ["-gencode=arch=compute_80,code=sm_80", "-rdc=true"],
        "ld": ["-shared"],
    }
    target = _plan.Target(
        str(tmp_path / "m.so"), ["bind.cpp", "k.cu", "k.cuh"], tmp_path, flags, dlink=True,
        dlink_libraries=["cublas_device"], implicit=[str(tmp_path / "core.so")],
    )  # fmt: skip
    link = _plan.add_target(graph, target, ["c++"])
    device, final = graph.links
    assert final is link and link.linker == ["c++"]
    assert device.objects == [str(tmp_path / "k.cuda.o")] and device.linker == ["nvcc"]
    assert device.ldflags[:2] == ["-dlink", "-gencode=arch=compute_80,code=sm_80"]
    assert "-lcublas_device" in device.ldflags and "-rdc=true" not in device.ldflags
    assert link.objects == [str(tmp_path / n) for n in ("bind.o", "k.cuda.o", "dlink.o")]
    text = _ninja.render(graph)
    assert f"| {tmp_path / 'core.so'}" in text  # relinked when the implicit input changes
    builds = [ln for ln in text.splitlines() if ln.startswith("build ")]
    assert len(builds) == 4  # two compiles, the device link, the link


@needs_cxx
def test_a_request_resolves_its_toolchain_once(tmp_path, monkeypatch, ext_dir):
    """load() asks for each compiler's identity once, whatever needs it afterwards (the
    cache key, the speed arguments, split code generation, the precompiled header)."""
    calls = []
    real = _plan.compiler_identity

    def counting(argv, cache_file):
        calls.append(tuple(argv))
        return real(argv, cache_file)

    monkeypatch.setattr(_plan, "compiler_identity", counting)
    monkeypatch.setattr(_toolchain, "compiler_identity", counting)
    src = tmp_path / "m.cpp"
    src.write_text("#include <sdk/extension.h>\nint f() { return 1; }\n")
    req = _build.make_request("plan_once", [str(src)], bridge="pybind11")
    req.build_dir.mkdir(parents=True)
    toolchain = _build._toolchain_for(req)
    flags = _build._flags(req, toolchain)
    digest = _build._digest(req, flags, toolchain)
    build = _build._plan_build(req, toolchain, flags, req.build_dir / "plan_once.so", True)
    assert len(digest) >= 32
    assert calls == [tuple(toolchain.cxx)]
    # the graph's C++ compile runs the resolved compiler, with the request's flags
    (step,) = build.graph.compiles
    assert toolchain.cxx[0] in build.graph.compilers["cxx"]
    assert step.flags[: len(flags["cxx"])] == flags["cxx"]


@needs_cxx
def test_speed_arguments_need_a_known_identity(tmp_path):
    """A toolchain with an identities file adds gcc's speed arguments (load(), BuildExtension);
    one without (setup.py's core build) probes nothing and adds none."""
    known = _plan.Toolchain({"cxx"}, identities=tmp_path / "t.json", launcher=[])
    unknown = _plan.Toolchain({"cxx"}, launcher=[])
    expected = _toolchain.GCC_SPEED_ARGS if _toolchain.is_gcc(known.identity()) else []
    assert known.graph(tmp_path).compilers["cxx"] == [*known.cxx, *expected]
    assert unknown.graph(tmp_path).compilers["cxx"] == unknown.cxx
    with pytest.raises(ValueError, match="identities"):
        unknown.identity()
