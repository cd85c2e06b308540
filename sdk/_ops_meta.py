"""The meta device: tensors with a shape and a dtype and no data, for shape functions.

A shape function (sdk.library.register_fake) is written like an op over tensors
(``lambda a, b: sdk.empty_like(a)``) and runs on MetaTensors, so one function serves sdk,
torch.compile and jax.jit. Every shape rule comes from the core, none is written again here:

- view ops run on a *proxy*: a real tensor of the meta tensor's shape whose strides are all
  0 over one element, so reshape/transpose/expand/select ... cost no memory and give the
  core's shapes and errors;
- elementwise ops run on *representatives* (all sizes 1, the same number of dims: type
  promotion depends on it) for the result's dtype, and the shapes are broadcast;
- other allowed ops (reductions, matmul, softmax, ...) run on the proxies; their results are
  reduced to shape and dtype at once.

Data never leaves: reading values (item, numpy, tolist, data_ptr, DLPack, bool()) raises
naming the meta device, and ops whose result shape depends on values are refused.
"""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk._dtype import Size, as_dtype, device, get_default_dtype
from sdk._ops_common import broadcast_shapes

META = device("meta")

# Elementwise methods: dtype from representatives, shape from broadcasting.
_ELEMENTWISE = frozenset(
    """abs neg exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh
    cosh tanh asinh acosh atanh sigmoid relu gelu silu erf erfc floor ceil round trunc frac
    sign reciprocal square logical_not bitwise_not isnan isinf isfinite
    add sub mul div true_divide floor_divide remainder fmod pow atan2 maximum minimum
    eq ne lt le gt ge logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor
    clamp clamp_min clamp_max lerp where hypot copysign xlogy nan_to_num
    float double half int long bool byte short to type_as""".split()
)
# Ops run on proxies (their result shape depends on shapes and arguments, never on values).
_ON_PROXY = frozenset(
    """reshape view view_as flatten unflatten transpose t permute movedim swapaxes expand
    expand_as broadcast_to unsqueeze squeeze select narrow slice unfold split chunk unbind
    tensor_split diagonal contiguous clone detach repeat tile flip roll
    sum mean prod amax amin max min argmax argmin std var norm all any logsumexp cumsum
    cumprod softmax log_softmax matmul mm bmm mv dot outer triu tril""".split()
)
# What reads values: refused by name, with the reason.
_DATA = frozenset(
    """item tolist numpy data_ptr untyped_storage storage __array__ __dlpack__
    __dlpack_device__ __array_interface__ __cuda_array_interface__""".split()
)


def _no_data(what: str) -> RuntimeError:
    return RuntimeError(
        f"{what}: a tensor on the meta device has a shape and a dtype but no data "
        "(shape functions may not read values)"
    )


def _proxy(shape: tuple, dtype: Any) -> Any:
    """A tensor of `shape` over one element (all strides 0): the core's view ops on it cost
    nothing."""
    one = _C.empty((1,), dtype)
    return _C.as_strided(one, tuple(shape), (0,) * len(shape), 0)


def _representative(x: Any) -> Any:
    """A ones tensor with x's number of dims and dtype (ones: no division by zero)."""
    return _C.full((1,) * x.ndim, 1, x.dtype)


class MetaTensor:
    """A tensor on the meta device: ``sdk.empty(2, 3, device="meta")``."""

    __slots__ = ("_shape", "_dtype", "_view")
    __hash__ = object.__hash__
    __sdk_meta__ = True  # how sdk._C tells a meta tensor argument of an op call

    def __init__(self, shape: Any, dtype: Any = None) -> None:
        self._shape = Size(int(s) for s in shape)
        if any(s < 0 for s in self._shape):
            raise _C.InvalidArgumentError(f"meta tensor: negative size in {list(self._shape)}")
        self._dtype = get_default_dtype() if dtype is None else as_dtype(dtype)
        self._view = None

    @classmethod
    def like(cls, t: Any, dtype: Any = None) -> MetaTensor:
        """A meta tensor with t's shape and dtype (t: any object with .shape and .dtype)."""
        return cls(tuple(t.shape), t.dtype if dtype is None else dtype)

    # ---- attributes ----
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    device = property(lambda self: META)
    ndim = property(lambda self: len(self._shape))
    is_meta = property(lambda self: True)
    is_cuda = property(lambda self: False)
    requires_grad = property(lambda self: False)
    T = property(lambda self: self.permute(*reversed(range(self.ndim))))

    def size(self, dim: int | None = None) -> Any:
        return self._shape if dim is None else self._shape[_wrap(dim, self.ndim)]

    def dim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        return self._shape.numel()

    def stride(self, dim: int | None = None) -> Any:  # meta tensors are laid out row-major
        out, acc = [], 1
        for s in reversed(self._shape):
            out.append(acc)
            acc *= max(s, 1)
        st = tuple(reversed(out))
        return st if dim is None else st[_wrap(dim, self.ndim)]

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return True

    def element_size(self) -> int:
        return self._dtype.itemsize

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __repr__(self) -> str:
        return f"tensor(..., device='meta', size={tuple(self._shape)}, dtype={self._dtype})"

    # ---- new tensors ----
    def new_empty(self, *size: Any, dtype: Any = None, **_: Any) -> MetaTensor:
        return MetaTensor(_sizes(size), dtype or self._dtype)

    new_zeros = new_ones = new_empty

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, **_: Any) -> MetaTensor:
        return MetaTensor(size, dtype or self._dtype)

    def _as_proxy(self) -> Any:
        if self._view is None:
            self._view = _proxy(self._shape, self._dtype)
        return self._view

    # ---- ops ----
    def __getattr__(self, name: str) -> Any:
        if name in _DATA:  # AttributeError for protocols probed with hasattr
            if name.startswith("__"):
                raise AttributeError(str(_no_data(f"Tensor.{name}")))
            return _refuse(name).__get__(self)
        if name in _ELEMENTWISE:
            return lambda *a, **k: _elementwise(name, self, a, k)
        if name in _ON_PROXY:
            return lambda *a, **k: _on_proxy(name, self, a, k)
        if name.endswith("_") and name[:-1] in _ELEMENTWISE:
            return lambda *a, **k: _inplace(name[:-1], self, a, k)
        if name.startswith("__"):  # a protocol probed with hasattr (numpy's __array_struct__)
            raise AttributeError(name)
        raise NotImplementedError(
            f"Tensor.{name} is not supported on the meta device (shape functions may use "
            "shape and view ops, elementwise ops, reductions and matmul; see sdk/_ops_meta.py)"
        )

    def __getitem__(self, index: Any) -> MetaTensor:
        if _has_tensor(index):
            raise NotImplementedError(
                "indexing a meta tensor with a tensor: the result's shape depends on values"
            )
        return _meta_of(self._as_proxy()[index])

    def __matmul__(self, other: Any) -> Any:
        return _on_proxy("matmul", self, (other,), {})

    def __rmatmul__(self, other: Any) -> Any:
        return _on_proxy("matmul", _meta(other), (self,), {})


def _wrap(dim: int, ndim: int) -> int:
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")  # fmt: skip
    return dim % max(ndim, 1)


def _sizes(size: tuple) -> tuple:
    return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size


def _has_tensor(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, (MetaTensor, _C.TensorBase, list)) for i in items)


def _meta(x: Any) -> MetaTensor:
    return x if isinstance(x, MetaTensor) else MetaTensor.like(x)


def _meta_of(result: Any) -> Any:
    """An op's result on proxies, as meta tensors (tuples and named tuples kept)."""
    if isinstance(result, _C.TensorBase):
        return MetaTensor(tuple(result.shape), result.dtype)
    if isinstance(result, tuple):
        items = [_meta_of(r) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
    if isinstance(result, list):
        return [_meta_of(r) for r in result]
    return result


def _unwrap(x: Any, how: Any) -> Any:
    if isinstance(x, MetaTensor):
        return how(x)
    if isinstance(x, _C.TensorBase):
        raise RuntimeError(
            "an op mixes a meta tensor with a tensor that has data (device cpu); "
            "a shape function sees only meta tensors"
        )
    if isinstance(x, (list, tuple)) and any(isinstance(v, MetaTensor) for v in x):
        return type(x)(_unwrap(v, how) for v in x)
    return x


def _elementwise(name: str, self: MetaTensor, args: tuple, kwargs: dict) -> MetaTensor:
    """dtype: the op on representatives; shape: the inputs' shapes broadcast."""
    if name in ("to", "type_as"):
        return _convert(self, name, args, kwargs)
    metas = [self] + [a for a in (*args, *kwargs.values()) if isinstance(a, MetaTensor)]
    rep = _representative(self)
    rep_args = tuple(_unwrap(a, _representative) for a in args)
    rep_kwargs = {k: _unwrap(v, _representative) for k, v in kwargs.items()}
    out = getattr(rep, name)(*rep_args, **rep_kwargs)
    return MetaTensor(broadcast_shapes(*(m.shape for m in metas)), out.dtype)


def _inplace(name: str, self: MetaTensor, args: tuple, kwargs: dict) -> MetaTensor:
    """self.<op>_(...): checks that the result keeps self's shape and dtype; returns self."""
    out = _elementwise(name, self, args, kwargs)
    if out.shape != self.shape:
        raise RuntimeError(
            f"{name}_: output with shape {list(self.shape)} doesn't match the broadcast "
            f"shape {list(out.shape)}"
        )
    return self


def _convert(self: MetaTensor, name: str, args: tuple, kwargs: dict) -> MetaTensor:
    if name == "type_as":
        return MetaTensor(self.shape, _meta(args[0]).dtype)
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, MetaTensor):
            dtype = a.dtype
        elif a is not None and not isinstance(a, (str, device)):
            dtype = a
        elif a is not None and device(a) != META:
            raise RuntimeError(f"Tensor.to({a!r}): a meta tensor stays on the meta device")
    return MetaTensor(self.shape, self.dtype if dtype is None else dtype)


def _on_proxy(name: str, self: MetaTensor, args: tuple, kwargs: dict) -> Any:
    p_args = tuple(_unwrap(a, MetaTensor._as_proxy) for a in args)
    p_kwargs = {k: _unwrap(v, MetaTensor._as_proxy) for k, v in kwargs.items()}
    return _meta_of(getattr(self._as_proxy(), name)(*p_args, **p_kwargs))


def _dunder(name: str, reflected: bool = False) -> Any:
    def method(self: MetaTensor, *args: Any) -> Any:
        if reflected:  # number <op> meta: the op with the number first
            rep = _C.full((), args[0], None) if not isinstance(args[0], MetaTensor) else None
            if rep is not None:
                out = getattr(rep, name)(_representative(self))
                return MetaTensor(self.shape, out.dtype)
        return _elementwise_dunder(name, self, args)

    method.__name__ = name
    return method


def _elementwise_dunder(name: str, self: MetaTensor, args: tuple) -> Any:
    rep_args = tuple(_unwrap(a, _representative) for a in args)
    out = getattr(_representative(self), name)(*rep_args)
    if out is NotImplemented:
        return NotImplemented
    shapes = [self.shape] + [a.shape for a in args if isinstance(a, MetaTensor)]
    return MetaTensor(broadcast_shapes(*shapes), out.dtype)


for _name in """__add__ __sub__ __mul__ __truediv__ __floordiv__ __mod__ __pow__ __and__ __or__
    __xor__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __neg__ __abs__ __invert__ __pos__""".split():
    setattr(MetaTensor, _name, _dunder(_name))
for _name in "__radd__ __rsub__ __rmul__ __rtruediv__ __rfloordiv__ __rpow__".split():
    setattr(MetaTensor, _name, _dunder(_name.replace("__r", "__", 1), reflected=True))


def _refuse(name: str) -> Any:
    def method(self: MetaTensor, *args: Any, **kwargs: Any) -> Any:
        raise _no_data(f"Tensor.{name}")

    method.__name__ = name
    return method


for _name in ("__float__", "__int__", "__index__", "__bool__", "__complex__", "__array__"):
    setattr(MetaTensor, _name, _refuse(_name))


def to_meta(value: Any, schema_type: str) -> Any:
    """A shape function's view of an argument: tensors (anything with .shape and .dtype)
    become meta tensors; other values stay."""
    if not schema_type.startswith("Tensor") or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [to_meta(v, "Tensor") for v in value]
    if isinstance(value, MetaTensor):
        return value
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        raise TypeError(f"expected a tensor (something with .shape and .dtype), got {value!r}")
    return MetaTensor(tuple(value.shape), sdk_dtype(value.dtype))


def sdk_dtype(d: Any) -> Any:
    """sdk's dtype for an sdk, numpy, torch or jax dtype."""
    try:
        return as_dtype(d)
    except TypeError:
        return as_dtype(str(d).rsplit(".", 1)[-1])  # torch.float32 -> "float32"


def is_meta(dev: Any) -> bool:
    """Whether a device= argument names the meta device."""
    return dev is not None and (dev == "meta" or (isinstance(dev, device) and dev.type == "meta"))


def factory(name: str, args: tuple, kwargs: dict) -> MetaTensor:
    """sdk.<name>(..., device="meta") / sdk.<name>_like(meta): a meta tensor."""
    dtype = kwargs.get("dtype")
    if kwargs.get("requires_grad"):
        raise RuntimeError(f"{name}(): a meta tensor cannot require grad")
    if name.endswith("_like"):
        like = _meta(args[0])
        return MetaTensor(like.shape, like.dtype if dtype is None else dtype)
    if name in ("full", "empty_strided"):
        if name == "full" and dtype is None and not isinstance(args[1], float):
            dtype = _C.full((), args[1], None).dtype  # the fill value's type
        return MetaTensor(args[0], dtype)
    if name in ("empty", "zeros", "ones"):
        return MetaTensor(_sizes(args), dtype)
    raise NotImplementedError(f"{name}(): device='meta' is not supported")
