"""One built SDK op library under two torch versions: the binary is built once, against the
SDK's C ABI only, and each torch registers it and runs forward, backward and torch.compile.

The second torch is the interpreter named by SDK_TEST_SECOND_TORCH_PYTHON (default
/work/venvs/t214/bin/python when it exists); skipped without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests import _support
from tests.interop import ops_library

pytest.importorskip("torch")

SECOND = os.environ.get("SDK_TEST_SECOND_TORCH_PYTHON", "/work/venvs/t214/bin/python")

SCRIPT = r"""
import json, sys
import sdk, torch
import sdk.interop.torch
from tests.interop import ops_library
ops_library.load_binary(sys.argv[1])
sdk.interop.torch.register("interop_ops")
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0, 6.0])
y = torch.ops.interop_ops.muladd(a, b, 0.5)
y.sum().backward()
f = torch.compile(lambda x: torch.ops.interop_ops.muladd(x, b, 1.0).sum(), fullgraph=True,
                  backend="aot_eager")
print(json.dumps({"torch": torch.__version__, "y": y.tolist(), "grad": a.grad.tolist(),
                  "compiled": float(f(torch.ones(3)))}))
"""


def _run(python: str, binary: str) -> dict:
    out = subprocess.run([python, "-c", SCRIPT, binary], capture_output=True, text=True,
                         env=_support.subprocess_env(), timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not os.path.exists(SECOND), reason=f"no second torch at {SECOND}")
def test_one_binary_runs_under_two_torch_versions():
    binary = ops_library.build()
    results = [_run(sys.executable, binary), _run(SECOND, binary)]
    assert results[0]["torch"] != results[1]["torch"], "both interpreters have one torch"
    for r in results:
        assert r["y"] == [4.5, 10.5, 18.5]
        assert r["grad"] == [4.0, 5.0, 6.0]
        assert r["compiled"] == 4.0 + 5.0 + 6.0 + 3.0
