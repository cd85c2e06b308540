"""The %%cpp_extension cell magic through a real IPython shell, and its function detector."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sdk
from cpp_extension import BuildError
from cpp_extension._cell_functions import top_level_functions
from tests._support import subprocess_env

# ------------------------------------------------------------------ the function detector


def test_detector_finds_top_level_definitions_in_order():
    src = """
#include <cmath>
// int commented(int a) { return a; }
sdk::Tensor scale(sdk::Tensor x, double factor) { return x * factor; }
double twice(double v) noexcept { return 2 * v; }
auto half(double v) -> double { return v / 2; }
const char* greet() { return "int fake(int x) { }"; }
"""
    assert top_level_functions(src) == ["scale", "twice", "half", "greet"]


def test_detector_leaves_out_helpers_templates_and_scopes():
    src = """
static double helper(double v) { return v; }
template <typename T> T ident(T v) { return v; }
namespace detail { double inner(double v) { return v; } }
struct S { double method(double v) { return v; } };
double S_method(double v);
double S::method2(double v) { return v; }
extern "C" { int c_block(int a) { return a; } }
int over(int a) { return a; }
double over(double a) { return a; }
SDK_LIBRARY(myops, m) { m.def("x(Tensor a) -> Tensor"); }
int declared_only(int a);
int value = compute(3);
bool operator==(const S& a, const S& b) { return true; }
#define MACRO(x) int from_macro(int x) { return x; }
int kept(int a) { return helper(a) + inner(a); }
"""
    assert top_level_functions(src) == ["kept"]


def test_detector_empty_and_no_functions():
    assert top_level_functions("") == []
    assert top_level_functions("int x = 3;\nstruct A { int f() { return 1; } };") == []


# ------------------------------------------------------------------ the option parser


def test_parse_line_options():
    pytest.importorskip("IPython", reason="IPython is not installed")
    from cpp_extension._ipython import parse_line

    opts = parse_line("myop --functions a,b --extra-cflags -O3 -DN=4 --verbose --extra-ldflags=-lm")
    assert opts["name"] == "myop"
    assert opts["functions"] == ["a", "b"]
    assert opts["extra_cflags"] == ["-O3", "-DN=4"]
    assert opts["extra_ldflags"] == ["-lm"]
    assert opts["verbose"] is True
    assert parse_line("")["name"] is None
    for bad in ("1abc", "a b", "--functions", "--nope", "x --functions 'a b'"):
        with pytest.raises(ValueError):
            parse_line(bad)


# ------------------------------------------------------------------ through IPython

CELL = r"""
sdk::Tensor axpy(sdk::Tensor x, sdk::Tensor y, double alpha) { return x * alpha + y; }
static double helper(double v) { return v * 3; }
double triple(double value) { return helper(value); }
"""


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """IPython's shell with the extension loaded, building into a private JIT cache."""
    pytest.importorskip("IPython", reason="IPython is not installed")
    from IPython.core.interactiveshell import InteractiveShell

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SDK_EXTENSIONS_DIR", str(tmp_path_factory.mktemp("ext_cache")))
        sh = InteractiveShell.instance()
        sh.run_line_magic("load_ext", "cpp_extension")
        yield sh


@pytest.mark.slow
def test_magic_binds_functions_and_keywords(shell, capsys):
    shell.run_cell_magic("cpp_extension", "magic_axpy", CELL)
    err = capsys.readouterr().err
    ns = shell.user_ns
    assert "magic_axpy" in ns and "helper" not in ns
    x, y = np.arange(4.0), np.ones(4)
    out = ns["axpy"](y=sdk.tensor(y), alpha=2.0, x=sdk.tensor(x)).numpy()
    np.testing.assert_allclose(out, 2 * x + y)
    assert ns["triple"](value=1.5) == 4.5
    assert ns["magic_axpy"].triple(2.0) == 6.0
    # the progress lines reached sys.stderr (what Jupyter shows in the cell), not fd 2 alone
    assert "Building magic_axpy: [" in err, err
    assert "Built magic_axpy in" in err, err
    assert "\x1b" not in err


@pytest.mark.slow
def test_magic_explicit_functions_and_default_name(shell):
    shell.user_ns.pop("triple", None)
    cell = "double quad(double v) { return 4 * v; }\ndouble other(double v) { return v; }\n"
    shell.run_cell_magic("cpp_extension", "--functions quad", cell)
    assert shell.user_ns["quad"](2.0) == 8.0
    assert "other" not in shell.user_ns
    mods = [k for k in shell.user_ns if k.startswith("cell_")]
    assert mods and hasattr(shell.user_ns[mods[0]], "quad")


@pytest.mark.slow
def test_magic_rerun_of_an_edited_cell_binds_the_new_version(shell):
    shell.run_cell_magic("cpp_extension", "magic_edit", "int answer() { return 1; }\n")
    assert shell.user_ns["answer"]() == 1
    shell.run_cell_magic("cpp_extension", "magic_edit", "int answer() { return 2; }\n")
    assert shell.user_ns["answer"]() == 2
    assert shell.user_ns["magic_edit"].answer() == 2


@pytest.mark.slow
def test_magic_cell_with_its_own_module_binds_what_it_declares(shell):
    cell = (
        "int plus_one(int a) { return a + 1; }\n"
        'PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("inc", &plus_one); }\n'
    )
    shell.run_cell_magic("cpp_extension", "magic_own", cell)
    assert shell.user_ns["inc"](4) == 5
    assert "plus_one" not in shell.user_ns


@pytest.mark.slow
def test_magic_compile_error_names_the_cell_line(shell):
    cell = "double ok(double v) { return v; }\n\ndouble broken(double v) {\n  return v +;\n}\n"
    with pytest.raises(BuildError) as info:
        shell.run_cell_magic("cpp_extension", "magic_broken", cell)
    text = str(info.value)
    assert text.startswith("Error compiling the cell of 'magic_broken': 1 error(s):"), text
    assert "cell line 4, column" in text, text
    assert "4 |   return v +;" in text, text  # the cell's own line, not main.cpp's
    assert "#line" not in text and "Build folder: " in text, text
    assert info.value.diagnostics and info.value.diagnostics[0].line == 4
    assert "\x1b" not in text


@pytest.mark.slow
def test_magic_compile_error_is_plain_text_with_colour_forced(shell):
    # a notebook is not a terminal: even when the compiler is told to colour its messages,
    # the error carries no escape codes
    cell = "int f(int a) {\n  return a +;\n}\n"
    with pytest.raises(BuildError) as info:
        shell.run_cell_magic(
            "cpp_extension", "magic_colour --extra-cflags -fdiagnostics-color=always", cell
        )
    assert "cell line 2" in str(info.value)
    assert "\x1b" not in str(info.value) and "\x1b" not in info.value.log


def test_magic_usage_errors(shell):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match="no function to bind"):
        shell.run_cell_magic("cpp_extension", "magic_none", "static int h() { return 1; }\n")
    with pytest.raises(UsageError, match="unknown option"):
        shell.run_cell_magic("cpp_extension", "x --bogus", "int f() { return 1; }\n")


def test_import_does_not_import_ipython():
    code = "import sys, cpp_extension; print('IPython' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env()
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
