"""ConvTranspose1d/2d, Conv3d, Upsample, PReLU, RNNCell/LSTMCell/GRUCell and the Transformer
layers: properties that need no reference (adjointness, equivalences, mask isolation), and
the same outputs and gradients as torch's modules with the same parameters when torch is
installed."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn
from sdk.autograd import gradcheck


def t64(a, grad=False):
    return sdk.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


@pytest.fixture
def rng():
    return np.random.default_rng(11)


@pytest.mark.parametrize("n", [1, 2])
def test_conv_transpose_is_the_adjoint_of_conv(rng, n):
    # <conv_transpose(y), x> == <y, conv(x)> for the same weight, stride, padding, dilation
    sp = (9, 8)[:n]
    x = t64(rng.standard_normal((2, 3, *sp)))
    w = t64(rng.standard_normal((3, 4, *(3,) * n)))  # conv: in 4 -> out 3... read as (out, in)
    conv = F.conv1d if n == 1 else F.conv2d
    tconv = F.conv_transpose1d if n == 1 else F.conv_transpose2d
    x = t64(rng.standard_normal((2, 4, *sp)))
    y_shape = conv(x, w, stride=2, padding=1, dilation=1).shape
    y = t64(rng.standard_normal(tuple(y_shape)))
    out_pad = [(s + 2 - 3) % 2 for s in sp]  # recover x's size exactly
    back = tconv(y, w, stride=2, padding=1, output_padding=out_pad if n == 2 else out_pad[0])
    assert tuple(back.shape) == tuple(x.shape)
    lhs = (back * x).sum().item()
    rhs = (y * conv(x, w, stride=2, padding=1)).sum().item()
    assert lhs == pytest.approx(rhs, rel=1e-10)


def test_conv_transpose_modules_output_size_and_gradients(rng):
    m = nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, groups=2, dtype=sdk.float64)
    assert tuple(m.weight.shape) == (2, 2, 3, 3)
    x = t64(rng.standard_normal((1, 2, 4, 5)))
    assert tuple(m(x).shape) == (1, 4, 7, 9)
    assert tuple(m(x, output_size=(8, 10)).shape) == (1, 4, 8, 10)
    with pytest.raises(ValueError, match="requested an output size"):
        m(x, output_size=(12, 10))
    m1 = nn.ConvTranspose1d(3, 2, 4, stride=3, dtype=sdk.float64)
    xg = t64(rng.standard_normal((2, 3, 5)), grad=True)
    assert gradcheck(lambda a: m1(a), (xg,))
    assert "ConvTranspose1d" in repr(m1)


def test_conv3d_module_and_upsample(rng):
    m = nn.Conv3d(2, 3, (2, 3, 3), padding=1, dtype=sdk.float64)
    x = t64(rng.standard_normal((1, 2, 3, 4, 4)))
    np.testing.assert_allclose(
        m(x).detach().numpy(), F.conv3d(x, m.weight, m.bias, 1, 1).detach().numpy()
    )
    a = rng.standard_normal((1, 2, 3, 2))
    up = nn.Upsample(scale_factor=2)(t64(a)).detach().numpy()
    np.testing.assert_array_equal(up, a.repeat(2, 2).repeat(2, 3))
    assert tuple(nn.Upsample(size=(5, 7), mode="bilinear")(t64(a)).shape) == (1, 2, 5, 7)
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        nn.Upsample()


def test_prelu(rng):
    a = rng.standard_normal((2, 3, 4))
    m = nn.PReLU(3, init=0.1, dtype=sdk.float64)
    with sdk.no_grad():
        m.weight.copy_(t64([0.1, 0.2, 0.3]))
    ref = np.where(a > 0, a, a * np.array([0.1, 0.2, 0.3])[None, :, None])
    np.testing.assert_allclose(m(t64(a)).detach().numpy(), ref)
    assert nn.PReLU()(t64([-2.0, 3.0])).tolist() == [-0.5, 3.0]
    with pytest.raises(RuntimeError, match="mismatch of parameter numbers"):
        m(t64(rng.standard_normal((2, 4))))
    xg = t64(a, grad=True)
    assert gradcheck(lambda x, w: F.prelu(x, w), (xg, t64([0.1, 0.2, 0.3], grad=True)))


@pytest.mark.parametrize(
    "cell, layer", [("RNNCell", "RNN"), ("GRUCell", "GRU"), ("LSTMCell", "LSTM")]
)
def test_cells_equal_one_step_of_their_layer(rng, cell, layer):
    c = getattr(nn, cell)(3, 5, dtype=sdk.float64)
    r = getattr(nn, layer)(3, 5, dtype=sdk.float64)
    r.load_state_dict({k + "_l0": v for k, v in c.state_dict().items()})
    x = t64(rng.standard_normal((4, 3)))
    h0 = t64(rng.standard_normal((4, 5)))
    if cell == "LSTMCell":
        c0 = t64(rng.standard_normal((4, 5)))
        h, cc = c(x, (h0, c0))
        _, (hr, cr) = r(x.unsqueeze(0), (h0.unsqueeze(0), c0.unsqueeze(0)))
        np.testing.assert_allclose(cc.detach().numpy(), cr[0].detach().numpy(), rtol=1e-12)
    else:
        h = c(x, h0)
        hr = r(x.unsqueeze(0), h0.unsqueeze(0))[1]
    np.testing.assert_allclose(h.detach().numpy(), hr[0].detach().numpy(), rtol=1e-12)
    unbatched = c(x[0])
    assert tuple((unbatched[0] if cell == "LSTMCell" else unbatched).shape) == (5,)
    with pytest.raises(ValueError, match="expected input of shape"):
        c(t64(rng.standard_normal((4, 2))))


def test_encoder_key_padding_isolates_padded_positions(rng):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=sdk.float64)
    enc = nn.TransformerEncoder(layer, 2)
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    a = rng.standard_normal((1, 4, 8))
    pad = sdk.tensor([[False, False, True, True]])
    out1 = enc(t64(a), src_key_padding_mask=pad).detach().numpy()
    b = a.copy()
    b[0, 2:] += 10.0  # only padded positions change
    out2 = enc(t64(b), src_key_padding_mask=pad).detach().numpy()
    np.testing.assert_allclose(out1[0, :2], out2[0, :2], rtol=1e-12)
    with pytest.raises(RuntimeError, match="relu/gelu"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


def test_decoder_causal_mask_hides_the_future(rng):
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True,
                                                           dtype=sdk.float64), 2)  # fmt: skip
    mem = t64(rng.standard_normal((3, 1, 8)))
    a = rng.standard_normal((4, 1, 8))
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=sdk.float64)
    out1 = dec(t64(a), mem, tgt_mask=mask).detach().numpy()
    a[3] += 5.0
    out2 = dec(t64(a), mem, tgt_mask=mask).detach().numpy()
    np.testing.assert_allclose(out1[:3], out2[:3], rtol=1e-12)
    assert not np.allclose(out1[3], out2[3])


# ----------------------------------------------------------------------------- against torch


def _copy_params(tmod, smod):
    smod.load_state_dict({k: t64(v.detach().numpy()) for k, v in tmod.state_dict().items()})


def _compare(torch, tmod, smod, inputs, call=lambda m, *x: m(*x), rtol=1e-9):
    tmod.double()
    smod.double()
    _copy_params(tmod, smod)
    tin = [torch.tensor(a, requires_grad=True) for a in inputs]
    sin = [t64(a, grad=True) for a in inputs]
    tout, sout = call(tmod, *tin), call(smod, *sin)
    touts = tout if isinstance(tout, tuple) else (tout,)
    souts = sout if isinstance(sout, tuple) else (sout,)
    for t, s in zip(touts, souts):
        np.testing.assert_allclose(s.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=1e-12)
    w = [np.random.default_rng(5).standard_normal(tuple(t.shape)) for t in touts]
    sum(((t * torch.tensor(x)).sum() for t, x in zip(touts, w))).backward()
    sum(((s * t64(x)).sum() for s, x in zip(souts, w))).backward()
    for t, s in zip(tin, sin):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=1e-12)
    tgrads = dict(tmod.named_parameters())
    for name, p in smod.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tgrads[name].grad.numpy(), rtol=rtol, atol=1e-12)


def test_conv_and_sampling_layers_against_torch(rng):
    torch = pytest.importorskip("torch")
    cases = [
        ("ConvTranspose1d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2, dilation=2), (2, 4, 7)),
        ("ConvTranspose2d", (3, 2, (2, 3)), dict(stride=(2, 1), padding=(0, 1)), (2, 3, 4, 5)),
        ("Conv3d", (2, 4, 3), dict(stride=(1, 2, 1), padding=1, dilation=(2, 1, 1)), (1, 2, 5, 6, 5)),
        ("PReLU", (3,), dict(init=0.2), (2, 3, 4)),
    ]  # fmt: skip
    for name, args, kw, shape in cases:
        tmod = getattr(torch.nn, name)(*args, **kw)
        smod = getattr(nn, name)(*args, **kw)
        _compare(torch, tmod, smod, [rng.standard_normal(shape)])
    for mode, kw in (("nearest", dict(scale_factor=2)), ("bilinear", dict(size=(5, 7))),
                     ("bilinear", dict(scale_factor=1.5, align_corners=True))):  # fmt: skip
        _compare(torch, torch.nn.Upsample(mode=mode, **kw), nn.Upsample(mode=mode, **kw),
                 [rng.standard_normal((2, 3, 4, 4))])  # fmt: skip


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_against_torch(rng, name):
    torch = pytest.importorskip("torch")
    tmod, smod = getattr(torch.nn, name)(3, 4), getattr(nn, name)(3, 4)
    x, h, c = (rng.standard_normal(s) for s in ((5, 3), (5, 4), (5, 4)))
    if name == "LSTMCell":
        _compare(torch, tmod, smod, [x, h, c], call=lambda m, a, b, d: m(a, (b, d)))
    else:
        _compare(torch, tmod, smod, [x, h])
    if name == "RNNCell":
        _compare(torch, torch.nn.RNNCell(3, 4, nonlinearity="relu"),
                 nn.RNNCell(3, 4, nonlinearity="relu"), [x])  # fmt: skip


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_against_torch(rng, norm_first, batch_first):
    torch = pytest.importorskip("torch")
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
              dropout=0.0, activation="gelu", batch_first=batch_first, norm_first=norm_first)  # fmt: skip
    tmod, smod = torch.nn.Transformer(**kw), nn.Transformer(**kw)
    tmod.eval()
    smod.eval()
    src, tgt = rng.standard_normal((5, 2, 8)), rng.standard_normal((4, 2, 8))
    if batch_first:
        src, tgt = src.swapaxes(0, 1), tgt.swapaxes(0, 1)
    pad = [[False, False, False, True, True], [False] * 5]

    def call(m, s, t):
        lib = torch if isinstance(s, torch.Tensor) else sdk
        mask = type(m).generate_square_subsequent_mask(4, dtype=lib.float64)
        kpm = lib.tensor(pad)
        return m(s, t, tgt_mask=mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)

    _compare(torch, tmod, smod, [src, tgt], call=call, rtol=1e-8)


def test_encoder_and_decoder_layers_against_torch(rng):
    torch = pytest.importorskip("torch")
    kw = dict(dim_feedforward=12, dropout=0.0, activation="relu")
    _compare(torch, torch.nn.TransformerEncoderLayer(6, 3, **kw).eval(),
             nn.TransformerEncoderLayer(6, 3, **kw).eval(), [rng.standard_normal((4, 2, 6))],
             call=lambda m, x: m(x, is_causal=False), rtol=1e-8)  # fmt: skip
    _compare(torch, torch.nn.TransformerDecoderLayer(6, 3, norm_first=True, **kw).eval(),
             nn.TransformerDecoderLayer(6, 3, norm_first=True, **kw).eval(),
             [rng.standard_normal((4, 2, 6)), rng.standard_normal((3, 2, 6))], rtol=1e-8)  # fmt: skip
