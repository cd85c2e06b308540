"""C++ Meta kernels (SDK_LIBRARY_IMPL(ns, Meta, m)) as ops' shape functions with no Python fake:
in sdk (meta tensors, fake_call, opcheck), under torch.compile(fullgraph=True) and jax.jit; a
Meta kernel that reads data fails clearly."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import sdk
import sdk.library
from sdk._ops_meta import MetaTensor
from tests._support import kept_folder, toolchain_key
from tests.interop import meta_ops

NS = meta_ops.NS
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="no torch")
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="no jax")


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(
            "SDK_EXTENSIONS_DIR",
            str(kept_folder(tmp_path_factory, "interop_meta", *toolchain_key())),
        )
        meta_ops.build()
        yield getattr(sdk.ops, NS)


def _meta(*shape, dtype=sdk.float32):
    return sdk.empty(*shape, dtype=dtype, device="meta")


# ---- sdk ---------------------------------------------------------------------------------------


def test_the_meta_kernel_is_the_shape_function(ops):
    assert sdk.library.has_fake(f"{NS}::rowdot")
    out = sdk.library.fake_call(f"{NS}::rowdot", _meta(5, 3), _meta(3))
    assert isinstance(out, MetaTensor) and out.shape == (5,) and out.dtype == sdk.float32
    # sdk.ops with meta tensors runs it too
    out = ops.rowdot(_meta(7, 2), _meta(2))
    assert isinstance(out, MetaTensor) and out.shape == (7,)


def test_two_results_a_view_and_a_dtype_change(ops):
    a, b = sdk.library.fake_call(f"{NS}::plus_flat", _meta(2, 3))
    assert (a.shape, a.dtype) == ((2, 3), sdk.float32)
    assert (b.shape, b.dtype) == ((6,), sdk.int64)


def test_the_meta_kernel_checks_shapes_like_the_real_one(ops):
    with pytest.raises(RuntimeError, match="x has 3 columns but w has 4 entries"):
        sdk.library.fake_call(f"{NS}::rowdot", _meta(5, 3), _meta(4))
    with pytest.raises(RuntimeError, match="x has 3 columns but w has 4 entries"):
        ops.rowdot(sdk.ones(5, 3), sdk.ones(4))


def test_a_meta_kernel_that_reads_data_raises_clearly(ops):
    with pytest.raises(RuntimeError, match=r"data_ptr\(\): the tensor is on the meta device"):
        sdk.library.fake_call(f"{NS}::touches_data", _meta(4))
    # the thread left meta mode: real ops allocate real memory again
    assert (sdk.ones(3) * 2).tolist() == [2.0, 2.0, 2.0]
    assert ops.touches_data(sdk.ones(2)).tolist() == [2.0, 2.0]


def test_real_calls_still_run_the_cpu_kernel(ops):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.array([1, 2, 3], np.float32)
    np.testing.assert_allclose(ops.rowdot(sdk.tensor(x), sdk.tensor(w)).numpy(), x @ w)


def test_a_meta_kernel_call_takes_meta_tensors_only(ops):
    handle = sdk._C.op_find(f"{NS}::rowdot")
    with pytest.raises(TypeError, match="takes meta tensors; argument 'x'"):
        handle._call_meta(MetaTensor, sdk.ones(2, 3), _meta(3))


def test_opcheck_compares_the_meta_kernel_with_the_real_one(ops):
    args = (sdk.randn(4, 3), sdk.randn(3))
    utils = ("test_schema", "test_faketensor")
    result = sdk.library.opcheck(f"{NS}::rowdot", args, test_utils=utils)
    assert result == {"test_schema": "SUCCESS", "test_faketensor": "SUCCESS"}
    with pytest.raises(sdk.library.OpCheckError, match=r"says output 0 is \[5\].*\[4\]"):
        sdk.library.opcheck(f"{NS}::wrong", (sdk.randn(4),), test_utils="test_faketensor")


def test_a_python_meta_kernel_is_a_shape_function():
    import uuid

    ns = "k" + uuid.uuid4().hex[:10]
    lib = sdk.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 1, "CPU")
    meta = sdk.library.Library(ns, "IMPL", "Meta")
    meta.impl("f", lambda x: x.new_empty(x.shape[0] * 2))
    try:
        assert sdk.library.fake_call(f"{ns}::f", _meta(3)).shape == (6,)
    finally:
        meta._destroy()
        lib._destroy()
    assert f"{ns}::f" not in sdk.library._FAKE


# ---- torch ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch_ops(ops):
    import torch

    import sdk.interop.torch as sdk_torch

    sdk_torch.register(NS)
    return getattr(torch.ops, NS)


@needs_torch
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph_with_only_a_cpp_meta_kernel(torch_ops, backend):
    import torch

    def f(x, w):
        y = torch_ops.rowdot(x, w)
        a, b = torch_ops.plus_flat(x)
        return y.sum() + a.sum() + b.sum()

    torch._dynamo.reset()
    x, w = torch.randn(4, 3), torch.randn(3)
    compiled = torch.compile(f, fullgraph=True, backend=backend)
    torch.testing.assert_close(compiled(x, w), f(x, w))


@needs_torch
def test_torch_opcheck_with_only_a_cpp_meta_kernel(torch_ops):
    import torch

    torch.library.opcheck(torch_ops.rowdot.default, (torch.randn(4, 3), torch.randn(3)))


# ---- jax -----------------------------------------------------------------------------------------


@needs_jax
def test_jax_jit_with_only_a_cpp_meta_kernel(ops):
    import jax
    import jax.numpy as jnp

    import sdk.interop.jax

    jops = sdk.interop.jax.register(NS)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    w = np.array([0.5, -1.0, 2.0], np.float32)
    f = jax.jit(lambda x, w: jops.rowdot(x, w) * 2.0)
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(x), jnp.asarray(w))), (x @ w) * 2.0)
    with pytest.raises(RuntimeError, match="x has 3 columns but w has 2 entries"):
        jax.jit(jops.rowdot)(jnp.asarray(x), jnp.ones(2, jnp.float32))
