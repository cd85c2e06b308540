"""Test helpers: assert_close with torch's per-dtype default tolerances and a precise report."""

from __future__ import annotations

from typing import Any

import numpy as np

import sdk
from sdk import _C

__all__ = ["assert_close"]

# (rtol, atol) by dtype name: the defaults torch.testing.assert_close uses.
_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}


def _dtype_name(x: Any) -> str:
    dt = getattr(x, "dtype", None)
    if dt is None:
        if isinstance(x, bool):
            return "bool"
        if isinstance(x, int):
            return "int64"
        return "float64"
    return str(dt).rsplit(".", 1)[-1]


def _to_numpy(x: Any) -> np.ndarray:
    if isinstance(x, _C.TensorBase):
        a = _C._alias(x)  # no autograd state: plain values
        if _dtype_name(a) == "bfloat16":
            a = a.to(sdk.float32)
        return np.array(a, copy=True)
    return np.asarray(x)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_dtype: bool = True,
    msg: str | None = None,
) -> None:
    """Raise AssertionError unless |actual - expected| <= atol + rtol * |expected| elementwise.

    Accepts sdk tensors, numpy arrays and Python scalars (and lists/tuples of them).
    Without rtol/atol, torch's defaults for the dtype apply (exact for integers/bool).
    """
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"sequence lengths differ: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            try:
                assert_close(
                    a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype
                )
            except AssertionError as err:
                raise AssertionError(f"item {i}: {err}") from None
        return
    if (rtol is None) != (atol is None):
        raise ValueError("assert_close: give both rtol and atol, or neither")
    a_name, e_name = _dtype_name(actual), _dtype_name(expected)
    both_tensors = isinstance(actual, _C.TensorBase) and isinstance(expected, _C.TensorBase)
    if check_dtype and both_tensors and a_name != e_name:
        raise AssertionError(
            f"The values for attribute 'dtype' do not match: {a_name} != {e_name}."
        )
    a, e = _to_numpy(actual), _to_numpy(expected)
    if a.shape != e.shape:
        raise AssertionError(
            f"The values for attribute 'shape' do not match: {list(a.shape)} != {list(e.shape)}."
        )
    if rtol is None:
        names = [n for n in (a_name, e_name) if n in _TOLERANCES]
        if names:
            rtol = max(_TOLERANCES[n][0] for n in names)
            atol = max(_TOLERANCES[n][1] for n in names)
        else:
            rtol = atol = 0.0
    af = a.astype(np.float64) if a.dtype != np.complex128 else a
    ef = e.astype(np.float64) if e.dtype != np.complex128 else e
    diff = np.abs(af - ef)
    ok = diff <= atol + rtol * np.abs(ef)
    # Infinities must match exactly; NaN matches NaN only with equal_nan.
    both_inf = np.isinf(af) & np.isinf(ef) & (af == ef)
    ok |= both_inf
    if equal_nan:
        ok |= np.isnan(af) & np.isnan(ef)
    if ok.all():
        return
    bad = ~ok
    n_bad, total = int(bad.sum()), ok.size
    diff_masked = np.where(np.isnan(diff), np.inf, diff)
    rel = diff_masked / np.where(ef == 0, np.inf, np.abs(ef))
    rel = np.where((ef == 0) & (diff_masked > 0), np.inf, rel)
    ia = np.unravel_index(int(np.argmax(diff_masked)), a.shape) if a.shape else ()
    ir = np.unravel_index(int(np.argmax(rel)), a.shape) if a.shape else ()
    kind = "Tensor-likes" if a.shape else "Scalars"
    text = (
        f"{kind} are not close!\n\n"
        f"Mismatched elements: {n_bad} / {total} ({100.0 * n_bad / total:.1f}%)\n"
        f"Greatest absolute difference: {float(diff_masked[ia]):.6g} at index "
        f"{tuple(int(i) for i in ia)} (up to {atol} allowed)\n"
        f"Greatest relative difference: {float(rel[ir]):.6g} at index "
        f"{tuple(int(i) for i in ir)} (up to {rtol} allowed)"
    )
    if msg:
        text = f"{msg}\n\n{text}"
    raise AssertionError(text)
