"""What the SDK provides, read from its headers and its Python packages (for the porter).

The porter never keeps a hand list of supported names: a C++ name has a counterpart when the
SDK's headers declare it (a function, method, class, alias, enumerator, namespace or macro),
and a Python name when importing the SDK's module and looking the attribute up succeeds.
"""

from __future__ import annotations

import bisect
import hashlib
import importlib
import json
import os
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from ..builder import trust as _trust

# Comments, string and character literals (raw strings too): what the porter never rewrites.
_SKIPPED = re.compile(
    r"""//[^\n]*
    | /\*.*?(?:\*/|\Z)
    | (?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\(.*?(?:\)(?P=delim)"|\Z)
    | (?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?
    | '(?:\\.|[^'\\\n])*'?""",
    re.S | re.X,
)
_IDENT_BEFORE = re.compile(r"[A-Za-z0-9_]$")


def mask_cxx(text: str) -> str:
    """`text` with comments and literals blanked (newlines kept), so positions still match."""
    out: list[str] = []
    pos = 0
    while True:
        m = _SKIPPED.search(text, pos)
        if m is None:
            break
        start, end = m.span()
        if text[start] == "'" and start and _IDENT_BEFORE.search(text, 0, start):
            # a digit separator (1'000) or a suffix, not a character literal
            out.append(text[pos : start + 1])
            pos = start + 1
            continue
        out.append(text[pos:start])
        chunk = text[start:end]
        out.append(re.sub(r"[^\n]", " ", chunk))
        pos = end
    out.append(text[pos:])
    return "".join(out)


_KEYWORDS = frozenset(
    """
    return if else while for switch case do new delete throw sizeof decltype typeid alignof
    static_assert operator noexcept and or not using co_return goto catch try default
    """.split()
)
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_QUALIFIER = re.compile(r"(?:\b\w+\s*(?:<[^<>;{}()]*>)?\s*::\s*)+$")
_TYPE_DECL = re.compile(r"\b(?:class|struct|union|enum(?:\s+class|\s+struct)?|namespace)\s+(\w+)")
_ALIAS = re.compile(r"\busing\s+(\w+)\s*=")
_USING_DECL = re.compile(r"\busing\s+(?:::)?(?:\w+::)+(\w+)\s*;")
# SDK_MODULE(Name) defines the module holder class `Name` (torch's TORCH_MODULE).
_MODULE_HOLDER = re.compile(r"\bSDK_MODULE\(\s*(\w+)\s*\)")
_TYPEDEF = re.compile(r"\btypedef\b[^;]*?\b(\w+)\s*;")
_VARIABLE = re.compile(r"\b(?:constexpr|const)\s+[\w:<>]+\s+(\w+)\s*(?:=|\{|\[)")
_ENUM_BODY = re.compile(r"\benum\b[^{;]*\{([^}]*)\}")
_ENUMERATOR = re.compile(r"(?:^|,)\s*(\w+)")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_NAMESPACE_NAME = re.compile(r"\bnamespace\s+(\w+(?:\s*::\s*\w+)*)\s*\{")
_OP_TABLE = re.compile(r"#define\s+SDK_(?:UNARY|BINARY|REDUCE)_OPS\(X\)((?:[^\n]*\\\n)*[^\n]*)")
_OP_ROW = re.compile(r"X\(\s*\w+\s*,\s*(\w+)\s*,")


# Function-like macro definitions (with continuation lines), for declarations made by macros.
_FUNC_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)


# An X-macro table: `#define SDK_DTYPES(X) X(BOOL, 0, ...) X(UINT8, 1, ...) ...`.
_TABLE_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\((\w+)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)


def x_macro_tables(texts: list[str]) -> dict[str, list[str]]:
    """The X-macro tables the headers define (`#define NAME(X)` whose body is nothing but
    `X(...)` rows): each one's rows, as argument lists (comments and literals blanked)."""
    tables = {}
    for text in texts:
        for m in _TABLE_MACRO.finditer(mask_cxx(text)):
            param, body = m.group(2), m.group(3).replace("\\\n", " ")
            rows = re.findall(rf"\b{param}\(([^()]*)\)", body)
            rest = re.sub(rf"\b{param}\([^()]*\)", "", body)
            if rows and not rest.strip():
                tables[m.group(1)] = rows
    return tables


def _expand_tables(code: str, tables: dict[str, list[str]]) -> str:
    """`TABLE(HELPER)` made one `HELPER(row)` line per row (where HELPER is a macro, the
    caller expands those lines next), outside #define lines."""
    if not tables:
        return code
    names = "|".join(map(re.escape, tables))

    def rows(call: re.Match) -> str:
        line = code[code.rfind("\n", 0, call.start()) + 1 : call.start()]
        if line.lstrip().startswith("#"):
            return call.group()
        return "".join(f"\n{call.group(2)}({row})\n" for row in tables[call.group(1)])

    return re.sub(rf"\b({names})\(\s*(\w+)\s*\)", rows, code)


def expand_declaring_macros(text: str, tables: dict[str, list[str]] | None = None) -> str:
    """`text` (comments and literals blanked) with the invocations of its declaring macros
    expanded in place, where they start a line (`SDK_DETAIL_DEFINE_MATMUL(mm, sdk_mm)` declares
    `mm` and `mm_out` through `name##_out`; a member-declaring macro stays in its class):
    parameters substituted (`...` takes the rest), `##` pasted, `#x` made an empty string.
    Only macros whose body declares something (`inline`, `##`) are expanded, one level. The
    X-macro `tables` (x_macro_tables) are expanded first: `SDK_DTYPES(SDK_DETAIL_SCALAR_CONST)`
    declares `kFloat` and the other constants, one per row."""
    code = _expand_tables(mask_cxx(text), tables or {})
    for m in list(_FUNC_MACRO.finditer(code)):
        name, body = m.group(1), m.group(3).replace("\\\n", "\n")
        if "##" not in body and "inline" not in body:
            continue
        params = [p.strip() for p in m.group(2).split(",")]

        def expand(call: re.Match, params=params, body=body) -> str:
            args = [a.strip() for a in call.group(2).split(",")]
            variadic = params[-1:] == ["..."]
            if len(args) != len(params) and not (variadic and len(args) >= len(params) - 1):
                return call.group()
            bound = dict(zip(params[:-1] if variadic else params, args))
            if variadic:
                bound["__VA_ARGS__"] = ", ".join(args[len(params) - 1 :])
            out = re.sub(r"(?<!#)#\s*(\w+)", '""', body.replace("##", " ## "))
            out = re.sub(r"\b\w+\b", lambda t: bound.get(t.group(), t.group()), out)
            return call.group(1) + re.sub(r"\s*##\s*", "", out)

        code = re.sub(rf"^([ \t]*){name}\s*\(([^()]*)\)", expand, code, flags=re.M)
    return code


# What precedes the `{` of a block whose names stay in the enclosing namespace.
_NAMESPACE_HEAD = re.compile(r"(?:\bnamespace(?:\s+[\w:]+)?|\bextern|^)\s*$")


def namespace_scope(code: str) -> list[tuple[int, int]]:
    """The (start, end) spans of masked `code` at namespace scope: outside every block but
    namespace and extern "C" ones (class bodies, function bodies and initializers excluded),
    so that a member or a local variable is not taken for a function of the namespace."""
    spans: list[tuple[int, int]] = []
    stack: list[bool] = []  # per open block: whether it keeps namespace scope
    start, closed = 0, 0  # closed: open blocks that are not namespaces
    for m in re.finditer(r"[{}]", code):
        pos = m.start()
        if m.group() == "{":
            keeps = bool(_NAMESPACE_HEAD.search(code, max(0, pos - 120), pos))
            stack.append(keeps)
            if not keeps:
                if closed == 0:
                    spans.append((start, pos))
                closed += 1
        elif stack:
            if not stack.pop():
                closed -= 1
                if closed == 0:
                    start = pos + 1
    if closed == 0:
        spans.append((start, len(code)))
    return spans


def _in_spans(spans: list[tuple[int, int]], pos: int) -> bool:
    i = bisect.bisect_right(spans, (pos, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


def declared_names(text: str, namespace_only: bool = False) -> set[str]:
    """Names a C++ header or source declares: functions and methods (a name before `(` that
    follows a type, not an expression), types, aliases, enumerators, constants, namespaces.
    `namespace_only`: those declared at namespace scope (what `sdk::name` can reach; class
    members and local variables left out)."""
    every, at_namespace = declarations(text)
    return at_namespace if namespace_only else every


def declarations(text: str) -> tuple[set[str], set[str]]:
    """(every name `text` declares, those at namespace scope): one pass for both."""
    code = mask_cxx(text)
    spans = namespace_scope(code)
    every: set[str] = set()
    at_namespace: set[str] = set()

    def add(name: str, pos: int) -> None:
        every.add(name)
        if _in_spans(spans, pos):
            at_namespace.add(name)

    for pattern in (_TYPE_DECL, _ALIAS, _USING_DECL, _TYPEDEF, _VARIABLE, _MODULE_HOLDER):
        for m in pattern.finditer(code):
            add(m.group(1), m.start())
    for body in _ENUM_BODY.findall(code):
        enumerators = _ENUMERATOR.findall(body)
        every.update(enumerators)
        at_namespace.update(enumerators)
    for m in _CALL.finditer(code):
        if m.group(1) not in _KEYWORDS and _follows_type(code, m.start()):
            add(m.group(1), m.start())
    return every, at_namespace


def _follows_type(code: str, pos: int) -> bool:
    """Whether the name at `pos` (before a `(`) follows a type: a declaration, not a call."""
    before = code[max(0, pos - 200) : pos].rstrip()
    if before.endswith("::"):  # Tensor Tensor::clone(...): look before the qualifier
        q = _QUALIFIER.search(before)
        if q:
            before = before[: q.start()].rstrip()
    if not before:
        return False
    last = before[-1]
    if last in "&*":  # a pointer or reference return type follows a type, not a value
        typed = before.rstrip("&* \t\n")
        return bool(typed) and (typed[-1].isalnum() or typed[-1] in "_>")
    if last == ">":
        return True
    if last.isalnum() or last == "_":
        j = len(before)
        while j and (before[j - 1].isalnum() or before[j - 1] == "_"):
            j -= 1
        return before[j:] not in _KEYWORDS
    return False


@dataclass
class SdkHeaders:
    """What the SDK's headers provide."""

    include_dir: str
    names: set[str] = field(default_factory=set)  # C++ identifiers declared
    # those declared at namespace scope: `sdk::X` exists when X is one of these
    namespace_names: set[str] = field(default_factory=set)
    macros: set[str] = field(default_factory=set)  # macros #defined
    headers: set[str] = field(default_factory=set)  # "sdk/tensor.h", ...
    namespaces: set[str] = field(default_factory=set)  # "sdk", "cuda", "autograd", ...

    def has_qualified(
        self, parts: list[str], local: set[str] = frozenset(), pasted: bool = False
    ) -> int | None:
        """For sdk::parts[0]::parts[1]...: None when it is declared, else the index of the
        first part that is not. After a namespace, a name of namespace scope is needed (a
        method of the same name is not it); after a class, any member will do. `pasted`: the
        last part is the start of a name a macro pastes together (`at::k##device`), declared
        when some name begins with it."""
        for i, part in enumerate(parts):
            scoped = i == 0 or parts[i - 1] in self.namespaces
            known = self.namespace_names if scoped else self.names
            if part in known or part in local:
                continue
            if pasted and i == len(parts) - 1 and any(n.startswith(part) for n in known):
                continue
            return i
        return None

    def has_header(self, path: str) -> bool:
        return path in self.headers or not self.headers


# Bump when the scan changes what it finds: cached scans of older versions are ignored.
SCAN_VERSION = 7


def _fingerprint(folder: Path) -> tuple:
    return tuple(
        sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.glob("*.h"))
    )


_SCAN_FIELDS = ("names", "namespace_names", "macros", "headers", "namespaces")


def _cache_file(include_dir: str, fingerprint: tuple) -> Path:
    from ..builder import cache as _cache

    key = hashlib.sha256(repr((SCAN_VERSION, include_dir, fingerprint)).encode()).hexdigest()
    return _cache.extensions_root() / "port" / f"headers-{key[:24]}.json"


@lru_cache(maxsize=4)
def _scan(include_dir: str, fingerprint: tuple) -> SdkHeaders:
    """The scan, kept on disk next to the JIT cache until a header changes (reading ~25
    headers costs a few tenths of a second, the cached result a millisecond)."""
    cache = _cache_file(include_dir, fingerprint)
    try:  # never through a link, never a FIFO (see _trust)
        data = json.loads(_trust.read_no_follow(cache))
        return SdkHeaders(include_dir, *(set(data[k]) for k in _SCAN_FIELDS))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    found = _read_headers(include_dir)
    try:  # into a trusted folder of the cache, by a fresh name (see _trust)
        _trust.trusted_folders(cache.parent.parent, cache.parent.name)
        _trust.write_atomic(cache, json.dumps({k: sorted(getattr(found, k)) for k in _SCAN_FIELDS}))
    except OSError:  # a read-only or untrusted cache folder only costs the next run the scan
        pass
    return found


def _read_headers(include_dir: str) -> SdkHeaders:
    folder = Path(include_dir) / "sdk"
    found = SdkHeaders(include_dir)
    texts = {
        path: path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(folder.glob("*.h"))
    }
    tables = x_macro_tables(list(texts.values()))  # defined in one header, used in others
    for path, text in texts.items():
        found.headers.add(f"sdk/{path.name}")
        found.macros.update(_DEFINE.findall(text))
        # declarations made by the header's own macros count as the header's
        every, at_namespace = declarations(expand_declaring_macros(text, tables))
        found.names.update(every)
        found.namespace_names.update(at_namespace)
        for spelled in _NAMESPACE_NAME.findall(mask_cxx(text)):
            found.namespaces.update(spelled.split("::"))
        for table in _OP_TABLE.findall(text):  # op tables: sdk::name, name_out, x.name_()
            for name in _OP_ROW.findall(table):
                found.names.update((name, f"{name}_", f"{name}_out"))
                found.namespace_names.update((name, f"{name}_out"))
    return found


def default_include_dir() -> str:
    """The headers extensions compile against: $SDK_PORT_INCLUDE, else the SDK's own."""
    override = os.environ.get("SDK_PORT_INCLUDE")
    if override:
        return override
    from ..builder import toolchain as _toolchain

    return _toolchain.sdk_paths().include_dir


def sdk_headers(include_dir: str | None = None) -> SdkHeaders:
    """The scan of `include_dir` (default: the SDK's include folder), cached per process
    until a header changes."""
    include_dir = include_dir or default_include_dir()
    folder = Path(include_dir) / "sdk"
    if not folder.is_dir():
        raise FileNotFoundError(f"cpp_extension port: no SDK headers in {folder}")
    return _scan(str(include_dir), _fingerprint(folder))


# ---- Python --------------------------------------------------------------------------------


@cache
def python_has(dotted: str) -> bool:
    """Whether `dotted` (e.g. "sdk.nn.functional.relu") names something importable: the
    longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    obj = None
    i = len(parts)
    while i > 0:
        try:
            obj = importlib.import_module(".".join(parts[:i]))
            break
        except ImportError:
            i -= 1
        except Exception:  # a module that fails to import is not a counterpart
            return False
    if obj is None:
        return False
    for n, name in enumerate(parts[i:]):
        if n == len(parts) - i - 1 and name in getattr(obj, "__all__", ()):
            return True  # exported: no need to load a lazy attribute (setuptools' import)
        try:
            obj = getattr(obj, name)
        except Exception:
            return False
    return True
