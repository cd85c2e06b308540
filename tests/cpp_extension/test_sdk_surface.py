"""cpp_extension uses only sdk's public surface: no private module or name of sdk is imported
or reached through an attribute (`from sdk import _C`, `sdk.ops._x`), so sdk can change its
insides without breaking the build tooling."""

from __future__ import annotations

import ast
import pathlib

import cpp_extension

ROOT = pathlib.Path(cpp_extension.__file__).parent


def _private(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split(".")[1:])


def _uses(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "sdk" or a.name.startswith("sdk."):
                    yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "sdk" or node.module.startswith("sdk."):
                for a in node.names:
                    yield node.lineno, f"{node.module}.{a.name}"
        elif isinstance(node, ast.Attribute):
            chain, cur = [node.attr], node.value
            while isinstance(cur, ast.Attribute):
                chain.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id == "sdk":
                yield node.lineno, ".".join(["sdk", *reversed(chain)])


def test_cpp_extension_reaches_only_public_sdk_names():
    found = [
        f"{path.relative_to(ROOT.parent)}:{line}: {name}"
        for path in sorted(ROOT.rglob("*.py"))
        for line, name in _uses(ast.parse(path.read_text(), str(path)))
        if _private(name)
    ]
    assert found == [], "private sdk names used by cpp_extension:\n" + "\n".join(found)
