"""load() and load_inline() through the pybind11 bridge (each case is one ~5 s compile)."""

from __future__ import annotations

from pathlib import Path

import pytest

import cpp_extension
from tests.cpp_extension.conftest import REPO, run_python

OP = """
#include <stdexcept>
#include "op.h"
double scaled_sum(double a, double b) {
  if (a < 0) throw std::invalid_argument("scaled_sum: a must be >= 0, got " + std::to_string(a));
  return SCALE * (a + b);
}
"""
BIND = """
#include <pybind11/pybind11.h>
#include "op.h"
#define STR2(x) #x
#define STR(x) STR2(x)
PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("scaled_sum", &scaled_sum);
  m.attr("built_as") = STR(SDK_EXTENSION_NAME);
}
"""


def test_load_two_sources_and_exceptions(tmp_path, ext_dir, capsys):
    (tmp_path / "op.h").write_text("#define SCALE 2.0\ndouble scaled_sum(double a, double b);\n")
    (tmp_path / "op.cpp").write_text(OP)
    (tmp_path / "bind.cpp").write_text(BIND)
    m = cpp_extension.load(
        "pyb_sum", [str(tmp_path / "op.cpp"), str(tmp_path / "bind.cpp")], verbose=True
    )
    assert m.scaled_sum(1.5, 2.0) == pytest.approx(7.0)
    assert m.built_as == "pyb_sum"
    with pytest.raises(ValueError, match="a must be >= 0, got -1"):  # pybind11's own mapping
        m.scaled_sum(-1.0, 0.0)
    err = capsys.readouterr().err
    assert "-fPIC" in err and "op.cpp" in err, "verbose=True shows the full commands"
    assert (
        cpp_extension.load("pyb_sum", [str(tmp_path / "op.cpp"), str(tmp_path / "bind.cpp")]) is m
    )
    assert not cpp_extension.last_load_info()["built"]
    # the same binary as a prebuilt library: the loaded module is reused, a fresh process imports it
    assert cpp_extension.load_library(m.__file__) is m
    out = run_python(
        f"import cpp_extension; m = cpp_extension.load_library({m.__file__!r}); "
        "print(m.__name__, m.scaled_sum(1.0, 1.0))"
    )
    assert out.stdout.split() == ["pyb_sum", "4.0"]


def _sdk_imports() -> bool:
    try:
        import sdk._C  # noqa: F401

        return True
    except Exception:
        return False


def _extension_header_dir(tmp_path: Path) -> list[str]:
    """The real sdk/extension.h when it exists and sdk imports (its casters import sdk);
    else a stand-in with pybind11 only."""
    if (REPO / "core" / "include" / "sdk" / "extension.h").exists() and _sdk_imports():
        return []
    inc = tmp_path / "inc" / "sdk"
    inc.mkdir(parents=True)
    (inc / "extension.h").write_text("#include <pybind11/pybind11.h>\n#include <sdk/c_api.h>\n")
    return [str(tmp_path / "inc")]


def test_load_inline_generates_bindings(tmp_path, ext_dir):
    src = """
    int triple(int x) { return 3 * x; }
    int negate(int x) { return -x; }
    """
    m = cpp_extension.load_inline(
        "pyb_inline",
        cpp_sources=[src],
        functions={"triple": "Multiply by three.", "negate": ""},
        extra_include_paths=_extension_header_dir(tmp_path),
    )
    assert m.triple(4) == 12 and m.negate(5) == -5
    assert "Multiply by three." in m.triple.__doc__
    build = Path(cpp_extension.last_load_info()["build_directory"])
    main = (build / "main.cpp").read_text()
    assert main.startswith("#include <sdk/extension.h>")
    assert "PYBIND11_MODULE(SDK_EXTENSION_NAME, m)" in main


def test_load_inline_rebuilt_in_one_process_runs_the_new_code(ext_dir):
    # an edited notebook cell (or source) loaded again under the same name: pybind11 keeps
    # the module it made for a spec name, so the rebuild must not be imported under the old one
    old = cpp_extension.load_inline("pyb_edit", "int answer() { return 1; }", functions="answer")
    new = cpp_extension.load_inline("pyb_edit", "int answer() { return 2; }", functions="answer")
    assert new is not old and new.__name__ == "pyb_edit_v1"
    assert (old.answer(), new.answer()) == (1, 2)
