"""cpp_extension's modules import one another without a cycle, counting imports made inside
functions (which hide a cycle from the interpreter but not from a reader)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import cpp_extension
from tests._imports import imports_of, package_modules

PACKAGE = Path(cpp_extension.__file__).parent


MODULES = package_modules(PACKAGE)


def import_graph() -> dict[str, set[str]]:
    """{module: the package's modules it imports, anywhere in the file}."""
    known = set(MODULES)
    return {
        m: {t for t, _, _ in imports_of(m, p, known, "cpp_extension")} - {m}
        for m, p in MODULES.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_checker_finds_a_cycle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    src = "def f():\n    from . import _jit\n"
    tree_imports = {
        n.names[0].name for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)
    }
    assert tree_imports == {"_jit"}  # imports inside functions are walked too


def test_cpp_extension_has_no_import_cycle():
    graph = import_graph()
    assert "cpp_extension.builder.jit" in graph and "cpp_extension._remote" in graph
    assert "cpp_extension.builder.jit" in graph["cpp_extension._remote"]  # the graph sees edges
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_lower_layers_report_loads_to_the_layer_above():
    """_build and the ctypes bridge never import _remote; it installs itself in both."""
    from cpp_extension import _ctypes_bridge, _remote
    from cpp_extension.builder import jit as _build

    assert isinstance(_build._OBSERVER, _remote._Shipper)
    assert _ctypes_bridge._REDUCER is _remote.reduce_library


def test_the_package_imports_without_sdk():
    """setup.py builds sdk with cpp_extension's planner before sdk can be imported: the
    package and the modules setup.py uses must not import sdk when they load."""
    blocker = (
        "import sys\n"
        "class NoSdk:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'sdk' or name.startswith('sdk.'):\n"
        "            raise ImportError('sdk is not built yet')\n"
        "sys.meta_path.insert(0, NoSdk())\n"
        "import cpp_extension\n"
        "from cpp_extension import _cuda\n"
        "from cpp_extension.builder import lock, ninja, plan, runtime, toolchain\n"
        "assert not any(m == 'sdk' or m.startswith('sdk.') for m in sys.modules)\n"
        "print('imported', len([m for m in sys.modules if m.startswith('cpp_extension')]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", blocker],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("imported ")


# The front ends of cpp_extension: what users call (the package, the CLI, load(), BuildExtension,
# the cell magic, pickling, scaffolding, wheels, the porter). The build subsystem serves them and
# never imports one.
FRONT_ENDS = {
    "cpp_extension",
    "cpp_extension.__main__",
    "cpp_extension._jit",
    "cpp_extension._setuptools",
    "cpp_extension._remote",
    "cpp_extension._ipython",
    "cpp_extension._cell_functions",
    "cpp_extension._new",
    "cpp_extension._wheel",
}


def test_the_build_subsystem_never_imports_a_front_end():
    graph = import_graph()
    builder = {m for m in graph if m.startswith("cpp_extension.builder")}
    assert {"cpp_extension.builder.plan", "cpp_extension.builder.jit"} <= builder
    for module in sorted(builder):
        upward = {t for t in graph[module] if t in FRONT_ENDS or t.startswith("cpp_extension.port")}
        assert not upward, f"{module} imports {sorted(upward)}"
