"""sdk/library.h takes every C++ dispatch-key name of the table (SDK_DISPATCH_KEYS and the
aliases of sdk/dispatch_key.h) in SDK_LIBRARY_IMPL, each for the key the table gives it."""

from __future__ import annotations

import uuid

import sdk  # noqa: F401  (the core library the extension links)
from cpp_extension import load
from sdk import _C
from tests.sdk.test_library_dispatch_keys import NAMES

CPP_NAMES = sorted(n for n in NAMES if n[0].isupper())  # the device types are Python's only


def test_every_cpp_name_registers_its_key(tmp_path, ext_dir):
    ns = "d" + uuid.uuid4().hex[:10]
    lines = ["#include <sdk/library.h>", "sdk::Tensor same(const sdk::Tensor& x) { return x; }"]
    lines.append(f"SDK_LIBRARY({ns}, m) {{")
    lines += [f'  m.def("f_{name}(Tensor x) -> Tensor");' for name in CPP_NAMES]
    lines.append("}")
    for name in CPP_NAMES:
        lines.append(f'SDK_LIBRARY_IMPL({ns}, {name}, m) {{ m.impl("f_{name}", &same); }}')
    src = tmp_path / "keys.cpp"
    src.write_text("\n".join(lines) + "\n")
    load(f"keys_{ns}", [str(src)], is_python_module=False)
    keys = range(max(k for k in _C.DISPATCH_KEYS.values() if k != _C.DISPATCH_IGNORED) + 1)
    for name in CPP_NAMES:
        handle = _C.op_find(f"{ns}::f_{name}")
        have = [k for k in keys if handle._has_kernel(k)]
        expected = [] if NAMES[name] == _C.DISPATCH_IGNORED else [NAMES[name]]
        assert have == expected, name
