"""The porter's C++/CUDA pass: includes, namespaces and macros rewritten by port_map, and the
torch names left without an SDK counterpart found. Comments and literals are never touched
(the path of an #include excepted)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import port_map
from .sdk_names import _USING_DECL, SdkHeaders, declared_names, mask_cxx


@dataclass(frozen=True)
class Missing:
    """A torch name the SDK has no counterpart for: where, what, and why (when known)."""

    path: str
    line: int
    name: str
    kind: str  # "header", "function", "method", "macro", "python", "string"
    reason: str = ""

    def __str__(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        return f"{self.path}:{self.line}: {self.name}  [{self.kind}]{why}"


@dataclass
class Result:
    """A ported file: its new text, rewrites by kind, and what is missing."""

    text: str
    rewrites: dict[str, int]
    missing: list[Missing]
    # the original line of each line of `text` (index 0: line 1); None: the same lines
    lines: list[int] | None = None


_INCLUDE = re.compile(r'^([ \t]*#[ \t]*include[ \t]*)([<"])([^>"\n]+)([>"])', re.M)
_NS_ALT = "|".join(sorted(port_map.NAMESPACES, key=len, reverse=True))
_NAMESPACE = re.compile(rf"(?<![\w$])(?<!\w::)({_NS_ALT})(?=\s*::)")
_USING_NAMESPACE = re.compile(rf"\b(using\s+namespace\s+)(?:::)?({_NS_ALT})\b(?!\s*::)")
# Code reopening torch's namespaces (kernels written inside `namespace at { namespace native`)
_NAMESPACE_DECL = re.compile(rf"\b(namespace\s+)({_NS_ALT})\b(?=\s*\{{)")
# torch's spellings of std names: rewritten to std:: (sdk/util.h's aliases need that header)
_STD_NAME = re.compile(
    rf"(?<![\w$])(?<!\w::)((?:::)?(?:{_NS_ALT})\s*::\s*)({'|'.join(port_map.STD_NAMES)})(?![\w$])"
)
_TORCH_ONLY_NAME = re.compile(
    rf"(?<![\w$])(?<!\w::)((?:::)?torch\s*::\s*)({'|'.join(port_map.TORCH_ONLY_NAMES)})(?![\w$])"
)
# torch::RegisterOperators("ns::op", &fn): the SDK's class registers with .op() only
_REGISTER_OPERATORS = re.compile(
    rf"(?<![\w$])(?:::)?(?:{_NS_ALT})\s*::\s*(RegisterOperators)(?=\s*\(\s*[^\s)])"
)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_MACRO_NAMES = "|".join(
    [rf"{re.escape(p)}[A-Z0-9_]*[A-Z0-9]" for p in port_map.MACRO_PREFIXES]
    + [re.escape(m) for m in port_map.MACROS]
)
_MACRO = re.compile(rf"(?<![\w$])(?:{_MACRO_NAMES})(?![\w$])")
_TEMPLATE_RENAME = re.compile(
    r"(\.|->)(\s*)(" + "|".join(port_map.TEMPLATE_METHOD_RENAMES) + r")(?=\s*<)"
)
# THC (see port_map.THC_CALLS): its calls, `extern THCState *state;` (torch defined that global,
# nothing does now) and the THCState an old context handed out (a null stand-in)
_THC_CALL = re.compile(rf"(?<![\w$])(?<!::)({'|'.join(port_map.THC_CALLS)})(?=\s*\()")
_THC_EXTERN = re.compile(r"^[ \t]*extern\s+THCState\s*\*\s*(\w+)\s*;", re.M)
_THC_ARG_CHECK = re.compile(rf"(?<![\w$])({'|'.join(port_map.THC_ARG_CHECKS)})(?=\s*\()")
_CONTEXT_CALL = rf"(?<![\w$])(?:::)?(?:{_NS_ALT})\s*::\s*globalContext\s*\(\s*\)\s*(?:\.|->)\s*"
_THC_STATE_INIT = re.compile(
    rf"\bTHCState\s*\*\s*\w+\s*=\s*({_CONTEXT_CALL}(?:lazyInitCUDA|getTHCState)\s*\(\s*\))"
)
_THC_GET_STATE = re.compile(rf"{_CONTEXT_CALL}getTHCState\s*\(\s*\)")
# The TH/THC C API torch removed, in what is left after the port: reported unless the SDK's
# headers (sdk/thc.h) or the project declare it
_LEGACY = re.compile(
    r"(?<![\w$])(?:THC[A-Z_]\w*|THCuda\w+|THArgCheck|THAssert\w*|THError|"
    r"TH[A-Z][a-z]*(?:Tensor|Blas_)\w*)"
    r"(?![\w$])"
)
_TARGET_NS = sorted(set(port_map.NAMESPACES.values()))
_QUALIFIED = re.compile(rf"(?<![\w$])(?<!\w::)(?:::)?(?:{'|'.join(_TARGET_NS)})((?:\s*::\s*\w+)+)")
_METHOD_CALL = re.compile(
    r"(?:\.|->)\s*(\w+)\s*(?:<[^;{}()<>]*(?:<[^;{}()<>]*>[^;{}()<>]*)*>)?\s*\("
)


# a function-like macro's parameters: `#define CHECK_DTYPE(x, dt) ... torch::dt ...`
_MACRO_PARAMS = re.compile(r"^[ \t]*#[ \t]*define[ \t]+\w+\(([^)\n]*)\)", re.M)


def macro_parameter_spans(code: str) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, parameters) of each function-like #define in masked code, its body
    running over backslash-continued lines: there `torch::dt` names whatever the caller
    passes as `dt`, not a torch name (the compile probe checks what the macro expands to)."""
    spans = []
    for m in _MACRO_PARAMS.finditer(code):
        end = m.end()
        while (eol := code.find("\n", end)) != -1 and code[end:eol].rstrip().endswith("\\"):
            end = eol + 1
        end = len(code) if eol == -1 else eol
        params = {p.strip() for p in m.group(1).split(",")} - {"", "..."}
        spans.append((m.start(), end, frozenset(params)))
    return spans


def is_macro_parameter(spans: list[tuple[int, int, frozenset[str]]], pos: int, name: str) -> bool:
    return any(start <= pos < end and name in params for start, end, params in spans)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _map_include(path: str) -> str | None:
    if path in port_map.INCLUDES:
        return port_map.INCLUDES[path]
    for prefix, target in port_map.INCLUDE_PREFIXES.items():
        if path.startswith(prefix):
            return target
    return None


def _include_reason(path: str) -> str:
    known = [p for p in port_map.INCLUDES_WITHOUT_COUNTERPART if path.startswith(p)]
    if not known:
        return "no SDK counterpart"
    return port_map.INCLUDES_WITHOUT_COUNTERPART[max(known, key=len)]


def _is_torch_include(path: str) -> bool:
    return path.startswith(port_map.TORCH_INCLUDE_ROOTS)


def _macro_target(name: str, sdk: SdkHeaders) -> str | None:
    target = port_map.MACROS.get(name)
    if target is None:
        for prefix, repl in port_map.MACRO_PREFIXES.items():
            if name.startswith(prefix):
                target = repl + name[len(prefix) :]
                break
    if target and (target in sdk.macros or target in port_map.BUILD_MACROS):
        return target
    return None


class _Edits:
    """Replacements collected against one text, applied at once."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int, str]] = []
        self.counts: dict[str, int] = {}

    def add(self, start: int, end: int, new: str, kind: str) -> None:
        self.spans.append((start, end, new))
        if kind:  # "": the rest of an edit already counted
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def _applied(self) -> list[tuple[int, int, str]]:
        kept, pos = [], 0
        # at one position: insertions, then the longest replacement (a rule rewriting a whole
        # expression wins over one rewriting its first name)
        order = sorted(self.spans, key=lambda e: (e[0], e[1] != e[0], -e[1], e[2]))
        for start, end, new in order:
            if start < pos:  # overlapping: the first one wins
                continue
            kept.append((start, end, new))
            pos = end
        return kept

    def apply(self, text: str) -> str:
        out, pos = [], 0
        for start, end, new in self._applied():
            out.append(text[pos:start])
            out.append(new)
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def line_map(self, text: str) -> list[int] | None:
        """The original line of each line of apply(text); None when no edit adds or removes
        a line (errors in the ported file are then at the original lines as they are)."""
        applied = self._applied()
        if not any("\n" in new or "\n" in text[s:e] for s, e, new in applied):
            return None
        lines, old, pos = [1], 1, 0
        for start, end, new in applied:
            for _ in range(text.count("\n", pos, start)):
                old += 1
                lines.append(old)
            lines.extend([old] * new.count("\n"))  # lines an edit adds: where it was made
            old += text.count("\n", start, end)
            pos = end
        for _ in range(text.count("\n", pos)):
            old += 1
            lines.append(old)
        return lines


_CHAIN = re.compile(r"(?:\s*::\s*\w+)+")
# a name that a macro completes by token pasting: `at::k##device`
_PASTED = re.compile(r"\s*##")


def _unknown_target(
    code: str, end: int, sdk: SdkHeaders, local: set[str], params: list
) -> tuple[str, str] | None:
    """For the qualified name after a torch namespace ending at `end`: None when its sdk::
    spelling exists or a macro's parameter supplies it, else (the shortest part that does
    not exist, "name" or "namespace")."""
    m = _CHAIN.match(code, end)
    if m is None:
        return None
    parts = [p.strip() for p in m.group(0).split("::") if p.strip()]
    if is_macro_parameter(params, end, parts[0]):
        return None
    i = sdk.has_qualified(parts, local, _PASTED.match(code, m.end()) is not None)
    if i is None:
        return None
    return "::".join(parts[: i + 1]), "name" if i + 1 == len(parts) else "namespace"


def _call_args(code: str, text: str, open_paren: int) -> list[tuple[int, int]] | None:
    """The (start, end) of each argument of the call whose `(` is at `open_paren` in masked
    `code`, blanks around them in `text` excluded; None when the call does not close."""
    depth, start, args = 0, open_paren + 1, []
    for i in range(open_paren, len(code)):
        ch = code[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if (ch == "," and depth == 1) or depth == 0:
            arg = text[start:i]
            lead = len(arg) - len(arg.lstrip())
            args.append((start + lead, start + len(arg.rstrip())))
            start = i + 1
            if depth == 0:
                return args if args != [(open_paren + 1, open_paren + 1)] else []
    return None


def _call_cut(code: str, open_paren: int, drop: int) -> int | None:
    """Where the arguments of the call whose `(` is at `open_paren` start once the first
    `drop` are dropped (their comma and the blanks after it too); None when the call has fewer
    arguments or does not close."""
    if drop == 0:
        return open_paren + 1
    args = _call_args(code, code, open_paren)
    if args is None or len(args) < drop:
        return None
    return args[drop][0] if len(args) > drop else code.index(")", args[-1][1])


def _port_thc(text: str, code: str, sdk: SdkHeaders, edits: _Edits, own: set[str]) -> None:
    """THC's calls rewritten to today's spelling with their THCState argument dropped, the
    extern declaration of torch's THCState global removed (a null stand-in where a name still
    uses it), a context's THCState made null, TH's argument check made an SDK_CHECK."""
    dropped: list[tuple[int, int]] = []  # the THCState arguments the calls lose

    def dropped_at(pos: int) -> bool:
        return any(start <= pos < end for start, end in dropped)

    for m in _THC_CALL.finditer(code):
        target, drop = port_map.THC_CALLS[m.group(1)]
        if sdk.has_qualified(target.split("::")[1:]) is not None:
            continue  # not in this SDK version: the name stays, reported below
        paren = code.index("(", m.end(1))
        cut = _call_cut(code, paren, drop)
        if cut is not None:
            edits.add(m.start(1), cut, f"{target}(", "thc")
            dropped.append((paren, cut))
    for m in _THC_EXTERN.finditer(code):
        # still named once the dropped arguments are gone (THC's cuBLAS wrappers take it)?
        used = any(
            not dropped_at(u.start()) and not m.start() <= u.start() < m.end()
            for u in re.finditer(rf"(?<![\w$]){m.group(1)}(?![\w$])", code)
        )
        stand_in = f"static THCState *const {m.group(1)} = nullptr;" if used else ""
        edits.add(m.start(), m.end(), stand_in, "thc")
    for m in _THC_ARG_CHECK.finditer(code):
        if m.group(1) in own:
            continue
        args = _call_args(code, text, code.index("(", m.end(1)))
        if args is None or len(args) != 3:
            continue
        (c0, c1), (n0, n1), (s0, s1) = args
        message = text[s0:s1]
        if not re.fullmatch(r'(?:\s*"(?:[^"\\%\n]|\\.)*")+', message):
            continue  # a printf format, or not a literal: not TH's message, so left reported
        edits.add(m.start(1), c0, f"{port_map.THC_ARG_CHECKS[m.group(1)]}(", "thc")
        edits.add(c1, n0, ', "invalid argument ", ', "")  # one rewrite, in three places
        edits.add(n1, s0, ', ": ", ', "")
    for m in _THC_STATE_INIT.finditer(code):
        edits.add(m.start(1), m.end(1), "nullptr", "thc")
    for m in _THC_GET_STATE.finditer(code):
        edits.add(m.start(), m.end(), "nullptr", "thc")


def defined_macros(text: str) -> set[str]:
    """The macros a source #defines: a project's own AT_/TORCH_-named macros are its own."""
    return set(_DEFINE.findall(mask_cxx(text)))


def port_cxx(text: str, path: str, sdk: SdkHeaders, own_macros: set[str] | None = None) -> Result:
    """Port one C++/CUDA source or header. Macros in `own_macros` (default: those the text
    #defines; the porter passes those of the whole project) are the project's, never
    rewritten or reported."""
    code = mask_cxx(text)
    own = defined_macros(text) if own_macros is None else own_macros
    edits = _Edits()
    missing: list[Missing] = []

    for m in _INCLUDE.finditer(text):
        if code[m.start(1) : m.end(1)].strip() != m.group(1).strip():
            continue  # inside a comment or a literal
        header = m.group(3).strip()
        if not _is_torch_include(header):
            continue
        target = _map_include(header)
        if target is None or not sdk.has_header(target):
            reason = (
                _include_reason(header)
                if target is None
                else f"{target} is not in this SDK version"
            )
            missing.append(Missing(path, _line_of(text, m.start()), header, "header", reason))
            continue
        edits.add(m.start(3), m.end(3), target, "include")

    std_at = set()
    for m in _STD_NAME.finditer(code):  # at::optional -> std::optional: always visible
        std_at.add(m.start(1))
        edits.add(m.start(1), m.end(2), port_map.STD_NAMES[m.group(2)], "namespace")
    for m in _TORCH_ONLY_NAME.finditer(code):  # torch::arg -> sdk::class_arg
        std_at.add(m.start(1))
        edits.add(m.start(1), m.end(2), port_map.TORCH_ONLY_NAMES[m.group(2)], "namespace")
    for m in _REGISTER_OPERATORS.finditer(code):  # RegisterOperators(schema, fn): .op(...)
        edits.add(m.end(1), m.end(1), "().op", "call")
    # what a reopened `namespace at {` of the file declares (not what `using` brings in)
    local = declared_names(text) - set(_USING_DECL.findall(code))
    params = macro_parameter_spans(code)
    for m in _NAMESPACE.finditer(code):
        if m.start(1) in std_at:
            continue
        unknown = _unknown_target(code, m.end(1), sdk, local, params)
        if unknown is None:
            edits.add(m.start(1), m.end(1), port_map.NAMESPACES[m.group(1)], "namespace")
        else:  # never write a name that does not exist: leave it, say so
            name, kind = f"{m.group(1)}::{unknown[0]}", unknown[1]
            reason = f"no sdk::{unknown[0]} in this SDK version"
            missing.append(Missing(path, _line_of(text, m.start()), name, kind, reason))
    for m in _USING_NAMESPACE.finditer(code):
        edits.add(m.start(2), m.end(2), port_map.NAMESPACES[m.group(2)], "namespace")
    for m in _NAMESPACE_DECL.finditer(code):  # torch's own are top level; flat::at is not
        if code.count("{", 0, m.start()) == code.count("}", 0, m.start()):
            edits.add(m.start(2), m.end(2), port_map.NAMESPACES[m.group(2)], "namespace")
    for m in _MACRO.finditer(code):
        target = None if m.group(0) in own else _macro_target(m.group(0), sdk)
        if target:
            edits.add(m.start(), m.end(), target, "macro")
    for m in _TEMPLATE_RENAME.finditer(code):
        new = port_map.TEMPLATE_METHOD_RENAMES[m.group(3)]
        if new in sdk.names:
            edits.add(m.start(3), m.end(3), new, "method")
    _port_thc(text, code, sdk, edits, own)

    ported = edits.apply(text)
    missing.extend(find_missing(ported, path, sdk, own))
    return Result(ported, edits.counts, missing, edits.line_map(text))


def find_missing(
    text: str, path: str, sdk: SdkHeaders, own_macros: set[str] = frozenset()
) -> list[Missing]:
    """torch names in (ported) C++ with no SDK counterpart: torch macros left, sdk:: names the
    headers do not declare, torch Tensor methods the SDK lacks (a `.name(` call of a torch
    method; unqualified calls are not judged: kernels call <cmath> functions that way)."""
    code = mask_cxx(text)
    found: list[Missing] = []
    seen: set[tuple[int, str]] = set()

    def report(pos: int, name: str, kind: str, reason: str = "") -> None:
        line = _line_of(text, pos)
        if (line, name) not in seen:
            seen.add((line, name))
            found.append(Missing(path, line, name, kind, reason))

    for m in _MACRO.finditer(code):  # (a switch that stays unset is not reported)
        if m.group(0) not in own_macros and m.group(0) not in port_map.UNSET_SWITCHES:
            report(m.start(), m.group(0), "macro", "no SDK spelling")
    params = macro_parameter_spans(code)
    for m in _QUALIFIED.finditer(code):
        parts = [p.strip() for p in m.group(1).split("::") if p.strip()]
        if is_macro_parameter(params, m.start(), parts[0]):
            continue
        i = sdk.has_qualified(parts, pasted=_PASTED.match(code, m.end()) is not None)
        if i is not None:
            name = "::".join(["sdk", *parts[: i + 1]])
            report(m.start(), name, "name" if i + 1 == len(parts) else "namespace")
    own = declared_names(text)
    # an include's path is not code: <THC/THCTensorMath.h> is reported as a header
    paths = _INCLUDE.sub(
        lambda i: i.group(1) + i.group(2) + " " * len(i.group(3)) + i.group(4), code
    )
    for m in _LEGACY.finditer(paths):
        name = m.group(0)
        if name not in sdk.names and name not in own and name not in own_macros:
            reason = "THC was removed from torch itself: no SDK spelling"
            report(m.start(), name, "name", reason)
    methods = set(port_map.ATEN_METHODS) - port_map.GENERIC_METHODS
    for m in _METHOD_CALL.finditer(code):
        name = m.group(1)
        if name in methods and name not in sdk.names and name not in own:
            report(m.start(1), f".{name}()", "method", "Tensor method")
    return found
