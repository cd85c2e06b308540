"""gradcheck / gradgradcheck: analytical Jacobians (backward) against central finite differences.

The numerical Jacobian perturbs one input element at a time by +-eps on a float64 copy
(numpy) and calls the function again under no_grad; the analytical one runs one
vector-Jacobian product per output element (a one-hot grad_output through
``autograd.grad``). Entry (i, j) of input k / output o passes when
``|analytical - numerical| <= atol + rtol * |numerical|``.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

import sdk
from sdk import _C

from .engine import grad as autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

_TensorBase = _C.TensorBase
_MAX_REPORTED = 12


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical Jacobians disagree."""


def _np(t: Any) -> np.ndarray:
    """A float64 numpy copy of a tensor's values (no autograd state involved)."""
    a = _C._alias(t)
    if a.dtype != sdk.float64:
        a = a.to(sdk.float64)
    return np.array(a, dtype=np.float64, copy=True)


def _from_np(a: np.ndarray, like: Any) -> Any:
    t = sdk.tensor(np.array(a, order="C", copy=True))
    return t if t.dtype == like.dtype else t.to(like.dtype)


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, _TensorBase):
        return (x,)
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _is_float(t: Any) -> bool:
    return str(t.dtype).rsplit(".", 1)[-1] in ("float16", "bfloat16", "float32", "float64")


def _numerical(func: Callable, inputs: tuple, diff_idx: list, out_sizes: list, eps: float) -> list:
    """J[o][k]: (numel of output o, numel of input k) by central differences."""
    # Grad mode stays on and perturbed inputs keep requires_grad: the function may itself
    # differentiate (gradgradcheck's first derivative does).
    jac = [[np.zeros((n, inputs[k].numel())) for k in diff_idx] for n in out_sizes]
    for kk, k in enumerate(diff_idx):
        base = _np(inputs[k])
        flat = base.reshape(-1)
        for j in range(flat.size):
            orig = flat[j]
            vals = []
            for delta in (eps, -eps):
                flat[j] = orig + delta
                args = list(inputs)
                args[k] = _from_np(base, inputs[k]).requires_grad_(True)
                outs = [o for o in _as_tuple(func(*args)) if isinstance(o, _TensorBase)]
                vals.append([_np(o).reshape(-1) for o in outs if _is_float(o)])
            flat[j] = orig
            for o in range(len(out_sizes)):
                jac[o][kk][:, j] = (vals[0][o] - vals[1][o]) / (2 * eps)
    return jac


def _analytical(outputs: list, inputs: tuple, diff_idx: list) -> list:
    targets = [inputs[k] for k in diff_idx]
    jac = []
    for o in outputs:
        n = o.numel()
        rows = [np.zeros((n, inputs[k].numel())) for k in diff_idx]
        if o._requires_grad:
            for i in range(n):
                onehot = np.zeros(n)
                onehot[i] = 1.0
                go = _from_np(onehot.reshape(tuple(o.shape)), o)
                grads = autograd_grad(o, targets, go, retain_graph=True, allow_unused=True)
                for kk, g in enumerate(grads):
                    if g is not None:
                        rows[kk][i, :] = _np(g).reshape(-1)
        jac.append(rows)
    return jac


def _fmt_index(flat: int, shape: tuple) -> str:
    if not shape:
        return "()"
    return str(tuple(int(v) for v in np.unravel_index(flat, shape)))


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **unused: Any,
) -> bool:
    """Check the gradients of `func` at `inputs` (tensors requiring grad; others are passed as is).

    Returns True, or False / raises GradcheckError listing mismatching Jacobian entries.
    """
    inputs = _as_tuple(inputs)
    diff_idx = [k for k, x in enumerate(inputs) if isinstance(x, _TensorBase) and x._requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for k in diff_idx:
        if str(inputs[k].dtype).rsplit(".", 1)[-1] != "float64":
            warnings.warn(
                f"Input #{k} requires gradient and is not a double precision floating point "
                "tensor; finite differences in lower precision are unreliable",
                stacklevel=2,
            )
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, _TensorBase) and _is_float(o)]
    if not outputs:
        raise ValueError("gradcheck: the function returned no floating-point tensor output")
    out_shapes = [tuple(o.shape) for o in outputs]
    analytical = _analytical(outputs, inputs, diff_idx)
    numerical = _numerical(func, inputs, diff_idx, [o.numel() for o in outputs], eps)
    problems = []
    total_bad = 0
    for o, shape_o in enumerate(out_shapes):
        for kk, k in enumerate(diff_idx):
            a, n = analytical[o][kk], numerical[o][kk]
            bad = ~(np.abs(a - n) <= atol + rtol * np.abs(n))
            count = int(bad.sum())
            if not count:
                continue
            total_bad += count
            shape_k = tuple(inputs[k].shape)
            for r, c in zip(*np.nonzero(bad)):
                if len(problems) >= _MAX_REPORTED:
                    break
                problems.append(
                    f"  input {k} element {_fmt_index(c, shape_k)}, output {o} element "
                    f"{_fmt_index(r, shape_o)}: numerical {n[r, c]:.8g} vs analytical {a[r, c]:.8g}"
                )
    if not total_bad:
        return True
    name = getattr(func, "__qualname__", None) or type(func).__name__
    msg = (
        f"Jacobian mismatch for {name} ({total_bad} entries; atol={atol}, rtol={rtol}, "
        f"eps={eps}):\n" + "\n".join(problems)
    )
    if total_bad > len(problems):
        msg += f"\n  ... and {total_bad - len(problems)} more"
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Sequence[Any] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    seed: int = 0,
    **unused: Any,
) -> bool:
    """gradcheck of the first derivative (built with create_graph=True): second derivatives."""
    inputs = _as_tuple(inputs)
    n_in = len(inputs)
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, _TensorBase) and _is_float(o)]
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        grad_outputs = tuple(
            _from_np(rng.standard_normal(tuple(o.shape)), o).requires_grad_(True) for o in outputs
        )
    grad_outputs = tuple(grad_outputs)
    diff_idx = [k for k, x in enumerate(inputs) if isinstance(x, _TensorBase) and x._requires_grad]

    def first_derivative(*args: Any) -> tuple:
        outs = [
            o for o in _as_tuple(func(*args[:n_in])) if isinstance(o, _TensorBase) and _is_float(o)
        ]
        pairs = [(o, g) for o, g in zip(outs, args[n_in:]) if o._requires_grad]
        grads = autograd_grad(
            [p[0] for p in pairs],
            [args[k] for k in diff_idx],
            [p[1] for p in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivative,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
