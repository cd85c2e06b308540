"""Tensor indexing and assignment: basic (int, slice, None, Ellipsis) and advanced (int/bool tensors).

Basic indices become views (select/slice/unsqueeze). Advanced ones follow numpy: the
indexed dims are permuted to the front, indexed with one core call, and the broadcast
index dims are moved back where numpy puts them (in place of the indexed dims when
those are adjacent, else first). Every step is a public op, so autograd records it.
"""

from __future__ import annotations

import sys
from typing import Any

from sdk import _C, _autograd_link
from sdk._interop import tensor
from sdk._ops_common import TensorBase, check_inplace, needs_grad, record
from sdk._ops_math import copy_, fill_, masked_fill_
from sdk._ops_shape import (
    _alias_view,
    broadcast_shapes,
    clone,
    expand,
    movedim,
    permute,
    select,
    slice_dim,
    unsqueeze,
)
from sdk.grad_mode import no_grad

Tensor = Any
_INT64 = 5
_BOOL = 0


def _is_bool_tensor(x: Tensor) -> bool:
    return x.dtype.code == _BOOL


def _as_index_tensor(x: Any) -> Tensor:
    """An index tensor from a tensor, list, tuple or ndarray (bool or integer)."""
    if isinstance(x, TensorBase):
        t = x
    else:
        np = sys.modules.get("numpy")
        if np is not None and isinstance(x, np.ndarray):
            t = _C.from_array_interface(np.ascontiguousarray(x))
        else:
            t = tensor(x)
            if t.numel() == 0:
                t = _C.to_dtype(t, _INT64)
    if t.dtype.is_floating_point:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return t


def _entries(t: Tensor, idx: Any) -> list:
    """[(kind, value)] with Ellipsis expanded; kinds: int, slice, none, adv, bool."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    out = []
    consumed = 0
    ellipsis_at = None
    for x in idx:
        if x is None:
            out.append(("none", None))
        elif x is Ellipsis:
            if ellipsis_at is not None:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis_at = len(out)
        elif isinstance(x, bool):
            out.append(("bool", x))
        elif isinstance(x, int):
            out.append(("int", x))
            consumed += 1
        elif isinstance(x, slice):
            out.append(("slice", x))
            consumed += 1
        elif (
            isinstance(x, TensorBase)
            and x.ndim == 0
            and not _is_bool_tensor(x)
            and not x.dtype.is_floating_point
        ):
            out.append(("int", int(x)))
            consumed += 1
        elif (
            hasattr(x, "__index__") and not hasattr(x, "__len__") and not isinstance(x, TensorBase)
        ):
            out.append(("int", x.__index__()))
            consumed += 1
        elif isinstance(x, (TensorBase, list, tuple)) or hasattr(x, "__array_interface__"):
            it = _as_index_tensor(x)
            if _is_bool_tensor(it):
                if it.ndim == 0:
                    out.append(("bool", bool(it)))
                else:
                    out.append(("mask", it))
                    consumed += it.ndim
            else:
                out.append(("adv", it))
                consumed += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {type(x).__name__})"
            )
    if consumed > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")
    fill = [("slice", slice(None))] * (t.ndim - consumed)
    if ellipsis_at is None:
        out.extend(fill)
    else:
        out[ellipsis_at:ellipsis_at] = fill
    return out


def _apply_basic(t: Tensor, entries: list) -> tuple:
    """Apply basic entries; returns (view, [(result dim, [index tensors])])."""
    y = t
    d = 0
    adv = []
    for kind, v in entries:
        if kind == "int":
            y = select(y, d, v)
        elif kind == "slice":
            step = 1 if v.step is None else v.step
            if step <= 0:
                raise _C.InvalidArgumentError("step must be greater than zero")
            if not (v.start is None and v.stop is None and step == 1):
                y = slice_dim(y, d, v.start, v.stop, step)
            d += 1
        elif kind == "none":
            y = unsqueeze(y, d)
            d += 1
        elif kind == "bool":
            # As in numpy and torch: a new size-1 dim indexed by [0] (True) or [] (False), an
            # advanced index that broadcasts with the others (x[True, True] is (1, ...)).
            y = unsqueeze(y, d)
            adv.append((d, [_C.arange(0, 1 if v else 0, 1, None)]))
            d += 1
        elif kind == "mask":
            shape = tuple(y.shape[d : d + v.ndim])
            if tuple(v.shape) != shape:
                raise IndexError(
                    f"The shape of the mask {list(v.shape)} at index {d} does not match the "
                    f"shape of the indexed tensor {list(shape)} at index {d}"
                )
            nz = _C.nonzero(v)
            adv.append((d, [_C.select(nz, 1, i) for i in range(v.ndim)]))
            d += v.ndim
        else:  # adv
            adv.append((d, [v]))
            d += 1
    return y, adv


def _front(y: Tensor, adv: list) -> tuple:
    """Permute advanced dims to the front: (view, index tensors, dims before, adjacent?)."""
    dims, idx = [], []
    for d, tensors in adv:
        for k, it in enumerate(tensors):
            dims.append(d + k)
            idx.append(it)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    rest = [i for i in range(y.ndim) if i not in dims]
    order = dims + rest
    if order != list(range(y.ndim)):
        y = permute(y, order)
    return y, idx, dims[0], adjacent


def getitem(t: Tensor, idx: Any) -> Tensor:
    if type(idx) is int:  # the common case: one view, no parsing
        if t.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` to convert it")
        r = _C.select(t, 0, idx)  # the core checks the range (IndexError)
        if needs_grad(t):
            record("select", (t,), r, dim=0, index=idx + t.size(0) if idx < 0 else idx)
        return r
    y, adv = _apply_basic(t, _entries(t, idx))
    if not adv:
        if y is t:
            return _alias_view(t)
        return y
    y, idx_tensors, first, adjacent = _front(y, adv)
    r = _C.index(y, idx_tensors)
    if needs_grad(y):
        record("index", (y, *idx_tensors), r)
    nb = r.ndim - (y.ndim - len(idx_tensors))  # broadcast index dims
    if adjacent and first > 0 and nb > 0:
        r = movedim(r, list(range(nb)), list(range(first, first + nb)))
    return r


def value_tensor(value: Any, like: Tensor) -> Tensor:
    """The value of an assignment as a tensor of like's dtype."""
    if isinstance(value, TensorBase):
        return value
    return tensor(value, dtype=like.dtype)


def index_tensors(t: Tensor, indices: Any) -> list:
    """index_put_'s indices: a tuple of index tensors (bool masks expanded)."""
    if isinstance(indices, TensorBase) or not isinstance(indices, (list, tuple)):
        indices = (indices,)
    out = []
    for x in indices:
        it = _as_index_tensor(x)
        if _is_bool_tensor(it):
            nz = _C.nonzero(it)
            out.extend(_C.select(nz, 1, i) for i in range(it.ndim))
        else:
            out.append(it)
    return out


def setitem(t: Tensor, idx: Any, value: Any) -> None:
    if needs_grad(t, value) if isinstance(value, TensorBase) else needs_grad(t):
        _setitem_grad(t, idx, value)
        return
    _setitem(t, idx, value)


def _setitem_grad(t: Tensor, idx: Any, value: Any) -> None:
    """t[idx] = value recorded as one in-place op on t (torch's CopySlices): gradient flows
    to t outside idx and to value from inside idx."""
    _autograd_link.autograd().graph.check_inplace(t)  # the leaf check only: views are refused below
    m = t._ag
    if m is not None and m.base is not None:  # checked before writing: t stays intact
        raise NotImplementedError(
            "autograd: assigning into a view of a tensor that requires grad is not supported "
            "(the base tensor's history would need rewriting); index the base tensor "
            "directly (base[i, j] = v rather than base[i][j] = v) or clone() the view first"
        )
    with no_grad():
        _setitem(t, idx, value)
    record("setitem_", (t, value), t, idx=idx)


def _setitem(t: Tensor, idx: Any, value: Any) -> None:
    scalar = isinstance(value, (int, float, bool)) or (
        isinstance(value, TensorBase) and value.ndim == 0 and not value._requires_grad
    )
    if isinstance(idx, TensorBase) and _is_bool_tensor(idx) and scalar and idx.shape == t.shape:
        masked_fill_(t, idx, value.item() if isinstance(value, TensorBase) else value)
        return
    y, adv = _apply_basic(t, _entries(t, idx))
    if not adv:
        if scalar and not isinstance(value, TensorBase):
            fill_(y, value)
        else:
            copy_(y, value_tensor(value, t))
        return
    y, idx_tensors, first, adjacent = _front(y, adv)
    v = value_tensor(value, t)
    # The value broadcasts against the indexing result in numpy's layout; bring it to
    # the index-first layout that index_put_ expects.
    rest = tuple(y.shape[len(idx_tensors) :])
    bs = _broadcast_shape([tuple(i.shape) for i in idx_tensors])
    nb = len(bs)
    if adjacent and first > 0 and nb > 0:
        full_shape = rest[:first] + bs + rest[first:]
        v = expand(v, full_shape) if tuple(v.shape) != full_shape else v
        v = movedim(v, list(range(first, first + nb)), list(range(nb)))
    index_put_(y, tuple(idx_tensors), v)


def _broadcast_shape(shapes: list) -> tuple:
    return tuple(broadcast_shapes(*shapes))


def index_put_(self: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """self[indices] = values (+= with accumulate); indices is a tuple of index tensors."""
    idx = index_tensors(self, indices)
    vals = value_tensor(values, self)
    g = needs_grad(self, vals)
    if g:
        check_inplace(self)
    _C.index_put_(self, idx, vals, accumulate)
    if g:
        record("index_put_", (self, *idx, vals), self, accumulate=bool(accumulate))
    return self


def index_put(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    return index_put_(clone(input), indices, values, accumulate)
