"""sdk.jit: the torch.jit decorators extension packages put around eager code (PyG's
`@torch.jit._overload` declarations, `@torch.jit.script` helpers, `@torch.jit.ignore`
methods) leave that code running eagerly; what needs a compiled artifact raises."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import sdk
from tests._support import run_python

# The idiom of PyG's Python glue: overload declarations, then the implementation.
GLUE = textwrap.dedent(
    """
    from typing import Optional
    import {lib} as torch

    @torch.jit._overload
    def pick(src, dim=None):  # noqa: F811
        # type: (torch.Tensor, Optional[int]) -> torch.Tensor
        pass

    @torch.jit._overload
    def pick(src, dim=None):  # noqa: F811
        # type: (torch.Tensor, Optional[torch.Tensor]) -> torch.Tensor
        pass

    def pick(src, dim=None):  # noqa: F811
        if dim is None:
            return src.sum()
        return src.sum(dim)

    @torch.jit.script
    def scaled(x: torch.Tensor, k: float) -> torch.Tensor:
        if not torch.jit.is_scripting():
            x = x * 1.0
        return x * k

    class Layer(torch.nn.Module):
        def forward(self, x):
            return self.helper(x) + 1

        @torch.jit.ignore
        def helper(self, x):
            return x * 2

        @torch.jit.ignore(drop=True)
        def debug(self):
            return "kept"

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    fut = torch.jit.fork(scaled, x, 0.5)
    out = [pick(x), pick(x, 0), scaled(x, 3.0), torch.jit.wait(fut), Layer()(x)]
    print([o.tolist() for o in out], Layer().debug(), torch.jit.is_tracing())
    """
)


def run_glue(tmp_path, lib: str) -> str:
    # from a file: torch's scripting reads the function's source
    path = tmp_path / f"glue_{lib}.py"
    path.write_text(GLUE.format(lib=lib))
    return run_python(f"import runpy; runpy.run_path({str(path)!r})", check=True).stdout


def test_pyg_style_glue_runs_eagerly(tmp_path):
    out = run_glue(tmp_path, "sdk").strip()
    want = [10.0, [4.0, 6.0], [[3.0, 6.0], [9.0, 12.0]], [[0.5, 1.0], [1.5, 2.0]],
            [[3.0, 5.0], [7.0, 9.0]]]  # fmt: skip
    assert out == f"{want} kept False"


def test_same_results_as_torch_on_the_same_glue(tmp_path):
    pytest.importorskip("torch")
    assert run_glue(tmp_path, "sdk") == run_glue(tmp_path, "torch")


def test_script_and_trace_return_the_callable_itself():
    def f(x: sdk.Tensor, scale: float | None = None) -> sdk.Tensor:
        return x * (scale or 1.0)

    m = sdk.nn.Linear(3, 2)
    assert sdk.jit.script(f) is f and sdk.jit.script(m) is m
    assert sdk.jit.trace(f, (sdk.ones(2),)) is f and sdk.jit.trace_module(m, {}) is m
    assert sdk.jit.annotate(list, [1]) == [1] and sdk.jit.unused(f) is f
    assert not isinstance(m, sdk.jit.ScriptModule) and not isinstance(f, sdk.jit.ScriptFunction)
    x = sdk.from_numpy(np.arange(3.0, dtype=np.float32))
    assert sdk.jit.script(f)(x, 2.0).tolist() == [0.0, 2.0, 4.0]


@pytest.mark.parametrize("call", ["save", "load", "freeze", "ScriptModule"])
def test_what_needs_a_compiled_module_raises_naming_the_eager_way(call, tmp_path):
    fn = getattr(sdk.jit, call)
    args = {"save": (sdk.nn.Linear(2, 2), tmp_path / "m.pt"), "load": (tmp_path / "m.pt",)}
    with pytest.raises(NotImplementedError, match=f"sdk.jit.{call}: the SDK has no TorchScript"):
        fn(*args.get(call, (sdk.nn.Linear(2, 2),)))
    assert not (tmp_path / "m.pt").exists()


def test_the_porter_maps_torch_jit():
    from cpp_extension.port.sdk_names import python_has

    for name in ("script", "_overload", "ignore", "is_scripting", "fork", "wait", "Final"):
        assert python_has(f"sdk.jit.{name}"), name
