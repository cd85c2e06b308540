"""Run one function in sdk and in torch on the same inputs, and compare values and gradients
(the tests of torch's names that the sdk adds: test_torch_names_*.py)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import sdk


def _flat(out: Any) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _array(t: Any) -> np.ndarray:
    if hasattr(t, "detach"):
        t = t.detach()
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def assert_same(got: Any, want: Any, rtol: float = 1e-7, atol: float = 1e-9) -> None:
    """Equal values, shapes and dtype names (sdk.float32 vs torch.float32), NaN == NaN."""
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        a, b = _array(g), _array(w)
        assert a.shape == b.shape, (a.shape, b.shape)
        if hasattr(g, "dtype") and hasattr(w, "dtype"):
            assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1], (g.dtype, w.dtype)
        if a.dtype.kind in "biu":
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def compare(
    torch: Any,
    fn_sdk: Callable[..., Any],
    fn_torch: Callable[..., Any],
    *arrays: np.ndarray,
    grad: Any = True,
    rtol: float = 1e-7,
    atol: float = 1e-9,
) -> None:
    """fn over tensors made from `arrays` in both libraries: same results, and (with grad)
    the same gradients of sum(result * w) for a fixed random w, for each float input (grad
    may also be a tuple of flags, one per input)."""
    s_in = [sdk.tensor(a) for a in arrays]
    t_in = [torch.tensor(a) for a in arrays]
    flags = grad if isinstance(grad, tuple) else (grad,) * len(arrays)
    wants = [f and np.asarray(a).dtype.kind == "f" for f, a in zip(flags, arrays)]
    for s, t, w in zip(s_in, t_in, wants):
        if w:
            s.requires_grad_()
            t.requires_grad_()
    got, want = fn_sdk(*s_in), fn_torch(*t_in)
    assert_same(got, want, rtol, atol)
    if not any(wants):
        return
    rng = np.random.default_rng(7)
    s_loss, t_loss = 0, 0
    for g, w in zip(_flat(got), _flat(want)):
        if not (hasattr(w, "requires_grad") and w.requires_grad):
            continue
        weight = rng.standard_normal(tuple(w.shape))
        s_loss = s_loss + (g * sdk.tensor(weight).to(g.dtype)).sum()
        t_loss = t_loss + (w * torch.tensor(weight).to(w.dtype)).sum()
    if isinstance(t_loss, int):
        return
    s_loss.backward()
    t_loss.backward()
    for s, t, w in zip(s_in, t_in, wants):
        if w:
            want_grad = t.grad if t.grad is not None else torch.zeros_like(t)
            got_grad = s.grad if s.grad is not None else sdk.zeros_like(s)
            assert_same(got_grad, want_grad, rtol=max(rtol, 1e-6), atol=max(atol, 1e-8))
