"""The import graph of a package, read from its source: every import statement, inside
functions too (tests/sdk/test_layers.py and tests/cpp_extension/test_import_graph.py)."""

from __future__ import annotations

import ast
from pathlib import Path


def package_modules(package_dir: Path, skip_folder: str | None = None) -> dict[str, Path]:
    """{dotted module name: file} of every .py under `package_dir`."""
    out = {}
    for p in package_dir.rglob("*.py"):
        rel = p.relative_to(package_dir.parent).with_suffix("")
        if skip_folder is not None and skip_folder in rel.parts[1:-1]:
            continue
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def imports_of(mod: str, path: Path, known: set[str], prefix: str) -> list[tuple[str, int, bool]]:
    """(imported module under `prefix`, line, inside a function) for every import in `mod`;
    `from pkg import sub` counts as importing pkg.sub when that is a module in `known`."""
    is_pkg = path.name == "__init__.py"
    pkg = mod if is_pkg else mod.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                base_mod = ".".join(base + ([node.module] if node.module else []))
            else:
                base_mod = node.module or ""
            for a in node.names:
                sub = f"{base_mod}.{a.name}"
                targets.append(sub if sub in known else base_mod)
        for t in targets:
            if t == prefix or t.startswith(prefix + "."):
                out.append((t, node.lineno, id(node) not in top))
    return out
