"""sdk.amp and sdk.cuda.amp: torch's mixed-precision names in an SDK without autocast.

custom_fwd/custom_bwd behave as torch's do while autocast is off (no cast, backward as is);
autocast(enabled=False) is a real no-op region and enabled=True refuses instead of silently
running in full precision. The last test runs the same Functions under torch, when it is
installed, to check that torch with autocast off gives the same dtypes and values."""

from __future__ import annotations

import pytest

import sdk
import sdk.amp
import sdk.cuda.amp


def _scaled_square(amp_module, *, cuda_spelling: bool):
    """An autograd Function y = 3 * x * x decorated with `amp_module`'s custom_fwd (casting
    to float32) and custom_bwd, in torch.cuda.amp's spelling or torch.amp's."""
    Function = amp_module.autograd.Function if hasattr(amp_module, "autograd") else None
    assert Function is not None
    f32 = amp_module.float32
    if cuda_spelling:
        fwd = amp_module.cuda.amp.custom_fwd(cast_inputs=f32)
        bwd = amp_module.cuda.amp.custom_bwd
    else:
        fwd = amp_module.amp.custom_fwd(device_type="cuda", cast_inputs=f32)
        bwd = amp_module.amp.custom_bwd(device_type="cuda")

    class ScaledSquare(Function):
        @staticmethod
        @fwd
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.seen_dtype = x.dtype
            return 3 * x * x

        @staticmethod
        @bwd
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 6 * x

    return ScaledSquare


@pytest.mark.parametrize("cuda_spelling", [True, False])
def test_custom_fwd_does_not_cast_and_backward_runs(cuda_spelling):
    F = _scaled_square(sdk, cuda_spelling=cuda_spelling)
    x = sdk.tensor([1.0, -2.0, 0.5], dtype=sdk.float64, requires_grad=True)
    y = F.apply(x)
    assert y.dtype == sdk.float64  # autocast is off: cast_inputs changes nothing
    assert y.grad_fn.seen_dtype == sdk.float64
    assert y.grad_fn._fwd_used_autocast is False
    assert y.tolist() == [3.0, 12.0, 0.75]
    y.sum().backward()
    assert x.grad.tolist() == [6.0, -12.0, 3.0]


def test_custom_fwd_bare_and_on_a_classmethod():
    class Double(sdk.autograd.Function):
        @classmethod
        @sdk.cuda.amp.custom_fwd
        def forward(cls, ctx, x):
            return x * 2

        @classmethod
        @sdk.cuda.amp.custom_bwd
        def backward(cls, ctx, grad):
            return grad * 2

    x = sdk.ones(2, requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_custom_fwd_checks_its_arguments():
    with pytest.raises(TypeError, match="device_type"):
        sdk.amp.custom_fwd(lambda ctx: None)  # torch.amp's needs device_type
    with pytest.raises(ValueError, match="device_type.*str"):
        sdk.amp.custom_fwd(device_type=0)
    with pytest.raises(ValueError, match="'cuda' or 'cpu'"):
        sdk.amp.custom_bwd(device_type="tpu")
    with pytest.raises(TypeError, match="cast_inputs must be an sdk.dtype"):
        sdk.cuda.amp.custom_fwd(cast_inputs="float32")


def test_autocast_disabled_is_a_no_op_region_and_decorator():
    assert sdk.is_autocast_enabled() is False and sdk.is_autocast_enabled("cuda") is False
    with sdk.autocast("cuda", enabled=False):
        assert sdk.is_autocast_enabled("cuda") is False
        assert (sdk.ones(2, dtype=sdk.float32) * 2).dtype == sdk.float32
    with sdk.cuda.amp.autocast(enabled=False) as region:
        assert region.fast_dtype == sdk.float16

    @sdk.autocast(device_type="cuda", enabled=False)
    def f(x):
        return x + 1

    assert f(sdk.zeros(1)).tolist() == [1.0]


@pytest.mark.parametrize(
    "make",
    [
        lambda: sdk.autocast("cuda"),
        lambda: sdk.autocast("cpu", dtype=sdk.bfloat16),
        lambda: sdk.cuda.amp.autocast(),
        lambda: sdk.amp.autocast("cuda", enabled=True),
    ],
)
def test_autocast_enabled_refuses_instead_of_claiming_to_cast(make):
    region = make()
    with pytest.raises(NotImplementedError, match="no automatic mixed precision"):
        with region:
            pass
    with pytest.raises(NotImplementedError):
        region(lambda: None)()


def test_autocast_dtypes_are_torchs_defaults():
    assert sdk.get_autocast_gpu_dtype() == sdk.float16
    assert sdk.get_autocast_dtype("cuda") == sdk.float16
    assert sdk.get_autocast_dtype("cpu") == sdk.bfloat16
    assert sdk.amp.is_autocast_available("cuda") is False
    with pytest.raises(ValueError, match="device_type"):
        sdk.autocast(device_type=None)


@pytest.mark.parametrize("cuda_spelling", [True, False])
def test_torch_with_autocast_off_agrees(cuda_spelling):
    torch = pytest.importorskip("torch")
    values = [1.0, -2.0, 0.5]
    results = []
    for lib in (torch, sdk):
        F = _scaled_square(lib, cuda_spelling=cuda_spelling)
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = F.apply(x)
        y.sum().backward()
        results.append((str(y.dtype).split(".")[-1], y.tolist(), x.grad.tolist()))
        assert lib.is_autocast_enabled() is False
    assert results[0] == results[1]
