"""sdk.utils.checkpoint: checkpoint and checkpoint_sequential give the unwrapped call's
results and gradients (activations are kept, nothing is recomputed), and refuse bad input."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk import nn
from sdk.utils.checkpoint import checkpoint, checkpoint_sequential


def _model():
    sdk.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 2))


def _grads(model, x):
    return [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


def _run(wrap):
    model = _model()
    x = sdk.tensor(np.random.default_rng(4).normal(size=(3, 4)), requires_grad=True)
    model.double()
    out = wrap(model, x)
    (out * out).sum().backward()
    return out.detach().numpy(), _grads(model, x)


@pytest.mark.parametrize("use_reentrant", [None, True, False])
def test_checkpoint_equals_the_unwrapped_call(use_reentrant):
    ref_out, ref_grads = _run(lambda m, x: m(x))

    def wrapped(m, x):
        return checkpoint(lambda a, scale: m(a) * scale, x, 1.0, use_reentrant=use_reentrant)

    out, grads = _run(wrapped)
    np.testing.assert_array_equal(out, ref_out)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_array_equal(g, r)


@pytest.mark.parametrize("segments", [1, 2, 5])
def test_checkpoint_sequential_equals_the_unwrapped_call(segments):
    ref_out, ref_grads = _run(lambda m, x: m(x))
    out, grads = _run(lambda m, x: checkpoint_sequential(m, segments, x, use_reentrant=False))
    np.testing.assert_array_equal(out, ref_out)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_array_equal(g, r)
    out2, _ = _run(lambda m, x: checkpoint_sequential(list(m), segments, x))
    np.testing.assert_array_equal(out2, ref_out)


def test_checkpoint_matches_torch_signature_and_values():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(5).normal(size=(3, 3))
    s, t = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    so = checkpoint(lambda v: (v.sin() * v).sum(), s, use_reentrant=False)
    to = torch.utils.checkpoint.checkpoint(lambda v: (v.sin() * v).sum(), t, use_reentrant=False)
    so.backward()
    to.backward()
    np.testing.assert_allclose(so.item(), to.item(), rtol=1e-12)
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="'function' must be callable"):
        checkpoint(3, sdk.ones(1))
    with pytest.raises(TypeError, match="'use_reentrant'"):
        checkpoint(lambda v: v, sdk.ones(1), use_reentrant="yes")
    with pytest.raises(ValueError, match="'segments'"):
        checkpoint_sequential(_model(), 0, sdk.ones(1, 4))
    with pytest.raises(TypeError, match="'functions'"):
        checkpoint_sequential([1, 2], 1, sdk.ones(1, 4))
    with pytest.raises(TypeError, match="unexpected keyword"):
        checkpoint_sequential(_model(), 1, sdk.ones(1, 4), foo=1)
