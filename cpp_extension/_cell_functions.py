"""The top-level functions a C++ source string defines: what `%%cpp_extension` binds when the
cell names no `--functions`.

The rule (a small reader, not a C++ parser): a function is bound when it is *defined* (has a
body) at file scope, with a return type before its name. Left out, so that they stay C++-only
helpers:
- `static` functions and function templates;
- anything inside a namespace, class, struct or `extern "C" { }` block;
- operators, out-of-class member definitions (`A::f`) and overloaded names (pybind11 needs
  one address per name; bind overloads yourself with PYBIND11_MODULE);
- macro blocks such as `SDK_LIBRARY(ns, m) { }` (no return type before the name).
"""

from __future__ import annotations

import re

from ._cpp_signature import _balanced, _strip_comments_and_strings

_NAME_CALL = re.compile(r"(?<![\w.>:~])\b([A-Za-z_]\w*)\s*\(")
_KEYWORDS = {
    "return", "else", "case", "new", "delete", "throw", "sizeof", "if", "while", "for",
    "switch", "catch", "decltype", "alignof", "static_assert", "operator", "co_return",
}  # fmt: skip
# between `)` and `{` of a definition: qualifiers and a trailing return type only
_TRAILER = re.compile(r"[\w\s:<>,&*\[\]()-]*")


def _blank_preprocessor(clean: str) -> str:
    """`clean` with preprocessor lines (and their continuations) blanked, lengths kept."""
    out = []
    continued = False
    for line in clean.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if continued or body.lstrip().startswith("#"):
            out.append(" " * len(body) + line[len(body) :])
            continued = body.endswith("\\")
        else:
            out.append(line)
    return "".join(out)


def _depths(text: str) -> list[int]:
    """The brace depth at each character of `text`."""
    depth, out = 0, []
    for c in text:
        if c == "}":
            depth -= 1
        out.append(depth)
        if c == "{":
            depth += 1
    return out


def _statement_start(text: str, at: int, depth: list[int]) -> int:
    """Index where the file-scope statement holding `at` begins."""
    i = at - 1
    while i >= 0 and not (text[i] in ";{}" and depth[i] == 0):
        i -= 1
    return i + 1


def _is_definition(text: str, close: int) -> bool:
    """Whether the parameter list ending at `close` is followed by a function body."""
    brace = text.find("{", close)
    semi = text.find(";", close)
    if brace < 0 or (0 <= semi < brace):
        return False
    trailer = text[close:brace]
    return "=" not in trailer.replace("->", "") and bool(_TRAILER.fullmatch(trailer))


def top_level_functions(source: str) -> list[str]:
    """Names of the functions `source` defines at file scope that can be bound by name, in
    the order they are defined (see the module docstring for what is left out)."""
    text = _blank_preprocessor(_strip_comments_and_strings(source))
    depth = _depths(text)
    found: dict[str, int] = {}
    for m in _NAME_CALL.finditer(text):
        name = m.group(1)
        if depth[m.start()] != 0 or name in _KEYWORDS:
            continue
        before = text[: m.start()].rstrip()
        prev = re.search(r"([A-Za-z_]\w*|[>&*])\s*$", before)
        if not prev or prev.group(1) in _KEYWORDS or before.endswith("::"):
            continue  # a macro block or a call, not a definition with a return type
        close = _balanced(text, m.end() - 1)
        if close is None or not _is_definition(text, close):
            continue
        prefix = text[_statement_start(text, m.start(), depth) : m.start()]
        if re.search(r"\b(static|template|operator|friend|typedef)\b", prefix):
            continue
        found[name] = found.get(name, 0) + 1
    return [n for n, count in found.items() if count == 1]
