"""-fopenmp given only as a compile flag links the OpenMP runtime (BuildExtension and load())."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from cpp_extension.builder import plan as _plan
from tests.cpp_extension.conftest import run_python, subprocess_env

# A parallel region calls into the OpenMP runtime (GOMP_parallel with gcc): without the
# runtime on the link line the library builds, and its import fails on the undefined symbol.
SOURCE = """
#include <pybind11/pybind11.h>
#include <omp.h>

static long triangle(long n) {
  long total = 0;
#pragma omp parallel for reduction(+ : total)
  for (long i = 1; i <= n; ++i) total += i;
  return total;
}

static int threads() {
  int seen = 0;
#pragma omp parallel
  {
#pragma omp single
    seen = omp_get_num_threads();
  }
  return seen;
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("triangle", &triangle);
  m.def("threads", &threads);
}
"""

# A link-time-optimized link happens to pull the runtime in (gcc reads -fopenmp back from
# the objects); the plain link is the one that needs the flag.
NO_LTO = "1"

SETUP = """
from setuptools import setup
from cpp_extension import BuildExtension, CppExtension

setup(
    name="omp_demo",
    ext_modules=[CppExtension("omp_demo", ["omp.cpp"], extra_compile_args={"cxx": ["-fopenmp"]})],
    cmdclass={"build_ext": BuildExtension},
)
"""


def test_openmp_link_args_follow_the_compile_flags():
    assert _plan.openmp_link_args({"cxx": ["-O2", "-fopenmp"], "c": [], "cuda": []}) == ["-fopenmp"]
    assert _plan.openmp_link_args({"cxx": ["-fopenmp=libomp"]}) == ["-fopenmp=libomp"]
    assert _plan.openmp_link_args({"cxx": ["-qopenmp"]}) == ["-qopenmp"]
    nvcc = {"cxx": [], "cuda": ["-O3", "-Xcompiler", "-fPIC,-fopenmp"]}
    assert _plan.openmp_link_args(nvcc) == ["-fopenmp"]
    assert _plan.openmp_link_args({"cuda": ["-Xcompiler=-fopenmp"]}) == ["-fopenmp"]
    assert _plan.openmp_link_args({"cuda": ["--compiler-options", "-fopenmp"]}) == ["-fopenmp"]
    # -fopenmp-simd needs no runtime; an nvcc flag not handed to the host compiler is not one
    assert _plan.openmp_link_args({"cxx": ["-fopenmp-simd"], "cuda": ["-fopenmp"]}) == []


def test_build_extension_links_openmp(tmp_path):
    (tmp_path / "setup.py").write_text(textwrap.dedent(SETUP))
    (tmp_path / "omp.cpp").write_text(SOURCE)
    env = subprocess_env(MAX_JOBS="2", SDK_EXTENSIONS_NO_LTO=NO_LTO)
    proc = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    code = "import omp_demo; print(omp_demo.triangle(1000), omp_demo.threads())"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    total, threads = proc.stdout.split()
    assert int(total) == 500500 and int(threads) >= 1


def test_load_links_openmp(tmp_path, ext_dir):
    src = tmp_path / "omp_load.cpp"
    src.write_text(SOURCE)
    code = f"""
from cpp_extension import load
m = load("omp_load", [{str(src)!r}], extra_cflags=["-fopenmp"])
print(m.triangle(100), m.threads())
"""
    proc = run_python(code, SDK_EXTENSIONS_NO_LTO=NO_LTO)
    total, threads = proc.stdout.split()
    assert int(total) == 5050 and int(threads) >= 1
