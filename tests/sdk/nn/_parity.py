"""Shared helpers for the torch-parity tests of the nn additions: paired inputs and a value +
gradient comparison through a random weighting (a plain sum hides normalization gradients)."""

from __future__ import annotations

import numpy as np

import sdk

RNG = np.random.default_rng(7)


def pair(torch, shape, scale=1.0, offset=0.0):
    a = RNG.normal(size=shape) * scale + offset
    return sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def check(torch, s_out, t_out, s_in, t_in, tol=1e-9):
    """Same values; the same gradients of sum(out * w) for a random w of out's shape."""
    s_val, t_val = s_out.detach().numpy(), t_out.detach().numpy()
    np.testing.assert_allclose(s_val, t_val, rtol=tol, atol=tol)
    w = RNG.normal(size=t_val.shape)
    (s_out * sdk.tensor(w)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    for s, t in zip(s_in, t_in):
        assert s.grad is not None, "no gradient reached an input"
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)
