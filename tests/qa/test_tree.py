"""The tree's checkable structure rules (docs/CONTRIBUTING.md): files of at most 800 lines
(the C ABI header is exempt: it is the one documented ABI file), functions of at most 80
lines in core/src, sdk and cpp_extension, a LICENSE, no profiler recordings."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80
EXEMPT_FILES = {"core/include/sdk/c_api.h"}
SOURCE_SUFFIXES = {".py", ".cpp", ".h", ".cu", ".cuh"}
FUNCTION_ROOTS = ("core/src", "core/include", "sdk", "cpp_extension")


def _tracked() -> list[str]:
    try:
        out = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


def _sources(roots: tuple[str, ...] | None = None) -> list[str]:
    files = [f for f in _tracked() if Path(f).suffix in SOURCE_SUFFIXES]
    if roots is not None:
        files = [f for f in files if f.startswith(roots)]
    return [f for f in files if not f.startswith(("tests/abi/", "templates/"))]


def python_functions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function and method."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.name, node.lineno, node.end_lineno - node.lineno + 1))
    return out


_STRING = re.compile(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'')
_CONTROL = re.compile(r"^(if|for|while|switch|else|do|return|catch|try)\b")
_SCOPE = re.compile(r"\b(namespace|struct|class|union|enum)\b|extern\s*\"\"")


def _code_only(text: str) -> str:
    """C/C++ text with comments, strings and preprocessor lines blanked (lines kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    lines = []
    continued = False  # inside a preprocessor directive that goes on with a backslash
    for line in text.split("\n"):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines.append("")
            continue
        line = _STRING.sub('""', line)
        lines.append(line.split("//", 1)[0])
    return "\n".join(lines)


def cxx_functions(text: str) -> list[tuple[str, int, int]]:
    """(signature tail, first line, length) of every function body that opens at namespace
    or class scope (a lambda or block inside a function counts toward that function)."""
    out = []
    stack: list[tuple[str, int, str]] = []  # (kind, line, header)
    header = ""
    for lineno, line in enumerate(_code_only(text).split("\n"), 1):
        for ch in line:
            if ch == "{":
                head = header.strip()
                in_function = any(kind != "scope" for kind, _, _ in stack)
                if not in_function and _SCOPE.search(head) and "(" not in head.split("{")[0]:
                    stack.append(("scope", lineno, head))
                elif not in_function and "(" in head and not _CONTROL.match(head):
                    stack.append(("function", lineno, head))
                else:
                    stack.append(("block", lineno, head))
                header = ""
            elif ch == "}":
                kind, start, head = stack.pop() if stack else ("block", lineno, "")
                if kind == "function":
                    out.append((head[-60:], start, lineno - start + 1))
                header = ""
            elif ch == ";":
                header = ""
            else:
                header += ch
        header += " "
    return out


def test_the_cxx_scanner_measures_functions_and_skips_scopes():
    text = (
        "#define M(x) \\\n"
        "  void x() { \\\n"
        "  }\n"
        "namespace a {\n"
        "struct S {\n"
        "  int f(int x) {\n"
        '    auto g = [](int y) { return y; };  // "}" in a comment\n'
        "    if (x) {\n"
        '      return g(x) + "{"[0];\n'
        "    }\n"
        "    return 0;\n"
        "  }\n"
        "};\n"
        "}  // namespace a\n"
    )
    assert [(n[1], n[2]) for n in cxx_functions(text)] == [(6, 7)]


def test_no_file_is_over_800_lines():
    long = []
    for f in _sources():
        if f in EXEMPT_FILES:
            continue
        n = (ROOT / f).read_text(errors="replace").count("\n")
        if n > MAX_FILE_LINES:
            long.append(f"{f}: {n} lines")
    assert not long, "split these by concept:\n" + "\n".join(long)


def test_no_function_is_over_80_lines():
    long = []
    for f in _sources(FUNCTION_ROOTS):
        text = (ROOT / f).read_text(errors="replace")
        found = python_functions(text) if f.endswith(".py") else cxx_functions(text)
        long += [f"{f}:{line}: {name} ({n} lines)" for name, line, n in found if n > 80]
    assert not long, "split these functions:\n" + "\n".join(long)


def test_hygiene():
    tracked = _tracked()
    assert "LICENSE" in tracked
    assert not [f for f in tracked if Path(f).name.startswith("perf.data")]
