"""F.pad's reflect/replicate/circular modes and the padding layers against torch: values and
gradients on the same inputs, and clear errors on bad padding."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(2)


def _inputs(shape):
    a = RNG.normal(size=shape)
    return sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check(s_out, t_out, s_in, t_in, tol=1e-12):
    """Equal values (copies); gradients equal up to the order of the sums (tol)."""
    np.testing.assert_allclose(s_out.detach().numpy(), t_out.detach().numpy(), rtol=0, atol=0)
    w = RNG.normal(size=tuple(t_out.shape))
    (s_out * sdk.tensor(w)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(s_in.grad.numpy(), t_in.grad.numpy(), rtol=tol, atol=tol)


PADS = [
    ((2, 5), (2, 3)),
    ((2, 3, 5), (0, 4)),
    ((2, 3, 5), (-1, 2)),
    ((3, 4, 5), (1, 2, 3, 0)),
    ((2, 3, 4, 5), (2, 1, 1, 3)),
    ((2, 3, 4, 5), (1, -1, 2, 0)),
    ((3, 3, 4, 5), (1, 2, 0, 3, 2, 1)),
    ((1, 2, 3, 4, 5), (1, 1, 2, 2, 1, 0)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", PADS)
def test_pad_modes_match_torch(mode, shape, pad):
    s, t = _inputs(shape)
    _check(F.pad(s, pad, mode), TF.pad(t, pad, mode), s, t)


LAYERS = [
    ("ZeroPad1d", (2,), (2, 5)),
    ("ZeroPad2d", ((1, 0, 2, 3),), (2, 3, 4)),
    ("ZeroPad3d", (1,), (1, 2, 3, 3, 2)),
    ("ConstantPad1d", ((1, 3), 2.5), (2, 3, 4)),
    ("ConstantPad2d", (2, -1.0), (1, 2, 3, 4)),
    ("ConstantPad3d", ((1, 0, 0, 2, 1, 1), 0.5), (2, 3, 2, 4)),
    ("ReflectionPad1d", (3,), (2, 3, 5)),
    ("ReflectionPad2d", ((1, 2, 3, 0),), (2, 3, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 3, 2)),
    ("ReplicationPad1d", ((4, 1),), (3, 5)),
    ("ReplicationPad2d", (3,), (1, 2, 3, 4)),
    ("ReplicationPad3d", ((1, 2, 0, 1, 2, 0),), (2, 3, 3, 2)),
    ("CircularPad1d", ((2, 4),), (2, 3, 5)),
    ("CircularPad2d", (1,), (2, 3, 4)),
    ("CircularPad3d", ((1, 0, 2, 1, 1, 1),), (1, 2, 3, 3, 2)),
]


@pytest.mark.parametrize("name,args,shape", LAYERS)
def test_padding_layers_match_torch(name, args, shape):
    s, t = _inputs(shape)
    sm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert tuple(sm.padding) == tuple(tm.padding)
    _check(sm(s), tm(t), s, t)


def test_bad_padding_is_refused_with_a_clear_error():
    x = sdk.randn(2, 3, 4)
    with pytest.raises(ValueError, match="at most 3 for dim 2 of size 4"):
        F.pad(x, (4, 0), "reflect")
    with pytest.raises(ValueError, match="at most 4"):
        F.pad(x, (0, 5), "circular")
    with pytest.raises(ValueError, match="leaves no elements"):
        F.pad(x, (-4, 2), "circular")
    with pytest.raises(ValueError, match="mode must be one of"):
        F.pad(x, (1, 1), "mirror")
    with pytest.raises(ValueError, match="does not take a value"):
        F.pad(x, (1, 1), "replicate", 1.0)
    with pytest.raises(ValueError, match="1 to 3 trailing dims"):
        F.pad(sdk.randn(1, 2, 3, 4), (1, 1), "reflect")
    with pytest.raises(TypeError, match="'pad'"):
        F.pad(x, (1.5, 1), "reflect")
    with pytest.raises(TypeError, match="ReflectionPad2d: padding must be an int or a tuple of 4"):
        nn.ReflectionPad2d((1, 2))
    with pytest.raises(TypeError, match="padding"):
        nn.ZeroPad1d("2")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_second_derivatives(mode):
    """The slab copies' hand-written backward is itself differentiable."""
    x = sdk.tensor(RNG.normal(size=(1, 2, 4, 5)), requires_grad=True)
    assert sdk.autograd.gradgradcheck(lambda t: F.pad(t, (2, 1, 0, 3), mode), (x,))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_of_a_non_contiguous_float32_input_matches_torch(mode):
    a = RNG.normal(size=(2, 3, 6, 5, 4)).astype(np.float32)
    s = sdk.tensor(a).permute(0, 1, 4, 2, 3).requires_grad_(True)
    t = torch.tensor(a).permute(0, 1, 4, 2, 3).requires_grad_(True)
    pad = (3, 2, 1, 4, 2, 0)
    _check(F.pad(s, pad, mode), TF.pad(t, pad, mode), s, t, tol=1e-5)
