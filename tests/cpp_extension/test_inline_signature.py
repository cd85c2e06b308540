"""load_inline's generated pybind11 bindings carry the C++ parameter names (keyword arguments
work, literal defaults too), and a compile error names the line of the user's own string."""

from __future__ import annotations

import numpy as np
import pytest

from cpp_extension import BuildError, load_inline
from cpp_extension._cpp_signature import parameters, pybind11_args
from tests.cpp_extension.conftest import require_core

SOURCE = """
// scale(int bogus) in a comment is not a declaration
sdk::Tensor scale(const sdk::Tensor& x, double factor = 2.0, int64_t shift = 0);
std::vector<sdk::Tensor> two(sdk::Tensor input, std::map<int, std::pair<int, int>> m) {
  auto y = scale(input, 3.0);  // a call, not a declaration
  return {y, scale(y)};
}
sdk::Tensor scale(const sdk::Tensor& x, double factor, int64_t shift) {
  return x * factor + static_cast<double>(shift);
}
int unnamed(int, float x) { return 0; }
int ov(int a) { return a; }
int ov(float b) { return 0; }
void nothing() {}
int mixed(const std::string& s = "a,b", std::optional<int> o = std::nullopt) { return 0; }
"""


@pytest.mark.parametrize(
    "fname, want",
    [
        ("scale", [("x", None), ("factor", "2.0"), ("shift", "0")]),  # default from the declaration
        ("two", [("input", None), ("m", None)]),  # template commas are not separators
        ("nothing", []),
        ("unnamed", None),  # an unnamed parameter: stay positional
        ("ov", None),  # overloads
        ("absent", None),
        ("mixed", [("s", '"a,b"'), ("o", "std::nullopt")]),  # a comma inside a string
    ],
)
def test_parameters_are_read_from_the_declarations(fname, want):
    assert parameters(SOURCE, fname) == want


def test_defaults_are_repeated_only_when_all_are_literals():
    assert pybind11_args(SOURCE, "scale") == (
        ', pybind11::arg("x"), pybind11::arg("factor") = 2.0, pybind11::arg("shift") = 0'
    )
    assert pybind11_args(SOURCE, "mixed") == ', pybind11::arg("s"), pybind11::arg("o")'
    assert pybind11_args(SOURCE, "ov") == ""


@pytest.mark.slow
def test_keyword_arguments_and_error_lines(ext_dir):
    require_core()
    import sdk

    src = """
sdk::Tensor scale(const sdk::Tensor& x, double factor = 2.0, int64_t shift = 0) {
  return x * factor + static_cast<double>(shift);
}
"""
    m = load_inline("kw_inline", cpp_sources=src, functions=["scale"])
    x = sdk.tensor([1.0, 2.0])
    np.testing.assert_array_equal(m.scale(x, factor=3.0).numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(m.scale(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(m.scale(x=x, shift=1).numpy(), [3.0, 5.0])
    assert "factor" in m.scale.__doc__

    bad = "\n\nsdk::Tensor broken(const sdk::Tensor& x) {\n  return x * factr;\n}\n"
    with pytest.raises(BuildError) as err:
        load_inline("kw_inline_bad", cpp_sources=bad, functions=["broken"])
    assert "main.cpp:4:" in str(err.value), str(err.value)  # line 4 of the user's string
    # and the quoted source is that line, not main.cpp's own line 4 (the header shifts it)
    assert "4 |   return x * factr;" in str(err.value), str(err.value)
    assert "#line" not in str(err.value)
