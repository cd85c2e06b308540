"""An SDK op library used from torch: sdk.ops with torch tensors (the caller's type back,
mixed frameworks refused) and sdk.interop.torch.register (torch.ops, autograd, opcheck,
torch.compile with aot_eager and inductor, mutating schemas). Skipped without torch."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from tests.interop import ops_library

torch = pytest.importorskip("torch")

NS = ops_library.NS


@pytest.fixture(scope="module")
def ops():
    """The library, built once, registered in torch once per process."""
    import sdk.interop.torch as sdk_torch

    ops_library.build()
    sdk_torch.register(NS)
    return getattr(torch.ops, NS)


def test_sdk_ops_with_torch_tensors_return_torch_tensors_zero_copy():
    ops_library.build()
    a, b = torch.arange(4.0), torch.full((4,), 2.0)
    r = sdk.ops.interop_ops.muladd(a, b, 1.0)
    assert type(r) is torch.Tensor
    np.testing.assert_array_equal(r.numpy(), a.numpy() * 2 + 1)
    # a mutated argument comes back as the caller's own object, written in place
    x = torch.zeros(4)
    assert sdk.ops.interop_ops.add_(x, b) is x
    np.testing.assert_array_equal(x.numpy(), [2.0] * 4)
    out = torch.zeros(4)
    assert sdk.ops.interop_ops.add_out(a, b, out) is None
    np.testing.assert_array_equal(out.numpy(), a.numpy() + 2)
    s, m = sdk.ops.interop_ops.sum_max(torch.ones(2, 3))
    assert type(s) is torch.Tensor and type(m) is torch.Tensor and s.tolist() == [3.0, 3.0]


def test_numpy_and_sdk_inputs_still_return_sdk_tensors():
    ops_library.build()
    r = sdk.ops.interop_ops.muladd(np.ones(2, np.float32), sdk.ones(2), 1.0)
    assert isinstance(r, sdk.Tensor) and r.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("other, names", [(np.ones(3, np.float32), "numpy"), (sdk.ones(3), "sdk")])
def test_mixed_frameworks_raise_naming_both_and_the_argument(other, names):
    ops_library.build()
    with pytest.raises(
        TypeError, match=rf"argument 'b' comes from {names} but argument 'a' from torch"
    ):
        sdk.ops.interop_ops.muladd(torch.ones(3), other, 1.0)


@sdk.library.custom_op("interop_unregistered::twice", mutates_args=())
def _twice(x: sdk.Tensor) -> sdk.Tensor:
    return x * 2


def test_torch_tensors_that_need_grad_are_not_silently_detached():
    # an op never registered in torch: sdk.ops cannot record torch's autograd, so it refuses
    a = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad.*sdk.interop.torch.register"):
        sdk.ops.interop_unregistered.twice(a)
    with torch.no_grad():
        assert sdk.ops.interop_unregistered.twice(a).tolist() == [2.0] * 3


def test_register_defines_every_op_with_its_schema(ops):
    for name in ("muladd", "mul", "add_", "add_out", "sum_max", "scale"):
        sdk_schema = getattr(sdk.ops.interop_ops, name).schema
        torch_schema = str(getattr(ops, name).default._schema)
        assert torch_schema == sdk_schema, (torch_schema, sdk_schema)
    a, b = torch.randn(5), torch.randn(5)
    torch.testing.assert_close(ops.muladd(a, b, 0.5), a * b + 0.5)


def test_gradcheck_through_torch_autograd(ops):
    a = torch.randn(4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, y: ops.muladd(x, y, 2.0), (a, b))
    # and sdk.ops with torch tensors now goes to the registered torch op: differentiable
    y = sdk.ops.interop_ops.mul(a, b).sum()
    y.backward()
    torch.testing.assert_close(a.grad, b.detach())


def test_a_cpp_autograd_kernel_differentiates_in_torch_eager(ops):
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: ops.scale(t, 2.5), (x,))
    torch.ops.interop_ops.scale(x, 3.0).sum().backward()
    torch.testing.assert_close(x.grad, torch.full((4,), 3.0, dtype=torch.float64))


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_a_cpp_autograd_kernel_under_torch_compile(ops, backend):
    """The C++ backward runs as torch.ops.<ns>.<op>_sdk_backward, which the tracer keeps as one
    opaque call (its fake gives each gradient its input's shape)."""
    torch._dynamo.reset()
    f = torch.compile(lambda t: (ops.scale(t, 2.5) * t).sum(), fullgraph=True, backend=backend)
    x = torch.randn(5, requires_grad=True)
    f(x).backward()
    torch.testing.assert_close(x.grad, 5.0 * x.detach())  # d/dx 2.5 x^2
    assert hasattr(torch.ops.interop_ops, "scale_sdk_backward")


@pytest.mark.parametrize(
    "op, args",
    [
        ("muladd", lambda: (torch.randn(3, requires_grad=True), torch.randn(3), 1.5)),
        ("add_", lambda: (torch.randn(3), torch.randn(3))),
        ("add_out", lambda: (torch.randn(3), torch.randn(3), torch.empty(3))),
        ("sum_max", lambda: (torch.randn(2, 5),)),
        ("scale", lambda: (torch.randn(3, requires_grad=True), 2.0)),  # C++ Autograd kernel
    ],
)
def test_torch_library_opcheck_passes(ops, op, args):
    utils = ["test_schema", "test_autograd_registration", "test_faketensor"]
    if op != "add_":  # torch functionalizes no custom op that returns an alias (a!) output
        utils.append("test_aot_dispatch_dynamic")
    result = torch.library.opcheck(getattr(ops, op).default, args(), test_utils=utils)
    assert list(result.values()) == ["SUCCESS"] * len(utils), result


def test_mutating_op_writes_in_place_and_returns_its_argument(ops):
    x, y = torch.ones(3), torch.arange(3.0)
    assert ops.add_(x, y) is x
    assert x.tolist() == [1.0, 2.0, 3.0]
    out = torch.zeros(3)
    ops.add_out(x, y, out)
    assert out.tolist() == [1.0, 3.0, 5.0]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(-1, 1, 6))

    def forward(self, x):
        h = torch.ops.interop_ops.muladd(x.sin(), self.w, 0.5)  # differentiated
        buf = torch.zeros_like(h)
        torch.ops.interop_ops.add_out(h.detach(), x, buf)  # a mutating op inside the graph
        s, m = torch.ops.interop_ops.sum_max(buf.reshape(2, 3))  # two outputs, no grad
        return (h * h).sum() + (s * m).sum()


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph_forward_and_backward(ops, backend):
    torch._dynamo.reset()
    model = Model()
    x = torch.randn(6)
    expected = model(x)
    expected.backward()
    grad = model.w.grad.clone()
    model.w.grad = None
    compiled = torch.compile(model, fullgraph=True, backend=backend)
    got = compiled(x)
    got.backward()
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(model.w.grad, grad)


def test_register_refuses_an_unknown_namespace():
    import sdk.interop.torch as sdk_torch

    with pytest.raises(ValueError, match="no ops in namespace 'no_such_ns'"):
        sdk_torch.register("no_such_ns")


def test_capsule_kernel_for_torch_without_the_exchange_table(ops):
    # torch versions without __dlpack_c_exchange_api__ get a kernel over DLPack capsules
    import sdk.interop.torch as sdk_torch

    add_ = sdk.ops.interop_ops.add_
    kernel = sdk_torch._capsule_kernel(torch, add_, (0,))
    x, y = torch.ones(3), torch.arange(3.0)
    assert kernel(x, y) is x and x.tolist() == [1.0, 2.0, 3.0]
    muladd = sdk_torch._capsule_kernel(torch, sdk.ops.interop_ops.muladd, (-1,))
    r = muladd(x, y, c=1.0)
    assert type(r) is torch.Tensor and r.tolist() == [1.0, 3.0, 7.0]


def test_exchange_call_refuses_a_capsule_that_is_not_an_exchange_table(ops):
    with pytest.raises(ValueError, match="incorrect name"):
        sdk.ops.interop_ops.mul._call_exchange(torch._C._to_dlpack(torch.ones(1)), (-1,))


@sdk.library.custom_op("interop_kw::scaled", mutates_args=())
def _scaled(x: sdk.Tensor, *, s: float = 2.0) -> sdk.Tensor:
    return x * s


def test_keyword_only_arguments_and_defaults_cross_into_torch():
    import sdk.interop.torch as sdk_torch

    _scaled.register_fake(lambda x, *, s=2.0: sdk.empty_like(x))
    sdk_torch.register("interop_kw")
    x = torch.arange(3.0)
    assert torch.ops.interop_kw.scaled(x).tolist() == [0.0, 2.0, 4.0]
    assert torch.ops.interop_kw.scaled(x, s=-1.0).tolist() == [0.0, -1.0, -2.0]
    result = torch.library.opcheck(torch.ops.interop_kw.scaled.default, (x,), {"s": 3.0})
    assert set(result.values()) == {"SUCCESS"}, result
