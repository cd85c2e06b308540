"""Importing a built binary as a Python module, and the checks every bridge makes after a
library loads: its SDK_LIBRARY registrations, and the name rule extensions follow."""

from __future__ import annotations

import re
import sys

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # an extension's name: a C identifier


def import_pybind11(init_name: str, module_name: str, path: str):
    """Import an extension module from `path`; its PyInit_ function is named after init_name."""
    import importlib.machinery
    import importlib.util

    # pybind11 (3.x) hands back the module it already made under the same spec name, so a
    # rebuild imported as `init_name` again would be the old module: another name is given
    # as "<module_name>.<init_name>" (the import system calls PyInit_<its last part>).
    spec_name = init_name if module_name == init_name else f"{module_name}.{init_name}"
    loader = importlib.machinery.ExtensionFileLoader(spec_name, path)
    spec = importlib.util.spec_from_file_location(spec_name, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot import extension from {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    module.__name__ = module_name
    check_registrations(path)  # SDK_LIBRARY blocks ran while the module loaded
    sys.modules[module_name] = module  # only when they succeeded: a reload checks again
    return module


def check_registrations(path: str) -> None:
    """ImportError listing the operator registrations of the library at `path` that failed
    while it loaded (when sdk is importable: registrations need it)."""
    try:
        from sdk.ops import check_registrations as check
    except ImportError:
        return
    check(path)
