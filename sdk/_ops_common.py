"""Helpers shared by the public op modules: autograd recording, argument normalization.

Recording contract (see sdk.autograd.graph.record): ops call record(op, inputs, output,
**attrs) only when needs_grad(...) is true. Conventions used by the op modules:
- reflected `number - tensor` records "rsub" with (tensor, number); `number / tensor`
  and `number ** tensor` record "div"/"pow" with the number first;
- in-place ops record "<op>_" with self first and output self, after writing, and call
  check_inplace(self) before writing;
- multi-output ops (max/min with dim, split, chunk, unbind) record a plain tuple;
  max()/min() without dim record "amax"/"amin" with dim=None;
- attrs: reductions dim (tuple of non-negative ints or None) and keepdim; single-dim
  ops a non-negative int dim; view size=, reshape shape=, expand size=, permute dims=,
  transpose dim0/dim1, narrow dim/start/length, select dim/index, slice
  dim/start/end/step, clamp_ min/max, masked_fill value= (when a number), to dtype=;
- advanced indexing records "index" with (tensor, *index_tensors) after basic indexing
  and a permute have brought the indexed dims to the front.
"""

from __future__ import annotations

from typing import Any, Callable

from sdk import _C, _autograd_link
from sdk._dtype import Size, as_dtype, get_default_dtype
from sdk._interop import tensor as _tensor

TensorBase = _C.TensorBase
needs_grad = _C._needs_grad  # needs_grad(*args): grad mode on and some tensor requires grad


def _autograd(op: str) -> Any:
    try:
        return _autograd_link.autograd().graph
    except ImportError as e:  # the autograd package is optional at this layer
        raise NotImplementedError(
            f"{op}: autograd is not available (sdk.autograd.graph could not be imported)"
        ) from e


def record(op: str, inputs: tuple, output: Any, **attrs: Any) -> Any:
    """Attach the autograd node of `op` (only called when needs_grad said so)."""
    return _autograd(op).record(op, inputs, output, **attrs)


def record_pair(op: str, input: Any, values: Any, indices: Any, kind: Any, **attrs: Any) -> Any:
    """(values, indices) as `kind` (a torch.return_types-like namedtuple), recorded for
    autograd (the gradient goes back through the indices): sort, topk, cummax, ..."""
    if needs_grad(input):
        record(op, (input,), (values, indices), **attrs)
    return kind(values, indices)


def write_inplace(op: str, self: Any, others: tuple, write: Callable[[], Any], **attrs: Any):
    """Run `write` (in-place `op` on self, e.g. "log_") and record it for autograd (only
    called when needs_grad said so, after check_inplace).

    When the derivative table has no row for `op` itself (its formula needs the value the
    write destroys, as log_ and sin_ do), self's old value is first kept as a
    differentiable clone and the out-of-place row is recorded on it, as torch does."""
    graph = _autograd(op)
    if op in graph.DERIVATIVES:
        write()
        return graph.record(op, (self, *others), self, **attrs)
    if op[:-1] not in graph.DERIVATIVES:
        raise NotImplementedError(
            f"autograd: the derivative of '{op[:-1]}' is not implemented "
            "(see sdk/autograd/derivatives.py)"
        )
    old = self.clone()
    write()
    return graph.record(op[:-1], (old, *others), self, **attrs)


def check_inplace(t: Any) -> None:
    """Refuse, before anything is written, an in-place op that autograd cannot record: into
    a leaf that requires grad (as torch does), or into a view of a tensor that requires grad
    (torch rewrites the base's history there; this engine does not)."""
    if not (t._requires_grad and _C.is_grad_enabled()):
        return
    if t.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    m = t._ag
    if m is not None and m.base is not None:
        raise NotImplementedError(
            "autograd: an in-place op on a view of a tensor that requires grad is not "
            "supported (the base tensor's history would need rewriting); clone() the view "
            "first or use an out-of-place op"
        )


def tensor_arg(x: Any, op: str, arg: str = "input") -> Any:
    if isinstance(x, TensorBase):
        return x
    raise TypeError(f"{op}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, bool)) or (
        not isinstance(x, TensorBase)
        and type(x).__module__ == "numpy"
        and getattr(x, "ndim", None) == 0
    )


def operand(x: Any, op: str, arg: str) -> Any:
    """A tensor or a Python number for a binary op; array-likes become tensors."""
    if isinstance(x, (TensorBase, int, float, bool)):
        return x
    if is_scalar(x):
        return x.item()
    if (
        isinstance(x, (list, tuple))
        or hasattr(x, "__array_interface__")
        or hasattr(x, "__dlpack__")
    ):
        return _tensor(x)
    raise TypeError(f"{op}(): argument '{arg}' must be Tensor or Number, not {type(x).__name__}")


def scalar_tensor(v: Any, like: Any = None) -> Any:
    """A 0-dim tensor for a Python number (weak type: bool, int64, or the default float)."""
    if isinstance(v, TensorBase):
        return v
    if isinstance(v, bool):
        d = 0
    elif isinstance(v, int):
        d = 5
    else:
        d = get_default_dtype()
    return full_scalar(v, d)


def full_scalar(v: Any, d: Any) -> Any:
    """A 0-dim tensor of dtype d holding v converted as arithmetic converts (a float beyond
    float16 is inf, an int beyond the integer type wraps), where fill_ and full refuse."""
    try:
        return _C.full((), v, d)
    except (ValueError, RuntimeError):
        return _C.to_dtype(_C.full((), v, 9 if isinstance(v, float) else 5), d, False)


def dtype_or_none(d: Any) -> Any:
    return None if d is None else as_dtype(d)


def wrap_dim(d: Any, ndim: int, op: str = "op") -> int:
    """Normalize a dim to a non-negative int (IndexError like torch)."""
    if isinstance(d, bool) or not isinstance(d, int):
        try:
            d = d.__index__()
        except AttributeError:
            raise TypeError(f"{op}(): argument 'dim' must be int, not {type(d).__name__}") from None
    n = max(ndim, 1)
    if d < -n or d >= n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
        )
    return d + n if d < 0 else d


def wrap_dims(dim: Any, ndim: int, op: str = "op") -> Any:
    """None -> None (all dims); an int or a sequence -> a sorted tuple of unique dims."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        out = tuple(wrap_dim(d, ndim, op) for d in dim)
        if len(set(out)) != len(out):
            raise RuntimeError(
                f"{op}(): dim {tuple(dim)} appears multiple times in the list of dims"
            )
        return out
    return (wrap_dim(dim, ndim, op),)


def int_seq(value: Any, op: str, arg: str = "size") -> tuple:
    """An int or a list/tuple of them as a tuple; other iterables (str, bytes, dict, ...)
    are refused rather than taken apart into surprising sizes."""
    if isinstance(value, (list, tuple)):
        return sizes_arg(tuple(value), op) if arg == "size" else tuple(value)
    if hasattr(value, "__index__") and not isinstance(value, bool):
        return (value.__index__(),)
    raise TypeError(
        f"{op}(): argument '{arg}' must be a sequence of ints, not {type(value).__name__}"
    )


def sizes_arg(size: tuple, op: str) -> tuple:
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(sdk.Size(...))."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, bool) or not hasattr(s, "__index__"):
            raise TypeError(
                f"{op}(): argument 'size' must be a sequence of ints, but got {type(s).__name__}"
            )
        out.append(s.__index__())
    return tuple(out)


def broadcast_shapes(*shapes: Any) -> tuple:
    """The shape that broadcasting the given shapes together gives."""
    out: list = []
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        for i, x in enumerate(reversed(s)):
            if i == len(out):
                out.append(x)
            elif out[i] == 1:
                out[i] = x
            elif x != 1 and x != out[i]:
                raise RuntimeError(
                    f"shape mismatch: objects cannot be broadcast to a single shape ({shapes})"
                )
    return Size(reversed(out))
