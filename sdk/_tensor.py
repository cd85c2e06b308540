"""sdk.Tensor: the Python face of _C.TensorBase (methods delegate to the public functions).

Arithmetic operators live in C on TensorBase (fast path without autograd); this class
must not define them. Instances are created by C (never through __init__): users call
sdk.tensor(data), sdk.empty(*size), sdk.zeros(...), sdk.from_numpy(array).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from sdk import (
    _C,
    _indexing,
    _interop,
    _ops_compose,
    _ops_creation,
    _ops_elementwise,
    _ops_layout,
    _ops_math,
    _ops_random,
    _ops_reduce,
    _ops_scatter,
    _ops_shape,
    _ops_sort,
)
from sdk._dtype import as_dtype, device, dtype, float16, float32, float64, int32, int64
from sdk._dtype import bfloat16 as _bfloat16
from sdk._dtype import bool_ as _bool
from sdk._dtype import int16 as _int16
from sdk._dtype import uint8 as _uint8

__all__ = ["Tensor"]

_M, _R, _S = _ops_math, _ops_reduce, _ops_shape
_L, _X, _O = _ops_layout, _ops_scatter, _ops_sort


def _graph() -> Any:
    from sdk.autograd import graph

    return graph


class Tensor(_C.TensorBase):
    """A strided view of typed memory, with autograd state (see sdk.autograd)."""

    __slots__ = ()
    __array_priority__ = 1000  # numpy defers to our reflected operators

    # ------------------------------------------------------------------ autograd

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        _graph().set_requires_grad(self, value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        return _graph().set_requires_grad(self, requires_grad)

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def backward(
        self, gradient: Tensor | None = None, retain_graph: bool | None = None,
        create_graph: bool = False, inputs: Any = None,
    ) -> None:  # fmt: skip
        """Accumulate d(self)/d(leaf) into every leaf's .grad."""
        from sdk.autograd import backward

        kwargs = {"create_graph": create_graph} if create_graph else {}
        if inputs is not None:
            kwargs["inputs"] = inputs
        backward(self, gradient, retain_graph, **kwargs)

    def detach(self) -> Tensor:
        """A tensor sharing storage, cut from the graph."""
        return _C._alias(self)

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self._requires_grad = False
        self._ag = None
        return self

    def retain_grad(self) -> None:
        _graph().retain_grad(self)

    @property
    def retains_grad(self) -> bool:
        return _graph().retains_grad(self)

    def register_hook(self, hook: Callable) -> Any:
        return _graph().register_hook(self, hook)

    @property
    def data(self) -> Tensor:
        return _C._alias(self)

    @data.setter
    def data(self, value: Tensor) -> None:
        if tuple(value.shape) != tuple(self.shape) or value.dtype is not self.dtype:
            raise RuntimeError(
                "sdk: assigning .data needs the same shape and dtype (it copies in place here)"
            )
        _C.copy_(self, value)

    # ------------------------------------------------------------------ python protocol

    def __repr__(self) -> str:
        from sdk._repr import tensor_repr

        if self.is_cuda:  # values through a host copy, as torch prints them
            text = tensor_repr(_C.detach(self.cpu()) if hasattr(_C, "detach") else self.cpu())
            return f"{text[:-1]}, device='{self.device}')"
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __getitem__(self, idx: Any) -> Tensor:
        return _indexing.getitem(self, idx)

    def __setitem__(self, idx: Any, value: Any) -> None:
        _indexing.setitem(self, idx, value)

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(_S.unbind(self, 0))

    def __contains__(self, element: Any) -> bool:
        return bool(_R.any(_M.eq(self, element)))

    def __reversed__(self) -> Tensor:
        if self.ndim == 0:
            return self
        return _C.flip(self, (0,))

    def __deepcopy__(self, memo: dict) -> Tensor:
        if id(self) in memo:
            return memo[id(self)]
        out = _C.clone(self)
        out._requires_grad = self._requires_grad
        if self.grad is not None:
            out.grad = _C.clone(self.grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, proto: Any) -> Any:
        from sdk._tensor_pickle import reduce

        return reduce(self, proto)  # protocol 5: out of band, no copy (see _tensor_pickle)

    # ------------------------------------------------------------------ conversions

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """to(dtype), to(device), to(device, dtype), to(other), with copy=False."""
        copy = bool(kwargs.pop("copy", False))
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        target = kwargs.pop("dtype", None)
        dev = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, dtype):
                target = a
            elif isinstance(a, _C.TensorBase):
                target, dev = a.dtype, a.device
            elif isinstance(a, (str, device)):
                dev = a
            elif a is None:
                continue
            else:
                target = as_dtype(a)
        out = self
        if dev is not None:
            from sdk.cuda import _move

            out = _move(self, dev)  # self when already there; differentiable
        if target is None:
            return _C.clone(out) if copy and out is self else out
        return _M.to_dtype(out, as_dtype(target), copy and out is self)

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return f"sdk.{self.dtype.name.capitalize()}Tensor"
        return self.to(as_dtype(dtype))

    def type_as(self, other: Tensor) -> Tensor:
        if not isinstance(other, _C.TensorBase):
            raise TypeError(
                f"type_as(): argument 'other' must be Tensor, not {type(other).__name__}"
            )
        return self.to(other.dtype)

    def float(self) -> Tensor:
        return self.to(float32)

    def double(self) -> Tensor:
        return self.to(float64)

    def half(self) -> Tensor:
        return self.to(float16)

    def bfloat16(self) -> Tensor:
        return self.to(_bfloat16)

    def long(self) -> Tensor:
        return self.to(int64)

    def int(self) -> Tensor:
        return self.to(int32)

    def short(self) -> Tensor:
        return self.to(_int16)

    def byte(self) -> Tensor:
        return self.to(_uint8)

    def bool(self) -> Tensor:
        return self.to(_bool)

    def cpu(self, memory_format: Any = None) -> Tensor:
        """This tensor in host memory (itself when already there)."""
        return self.to("cpu") if self.is_cuda else self

    def cuda(self, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
        """This tensor on a CUDA device (default: the current one); RuntimeError
        "CUDA is not available: <reason>" without CUDA."""
        if isinstance(device, int):
            device = f"cuda:{device}"
        return self.to("cuda" if device is None else device)

    @property
    def is_cpu(self) -> bool:
        return not self.is_cuda

    @property
    def T(self) -> Tensor:
        return _S.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        return _S.transpose(self, -2, -1)

    # ------------------------------------------------------------------ new_* helpers

    # dtype and device default to this tensor's, as in torch.

    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Tensor:
        return _ops_creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                                   **kw)  # fmt: skip

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Tensor:
        return _ops_creation.zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                                   **kw)  # fmt: skip

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Tensor:
        return _ops_creation.ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                                  **kw)  # fmt: skip

    def new_full(
        self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, **kw: Any
    ) -> Tensor:
        return _ops_creation.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self.device, **kw
        )

    def new_tensor(self, data: Any, *, dtype: Any = None, **kw: Any) -> Tensor:
        return _interop.tensor(data, dtype=dtype or self.dtype, **kw)

    def is_same_size(self, other: Tensor) -> bool:
        if not isinstance(other, _C.TensorBase):
            raise TypeError(
                f"is_same_size(): argument 'other' must be Tensor, not {type(other).__name__}"
            )
        return tuple(self.shape) == tuple(other.shape)

    def clamp_min_(self, min: Any) -> Tensor:
        return _M.clamp_(self, min=min)

    def clamp_max_(self, max: Any) -> Tensor:
        return _M.clamp_(self, max=max)

    # ------------------------------------------------------------------ ops needing order changes

    def where(self, condition: Tensor, other: Any) -> Tensor:
        return _M.where(condition, self, other)

    def random_(self, low: int = 0, high: int | None = None, *, generator: Any = None) -> Tensor:
        if high is None:
            low, high = 0, low
        return _C.randint_(self, low, high, generator)

    def apply_(self, fn: Callable) -> Tensor:
        raise NotImplementedError("apply_ is not supported")

    def dim_order(self) -> tuple:
        return tuple(sorted(range(self.ndim), key=lambda i: -self.stride(i)))


def _rebuild(
    raw: Any, dtype_name: str, shape: tuple, requires_grad: bool, order: Any = None
) -> Tensor:
    """Unpickle a tensor (see Tensor.__reduce_ex__ and sdk._tensor_pickle): the one callable
    a tensor's pickle names, so that restricted unpicklers allow exactly this. Its
    arguments come from whoever wrote the pickle; all are checked before memory is touched."""
    from sdk._tensor_pickle import rebuild

    return rebuild(raw, dtype_name, shape, requires_grad, order)


# Methods that are the public functions themselves (self is their first argument).
_METHODS = {
    **{n: getattr(_M, n) for n in (*_M.UNARY, *_M.BINARY)},  # every op of the C ABI's tables
    **{n: getattr(_M, n) for n in (
        "negative", "subtract", "multiply", "divide", "true_divide", "greater", "greater_equal",
        "less", "less_equal", "not_equal", "masked_fill", "clamp", "clip", "clamp_", "add_",
        "sub_", "mul_", "div_", "pow_", "floor_divide_", "remainder_", "fill_", "zero_", "copy_",
        "masked_fill_", "mm", "bmm", "matmul", "mv", "dot", "inner", "addmm", "rsub", "elu",
        "isnan", "isinf", "isfinite", "clamp_min", "clamp_max", "outer", "ger", "baddbmm",
        "fmod_", "hypot_", "copysign_", "xlogy_", "true_divide_",
    )},
    **_ops_elementwise.METHODS,
    **_ops_random.METHODS,
    **{n + "_": f for n, f in _M.INPLACE_UNARY.items()},
    **{n: getattr(_R, n) for n in (
        "sum", "mean", "prod", "amax", "amin", "all", "any", "max", "min", "argmax",
        "argmin", "var", "std", "softmax", "log_softmax", "logsumexp", "equal", "norm",
    )},
    **{n: getattr(_S, n) for n in (
        "view", "reshape", "view_as", "reshape_as", "transpose", "swapaxes", "swapdims", "t",
        "permute", "movedim", "moveaxis", "narrow", "select", "split", "chunk", "unbind",
        "unsqueeze", "squeeze", "expand", "expand_as", "broadcast_to", "flatten", "ravel",
        "contiguous", "clone", "index_select", "gather", "scatter_add", "scatter_add_",
        "index_add", "index_add_", "index_put_", "index_put", "nonzero", "argwhere",
    )},
    # sorting, scans, scatter/index, reordering
    **{n: getattr(_L, n) for n in (
        "flip", "fliplr", "flipud", "roll", "tril", "triu", "tril_", "triu_", "diagonal", "diag",
        "diag_embed", "diagflat", "repeat_interleave", "unfold", "resize_", "resize_as_",
    )},
    **{n: getattr(_ops_compose, n) for n in ("repeat", "tile", "unflatten", "as_strided")},
    **{n: getattr(_X, n) for n in (
        "scatter", "scatter_", "scatter_reduce", "scatter_reduce_", "index_copy", "index_copy_",
        "index_fill", "index_fill_", "masked_select", "masked_scatter", "masked_scatter_",
        "take", "take_along_dim",
    )},
    **{n: getattr(_O, n) for n in (
        "sort", "argsort", "msort", "topk", "kthvalue", "median", "cumsum", "cumprod", "cumsum_",
        "cumprod_", "cummax", "cummin", "unique",
    )},
    "numpy": _interop.numpy,
    "__dlpack__": _interop.__dlpack__,
    "__dlpack_device__": _interop.__dlpack_device__,
    "normal_": _ops_creation.normal_,
    "uniform_": _ops_creation.uniform_,
}  # fmt: skip

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.clip_ = Tensor.clamp_
del _name, _fn
