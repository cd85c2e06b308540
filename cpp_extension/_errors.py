"""Build errors: the compiler's first diagnostics with file:line, the command, the build folder."""

from __future__ import annotations

import errno
import re

# gcc/clang: "file:line:col: error: msg" (col optional); nvcc/cudafe: "file(line): error: msg"
_GCC_DIAG = re.compile(
    r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<kind>fatal error|error):\s*(?P<msg>.*)$"
)
_NVCC_DIAG = re.compile(
    r"^(?P<file>[^()\s][^()]*)\((?P<line>\d+)\):\s*(?P<kind>error)\s*:?\s*(?P<msg>.*)$"
)
# linker failures carry no file:line of a source
_LINK_DIAG = re.compile(
    r"(undefined reference to|cannot find -l|ld returned|multiple definition of|"
    r"\bld(\.\w+)?: |collect2: |lto-wrapper|lto1: |plugin|error|fatal)",
    re.IGNORECASE,
)
_NOISE = re.compile(r"^(\[\d+/\d+\]|ninja: |FAILED: |compilation terminated)")
# a full disk or a file-size limit, as compilers and linkers report it
_DISK_FULL = re.compile(
    r"No space left on device|File too large|Disk quota exceeded|File size limit exceeded"
)
# an object file (or archive) that a killed build or a full disk left damaged
_DAMAGED = re.compile(
    r"file truncated|file format not recognized|file not recognized|malformed archive|"
    r"error reading|invalid ELF header|is not an object file|ELF section name out of range|"
    r"file too short|bytecode stream"
)
DISK_FULL_HINT = (
    "The disk holding the build folder is full (or a file-size limit was hit): free some "
    "space, point SDK_EXTENSIONS_DIR at a larger disk, or remove old builds with "
    "`python -m cpp_extension clean`."
)
MAX_SHOWN = 3
MAX_LINK_LINES = 10
CONTEXT_LINES = 3


class Diagnostic:
    """One compiler error and the lines that explain it."""

    __slots__ = ("file", "line", "column", "message", "context")

    def __init__(self, file: str, line: int, column: int | None, message: str) -> None:
        self.file, self.line, self.column, self.message = file, line, column, message
        self.context: list[str] = []

    def __repr__(self) -> str:
        return f"Diagnostic({self.location()}: {self.message})"

    def location(self) -> str:
        col = f":{self.column}" if self.column else ""
        return f"{self.file}:{self.line}{col}"


class BuildError(RuntimeError):
    """A compile or link step failed, or no toolchain was found.

    Attributes: `diagnostics` (parsed first errors), `command` (the failing
    command), `build_directory`, `log` (full compiler output).
    """

    def __init__(
        self,
        message: str,
        *,
        diagnostics: list[Diagnostic] | None = None,
        command: str | None = None,
        build_directory: str | None = None,
        log: str = "",
    ) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []
        self.command = command
        self.build_directory = build_directory
        self.log = log


class CacheError(OSError):
    """The JIT cache folder cannot be used: it is read-only, or its disk is full. `errno`
    is the system's error code, `build_directory` the folder."""

    def __init__(self, message: str, code: int | None, build_directory: str) -> None:
        super().__init__(message)
        self.errno = code
        self.build_directory = build_directory


_NOT_WRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def cache_error(name: str, build_dir, error: OSError) -> CacheError | None:
    """A CacheError explaining `error` when it comes from an unwritable or full cache
    folder, else None (the caller re-raises the original)."""
    where = f"{error.strerror or error}" + (f": {error.filename}" if error.filename else "")
    if error.errno in _NOT_WRITABLE:
        message = (
            f"Cannot build extension '{name}': its build folder {build_dir} is not writable "
            f"({where}). Set SDK_EXTENSIONS_DIR to a writable folder or pass "
            "build_directory= to load(). A read-only cache still serves builds that are "
            "already in it and up to date."
        )
    elif error.errno in _NO_SPACE:
        message = f"Cannot build extension '{name}' in {build_dir} ({where}). {DISK_FULL_HINT}"
    else:
        return None
    return CacheError(message, error.errno, str(build_dir))


def damaged_intermediates(log: str) -> bool:
    """Whether a failed build's output blames a damaged object file rather than the code."""
    return bool(_DAMAGED.search(log)) and not _DISK_FULL.search(log)


def parse_diagnostics(output: str) -> list[Diagnostic]:
    """The errors in gcc, clang or nvcc output, each with its following context lines."""
    lines = output.splitlines()
    diags: list[Diagnostic] = []
    current: Diagnostic | None = None
    for raw in lines:
        m = _GCC_DIAG.match(raw) or _NVCC_DIAG.match(raw)
        if m:
            current = Diagnostic(
                m["file"],
                int(m["line"]),
                int(m["col"]) if m.groupdict().get("col") else None,
                f"{m['kind']}: {m['msg']}",
            )
            diags.append(current)
            continue
        if current is None:
            continue
        # context: gcc's source line + caret, and "note:" lines; stop at the next diagnostic
        if raw.startswith((" ", "\t")) or ": note:" in raw:
            if len(current.context) < CONTEXT_LINES:
                current.context.append(raw.rstrip())
        elif ": warning:" in raw or ": In " in raw or raw.startswith("In file included"):
            current = None
    return diags


def failed_command(output: str) -> str | None:
    """The command ninja printed after 'FAILED: <outputs>'."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("FAILED: ") and i + 1 < len(lines):
            return lines[i + 1].strip()
    return None


def requote(diags: list[Diagnostic], texts: dict[str, str]) -> None:
    """Quote the right source line for diagnostics in the files of `texts` ({path: the
    text its line numbers count in}): after `#line 1` the compiler numbers the user's lines
    but quotes the file's own line of that number (the implicit header's lines off)."""
    for d in diags:
        text = texts.get(d.file)
        lines = text.splitlines() if text is not None else []
        if not 1 <= d.line <= len(lines):
            continue
        rest = [c for c in d.context if not re.match(r"\s*(\d+\s*)?\|", c)]
        quote = [f"{d.line:>5} | {lines[d.line - 1]}"]
        if d.column:
            quote.append(f"{'':>5} | {' ' * (d.column - 1)}^")
        d.context = [*quote, *rest][:CONTEXT_LINES]


def format_build_failure(
    name: str, output: str, build_dir: str, log_path: str, texts: dict[str, str] | None = None
) -> BuildError:
    """A BuildError whose message fits on a screen: first errors, command, folders. `texts`:
    see requote."""
    diags = parse_diagnostics(output)
    requote(diags, texts or {})
    command = failed_command(output)
    parts = [f"Error building extension '{name}'"]
    if diags:
        shown = diags[:MAX_SHOWN]
        more = len(diags) - len(shown)
        parts[0] += f": {len(diags)} error(s)" + (f", first {len(shown)}:" if more else ":")
        for d in shown:
            parts.append(f"  {d.location()}: {d.message}")
            parts.extend(f"    {c.strip()}" for c in d.context if c.strip())
    else:
        parts[0] += ":"
        body = [
            ln
            for ln in output.splitlines()
            if ln.strip() and not _NOISE.match(ln) and ln.strip() != command
        ]
        linkish = [ln for ln in body if _LINK_DIAG.search(ln)]
        shown = linkish or body
        if len(shown) > MAX_LINK_LINES:  # the first lines name the cause; keep the verdict too
            shown = [*shown[: MAX_LINK_LINES - 1], shown[-1]]
        parts.extend(f"  {ln}" for ln in shown)
    if _DISK_FULL.search(output):
        parts.insert(1, "  " + DISK_FULL_HINT)
    if command:
        parts.append(f"Command: {command}")
    parts.append(f"Build folder: {build_dir}")
    parts.append(f"Full log: {log_path}")
    return BuildError(
        "\n".join(parts), diagnostics=diags, command=command, build_directory=build_dir, log=output
    )
