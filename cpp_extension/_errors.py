"""Build errors: the compiler's first diagnostics with file:line, the command, the build folder."""

from __future__ import annotations

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
    r"(undefined reference to|cannot find -l|ld returned|multiple definition of)"
)
_NOISE = re.compile(r"^(\[\d+/\d+\]|ninja: |FAILED: |compilation terminated)")
MAX_SHOWN = 3
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


def format_build_failure(name: str, output: str, build_dir: str, log_path: str) -> BuildError:
    """A BuildError whose message fits on a screen: first errors, command, folders."""
    diags = parse_diagnostics(output)
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
        body = [ln for ln in output.splitlines() if ln.strip() and not _NOISE.match(ln)]
        linkish = [ln for ln in body if _LINK_DIAG.search(ln)]
        parts.extend(f"  {ln}" for ln in (linkish or body)[:8])
    if command:
        parts.append(f"Command: {command}")
    parts.append(f"Build folder: {build_dir}")
    parts.append(f"Full log: {log_path}")
    return BuildError(
        "\n".join(parts), diagnostics=diags, command=command, build_directory=build_dir, log=output
    )
