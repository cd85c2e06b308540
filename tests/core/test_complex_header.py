"""sdk/complex.h on the host: sdk::complex<T>'s arithmetic and the std:: / c10_complex_math
functions (c10_complex_math's too) against Python's complex numbers and cmath, its layout against std::complex, and the
dtype helpers and dispatch macros that take the complex dtypes."""

from __future__ import annotations

import cmath
import subprocess

import pytest

from tests._compile_cache import run_compiler
from tests.core.test_cpp_api import INCLUDE, _cxx

PROGRAM = r"""
#include <cstdio>
#include "sdk/all.h"

using Z = sdk::complex<double>;
static void put(const char* name, Z z) { std::printf("%s %.17g %.17g\n", name, z.real(), z.imag()); }

int main() {
  static_assert(sizeof(sdk::complex<float>) == 8 && alignof(sdk::complex<float>) == 8);
  static_assert(sizeof(Z) == 16 && alignof(Z) == 16);
  static_assert(std::is_same_v<sdk::ScalarTypeToCPPTypeT<sdk::kComplexFloat>, sdk::complex<float>>);
  static_assert(sdk::CppTypeToScalarType<Z>::value == sdk::kComplexDouble);
  static_assert(sdk::isComplexType(sdk::kComplexFloat) && !sdk::isComplexType(sdk::kDouble));
  static_assert(sdk::toRealValueType(sdk::kComplexDouble) == sdk::kDouble);
  const Z a(1.5, -2.0), b(-0.25, 3.0);
  put("add", a + b); put("sub", a - b); put("mul", a * b); put("div", a / b);
  put("rdiv", 2.0 / b); put("iadd", a + 2); put("neg", -a);
  put("exp", std::exp(a)); put("log", std::log(b)); put("sqrt", std::sqrt(b));
  put("pow", std::pow(a, b)); put("powr", std::pow(a, 2.5)); put("conj", std::conj(a));
  put("polar", sdk::polar(2.0, 0.5)); put("cexp", c10_complex_math::exp(b));
  std::printf("abs %.17g 0\narg %.17g 0\nnorm %.17g 0\n", std::abs(a), std::arg(b), std::norm(a));
  std::complex<double> s = static_cast<std::complex<double>>(a);
  Z back(s);
  sdk::complex<float> f(a);  // narrowing is explicit
  Z wide = f;                // widening implicit
  std::printf("eq %d %d %d %d 0\n", int(back == a), int(a != b), int(Z(3) == 3.0), int(bool(Z())));
  put("wide", wide);
  int bad = 0;
  try { (void)sdk::toComplexType(sdk::kInt); } catch (const std::exception&) { bad = 1; }
  std::printf("to_complex %d %d\n", int(sdk::toComplexType(sdk::kFloat) == sdk::kComplexFloat), bad);
  auto size = SDK_DISPATCH_ALL_TYPES_AND_COMPLEX(sdk::kComplexDouble, "s", [&] { return sizeof(scalar_t); });
  std::printf("dispatch %d 0\n", int(size));
  return 0;
}
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("complex_header")
    src, exe = folder / "complex.cpp", folder / "complex"
    src.write_text(PROGRAM)
    cmd = [
        _cxx(),
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        f"-I{INCLUDE}",
        str(src),
        "-o",
        str(exe),
    ]
    r = run_compiler(cmd, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stdout
    return {line.split()[0]: line.split()[1:] for line in out.splitlines()}


def test_arithmetic_and_functions_match_python(results):
    a, b = complex(1.5, -2.0), complex(-0.25, 3.0)
    want = {
        "add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "rdiv": 2 / b, "iadd": a + 2,
        "neg": -a, "exp": cmath.exp(a), "log": cmath.log(b), "sqrt": cmath.sqrt(b),
        "pow": a**b, "powr": a**2.5, "conj": a.conjugate(), "polar": cmath.rect(2.0, 0.5),
        "cexp": cmath.exp(b), "abs": abs(a), "arg": cmath.phase(b), "norm": abs(a) ** 2,
        "wide": complex(1.5, -2.0),
    }  # fmt: skip
    for name, w in want.items():
        got = complex(float(results[name][0]), float(results[name][1]))
        assert got == pytest.approx(complex(w), rel=1e-15, abs=1e-15), name


def test_conversions_helpers_and_dispatch(results):
    assert results["eq"] == ["1", "1", "1", "0", "0"]
    assert results["to_complex"] == ["1", "1"]
    assert results["dispatch"] == ["16", "0"]
