"""layer_norm, conv1d/conv2d, embedding and pad (nn.functional and their modules) against
numpy references, with gradcheck of the fused backward kernels."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn as nn
import sdk.nn.functional as F
from sdk.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


def _t(a, requires_grad=False):
    return sdk.tensor(np.asarray(a), requires_grad=requires_grad)


def _ln_ref(x, nd, w, b, eps):
    axes = tuple(range(x.ndim - nd, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,nd", [((4, 7), 1), ((2, 3, 5), 2), ((3, 1000), 1), ((6,), 1)])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_layer_norm_matches_numpy(dtype, shape, nd, affine):
    x = RNG.standard_normal(shape).astype(dtype) * 3 + 1
    w = RNG.standard_normal(shape[-nd:]).astype(dtype) if affine != "none" else None
    b = RNG.standard_normal(shape[-nd:]).astype(dtype) if affine == "both" else None
    y = F.layer_norm(_t(x), shape[-nd:], None if w is None else _t(w), None if b is None else _t(b))
    assert y.dtype == sdk.tensor(x).dtype and tuple(y.shape) == shape
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y.numpy(), _ln_ref(x, nd, w, b, 1e-5), rtol=tol, atol=tol)


def test_layer_norm_non_contiguous_and_half():
    x = RNG.standard_normal((5, 8))
    xt = _t(x).t()  # (8, 5), not contiguous
    np.testing.assert_allclose(F.layer_norm(xt, (5,)).numpy(), _ln_ref(x.T, 1, None, None, 1e-5),
                               rtol=1e-12, atol=1e-12)  # fmt: skip
    h = F.layer_norm(_t(x.astype(np.float32)).half(), (8,))
    assert h.dtype == sdk.float16
    np.testing.assert_allclose(h.float().numpy(), _ln_ref(x, 1, None, None, 1e-5), atol=5e-3)


def test_layer_norm_gradients():
    x = _t(RNG.standard_normal((3, 4, 5)), True)
    w = _t(RNG.standard_normal((4, 5)), True)
    b = _t(RNG.standard_normal((4, 5)), True)
    assert gradcheck(lambda a, c, d: F.layer_norm(a, (4, 5), c, d), (x, w, b))
    assert gradcheck(lambda a: F.layer_norm(a, (5,)), (x,))
    assert gradcheck(
        lambda a, d: F.layer_norm(a, (5,), None, d), (x, _t(RNG.standard_normal(5), True))
    )
    # the create_graph path (a composite formula) gives second derivatives
    assert gradgradcheck(
        lambda a, c: F.layer_norm(a, (5,), c), (x, _t(RNG.standard_normal(5), True))
    )


def test_layer_norm_module_and_errors():
    m = nn.LayerNorm((3, 4), dtype=sdk.float64)
    assert tuple(m.weight.shape) == (3, 4) and float(m.weight.sum()) == 12.0
    assert float(m.bias.abs().sum()) == 0.0 and len(list(m.parameters())) == 2
    x = _t(RNG.standard_normal((2, 3, 4)), True)
    m(x).sum().backward()
    assert m.weight.grad is not None and tuple(m.bias.grad.shape) == (3, 4)
    assert nn.LayerNorm(4, bias=False).bias is None
    assert len(list(nn.LayerNorm(4, elementwise_affine=False).parameters())) == 0
    with pytest.raises(ValueError, match="normalized_shape"):
        F.layer_norm(sdk.ones(2, 3), (4,))
    with pytest.raises(ValueError, match="weight"):
        F.layer_norm(sdk.ones(2, 3), (3,), sdk.ones(4))
    with pytest.raises(TypeError, match="floating point"):
        F.layer_norm(sdk.ones(2, 3, dtype=sdk.int64), (3,))


def _conv_ref(x, w, b, stride, padding, dilation, groups):
    n = x.ndim - 2
    pads = [(0, 0), (0, 0)] + [(p, p) for p in padding]
    xp = np.pad(x, pads)
    out_sz = [
        (x.shape[2 + i] + 2 * padding[i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1
        for i in range(n)
    ]
    batch, cout = x.shape[0], w.shape[0]
    cg, og = x.shape[1] // groups, cout // groups
    out = np.zeros((batch, cout, *out_sz))
    for g in range(groups):
        for k in np.ndindex(*w.shape[2:]):
            sl = tuple(
                slice(
                    k[i] * dilation[i],
                    k[i] * dilation[i] + stride[i] * (out_sz[i] - 1) + 1,
                    stride[i],
                )
                for i in range(n)
            )
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg), *sl)]
            wk = w[(slice(g * og, (g + 1) * og), slice(None), *k)]
            out[:, g * og : (g + 1) * og] += np.einsum("nc...,oc->no...", patch, wk)
    if b is not None:
        out += b.reshape(1, cout, *([1] * n))
    return out


CONV2D_CASES = [
    # (N, C, H, W), (O, kH, kW), stride, padding, dilation, groups, bias
    ((2, 3, 7, 6), (4, 3, 3), (1, 1), (0, 0), (1, 1), 1, True),
    ((1, 4, 9, 8), (6, 3, 2), (2, 3), (1, 2), (1, 1), 2, False),
    ((3, 2, 10, 10), (2, 3, 3), (1, 2), (2, 1), (2, 3), 1, True),
    ((2, 4, 5, 5), (4, 1, 1), (1, 1), (0, 0), (1, 1), 4, True),  # depthwise 1x1
    ((1, 1, 4, 4), (1, 4, 4), (1, 1), (0, 0), (1, 1), 1, False),  # one output pixel
]


@pytest.mark.parametrize("case", CONV2D_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_matches_numpy(case, dtype):
    xs, (o, kh, kw), stride, padding, dilation, groups, bias = case
    x = RNG.standard_normal(xs).astype(dtype)
    w = RNG.standard_normal((o, xs[1] // groups, kh, kw)).astype(dtype)
    b = RNG.standard_normal(o).astype(dtype) if bias else None
    y = F.conv2d(_t(x), _t(w), None if b is None else _t(b), stride, padding, dilation, groups)
    ref = _conv_ref(x.astype(np.float64), w, b, stride, padding, dilation, groups)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(y.numpy(), ref, rtol=tol, atol=tol)


def test_conv1d_unbatched_same_valid():
    x = RNG.standard_normal((3, 11))
    w = RNG.standard_normal((5, 3, 4))
    y = F.conv1d(_t(x), _t(w), padding="same")
    assert tuple(y.shape) == (5, 11)
    # 'same' with an even kernel pads one more at the end, as torch does
    ref = _conv_ref(np.pad(x, ((0, 0), (1, 2)))[None], w, None, (1,), (0,), (1,), 1)[0]
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-10, atol=1e-10)
    v = F.conv1d(_t(x[None]), _t(w), stride=2, padding="valid", dilation=2)
    np.testing.assert_allclose(v.numpy(), _conv_ref(x[None], w, None, (2,), (0,), (2,), 1),
                               rtol=1e-10, atol=1e-10)  # fmt: skip


def test_conv_gradients():
    x = _t(RNG.standard_normal((2, 4, 5, 6)), True)
    w = _t(RNG.standard_normal((6, 2, 3, 2)), True)
    b = _t(RNG.standard_normal(6), True)
    assert gradcheck(lambda a, c, d: F.conv2d(a, c, d, (2, 1), (1, 0), (1, 2), 2), (x, w, b))
    x1 = _t(RNG.standard_normal((2, 3, 9)), True)
    w1 = _t(RNG.standard_normal((2, 3, 3)), True)
    assert gradcheck(lambda a, c: F.conv1d(a, c, stride=2, padding=1), (x1, w1))
    # only the weight needs a gradient
    xs = _t(RNG.standard_normal((1, 2, 4, 4)))
    ws = _t(RNG.standard_normal((3, 2, 2, 2)), True)
    F.conv2d(xs, ws).sum().backward()
    assert ws.grad is not None and tuple(ws.grad.shape) == (3, 2, 2, 2)
    np.testing.assert_allclose(
        ws.grad.numpy()[0, 0], [[xs.numpy()[0, 0, i : i + 3, j : j + 3].sum() for j in range(2)]
                                for i in range(2)], rtol=1e-12)  # fmt: skip
    with pytest.raises(NotImplementedError, match="double backward"):
        gradgradcheck(lambda a: F.conv1d(a, w1.detach()), (x1,))


def test_conv_modules_and_errors():
    m = nn.Conv2d(4, 6, 3, stride=1, padding=1, groups=2, dtype=sdk.float64)
    assert tuple(m.weight.shape) == (6, 2, 3, 3) and tuple(m.bias.shape) == (6,)
    x = _t(RNG.standard_normal((2, 4, 5, 5)), True)
    y = m(x)
    assert tuple(y.shape) == (2, 6, 5, 5)
    y.sum().backward()
    assert x.grad is not None and m.weight.grad is not None
    assert tuple(nn.Conv1d(2, 3, 2, bias=False)(sdk.ones(2, 6)).shape) == (3, 5)
    with pytest.raises(ValueError, match="input channels"):
        F.conv2d(sdk.ones(1, 3, 4, 4), sdk.ones(2, 2, 1, 1))
    with pytest.raises(ValueError, match="smaller than"):
        F.conv2d(sdk.ones(1, 1, 2, 2), sdk.ones(1, 1, 3, 3))
    with pytest.raises(TypeError, match="float32 or float64"):
        F.conv1d(sdk.ones(1, 1, 4, dtype=sdk.int64), sdk.ones(1, 1, 2, dtype=sdk.int64))
    with pytest.raises(ValueError, match="divisible by groups"):
        F.conv2d(sdk.ones(1, 3, 4, 4), sdk.ones(2, 1, 1, 1), groups=3)


def test_embedding_and_padding_idx():
    w = _t(RNG.standard_normal((10, 3)), True)
    idx = sdk.tensor([[1, 4, 4], [0, 9, 1]])
    y = F.embedding(idx, w)
    np.testing.assert_allclose(y.detach().numpy(), w.detach().numpy()[idx.numpy()])
    y.sum().backward()
    counts = np.bincount(idx.numpy().ravel(), minlength=10)[:, None] * np.ones((1, 3))
    np.testing.assert_allclose(w.grad.numpy(), counts)
    w.grad = None
    F.embedding(idx, w, padding_idx=4).sum().backward()
    counts[4] = 0
    np.testing.assert_allclose(w.grad.numpy(), counts)
    e = nn.Embedding(5, 2, padding_idx=-1)
    assert e.padding_idx == 4 and float(e.weight[4].abs().sum()) == 0.0
    with pytest.raises(TypeError, match="index"):
        F.embedding(sdk.ones(2), w)


def test_pad_matches_numpy_and_is_differentiable():
    x = RNG.standard_normal((2, 3, 4))
    y = F.pad(_t(x), (1, 2, 0, 1), value=-1.5)
    np.testing.assert_allclose(y.numpy(), np.pad(x, ((0, 0), (0, 1), (1, 2)), constant_values=-1.5))
    c = F.pad(_t(x), (-1, 1))  # crop one at the start, pad one at the end
    np.testing.assert_allclose(c.numpy(), np.pad(x[:, :, 1:], ((0, 0), (0, 0), (0, 1))))
    xt = _t(x, True)
    assert gradcheck(lambda a: F.pad(a, (2, -1, 1, 1)), (xt,))
    with pytest.raises(ValueError, match="length"):
        F.pad(xt, (1, 2, 3))
