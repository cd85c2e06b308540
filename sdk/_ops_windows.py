"""torch's window functions (hann, hamming, blackman, bartlett, kaiser), computed in float64
and returned in the requested floating dtype (the default float dtype unless given)."""

from __future__ import annotations

import math
from typing import Any, Callable

from sdk import _ops_special
from sdk._dtype import as_dtype, float64, get_default_dtype
from sdk._interop import _check_device
from sdk._interop import tensor as as_tensor

Tensor = Any  # the public class lives in sdk._tensor; annotations only


def _cos(x: Any) -> Any:
    return _ops_special._np().cos(x)


def _sqrt(x: Any) -> Any:
    return _ops_special._np().sqrt(x)


def _window(
    name: str, n: int, periodic: bool, dtype: Any, device: Any, requires_grad: bool,
    value: Callable[[int, int], float],
) -> Tensor:  # fmt: skip
    """value(i, m) for i in 0..n-1, over a symmetric window of m = n (+ 1 when periodic)."""
    _check_device(device, name)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name}(): argument 'window_length' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    d = get_default_dtype() if dtype is None else as_dtype(dtype)
    if not d.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {d}")
    m = n + 1 if periodic else n
    np = _ops_special._np()
    # the positions as one array (a length that cannot be allocated fails here, at once);
    # value() maps them with numpy's elementwise functions
    i = np.arange(n, dtype="float64")
    values = np.ones(1) if n == 1 else value(i, m)
    t = as_tensor(np.asarray(values, dtype="float64"), dtype=float64).to(d)
    return t.requires_grad_() if requires_grad else t


def hann_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """0.5 - 0.5 cos(2 pi i / (N - 1))."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, m: 0.5 - 0.5 * _cos(2 * math.pi * i / (m - 1)))  # fmt: skip


def hamming_window(
    window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
    dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """alpha - beta cos(2 pi i / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, m: alpha - beta * _cos(2 * math.pi * i / (m - 1)))  # fmt: skip


def blackman_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """0.42 - 0.5 cos(2 pi i / (N - 1)) + 0.08 cos(4 pi i / (N - 1))."""

    def value(i: int, m: int) -> float:
        x = 2 * math.pi * i / (m - 1)
        return 0.42 - 0.5 * _cos(x) + 0.08 * _cos(2 * x)

    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   value)  # fmt: skip


def bartlett_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """The triangle 1 - |2 i / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, m: 1 - abs(2 * i / (m - 1) - 1))  # fmt: skip


def kaiser_window(
    window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None,
    layout: Any = None, device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """I0(beta sqrt(1 - (2 i / (N - 1) - 1)^2)) / I0(beta)."""
    args = _window(
        "kaiser_window",
        window_length,
        periodic,
        float64,
        device,
        False,
        lambda i, m: beta * _sqrt(_ops_special._np().maximum(0.0, 1 - (2 * i / (m - 1) - 1) ** 2)),
    )
    if window_length > 1:
        args = _ops_special.i0(args) / _ops_special.i0(as_tensor(float(beta), dtype=float64))
    d = get_default_dtype() if dtype is None else as_dtype(dtype)
    if not d.is_floating_point:
        raise RuntimeError(f"kaiser_window expects floating point dtypes, got: {d}")
    t = args.to(d)
    return t.requires_grad_() if requires_grad else t
