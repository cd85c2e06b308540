"""Print the public surface of sdk and sdk.Tensor as JSON, to diff before and after a refactor.

    python scripts/namespace_snapshot.py > before.json   # (change, rebuild)
    python scripts/namespace_snapshot.py > after.json && diff before.json after.json

Each name is listed with what it is bound to (module and qualified name of a function), so a
name that moves to another object shows up in the diff, not only one that appears or goes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sdk  # noqa: E402


def _what(value: object) -> str:
    """A stable description of a binding: module.qualname for functions and classes."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if module and qualname:
        return f"{module}.{qualname}"
    return type(value).__name__


def snapshot() -> dict:
    return {
        "sdk.__all__": list(sdk.__all__),
        "dir(sdk)": {n: _what(getattr(sdk, n)) for n in dir(sdk) if not n.startswith("__")},
        "dir(sdk.Tensor)": {
            n: _what(getattr(sdk.Tensor, n)) for n in dir(sdk.Tensor) if not n.startswith("__")
        },
        "sdk.X is Tensor.X": sorted(
            n for n in dir(sdk.Tensor) if getattr(sdk, n, None) is getattr(sdk.Tensor, n)
        ),
    }


if __name__ == "__main__":
    json.dump(snapshot(), sys.stdout, indent=1, sort_keys=True)
    print()
