"""The porter's Python pass: torch imports and dotted names (torch.utils.cpp_extension,
torch.ops, torch.library, torch.X) rewritten by port_map.PYTHON_MODULES when the SDK has the
name; the others reported. Strings and comments are never touched."""

from __future__ import annotations

import io
import re
import token
import tokenize
from dataclasses import dataclass, field

from . import port_map
from .cxx import Missing, Result
from .sdk_names import SdkHeaders, python_has

_ROOT = "torch"
_CXX_IN_STRING = re.compile(r"\b(?:torch|at|c10)::|#\s*include\s*<(?:torch|ATen|c10)/|\bTORCH_\w+")
_DEPENDENCY = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*(?:[<>=!~;\[].*)?$", re.S)


@dataclass
class _Chain:
    """A dotted name: its parts and the (start, end) offset of each part."""

    parts: list[str]
    spans: list[tuple[int, int]]
    in_import: bool = False

    def span(self, n: int) -> tuple[int, int]:
        """Offsets of the first n parts."""
        return self.spans[0][0], self.spans[n - 1][1]


@dataclass
class _Import:
    """One `import a.b [as c]` or `from a.b import x [as y]` clause that names torch."""

    module: _Chain
    names: list[tuple[str, str]] = field(default_factory=list)  # from-import: (name, bound as)
    alias: str | None = None  # import a.b as alias
    line_end: int = 0  # offset of the end of the statement's last line
    indent: str = ""
    start: int = 0  # offsets of the clause, `from` or `import` to its last name
    end: int = 0


def map_name(dotted: str) -> tuple[str, str] | None:
    """(mapped, the torch prefix it came from) by the longest prefix in PYTHON_MODULES."""
    for prefix in sorted(port_map.PYTHON_MODULES, key=len, reverse=True):
        if dotted == prefix or dotted.startswith(prefix + "."):
            return port_map.PYTHON_MODULES[prefix] + dotted[len(prefix) :], prefix
    return None


def sdk_has(dotted: str) -> bool:
    """Whether the mapped name exists (below a dynamic prefix: whether the prefix does)."""
    for dyn in port_map.PYTHON_DYNAMIC:
        if dotted == dyn or dotted.startswith(dyn + "."):
            return python_has(dyn)
    return python_has(dotted)


def _first_missing(parts: list[str]) -> str | None:
    """The shortest torch prefix of `parts` whose mapping does not exist (counting from the
    prefix the whole name maps by), or None."""
    mapped = map_name(".".join(parts))
    if mapped is None:
        return ".".join(parts)
    for n in range(mapped[1].count(".") + 1, len(parts) + 1):
        dotted = ".".join(parts[:n])
        if not sdk_has(map_name(dotted)[0]):
            return dotted
    return None


class _Scan:
    """Tokens of a Python file grouped into import clauses and dotted-name chains."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        self.imports: list[_Import] = []
        self.chains: list[_Chain] = []
        self.strings: list[tuple[int, str]] = []
        self.bare_uses: dict[str, int] = {}  # a name used alone (not as a.b)
        self._walk()

    def offset(self, pos: tuple[int, int]) -> int:
        return self.starts[pos[0] - 1] + pos[1]

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def _walk(self) -> None:
        toks = [t for t in self.tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
        i, stmt_start = 0, True
        while i < len(toks):
            t = toks[i]
            if t.type == token.STRING:
                self.strings.append((self.offset(t.start), t.string))
                self._fstring_chains(self.offset(t.start), t.string)
            if stmt_start and t.type == token.NAME and t.string in ("import", "from"):
                i = self._import(toks, i)
                stmt_start = True
                continue
            stmt_start = t.type in (token.NEWLINE, token.INDENT, token.DEDENT) or (
                t.type == token.OP and t.string == ";"
            )
            if t.type == token.NAME and not (i and toks[i - 1].string == "."):
                chain, i = self._chain(toks, i, self.offset)
                self._record(chain)
                continue
            i += 1

    def _record(self, chain: _Chain) -> None:
        self.chains.append(chain)
        if len(chain.parts) == 1:
            self.bare_uses.setdefault(chain.parts[0], chain.spans[0][0])

    def _fstring_chains(self, offset: int, literal: str) -> None:
        """The dotted names in an f-string's replacement fields (code, one STRING token
        before Python 3.12): `f"{torch.version.cuda}"` needs its torch as much as a
        statement does."""
        prefix = re.match(r"[A-Za-z]*", literal).group(0)
        if "f" not in prefix.lower():
            return
        for start, end in _fstring_fields(literal):
            field = literal[start:end]
            try:
                toks = [t for t in tokenize.generate_tokens(io.StringIO(field).readline)
                        if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)]  # fmt: skip
            except (tokenize.TokenError, IndentationError, SyntaxError):
                continue
            lines = [0]
            for line in field.splitlines(keepends=True):
                lines.append(lines[-1] + len(line))
            base = offset + start

            def at(pos: tuple[int, int], base: int = base, lines: list = lines) -> int:
                return base + lines[pos[0] - 1] + pos[1]

            i = 0
            while i < len(toks):
                if toks[i].type == token.NAME and not (i and toks[i - 1].string == "."):
                    chain, i = self._chain(toks, i, at)
                    self._record(chain)
                    continue
                i += 1

    def _chain(self, toks: list, i: int, at) -> tuple[_Chain, int]:
        """The dotted name starting at toks[i]; `at` maps a token position to a text offset."""
        parts, spans = [toks[i].string], [(at(toks[i].start), at(toks[i].end))]
        i += 1
        while i + 1 < len(toks) and toks[i].string == "." and toks[i + 1].type == token.NAME:
            parts.append(toks[i + 1].string)
            spans.append((at(toks[i + 1].start), at(toks[i + 1].end)))
            i += 2
        return _Chain(parts, spans), i

    def _import(self, toks: list, i: int) -> int:
        first = toks[i]
        indent = self.text[self.starts[first.start[0] - 1] : self.offset(first.start)]
        j = i
        while j < len(toks) and toks[j].type != token.NEWLINE and toks[j].string != ";":
            j += 1
        end_tok = toks[j - 1] if j > i else first
        line_end = (
            self.starts[end_tok.end[0]] if end_tok.end[0] < len(self.starts) else len(self.text)
        )
        body = toks[i + 1 : j]
        if first.string == "import":
            for clause in _split(body, ","):
                if not clause or clause[0].type != token.NAME:
                    continue
                chain, k = self._chain(clause, 0, self.offset)
                chain.in_import = True
                alias = clause[k + 1].string if k + 1 < len(clause) else None
                self.imports.append(_Import(chain, alias=alias, line_end=line_end, indent=indent))
        else:
            k = next((n for n, t in enumerate(body) if t.string == "import"), len(body))
            if body and body[0].type == token.NAME:
                chain, _ = self._chain(body, 0, self.offset)
                chain.in_import = True
                names = []
                for clause in _split([t for t in body[k + 1 :] if t.string not in ("(", ")")], ","):
                    if clause:
                        bound = clause[2].string if len(clause) >= 3 else clause[0].string
                        names.append((clause[0].string, bound))
                span = {"start": self.offset(first.start), "end": self.offset(end_tok.end)}
                self.imports.append(_Import(chain, names, line_end=line_end, indent=indent, **span))
        return j + 1 if j < len(toks) else j


def _fstring_fields(literal: str) -> list[tuple[int, int]]:
    """(start, end) of each replacement field's expression in an f-string literal (its
    prefix and quotes included in `literal`): up to a top-level `!`, `:` or the closing
    brace; `{{` is a literal brace. Nested fields in a format spec are not read."""
    body_start = len(re.match(r"[A-Za-z]*", literal).group(0))
    quote = literal[body_start : body_start + 3]
    quote = quote if quote in ('"""', "'''") else literal[body_start]
    i, end_of_body, fields = body_start + len(quote), len(literal) - len(quote), []
    while i < end_of_body:
        c = literal[i]
        if c == "{" and literal[i + 1 : i + 2] == "{":
            i += 2
            continue
        if c != "{":
            i += 1
            continue
        start, depth, j, in_str = i + 1, 0, i + 1, None
        while j < end_of_body:
            d = literal[j]
            if in_str:
                in_str = None if d == in_str else in_str
            elif d in "'\"":
                in_str = d
            elif d in "([{":
                depth += 1
            elif d in ")]}" and depth:
                depth -= 1
            elif depth == 0 and (d == "}" or d == ":" or (d == "!" and literal[j + 1] != "=")):
                break
            j += 1
        fields.append((start, j))
        while j < end_of_body and literal[j] != "}":  # skip a conversion and format spec
            j += 1
        i = j + 1
    return fields


def _binding_target(full: str, bound: str, imp: _Import, scan: _Scan, report) -> str | None:
    """The SDK name `bound` (bound to torch's `full` by `imp`) maps to when it and each of
    its uses (bound.x.y) exist; else None, each missing name reported."""
    mapped = map_name(full)
    if bound == "*" or mapped is None or not sdk_has(mapped[0]):
        report(imp.module.spans[0][0], full, reason="no SDK counterpart")
        return None
    ok = True
    for chain in scan.chains:
        if chain.parts[0] != bound or chain.in_import or len(chain.parts) == 1:
            continue
        if not sdk_has(mapped[0] + "." + ".".join(chain.parts[1:])):
            report(chain.spans[0][0], full + "." + ".".join(chain.parts[1:]))
            ok = False
    return mapped[0] if ok else None


def _import_statement(target: str, bound: str) -> str:
    parent, _, leaf = target.rpartition(".")
    alias = "" if bound == leaf else f" as {bound}"
    return f"from {parent} import {leaf}{alias}" if parent else f"import {leaf}{alias}"


def _port_import(imp: _Import, scan: _Scan, edits, report) -> None:
    """`import torch.a as b` or `from torch.a import x, y`: the module renamed when all it
    binds maps under it; a from-import whose names map elsewhere or only in part (`from
    torch.utils import cpp_extension`, a name the SDK lacks) is rewritten as statements of
    the SDK's names, a `from torch... import` of the rest left after them (and reported)."""
    dotted = ".".join(imp.module.parts)
    clauses = [(None, imp.alias)] if imp.alias else imp.names
    good, bad = [], []
    for name, bound in clauses:
        full = dotted if name is None else f"{dotted}.{name}"
        target = _binding_target(full, bound, imp, scan, report)
        (good if target else bad).append((name, bound, target))
    mapped = map_name(dotted)
    renamed = mapped is not None and sdk_has(mapped[0])
    if (
        good
        and not bad
        and renamed
        and all(n is None or t == f"{mapped[0]}.{n}" for n, _, t in good)
    ):
        start, end = imp.module.span(len(imp.module.parts))
        edits.add(start, end, mapped[0], "python")
        return
    if not good or imp.alias:
        return
    statements = [_import_statement(t, b) for _, b, t in good]
    if bad:
        rest = ", ".join(n if n == b else f"{n} as {b}" for n, b, _ in bad)
        statements.append(f"from {dotted} import {rest}")
    edits.add(imp.start, imp.end, ("\n" + imp.indent).join(statements), "python")


def _split(toks: list, sep: str) -> list[list]:
    out: list[list] = [[]]
    for t in toks:
        if t.string == sep:
            out.append([])
        else:
            out[-1].append(t)
    return out


def port_python(text: str, path: str, cxx_strings: SdkHeaders | None = None) -> Result:
    """Port one Python file (setup.py, a package module, a test). With `cxx_strings` (the
    SDK's headers), C++ sources held in string literals (load_inline's) are ported too;
    otherwise they are reported."""
    from .cxx import _Edits

    try:
        scan = _Scan(text)
    except (tokenize.TokenError, IndentationError, SyntaxError) as e:
        reason = f"not valid Python, left as it is: {e}"
        return Result(text, {}, [Missing(path, 1, path, "python", reason)])
    edits = _Edits()
    missing: list[Missing] = []

    def report(offset: int, name: str, kind: str = "python", reason: str = "") -> None:
        missing.append(Missing(path, scan.line_of(offset), name, kind, reason))

    torch_imports = [imp for imp in scan.imports if imp.module.parts[0] == _ROOT]
    plain = [imp for imp in torch_imports if imp.alias is None and not imp.names]
    import_spans = {imp.module.spans[0] for imp in scan.imports}

    # 1. torch.X.Y chains (the name `torch` bound by `import torch` / `import torch.a`)
    left, targets = [], set()
    for chain in scan.chains:
        if chain.spans[0] in import_spans or chain.parts[0] != _ROOT or not plain:
            continue
        if len(chain.parts) == 1:
            left.append(chain)
            continue
        bad = _first_missing(chain.parts)
        if bad:
            report(chain.spans[0][0], bad, reason="no SDK counterpart")
            left.append(chain)
            continue
        mapped, prefix = map_name(".".join(chain.parts))
        n = prefix.count(".") + 1
        new = port_map.PYTHON_MODULES[prefix]
        start, end = chain.span(n)
        edits.add(start, end, new, "python")
        targets.add(new.split(".")[0])

    # 2. aliases and from-imports: rewritten when what they bind (and its uses) map
    for imp in torch_imports:
        if imp not in plain:
            _port_import(imp, scan, edits, report)

    # 3. the plain `import torch[.a]` clauses: rewritten when no torch.X is left, else kept
    # and the modules the rewritten names need imported after them
    if plain:
        provided = {imp.module.parts[0] for imp in scan.imports if imp.module.parts[0] != _ROOT}
        provided |= {imp.alias for imp in scan.imports if imp.alias}
        if not left:
            for imp in plain:
                mapped = map_name(".".join(imp.module.parts))
                if mapped and sdk_has(mapped[0]):
                    start, end = imp.module.span(len(imp.module.parts))
                    edits.add(start, end, mapped[0], "python")
                    provided.add(mapped[0].split(".")[0])
        needed = sorted(targets - provided)
        if needed:
            anchor = plain[0]
            lines = "".join(f"{anchor.indent}import {name}\n" for name in needed)
            text_at = anchor.line_end
            if text_at and not scan.text[text_at - 1 : text_at] == "\n":
                lines = "\n" + lines
            edits.add(text_at, text_at, lines, "python")

    setup_py = path.replace("\\", "/").rsplit("/", 1)[-1] == "setup.py"
    for offset, literal in scan.strings:
        if _is_cxx(literal):
            if cxx_strings is None:
                report(offset, _first_line(literal), "string", _CXX_STRING_LEFT)
            else:
                _port_cxx_string(offset, literal, path, cxx_strings, scan, edits, missing)
            continue
        _check_dependency(offset, literal, report, setup_py)
    return Result(edits.apply(text), edits.counts, missing, edits.line_map(text))


_CXX_STRING_LEFT = (
    "C++ in a Python string is not rewritten: port it with --cxx-in-strings, move it to a "
    "file, or edit it"
)


def _body_span(literal: str) -> tuple[int, int] | None:
    """(start, end) of a plain string literal's contents; None for bytes and f-strings."""
    prefix = len(literal) - len(literal.lstrip("rbuRBUfF"))
    if set(literal[:prefix].lower()) & {"b", "f"}:
        return None
    quote = 3 if literal[prefix : prefix + 3] in ('"""', "'''") else 1
    return prefix + quote, len(literal) - quote


def _first_line(literal: str) -> str:
    """How a report names a string: its first line with text (60 characters at most)."""
    span = _body_span(literal) or (0, len(literal))
    lines = [ln.strip() for ln in literal[span[0] : span[1]].splitlines() if ln.strip()]
    return (lines[0] if lines else literal)[:60]


def _is_cxx(literal: str) -> bool:
    span = _body_span(literal)
    body = literal[span[0] : span[1]] if span else literal
    return bool(_CXX_IN_STRING.search(body)) and (";" in body or "#include" in body)


def _port_cxx_string(offset, literal, path, headers, scan, edits, missing) -> None:
    """--cxx-in-strings: a load_inline source ported like a C++ file, in place."""
    from .cxx import port_cxx

    span = _body_span(literal)
    if span is None:
        missing.append(Missing(path, scan.line_of(offset), _first_line(literal), "string",
                               "C++ in a bytes or f-string is not rewritten"))  # fmt: skip
        return
    result = port_cxx(literal[span[0] : span[1]], path, headers)
    first_line = scan.line_of(offset + span[0]) - 1
    for m in result.missing:
        missing.append(Missing(m.path, m.line + first_line, m.name, m.kind, m.reason))
    if result.text != literal[span[0] : span[1]]:
        edits.add(offset + span[0], offset + span[1], result.text, "string")


def _check_dependency(offset: int, literal: str, report, setup_py: bool) -> None:
    body = literal.lstrip("rbuRBUfF")
    body = body.strip("'\"")
    m = _DEPENDENCY.match(body) if setup_py else None
    if m and m.group(1) in port_map.PYTHON_DEPENDENCIES:
        report(
            offset,
            body.strip(),
            "dependency",
            f"depend on {port_map.PYTHON_DEPENDENCIES[m.group(1)]} instead",
        )
