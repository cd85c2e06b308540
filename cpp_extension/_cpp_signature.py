"""The parameter names (and simple defaults) of a C++ function declared in a source string, so
that load_inline's generated bindings take keyword arguments (`m.scale(x, factor=2.0)`).

A deliberately small reader, not a C++ parser: it finds `NAME(` where a declaration can
stand (after a type, not after `.`, `->` or an operator), reads the balanced parameter list,
and takes each parameter's last identifier as its name. Whenever the answer is not certain
(overloads that disagree, an unnamed parameter, a macro in the list) it returns None and the
binding stays positional, which is what it was before.
"""

from __future__ import annotations

import re

_IDENT = re.compile(r"[A-Za-z_]\w*")
# A default that is safe to repeat in the binding: a number, a bool, a string or char literal.
_SIMPLE_DEFAULT = re.compile(
    r"""-?(\d+(\.\d*)?([eE][-+]?\d+)?[fFlLuU]*|\.\d+([eE][-+]?\d+)?[fF]?|true|false|"[^"\\]*"|'.')"""
)
_NOT_TYPES = {"return", "else", "case", "new", "delete", "throw", "sizeof", "co_return"}


def _strip_comments_and_strings(src: str) -> str:
    """`src` with comments blanked and string/char literal contents blanked (lengths kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _balanced(text: str, start: int) -> int | None:
    """Index just past the ')' matching the '(' at `start`, or None."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _top_level(text: str, wanted: str):
    """Indices of the characters of `wanted` in `text` outside every bracket (template
    angle brackets included)."""
    depth = 0
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c in wanted and depth == 0:
            yield i


def _split_top_level(params: str) -> list[tuple[int, int]]:
    """(start, end) spans of the comma-separated parts of `params` at bracket depth 0."""
    cuts = [-1, *_top_level(params, ","), len(params)]
    return [(a + 1, b) for a, b in zip(cuts, cuts[1:])]


def _parameter(text: str, original: str) -> tuple[str, str | None] | None:
    """(name, default text or None) of one parameter, or None when it has no name."""
    decl, default = text, None
    eq = next(_top_level(text, "="), None)
    if eq is not None:
        decl, default = text[:eq].rstrip(), original[eq + 1 :].strip()
    decl = re.sub(r"\[[^\]]*\]\s*$", "", decl).rstrip()  # `float v[3]`
    names = _IDENT.findall(decl)
    if len(names) < 2 or not re.search(r"[A-Za-z_]\w*\s*$", decl):
        return None  # `const Tensor&` alone: unnamed
    return names[-1], default


def _same_strip(clean: str, raw: str) -> str:
    """`raw` trimmed exactly as clean.strip() trims `clean` (the two have equal lengths)."""
    lead = len(clean) - len(clean.lstrip())
    return raw[lead : lead + len(clean.strip())]


def _declarations(clean: str, original: str, fname: str):
    for m in re.finditer(rf"(?<![\w.>:~])\b{re.escape(fname)}\s*\(", clean):
        before = clean[: m.start()].rstrip()
        prev = re.search(r"([A-Za-z_]\w*|[>&*:])\s*$", before)
        if not prev or prev.group(1) in _NOT_TYPES or before.endswith("::"):
            continue  # a call (`= f(`, `return f(`, `(f(`), not a declaration
        open_at = m.end() - 1
        close = _balanced(clean, open_at)
        if close is None:
            continue
        yield clean[open_at + 1 : close - 1], original[open_at + 1 : close - 1]


def parameters(source: str, fname: str) -> list[tuple[str, str | None]] | None:
    """[(name, default)] of `fname`'s parameters as declared in `source`; a default is kept
    only when it is a plain literal. None when unsure (see the module docstring)."""
    clean = _strip_comments_and_strings(source)
    found = []
    for params, raw in _declarations(clean, source, fname):
        if not params.strip() or params.strip() == "void":
            found.append([])
            continue
        if re.search(r"\.\.\.|\b[A-Z_][A-Z0-9_]*\s*\(", params):
            return None  # variadic, or a macro expanding to parameters
        spans = _split_top_level(params)  # on the blanked text: commas in strings don't count
        one = [
            _parameter(params[a:b].strip(), _same_strip(params[a:b], raw[a:b])) for a, b in spans
        ]
        if any(p is None for p in one):
            return None
        found.append(one)
    if not found:
        return None
    names = {tuple(n for n, _ in f) for f in found}
    if len(names) != 1:
        return None  # overloads, or declarations that disagree
    merged = list(found[0])
    for f in found[1:]:  # the default may sit on the declaration, not the definition
        merged = [(n, d or d2) for (n, d), (_, d2) in zip(merged, f)]
    return merged


def pybind11_args(source: str, fname: str) -> str:
    """`, pybind11::arg("x"), pybind11::arg("f") = 2.0` for m.def, or "" when unsure. Defaults
    are repeated only when every defaulted parameter has a literal one (pybind11 needs the
    defaulted parameters last, and anything else may not compile in the binding)."""
    params = parameters(source, fname)
    if not params:
        return ""
    defaults = [d for _, d in params if d is not None]
    simple = all(_SIMPLE_DEFAULT.fullmatch(d) for d in defaults)
    parts = []
    for name, default in params:
        arg = f'pybind11::arg("{name}")'
        if simple and default is not None:
            arg += f" = {default}"
        parts.append(arg)
    return ", " + ", ".join(parts)
