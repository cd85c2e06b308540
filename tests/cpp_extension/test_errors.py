"""Build error reports: parsing gcc/clang/nvcc output, and a missing compiler explained."""

from __future__ import annotations

import pytest

import cpp_extension
from cpp_extension import BuildError
from cpp_extension._errors import format_build_failure, parse_diagnostics

GCC = """\
[1/2] CXX /src/op.cpp
FAILED: /b/op.o
c++ -MMD -MF /b/op.o.d -std=c++17 -O2 -c /src/op.cpp -o /b/op.o
In file included from /src/op.cpp:2:
/src/op.cpp: In function 'int f(int)':
/src/op.cpp:7:12: error: 'y' was not declared in this scope
    7 |   return y + 1;
      |          ^
/src/op.cpp:9:1: error: expected ';' before '}' token
    9 | }
      | ^
/src/op.cpp:11:3: error: third
/src/op.cpp:12:3: error: fourth
ninja: build stopped: subcommand failed.
"""

CLANG = """\
/src/k.cpp:3:5: error: use of undeclared identifier 'z'
    z = 1;
    ^
1 error generated.
"""

NVCC = """\
/src/k.cu(14): error: identifier "threadIdy" is undefined
      int i = threadIdy.x;
              ^
1 error detected in the compilation of "/src/k.cu".
"""


def test_gcc_output_parsed_with_context():
    diags = parse_diagnostics(GCC)
    assert [(d.file, d.line, d.column) for d in diags[:2]] == [
        ("/src/op.cpp", 7, 12),
        ("/src/op.cpp", 9, 1),
    ]
    assert "'y' was not declared" in diags[0].message
    assert any("return y + 1" in c for c in diags[0].context)


def test_clang_and_nvcc_formats():
    (c,) = parse_diagnostics(CLANG)
    assert (c.file, c.line, c.column) == ("/src/k.cpp", 3, 5)
    (n,) = parse_diagnostics(NVCC)
    assert (n.file, n.line) == ("/src/k.cu", 14) and "threadIdy" in n.message


def test_report_shows_first_three_errors_command_and_folder():
    err = format_build_failure("myop", GCC, "/b", "/b/build.log")
    msg = str(err)
    assert "4 error(s), first 3" in msg
    assert "/src/op.cpp:7:12" in msg and "/src/op.cpp:11:3" in msg
    assert "fourth" not in msg
    assert "Command: c++ -MMD" in msg and "Build folder: /b" in msg
    assert isinstance(err, RuntimeError)


def test_link_error_without_file_line():
    out = "FAILED: x.so\nc++ a.o -o x.so\n/usr/bin/ld: a.o: undefined reference to `foo'\n"
    msg = str(format_build_failure("x", out, "/b", "/b/build.log"))
    assert "undefined reference to `foo'" in msg and "Command: c++ a.o" in msg


def test_missing_compiler_is_explained(tmp_path, ext_dir, monkeypatch):
    src = tmp_path / "a.cpp"
    src.write_text("int f() { return 1; }\n")
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    with pytest.raises(BuildError) as info:
        cpp_extension.load("nocompiler", [str(src)], is_python_module=False)
    msg = str(info.value)
    assert "/nonexistent/g++" in msg and "apt-get install g++" in msg and "CXX=" in msg


def test_missing_source_and_bad_name(tmp_path, ext_dir):
    with pytest.raises(FileNotFoundError, match="nope.cpp"):
        cpp_extension.load("x", [str(tmp_path / "nope.cpp")])
    with pytest.raises(ValueError, match="identifier"):
        cpp_extension.load("bad-name", [str(tmp_path / "nope.cpp")])
