"""Conv1d/2d/3d's padding_mode (reflect, replicate, circular): the input is padded with F.pad
in that mode, then convolved without padding, as torch does; values, gradients and repr
against torch 2.13 on the same weights."""

from __future__ import annotations

import numpy as np
import pytest

import sdk

CASES = [  # (n, padding, stride, dilation)
    (1, 2, 1, 1), (1, "same", 1, 2), (2, 1, 1, 1), (2, (2, 1), 2, 1), (2, "same", 1, (1, 2)),
    (2, "valid", 1, 1), (3, 1, 1, 1),
]  # fmt: skip


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("case", CASES)
def test_padding_modes_match_torch(mode, case):
    torch = pytest.importorskip("torch")
    n, padding, stride, dilation = case
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, 3) + (7,) * n)
    layer = getattr(sdk.nn, f"Conv{n}d")(3, 4, 3, stride=stride, padding=padding,
                                         dilation=dilation, padding_mode=mode).double()  # fmt: skip
    ref = getattr(torch.nn, f"Conv{n}d")(3, 4, 3, stride=stride, padding=padding,
                                         dilation=dilation, padding_mode=mode).double()  # fmt: skip
    with torch.no_grad():
        ref.weight.copy_(torch.from_numpy(layer.weight.detach().numpy()))
        ref.bias.copy_(torch.from_numpy(layer.bias.detach().numpy()))
    assert repr(layer).split("(", 1)[1] == repr(ref).split("(", 1)[1]
    xs = sdk.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    w = rng.standard_normal(tuple(ref(xt).shape))
    out = layer(xs)
    np.testing.assert_allclose(
        out.detach().numpy(), ref(xt).detach().numpy(), rtol=1e-12, atol=1e-12
    )
    (out * sdk.tensor(w)).sum().backward()
    (ref(xt) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(layer.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-10)


def test_bad_padding_modes_are_refused_as_torch_does():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        sdk.nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(
        ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'
    ):
        sdk.nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect")
