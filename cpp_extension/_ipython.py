"""The `%%cpp_extension` cell magic: compile a notebook cell's C++ with load_inline and bind its
functions into the notebook (`%load_ext cpp_extension` first). Imported only by IPython.

    %%cpp_extension [NAME] [--functions a,b] [--extra-cflags FLAG ...]
                           [--extra-ldflags FLAG ...] [--verbose]

Without --functions, the functions the cell defines at file scope are bound (the rule is in
_cell_functions); a cell holding its own PYBIND11_MODULE is bound as it declares. The module
is bound as NAME (default: `cell_` and a hash of the cell and its options).
"""

from __future__ import annotations

import hashlib
import re
import shlex

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class

from ._cell_functions import top_level_functions
from ._errors import MAX_SHOWN, BuildError
from ._jit import load_inline

USAGE = (
    "%%cpp_extension [NAME] [--functions a,b] [--extra-cflags FLAG ...] "
    "[--extra-ldflags FLAG ...] [--verbose]"
)
_LIST_OPTIONS = ("--extra-cflags", "--extra-ldflags")
_OPTIONS = ("--functions", "--verbose", *_LIST_OPTIONS)


def parse_line(line: str) -> dict:
    """The magic's options: name, functions (None: detect), extra_cflags, extra_ldflags,
    verbose. A list option takes every following word up to the next option, so that
    `--extra-cflags -O3 -DN=4` works; `--extra-cflags=-O3` too. ValueError on bad input."""
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise ValueError(f"cannot split the options: {e}") from None
    opts: dict = {"name": None, "functions": None, "extra_cflags": [], "extra_ldflags": []}
    opts["verbose"] = False
    current: str | None = None
    for word in words:
        key, eq, value = word.partition("=")
        if key in _OPTIONS:
            current = None
            if key == "--verbose":
                if eq:
                    raise ValueError("--verbose takes no value")
                opts["verbose"] = True
            elif key == "--functions":
                current = key
                if eq:
                    _add_functions(opts, value)
                    current = None
            else:
                current = key
                if eq:
                    opts[key[2:].replace("-", "_")].append(value)
        elif current == "--functions":
            _add_functions(opts, word)
            current = None
        elif current in _LIST_OPTIONS:
            opts[current[2:].replace("-", "_")].append(word)
        elif word.startswith("--"):
            raise ValueError(f"unknown option {word!r}")
        elif opts["name"] is None:
            opts["name"] = word
        else:
            raise ValueError(f"unexpected word {word!r} (the name is already {opts['name']!r})")
    if current == "--functions":
        raise ValueError("--functions needs a comma-separated list of names")
    if opts["name"] is not None and not re.fullmatch(r"[A-Za-z_]\w*", opts["name"]):
        raise ValueError(f"NAME must be a C identifier, got {opts['name']!r}")
    return opts


def _add_functions(opts: dict, value: str) -> None:
    names = [n.strip() for n in value.split(",") if n.strip()]
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z_]\w*", n)]
    if not names or bad:
        raise ValueError(f"--functions takes names separated by commas, got {value!r}")
    opts["functions"] = (opts["functions"] or []) + names


def default_name(cell: str, line: str) -> str:
    """`cell_<hash>`: the same cell with the same options reuses its build."""
    return "cell_" + hashlib.sha256(f"{line}\0{cell}".encode()).hexdigest()[:12]


def _cell_error(error: BuildError, cell: str, name: str) -> BuildError:
    """`error` retold in the cell's terms: each error in the cell's source with the cell's own
    line under it (the compiler quotes main.cpp, whose lines are shifted by the header),
    errors elsewhere (a header) as the compiler gave them, then the command and folders."""
    lines = cell.splitlines()
    parts, in_cell = [], 0
    for d in error.diagnostics[:MAX_SHOWN]:
        if not (d.file.endswith("main.cpp") and 1 <= d.line <= len(lines)):
            parts.append(f"  {d.location()}: {d.message}")
            parts.extend(f"    {c.strip()}" for c in d.context if c.strip())
            continue
        in_cell += 1
        col = f", column {d.column}" if d.column else ""
        parts.append(f"  cell line {d.line}{col}: {d.message}")
        parts.append(f"    {d.line} | {lines[d.line - 1]}")
        if d.column:
            parts.append(f"    {' ' * len(str(d.line))} | {' ' * (d.column - 1)}^")
    if not in_cell:
        return error
    count = len(error.diagnostics)
    head = f"Error compiling the cell of '{name}': {count} error(s)"
    head += f", first {MAX_SHOWN}:" if count > MAX_SHOWN else ":"
    tail = str(error).splitlines()
    start = next((i for i, ln in enumerate(tail) if ln.startswith("Command: ")), len(tail))
    return BuildError(
        "\n".join([head, *parts, *tail[start:]]),
        diagnostics=error.diagnostics,
        command=error.command,
        build_directory=error.build_directory,
        log=error.log,
    )


def compile_cell(line: str, cell: str):
    """Build the cell; returns (name, module, {python name: object to bind})."""
    try:
        opts = parse_line(line)
    except ValueError as e:
        raise UsageError(f"%%cpp_extension: {e}\nUsage: {USAGE}") from None
    name = opts["name"] or default_name(cell, line)
    own_module = re.search(r"\bPYBIND11_MODULE\s*\(", cell) is not None
    functions = opts["functions"]
    if functions is None and not own_module:
        functions = top_level_functions(cell)
        if not functions:
            raise UsageError(
                "%%cpp_extension: the cell defines no function to bind (static functions, "
                "templates and functions in namespaces are left out); name them with "
                f"--functions\nUsage: {USAGE}"
            )
    try:
        module = load_inline(
            name,
            cpp_sources=cell,
            functions=functions,
            extra_cflags=opts["extra_cflags"],
            extra_ldflags=opts["extra_ldflags"],
            verbose=opts["verbose"],
        )
    except BuildError as e:
        raise _cell_error(e, cell, name).with_traceback(None) from None
    names = functions or [n for n in dir(module) if not n.startswith("_")]
    bound = {n: getattr(module, n) for n in names}
    bound[name] = module
    return name, module, bound


@magics_class
class CppExtensionMagics(Magics):
    """The %%cpp_extension cell magic."""

    @cell_magic
    def cpp_extension(self, line: str, cell: str) -> None:
        """Compile the cell's C++ with cpp_extension.load_inline and bind its functions.

        %%cpp_extension [NAME] [--functions a,b] [--extra-cflags FLAG ...]
                               [--extra-ldflags FLAG ...] [--verbose]

        Binds each function by its name and the module as NAME (default: `cell_` and a hash
        of the cell). Without --functions: every function the cell defines at file scope,
        except `static` ones, templates, operators, overloaded names and anything inside a
        namespace, class or `extern "C" { }` block. A cell with its own PYBIND11_MODULE binds
        what it declares. A build is cached by content; an edited cell with the same NAME
        builds and binds the new version.
        """
        __tracebackhide__ = True  # IPython's traceback skips this frame: the error is the news
        _, _, bound = compile_cell(line, cell)
        self.shell.push(bound)


def load_ipython_extension(ipython) -> None:
    """Register the magic (`%load_ext cpp_extension`)."""
    ipython.register_magics(CppExtensionMagics)
